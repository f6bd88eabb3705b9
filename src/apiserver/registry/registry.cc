#include "apiserver/registry/types.h"

namespace svcplane::apiserver::registry {

std::string_view WatchEventTypeName(WatchEventType type) {
  switch (type) {
    case WatchEventType::kAdded:
      return "ADDED";
    case WatchEventType::kModified:
      return "MODIFIED";
    case WatchEventType::kDeleted:
      return "DELETED";
  }
  return "ERROR";
}

}  // namespace svcplane::apiserver::registry
