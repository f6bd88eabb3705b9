#include "client/typed/rest_clientset.h"

#include <fmt/format.h>

#include <optional>
#include <utility>

#include "api/codec/json.h"
#include "api/codec/protobuf.h"
#include "api/resources.h"
#include "base/check.h"
#include "client/transport/https_transport.h"
#include "client/transport/kubeconfig.h"
#include "client/transport/list_stream.h"
#include "client/typed/list_decoder.h"

namespace svcplane::client::typed {
namespace {

using namespace api::core::v1;
using api::coordination::v1::Lease;
using api::discovery::v1::EndpointSlice;
using api::rbac::v1::ClusterRole;
using api::rbac::v1::ClusterRoleBinding;
using api::rbac::v1::Role;
using api::rbac::v1::RoleBinding;
using HttpResponseResult = Result<transport::HttpResponse>;

template <typename T>
constexpr std::string_view KindOf() {
  if constexpr (std::is_same_v<T, Namespace>) return "Namespace";
  if constexpr (std::is_same_v<T, Service>) return "Service";
  if constexpr (std::is_same_v<T, Pod>) return "Pod";
  if constexpr (std::is_same_v<T, Node>) return "Node";
  if constexpr (std::is_same_v<T, api::core::v1::Endpoints>) return "Endpoints";
  if constexpr (std::is_same_v<T, Event>) return "Event";
  if constexpr (std::is_same_v<T, EndpointSlice>) return "EndpointSlice";
  if constexpr (std::is_same_v<T, Lease>) return "Lease";
  if constexpr (std::is_same_v<T, Role>) return "Role";
  if constexpr (std::is_same_v<T, ClusterRole>) return "ClusterRole";
  if constexpr (std::is_same_v<T, RoleBinding>) return "RoleBinding";
  if constexpr (std::is_same_v<T, ClusterRoleBinding>) return "ClusterRoleBinding";
  if constexpr (std::is_same_v<T, api::apps::v1::Deployment>) return "Deployment";
  if constexpr (std::is_same_v<T, api::apps::v1::ReplicaSet>) return "ReplicaSet";
}

template <typename T>
const api::ResourceInfo& Info() {
  static const api::ResourceInfo* info = [] {
    const api::ResourceInfo* i = api::FindResourceByKind(KindOf<T>());
    SVC_CHECK(i != nullptr) << "kind missing from the resource table: " << KindOf<T>();
    return i;
  }();
  return *info;
}

template <typename T>
Result<ObjectPtr<T>> DecodeObject(const Result<std::string>& body) {
  if (!body.ok()) return body.status();
  auto obj = api::codec::DecodeJson<T>(*body);
  if (!obj.ok()) return InternalError("decoding response: " + obj.status().message());
  return ObjectPtr<T>(std::make_shared<const T>(std::move(*obj)));
}

// A negotiated response, decoded by its Content-Type (protobuf or JSON).
template <typename T>
Result<T> DecodeResponse(const HttpResponseResult& r, std::string_view what) {
  if (!r.ok()) return r.status();
  auto obj = transport::RestClient::IsProtobufResponse(*r) ? api::codec::DecodeProtobuf<T>(r->body)
                                                           : api::codec::DecodeJson<T>(r->body);
  if (!obj.ok()) return InternalError(fmt::format("decoding {}: {}", what, obj.status().message()));
  return obj;
}

template <typename T>
Result<ObjectPtr<T>> DecodeObject(const HttpResponseResult& r) {
  auto obj = DecodeResponse<T>(r, "response");
  if (!obj.ok()) return obj.status();
  return ObjectPtr<T>(std::make_shared<const T>(std::move(*obj)));
}

template <typename T>
class RestResourceClient final : public ResourceClient<T> {
 public:
  explicit RestResourceClient(transport::RestClient* rest) : rest_(rest) {}

  Result<ObjectPtr<T>> Get(std::string_view ns, std::string_view name,
                           const GetOptions& options) override {
    if (rest_->protobuf()) {
      return DecodeObject<T>(
          rest_->SendNegotiated("GET", rest_->GetTarget(Ref(ns, name), options), "", ""));
    }
    return DecodeObject<T>(rest_->Get(Ref(ns, name), options));
  }

