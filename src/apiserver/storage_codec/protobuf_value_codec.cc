#include "apiserver/storage_codec/protobuf_value_codec.h"

#include <algorithm>
#include <functional>

#include "api/codec/json.h"
#include "api/codec/protobuf.h"
#include "apiserver/allocator/range_record.h"
#include "apiserver/registry/kind_traits.h"
#include "apiserver/storage_codec/range_allocation.h"
#include "base/status.h"

namespace svcplane::apiserver::storage_codec {

using api::apps::v1::Deployment;
using api::apps::v1::ReplicaSet;
using api::coordination::v1::Lease;
using api::core::v1::ConfigMap;
using api::core::v1::Endpoints;
using api::core::v1::Event;
using api::core::v1::Namespace;
using api::core::v1::Node;
using api::core::v1::Pod;
using api::core::v1::Secret;
using api::core::v1::Service;
using api::core::v1::ServiceAccount;
using api::discovery::v1::EndpointSlice;
using api::rbac::v1::ClusterRole;
using api::rbac::v1::ClusterRoleBinding;
using api::rbac::v1::Role;
using api::rbac::v1::RoleBinding;
using Bytes = std::shared_ptr<const std::string>;

struct ProtobufValueCodec::Kind {
  std::string
      prefix;  // with the trailing '/', so "/registry/pods/" never matches "/registry/podsx"
  // The key names the object for kinds whose stored form leaves the name out.
  std::function<Result<Bytes>(std::string_view key, std::string_view json)> to_protobuf;
  std::function<Result<Bytes>(std::string_view key, std::string_view protobuf)> to_json;
};

namespace {

std::string Shrunk(std::string s) {
  s.shrink_to_fit();
  return s;
}

template <typename T>
std::unique_ptr<ProtobufValueCodec::Kind> KindFor(std::string prefix) {
  auto kind = std::make_unique<ProtobufValueCodec::Kind>();
  kind->prefix = std::move(prefix);
  kind->to_protobuf = [](std::string_view, std::string_view json) -> Result<Bytes> {
    auto obj = api::codec::DecodeJson<T>(json);
    if (!obj.ok()) return InternalError("cannot encode for storage: " + obj.status().message());
    const auto& info = registry::InfoOf<T>();
    if (obj->kind != info.kind || obj->api_version != info.GroupVersion()) {
      return InternalError("cannot store " + obj->api_version + " " + obj->kind + " as " +
                           info.GroupVersion() + " " + std::string(info.kind));
    }
    return std::make_shared<const std::string>(
        Shrunk(api::codec::EncodeProtobuf(*obj, info.GroupVersion(), info.kind)));
  };
  kind->to_json = [](std::string_view, std::string_view protobuf) -> Result<Bytes> {
    auto obj = api::codec::DecodeProtobuf<T>(protobuf);
    if (!obj.ok()) return obj.status();
    const auto& info = registry::InfoOf<T>();
    if (obj->kind != info.kind || obj->api_version != info.GroupVersion()) {
      return InternalError("stored object is " + obj->api_version + " " + obj->kind +
                           ", expected " + info.GroupVersion() + " " + std::string(info.kind));
    }
    return registry::StoredJson(*obj);
  };
  return kind;
}

// The allocators' maps: svcplane's sparse JSON record <-> kube's RangeAllocation (see
// range_allocation.h for why the conversion sits here and not in the allocator).
std::unique_ptr<ProtobufValueCodec::Kind> RangeAllocationKind() {
  auto kind = std::make_unique<ProtobufValueCodec::Kind>();
  kind->prefix = std::string(allocator::kRangesPrefix);
  kind->to_protobuf = [](std::string_view, std::string_view json) -> Result<Bytes> {
    auto stored = RangeAllocationToProtobuf(json);
    if (!stored.ok()) {
      return InternalError("cannot encode for storage: " + stored.status().message());
    }
    return std::make_shared<const std::string>(std::move(*stored));
  };
  kind->to_json = [](std::string_view key, std::string_view protobuf) -> Result<Bytes> {
    auto json = RangeAllocationToJson(key, protobuf);
    if (!json.ok()) return json.status();
    return std::make_shared<const std::string>(std::move(*json));
  };
  return kind;
}

}  // namespace

ProtobufValueCodec::ProtobufValueCodec() {
  auto prefix_of = [](const api::ResourceInfo& info) {
    return std::string(info.storage_prefix) + "/";
  };
  kinds_.push_back(KindFor<Namespace>(prefix_of(registry::InfoOf<Namespace>())));
  kinds_.push_back(KindFor<Node>(prefix_of(registry::InfoOf<Node>())));
  kinds_.push_back(KindFor<Pod>(prefix_of(registry::InfoOf<Pod>())));
  kinds_.push_back(KindFor<Service>(prefix_of(registry::InfoOf<Service>())));
  kinds_.push_back(KindFor<Endpoints>(prefix_of(registry::InfoOf<Endpoints>())));
  kinds_.push_back(KindFor<Event>(prefix_of(registry::InfoOf<Event>())));
  kinds_.push_back(KindFor<EndpointSlice>(prefix_of(registry::InfoOf<EndpointSlice>())));
  kinds_.push_back(KindFor<Lease>(prefix_of(registry::InfoOf<Lease>())));
  kinds_.push_back(KindFor<Role>(prefix_of(registry::InfoOf<Role>())));
  kinds_.push_back(KindFor<ClusterRole>(prefix_of(registry::InfoOf<ClusterRole>())));
  kinds_.push_back(KindFor<RoleBinding>(prefix_of(registry::InfoOf<RoleBinding>())));
  kinds_.push_back(KindFor<ClusterRoleBinding>(prefix_of(registry::InfoOf<ClusterRoleBinding>())));
  kinds_.push_back(KindFor<Deployment>(prefix_of(registry::InfoOf<Deployment>())));
  kinds_.push_back(KindFor<ReplicaSet>(prefix_of(registry::InfoOf<ReplicaSet>())));
  kinds_.push_back(KindFor<ConfigMap>(prefix_of(registry::InfoOf<ConfigMap>())));
  kinds_.push_back(KindFor<Secret>(prefix_of(registry::InfoOf<Secret>())));
  kinds_.push_back(KindFor<ServiceAccount>(prefix_of(registry::InfoOf<ServiceAccount>())));
  kinds_.push_back(RangeAllocationKind());
  // Upstream keeps a v1 Endpoints per API server here (bootstrap/lease_reconciler.h).
  kinds_.push_back(KindFor<Endpoints>("/registry/masterleases/"));
  std::sort(kinds_.begin(), kinds_.end(),
            [](const auto& a, const auto& b) { return a->prefix.size() > b->prefix.size(); });
}

ProtobufValueCodec::~ProtobufValueCodec() = default;

const ProtobufValueCodec::Kind* ProtobufValueCodec::KindOf(std::string_view key) const {
  for (const auto& k : kinds_) {
    if (key.starts_with(k->prefix)) return k.get();
  }
  return nullptr;
}

Result<Bytes> ProtobufValueCodec::Encode(std::string_view key, const Bytes& value) const {
  const Kind* kind = KindOf(key);
  if (!kind || !value) return value;
  return kind->to_protobuf(key, *value);
}

Result<Bytes> ProtobufValueCodec::Decode(std::string_view key, const Bytes& stored) const {
  const Kind* kind = KindOf(key);
  if (!kind || !stored) return stored;
  if (stored->starts_with(api::codec::kProtobufMagic)) {
    auto json = kind->to_json(key, *stored);
    if (!json.ok()) {
      return InternalError("stored object " + std::string(key) +
                           " does not decode: " + json.status().message());
    }
    return json;
  }
  // kube-apiserver's storage decoder also takes JSON: re-encode it as svcplane stores it, so a
  // no-op update compares equal whoever wrote the JSON.
  auto via_protobuf = kind->to_protobuf(key, *stored);
  if (!via_protobuf.ok()) {
    return InternalError("stored object " + std::string(key) +
                         " is neither protobuf nor JSON of its kind");
  }
  return kind->to_json(key, **via_protobuf);
}

}  // namespace svcplane::apiserver::storage_codec
