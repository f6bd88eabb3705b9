#include "controllers/endpointslice/event_sink.h"

#include <spdlog/spdlog.h>

namespace svcplane::controllers::endpointslice {

void LoggingEventSink::Emit(const std::string& component, const api::meta::ObjectReference& object,
                            const Event& event) {
  if (event.type == "Warning") {
    spdlog::warn("{}: {} {}/{}: {} {}", component, object.kind, object.namespace_, object.name,
                 event.reason, event.message);
  } else {
    spdlog::info("{}: {} {}/{}: {} {}", component, object.kind, object.namespace_, object.name,
                 event.reason, event.message);
  }
}

}  // namespace svcplane::controllers::endpointslice