  Result<ObjectList<T>> List(std::string_view ns, const ListOptions& options) override {
    bool streamed = false;
    auto out = StreamList(ns, options, &streamed);
    if (streamed) return out;
    auto list = [&]() -> Result<api::meta::List<T>> {
      if (rest_->protobuf()) {
        return DecodeResponse<api::meta::List<T>>(
            rest_->SendNegotiated("GET", rest_->ListTarget(Ref(ns, ""), options), "", ""), "list");
      }
      auto body = rest_->List(Ref(ns, ""), options);
      if (!body.ok()) return body.status();
      auto l = api::codec::DecodeJson<api::meta::List<T>>(*body);
      if (!l.ok()) return InternalError("decoding list: " + l.status().message());
      return l;
    }();
    if (!list.ok()) return list.status();
    return ToObjectList(std::move(*list));
  }

  static ObjectList<T> ToObjectList(api::meta::List<T> list) {
    ObjectList<T> out;
    out.items.reserve(list.items.size());
    for (T& item : list.items) out.items.push_back(std::make_shared<const T>(std::move(item)));
    out.resource_version = std::move(list.metadata.resource_version);
    out.continue_token = std::move(list.metadata.continue_);
    return out;
  }

  static Result<T> DecodeJsonItem(std::string_view item) { return api::codec::DecodeJson<T>(item); }
  static Result<T> DecodeProtobufItem(std::string_view item) {
    return api::codec::DecodeProtobufMessage<T>(item);
  }

  // The list decoded item by item while its body arrives (JSON or protobuf), so that decoding
  // overlaps the transfer (the server keeps sending into the socket buffers meanwhile) and the
  // client never holds the whole body. Big lists decode on this thread and one helper
  // (ListItemDecoder). *streamed: false if the transport cannot stream (nothing was sent).
  Result<ObjectList<T>> StreamList(std::string_view ns, const ListOptions& options,
                                   bool* streamed) {
    transport::JsonListSplitter json;
    transport::ProtobufListSplitter proto;
    std::optional<ListItemDecoder<T>> decoder;
    bool protobuf = false;
    Status split_error;
    auto on_item = [&](std::string_view item) {
      decoder->Add(item);
      return true;  // a decode error is reported at the end, with the body read to its end
    };
    auto on_bytes = [&](const transport::HttpResponse& head, std::string_view chunk) {
      if (!decoder) {
        protobuf = transport::RestClient::IsProtobufResponse(head);
        decoder.emplace(protobuf ? &DecodeProtobufItem : &DecodeJsonItem);
      }
      Status st = protobuf ? proto.Feed(chunk, on_item) : json.Feed(chunk, on_item);
      if (!st.ok()) split_error = InternalError("decoding list: " + st.message());
      return split_error.ok();
    };
    Status st =
        rest_->StreamNegotiated(rest_->ListTarget(Ref(ns, ""), options), on_bytes, streamed);
    if (!*streamed) return st;
    ObjectList<T> out;
    Status decoded = Status::Ok();
    if (decoder) {
      decoded = decoder->Finish(&out.items);
      if (!decoded.ok()) decoded = InternalError("decoding list: " + decoded.message());
    }
    if (!split_error.ok()) return split_error;
    if (!st.ok()) return st;
    if (!decoded.ok()) return decoded;
    api::meta::ListMeta meta;
    if (decoder && protobuf) {
      if (Status fin = proto.Finish(); !fin.ok()) {
        return InternalError("decoding list: " + fin.message());
      }
      auto l = api::codec::DecodeProtobufMessage<api::meta::List<T>>(proto.metadata_field());
      if (!l.ok()) return InternalError("decoding list metadata: " + l.status().message());
      meta = std::move(l->metadata);
    } else {
      if (Status fin = json.Finish(); !fin.ok()) {
        return InternalError("decoding list: " + fin.message());
      }
      if (!json.metadata().empty()) {
        auto m = api::codec::DecodeJson<api::meta::ListMeta>(json.metadata());
        if (!m.ok()) return InternalError("decoding list metadata: " + m.status().message());
        meta = std::move(*m);
      }
    }
    out.resource_version = std::move(meta.resource_version);
    out.continue_token = std::move(meta.continue_);
    return out;
  }

  Status Watch(std::string_view ns, const ListOptions& options, const WatchEventHandler<T>& handler,
               CancelToken& cancel) override {
    Status decode_error;
    auto on_event = [&](const transport::WatchFrame& raw) {
      WatchEvent<T> ev;
      if (raw.type == "ADDED") {
        ev.type = WatchEventType::kAdded;
      } else if (raw.type == "MODIFIED") {
        ev.type = WatchEventType::kModified;
      } else if (raw.type == "DELETED") {
        ev.type = WatchEventType::kDeleted;
      } else if (raw.type == "BOOKMARK") {
        ev.type = WatchEventType::kBookmark;
      } else {
        decode_error = InternalError(fmt::format("unknown watch event type \"{}\"", raw.type));
        return false;
      }
      auto obj = raw.protobuf ? api::codec::DecodeProtobuf<T>(raw.object)
                              : api::codec::DecodeJson<T>(raw.object);
      if (!obj.ok()) {
        decode_error = InternalError("decoding watch event: " + obj.status().message());
        return false;
      }
      ev.object = std::make_shared<const T>(std::move(*obj));
      return handler(std::move(ev));
    };
    Status st = rest_->WatchFrames(Ref(ns, ""), options, on_event, cancel);
    if (!decode_error.ok()) return decode_error;
    return st;
  }

