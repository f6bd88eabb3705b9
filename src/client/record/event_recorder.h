#pragma once

// What controllers take to report Events (client-go's record.EventRecorder), and where the
// recorder writes them (record.EventSink). The implementation is EventBroadcaster
// (event_broadcaster.h): asynchronous, correlated (aggregation + spam filter) and bounded.

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <utility>

#include "api/types.h"
#include "client/typed/interface.h"

namespace svcplane::client::record {

// core/v1 event types.
inline constexpr char kEventTypeNormal[] = "Normal";
inline constexpr char kEventTypeWarning[] = "Warning";

// Reports events about objects. Safe from any thread; never blocks the caller: the event is
// queued and written in the background, or dropped when the queue is full (events are best
// effort, as upstream's).
class EventRecorder {
 public:
  virtual ~EventRecorder() = default;

  // `type` is kEventTypeNormal or kEventTypeWarning (anything else is logged and dropped);
  // `reason` is a short UpperCamelCase machine word ("FailedToUpdateEndpointSlices").
  virtual void Event(const api::meta::ObjectReference& object, std::string_view type,
                     std::string_view reason, std::string message) = 0;

  template <typename... Args>
  void Eventf(const api::meta::ObjectReference& object, std::string_view type,
              std::string_view reason, fmt::format_string<Args...> format, Args&&... args) {
    Event(object, type, reason, fmt::format(format, std::forward<Args>(args)...));
  }
};

// A reference to `obj` for Event.involvedObject. Objects read from the API often lack
// kind/apiVersion (as Go's typed objects do), so the caller names them.
template <typename T>
api::meta::ObjectReference ReferenceTo(const T& obj, std::string kind, std::string api_version) {
  api::meta::ObjectReference ref;
  ref.kind = std::move(kind);
  ref.api_version = std::move(api_version);
  ref.namespace_ = obj.metadata.namespace_;
  ref.name = obj.metadata.name;
  ref.uid = obj.metadata.uid;
  ref.resource_version = obj.metadata.resource_version;
  return ref;
}

// Where correlated events are written. Safe from any thread.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual Result<ObjectPtr<api::core::v1::Event>> Create(const api::core::v1::Event& event) = 0;
  virtual Result<ObjectPtr<api::core::v1::Event>> Update(const api::core::v1::Event& event) = 0;
  // A strategic merge patch of event.metadata.namespace/name.
  virtual Result<ObjectPtr<api::core::v1::Event>> Patch(const api::core::v1::Event& event,
                                                        std::string_view patch) = 0;
};

// The sink of a typed client (client-go's EventSinkImpl).
class ClientEventSink final : public EventSink {
 public:
  explicit ClientEventSink(ResourceClient<api::core::v1::Event>& client) : client_(client) {}

  Result<ObjectPtr<api::core::v1::Event>> Create(const api::core::v1::Event& event) override {
    return client_.Create(event);
  }
  Result<ObjectPtr<api::core::v1::Event>> Update(const api::core::v1::Event& event) override {
    return client_.Update(event);
  }
  Result<ObjectPtr<api::core::v1::Event>> Patch(const api::core::v1::Event& event,
                                                std::string_view patch) override {
    return client_.Patch(event.metadata.namespace_, event.metadata.name, PatchType::kStrategicMerge,
                         patch);
  }

 private:
  ResourceClient<api::core::v1::Event>& client_;
};

}  // namespace svcplane::client::record
