#pragma once

// metav1.NewControllerRef: the owner reference a controller puts on what it creates (an
// EndpointSlice for its Service, a ReplicaSet for its Deployment, a Pod for its ReplicaSet).

#include <string_view>

#include "api/meta/types.h"

namespace svcplane::api::meta {

// {apiVersion, kind, name, uid, controller: true, blockOwnerDeletion: true} of `owner`.
inline OwnerReference NewControllerRef(const ObjectMeta& owner, std::string_view api_version,
                                       std::string_view kind) {
  OwnerReference ref;
  ref.api_version = std::string(api_version);
  ref.kind = std::string(kind);
  ref.name = owner.name;
  ref.uid = owner.uid;
  ref.controller = true;
  ref.block_owner_deletion = true;
  return ref;
}

}  // namespace svcplane::api::meta