  Result<ObjectPtr<T>> Create(const T& obj, const WriteOptions& options) override {
    if (rest_->protobuf()) return Write("POST", Ref(obj.metadata.namespace_, ""), obj, options);
    return DecodeObject<T>(
        rest_->Create(Ref(obj.metadata.namespace_, ""), api::codec::EncodeJson(obj), options));
  }

  Result<ObjectPtr<T>> Update(const T& obj, const WriteOptions& options) override {
    if (rest_->protobuf()) {
      return Write("PUT", Ref(obj.metadata.namespace_, obj.metadata.name), obj, options);
    }
    return DecodeObject<T>(rest_->Update(Ref(obj.metadata.namespace_, obj.metadata.name),
                                         api::codec::EncodeJson(obj), options));
  }

  Result<ObjectPtr<T>> UpdateStatus(const T& obj, const WriteOptions& options) override {
    if (rest_->protobuf()) {
      return Write("PUT", Ref(obj.metadata.namespace_, obj.metadata.name, "status"), obj, options);
    }
    return DecodeObject<T>(rest_->Update(Ref(obj.metadata.namespace_, obj.metadata.name, "status"),
                                         api::codec::EncodeJson(obj), options));
  }

  Result<ObjectPtr<T>> Patch(std::string_view ns, std::string_view name, PatchType type,
                             std::string_view body, const WriteOptions& options,
                             std::string_view subresource) override {
    // Patch bodies stay JSON / merge / strategic / apply, as upstream; the response may not.
    if (rest_->protobuf()) {
      return DecodeObject<T>(
          rest_->SendNegotiated("PATCH", rest_->WriteTarget(Ref(ns, name, subresource), options),
                                std::string(body), transport::PatchContentType(type)));
    }
    return DecodeObject<T>(
        rest_->Patch(Ref(ns, name, subresource), type, std::string(body), options));
  }

  Status Delete(std::string_view ns, std::string_view name, const DeleteOptions& options) override {
    if (rest_->protobuf()) {
      auto r =
          rest_->SendNegotiated("DELETE", transport::ResourcePath(Ref(ns, name)),
                                transport::RestClient::DeleteBody(options), "application/json");
      return r.ok() ? Status::Ok() : r.status();
    }
    auto body = rest_->Delete(Ref(ns, name), options);
    return body.ok() ? Status::Ok() : body.status();
  }

 private:
  // Create / update with a protobuf body (the object's kind and apiVersion from the table).
  Result<ObjectPtr<T>> Write(std::string method, const transport::ResourceRef& ref, const T& obj,
                             const WriteOptions& options) {
    const api::ResourceInfo& info = Info<T>();
    std::string body = api::codec::EncodeProtobuf(obj, info.GroupVersion(), info.kind);
    return DecodeObject<T>(rest_->SendNegotiated(std::move(method),
                                                 rest_->WriteTarget(ref, options), std::move(body),
                                                 api::codec::kProtobufContentType));
  }

  static transport::ResourceRef Ref(std::string_view ns, std::string_view name,
                                    std::string_view subresource = "") {
    // Cluster-scoped kinds ignore a namespace (as client-go's typed clients cannot send one).
    return RefFor<T>(Info<T>().namespaced ? ns : "", name, subresource);
  }

  transport::RestClient* rest_;
};

class RestClientset final : public Clientset {
 public:
  RestClientset(std::shared_ptr<transport::HttpTransport> transport,
                transport::RestClientOptions options)
      : rest_(std::move(transport), options),
        namespaces_(&rest_),
        services_(&rest_),
        pods_(&rest_),
        nodes_(&rest_),
        endpoints_(&rest_),
        events_(&rest_),
        slices_(&rest_),
        leases_(&rest_),
        roles_(&rest_),
        cluster_roles_(&rest_),
        role_bindings_(&rest_),
        cluster_role_bindings_(&rest_),
        deployments_(&rest_),
        replica_sets_(&rest_) {}

