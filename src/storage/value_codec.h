#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"

namespace svcplane::storage {

// How a backend shared with other programs keeps values. svcplane hands every store an object's
// JSON and expects JSON back; a backend that a kube-apiserver may also read and write (etcd) must
// hold what kube-apiserver holds there instead (protobuf in the "k8s\0" envelope). The backend
// calls Encode on every value it writes and Decode on every value it reads or watches, so the
// layers above it (the watch cache, the registries) see one form whatever the store.
//
// Keys are svcplane's ("/registry/pods/ns/name"). Safe from any thread.
class ValueCodec {
 public:
  virtual ~ValueCodec() = default;
  // The bytes to store for `value` (svcplane's JSON) at `key`.
  virtual Result<std::shared_ptr<const std::string>> Encode(
      std::string_view key, const std::shared_ptr<const std::string>& value) const = 0;
  // svcplane's JSON for `stored` bytes read at `key`, whoever wrote them.
  virtual Result<std::shared_ptr<const std::string>> Decode(
      std::string_view key, const std::shared_ptr<const std::string>& stored) const = 0;
};

}  // namespace svcplane::storage
