#pragma once

#include <string>
#include <string_view>

#include "apiserver/registry/kind_traits.h"
#include "base/status.h"

namespace svcplane::apiserver::registry {

// `Operation cannot be fulfilled on pods "x": the object has been modified; ...` (upstream's
// storage conflict message, which clients such as kubectl apply recognise and retry on).
template <typename T>
std::string ConflictMessage(std::string_view name) {
  return "Operation cannot be fulfilled on " + QualifiedResource<T>() + " \"" + std::string(name) +
         "\": the object has been modified; please apply your changes to the latest version and "
         "try again";
}

// Storage errors in the words kube-apiserver uses for them.
template <typename T>
Status MapStoreError(const Status& st, std::string_view name) {
  const std::string subject = QualifiedResource<T>() + " \"" + std::string(name) + "\"";
  switch (st.code()) {
    case Code::kNotFound:
      return NotFoundError(subject + " not found");
    case Code::kAlreadyExists:
      return AlreadyExistsError(subject + " already exists");
    case Code::kConflict:
      return ConflictError(ConflictMessage<T>(name));
    default:
      return st;
  }
}

}  // namespace svcplane::apiserver::registry