  ResourceClient<Namespace>& Namespaces() override { return namespaces_; }
  ResourceClient<Service>& Services() override { return services_; }
  ResourceClient<Pod>& Pods() override { return pods_; }
  ResourceClient<Node>& Nodes() override { return nodes_; }
  ResourceClient<api::core::v1::Endpoints>& Endpoints() override { return endpoints_; }
  ResourceClient<Event>& Events() override { return events_; }
  ResourceClient<EndpointSlice>& EndpointSlices() override { return slices_; }
  ResourceClient<Lease>& Leases() override { return leases_; }
  ResourceClient<Role>& Roles() override { return roles_; }
  ResourceClient<ClusterRole>& ClusterRoles() override { return cluster_roles_; }
  ResourceClient<RoleBinding>& RoleBindings() override { return role_bindings_; }
  ResourceClient<ClusterRoleBinding>& ClusterRoleBindings() override {
    return cluster_role_bindings_;
  }
  ResourceClient<api::apps::v1::Deployment>& Deployments() override { return deployments_; }
  ResourceClient<api::apps::v1::ReplicaSet>& ReplicaSets() override { return replica_sets_; }

  Status BindPod(std::string_view ns, std::string_view name, std::string_view node,
                 std::string_view uid) override {
    Binding b = api::core::v1::BindingOf(ns, name, node, uid);
    b.kind = "Binding";
    b.api_version = "v1";
    b.target.api_version = "v1";
    // The answer is a Success Status, nothing to decode.
    auto body = rest_.Create(RefFor<Pod>(ns, name, "binding"), api::codec::EncodeJson(b));
    return body.ok() ? Status::Ok() : body.status();
  }

 private:
  transport::RestClient rest_;
  RestResourceClient<Namespace> namespaces_;
  RestResourceClient<Service> services_;
  RestResourceClient<Pod> pods_;
  RestResourceClient<Node> nodes_;
  RestResourceClient<api::core::v1::Endpoints> endpoints_;
  RestResourceClient<Event> events_;
  RestResourceClient<EndpointSlice> slices_;
  RestResourceClient<Lease> leases_;
  RestResourceClient<Role> roles_;
  RestResourceClient<ClusterRole> cluster_roles_;
  RestResourceClient<RoleBinding> role_bindings_;
  RestResourceClient<ClusterRoleBinding> cluster_role_bindings_;
  RestResourceClient<api::apps::v1::Deployment> deployments_;
  RestResourceClient<api::apps::v1::ReplicaSet> replica_sets_;
};

}  // namespace

template <typename T>
transport::ResourceRef RefFor(std::string_view ns, std::string_view name,
                              std::string_view subresource) {
  const api::ResourceInfo& info = Info<T>();
  transport::ResourceRef ref;
  ref.group = std::string(info.group);
  ref.version = std::string(info.version);
  ref.resource = std::string(info.resource);
  ref.namespace_ = std::string(ns);
  ref.name = std::string(name);
  ref.subresource = std::string(subresource);
  return ref;
}

template transport::ResourceRef RefFor<Namespace>(std::string_view, std::string_view,
                                                  std::string_view);
template transport::ResourceRef RefFor<Service>(std::string_view, std::string_view,
                                                std::string_view);
template transport::ResourceRef RefFor<Pod>(std::string_view, std::string_view, std::string_view);
template transport::ResourceRef RefFor<Node>(std::string_view, std::string_view, std::string_view);
template transport::ResourceRef RefFor<api::core::v1::Endpoints>(std::string_view, std::string_view,
                                                                 std::string_view);
template transport::ResourceRef RefFor<Event>(std::string_view, std::string_view, std::string_view);
template transport::ResourceRef RefFor<EndpointSlice>(std::string_view, std::string_view,
                                                      std::string_view);
template transport::ResourceRef RefFor<Lease>(std::string_view, std::string_view, std::string_view);

std::unique_ptr<Clientset> MakeRestClientset(std::shared_ptr<transport::HttpTransport> transport,
                                             transport::RestClientOptions options) {
  return std::make_unique<RestClientset>(std::move(transport), options);
}

Result<std::unique_ptr<Clientset>> MakeRestClientsetFromKubeconfig(
    const std::string& kubeconfig_path, const std::string& context,
    transport::ContentType content_type) {
  auto config = transport::LoadKubeconfig(kubeconfig_path, context);
  if (!config.ok()) return config.status();
  auto https = transport::HttpsTransport::Create(*config);
  if (!https.ok()) return https.status();
  transport::RestClientOptions options;
  options.content_type = content_type;
  return MakeRestClientset(std::shared_ptr<transport::HttpTransport>(std::move(*https)), options);
}

}  // namespace svcplane::client::typed
