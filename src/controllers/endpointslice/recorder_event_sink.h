#pragma once

// EventSink over client-go's EventRecorder (client/record): one per controller, wrapping the
// recorder the controller manager made for that controller's component, e.g.
//   auto recorder = ctx.events.NewRecorder({.component = "endpoint-slice-controller"});
//   RecorderEventSink sink(*recorder);

#include <string>

#include "client/record/event_recorder.h"
#include "controllers/endpointslice/event_sink.h"

namespace svcplane::controllers::endpointslice {

class RecorderEventSink final : public EventSink {
 public:
  // `recorder` must outlive the sink.
  explicit RecorderEventSink(client::record::EventRecorder& recorder) : recorder_(recorder) {}

  // The recorder carries its own source component; `component` is only used by other sinks.
  void Emit(const std::string&, const api::meta::ObjectReference& object,
            const Event& event) override {
    recorder_.Event(object, event.type, event.reason, event.message);
  }

 private:
  client::record::EventRecorder& recorder_;
};

}  // namespace svcplane::controllers::endpointslice
