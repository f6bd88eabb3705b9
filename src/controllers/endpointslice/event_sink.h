#pragma once

// Where the service-discovery controllers send their Events (Warnings on sync failures, topology
// hint notices). The event recorder (client/) implements it; tests record into a vector.

#include <mutex>
#include <string>
#include <vector>

#include "api/meta/types.h"
#include "controllers/endpointslice/topology_cache.h"  // Event

namespace svcplane::controllers::endpointslice {

// Safe from any thread. Emit must not block on the network: the recorder queues and aggregates.
class EventSink {
 public:
  virtual ~EventSink() = default;
  // `component` is the event source ("endpoint-slice-controller"...); `object` the involved
  // object (kind, namespace, name, uid, apiVersion).
  virtual void Emit(const std::string& component, const api::meta::ObjectReference& object,
                    const Event& event) = 0;
};

// Logs every event (for binaries without an event recorder).
class LoggingEventSink final : public EventSink {
 public:
  void Emit(const std::string& component, const api::meta::ObjectReference& object,
            const Event& event) override;
};

// Keeps every event, for tests.
class RecordingEventSink final : public EventSink {
 public:
  struct Record {
    std::string component;
    api::meta::ObjectReference object;
    Event event;
  };
  void Emit(const std::string& component, const api::meta::ObjectReference& object,
            const Event& event) override {
    std::lock_guard<std::mutex> l(mu_);
    records_.push_back({component, object, event});
  }
  std::vector<Record> Records() const {
    std::lock_guard<std::mutex> l(mu_);
    return records_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<Record> records_;  // guarded by mu_
};

// The ObjectReference of a typed object for Emit.
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

}  // namespace svcplane::controllers::endpointslice
