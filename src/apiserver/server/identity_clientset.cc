#include "apiserver/server/identity_clientset.h"

#include <chrono>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "api/codec/json.h"
#include "apiserver/audit/auditor.h"
#include "apiserver/fieldmanager/field_manager.h"
#include "apiserver/registry/registry.h"
#include "apiserver/rest/status_body.h"
#include "apiserver/server/access_control.h"
#include "client/transport/rest_client.h"

namespace svcplane::apiserver::server {
namespace {

using client::ObjectPtr;
using client::transport::ResourceRef;
using Query = std::vector<std::pair<std::string, std::string>>;

// One in-process call as the REST request it stands for.
struct Call {
  std::string_view method;
  ResourceRef ref;
  Query query;
  // The request body as JSON, made only when the call is audited.
  std::function<std::string()> body;
  std::string_view content_type = "application/json";
  int success_code = 200;
};

// Runs calls as one identity through the gate.
class Gatekeeper {
 public:
  Gatekeeper(ComponentIdentity who, LoopbackGate gate)
      : who_(std::move(who)),
        gate_(gate),
        user_{who_.identity.user, who_.identity.uid, who_.identity.groups, who_.identity.extra} {}

  // The identity as the registries' admission sees it (NodeRestriction, the RBAC escalation
  // checks), as upstream admits a component's writes like anyone's.
  client::WriteOptions AsUser(client::WriteOptions o) const {
    o.user = &user_;
    if (o.field_manager.empty()) o.field_manager = who_.field_manager;
    return o;
  }
  client::DeleteOptions AsUser(client::DeleteOptions o) const {
    o.user = &user_;
    return o;
  }

  // `fn` runs only if the call is authorized; its status is the call's. A refusal is the
  // Status the REST client would have decoded from the 403 (or 400, 500).
  Status Run(Call call, const std::function<Status()>& fn) const {
    if (gate_.access == nullptr && gate_.auditor == nullptr) return fn();
    http::Request req = RequestFor(std::move(call.ref), std::move(call.query), call.method);
    if (gate_.auditor != nullptr && call.body) {
      req.body = call.body();
      req.headers.emplace_back("Content-Type", call.content_type);
    }
    Status result;
    const http::Handler handle = [&](const http::Request& r) -> http::Reply {
      if (gate_.access != nullptr) {
        AccessDecision decided = gate_.access->Check(r);
        AnnotateAudit(r, decided);
        if (decided.response) {
          result = client::transport::ErrorFromStatusJson(decided.response->body,
                                                          decided.response->status);
          return std::move(*decided.response);
        }
      }
      result = fn();
      if (result.ok()) return http::Response{.status = call.success_code, .body = {}};
      return rest::ErrorResponse(result);
    };
    if (gate_.auditor != nullptr) {
      gate_.auditor->Wrap(handle)(req);
    } else {
      handle(req);
    }
    return result;
  }

 private:
  http::Request RequestFor(ResourceRef ref, Query query, std::string_view method) const {
    http::Request req;
    req.method = std::string(method);
    req.path = client::transport::ResourcePath(ref);
    for (const auto& [k, v] : query) {
      if (!req.raw_query.empty()) req.raw_query += '&';
      req.raw_query += k;
      req.raw_query += '=';
      req.raw_query += client::transport::QueryEscape(v);
    }
    req.target = req.raw_query.empty() ? req.path : req.path + "?" + req.raw_query;
    req.query = std::move(query);
    req.headers.emplace_back("User-Agent", who_.user_agent);
    req.remote_address = "127.0.0.1:0";
    req.identity = who_.identity;
    if (gate_.auditor != nullptr) req.received_at = std::chrono::system_clock::now();
    return req;
  }

  const ComponentIdentity who_;
  const LoopbackGate gate_;
  const api::authentication::v1::UserInfo user_;
};

template <typename T>
ResourceRef RefOf(std::string_view ns, std::string_view name, std::string_view subresource = "") {
  const api::ResourceInfo& info = registry::InfoOf<T>();
  ResourceRef ref;
  ref.group = std::string(info.group);
  ref.version = std::string(info.version);
  ref.resource = std::string(info.resource);
  if (info.namespaced) ref.namespace_ = std::string(ns);
  ref.name = std::string(name);
  ref.subresource = std::string(subresource);
  return ref;
}

Query ListQuery(const client::ListOptions& o, bool watch) {
  Query q;
  if (!o.field_selector.empty()) q.emplace_back("fieldSelector", o.field_selector);
  if (!o.label_selector.empty()) q.emplace_back("labelSelector", o.label_selector);
  if (o.limit > 0) q.emplace_back("limit", std::to_string(o.limit));
  if (!o.resource_version.empty()) q.emplace_back("resourceVersion", o.resource_version);
  if (watch) q.emplace_back("watch", "1");
  return q;
}

Query WriteQuery(const client::WriteOptions& o) {
  Query q;
  if (o.dry_run) q.emplace_back("dryRun", "All");
  if (!o.field_manager.empty()) q.emplace_back("fieldManager", o.field_manager);
  return q;
}

template <typename T>
std::function<std::string()> JsonOf(const T& obj) {
  return [&obj] { return api::codec::EncodeJson(obj); };
}

template <typename T>
class GatedResourceClient final : public client::ResourceClient<T> {
 public:
  GatedResourceClient(client::ResourceClient<T>& inner, const Gatekeeper& gate)
      : inner_(inner), gate_(gate) {}

  Result<ObjectPtr<T>> Get(std::string_view ns, std::string_view name,
                           const client::GetOptions& options) override {
    return Returning([&] { return inner_.Get(ns, name, options); },
                     {.method = "GET", .ref = RefOf<T>(ns, name)});
  }

  Result<client::ObjectList<T>> List(std::string_view ns,
                                     const client::ListOptions& options) override {
    std::optional<Result<client::ObjectList<T>>> out;
    Status st = gate_.Run(
        {.method = "GET", .ref = RefOf<T>(ns, ""), .query = ListQuery(options, false)}, [&] {
          out = inner_.List(ns, options);
          return out->ok() ? Status::Ok() : out->status();
        });
    if (!st.ok()) return st;
    return std::move(*out);
  }

  Status Watch(std::string_view ns, const client::ListOptions& options,
               const client::WatchEventHandler<T>& handler, client::CancelToken& cancel) override {
    return gate_.Run({.method = "GET", .ref = RefOf<T>(ns, ""), .query = ListQuery(options, true)},
                     [&] { return inner_.Watch(ns, options, handler, cancel); });
  }

  Result<ObjectPtr<T>> Create(const T& obj, const client::WriteOptions& options) override {
    return Returning([&] { return inner_.Create(obj, gate_.AsUser(options)); },
                     {.method = "POST",
                      .ref = RefOf<T>(obj.metadata.namespace_, ""),
                      .query = WriteQuery(options),
                      .body = JsonOf(obj),
                      .success_code = 201});
  }

  Result<ObjectPtr<T>> Update(const T& obj, const client::WriteOptions& options) override {
    return Returning([&] { return inner_.Update(obj, gate_.AsUser(options)); },
                     {.method = "PUT",
                      .ref = RefOf<T>(obj.metadata.namespace_, obj.metadata.name),
                      .query = WriteQuery(options),
                      .body = JsonOf(obj)});
  }

  Result<ObjectPtr<T>> UpdateStatus(const T& obj, const client::WriteOptions& options) override {
    return Returning([&] { return inner_.UpdateStatus(obj, gate_.AsUser(options)); },
                     {.method = "PUT",
                      .ref = RefOf<T>(obj.metadata.namespace_, obj.metadata.name, "status"),
                      .query = WriteQuery(options),
                      .body = JsonOf(obj)});
  }

  Result<ObjectPtr<T>> Patch(std::string_view ns, std::string_view name, client::PatchType type,
                             std::string_view body, const client::WriteOptions& options,
                             std::string_view subresource) override {
    return Returning(
        [&] { return inner_.Patch(ns, name, type, body, gate_.AsUser(options), subresource); },
        {.method = "PATCH",
         .ref = RefOf<T>(ns, name, subresource),
         .query = WriteQuery(options),
         .body = [body] { return std::string(body); },
         .content_type = client::transport::PatchContentType(type)});
  }

  Status Delete(std::string_view ns, std::string_view name,
                const client::DeleteOptions& options) override {
    Query q;
    if (options.dry_run) q.emplace_back("dryRun", "All");
    return gate_.Run({.method = "DELETE", .ref = RefOf<T>(ns, name), .query = std::move(q)},
                     [&] { return inner_.Delete(ns, name, gate_.AsUser(options)); });
  }

 private:
  // Runs a call that returns an object.
  template <typename Fn>
  Result<ObjectPtr<T>> Returning(Fn&& fn, Call call) {
    std::optional<Result<ObjectPtr<T>>> out;
    Status st = gate_.Run(std::move(call), [&] {
      out = fn();
      return out->ok() ? Status::Ok() : out->status();
    });
    if (!st.ok()) return st;
    return std::move(*out);
  }

  client::ResourceClient<T>& inner_;
  const Gatekeeper& gate_;
};

class IdentityClientset final : public client::Clientset {
 public:
  IdentityClientset(client::Clientset& inner, ComponentIdentity who, LoopbackGate gate)
      : inner_(inner),
        gate_(std::move(who), gate),
        namespaces_(inner.Namespaces(), gate_),
        services_(inner.Services(), gate_),
        pods_(inner.Pods(), gate_),
        nodes_(inner.Nodes(), gate_),
        endpoints_(inner.Endpoints(), gate_),
        events_(inner.Events(), gate_),
        slices_(inner.EndpointSlices(), gate_),
        leases_(inner.Leases(), gate_),
        roles_(inner.Roles(), gate_),
        cluster_roles_(inner.ClusterRoles(), gate_),
        role_bindings_(inner.RoleBindings(), gate_),
        cluster_role_bindings_(inner.ClusterRoleBindings(), gate_),
        deployments_(inner.Deployments(), gate_),
        replica_sets_(inner.ReplicaSets(), gate_) {}

  client::ResourceClient<api::core::v1::Namespace>& Namespaces() override { return namespaces_; }
  client::ResourceClient<api::core::v1::Service>& Services() override { return services_; }
  client::ResourceClient<api::core::v1::Pod>& Pods() override { return pods_; }
  client::ResourceClient<api::core::v1::Node>& Nodes() override { return nodes_; }
  client::ResourceClient<api::core::v1::Endpoints>& Endpoints() override { return endpoints_; }
  client::ResourceClient<api::core::v1::Event>& Events() override { return events_; }
  client::ResourceClient<api::discovery::v1::EndpointSlice>& EndpointSlices() override {
    return slices_;
  }
  client::ResourceClient<api::coordination::v1::Lease>& Leases() override { return leases_; }
  client::ResourceClient<api::rbac::v1::Role>& Roles() override { return roles_; }
  client::ResourceClient<api::rbac::v1::ClusterRole>& ClusterRoles() override {
    return cluster_roles_;
  }
  client::ResourceClient<api::rbac::v1::RoleBinding>& RoleBindings() override {
    return role_bindings_;
  }
  client::ResourceClient<api::rbac::v1::ClusterRoleBinding>& ClusterRoleBindings() override {
    return cluster_role_bindings_;
  }
  client::ResourceClient<api::apps::v1::Deployment>& Deployments() override { return deployments_; }
  client::ResourceClient<api::apps::v1::ReplicaSet>& ReplicaSets() override {
    return replica_sets_;
  }

  Status BindPod(std::string_view ns, std::string_view name, std::string_view node,
                 std::string_view uid) override {
    const api::core::v1::Binding binding = api::core::v1::BindingOf(ns, name, node, uid);
    return gate_.Run({.method = "POST",
                      .ref = RefOf<api::core::v1::Pod>(ns, name, "binding"),
                      .body = [&binding] { return api::codec::EncodeJson(binding); },
                      .success_code = 201},
                     [&] { return inner_.BindPod(ns, name, node, uid); });
  }

 private:
  client::Clientset& inner_;
  const Gatekeeper gate_;
  GatedResourceClient<api::core::v1::Namespace> namespaces_;
  GatedResourceClient<api::core::v1::Service> services_;
  GatedResourceClient<api::core::v1::Pod> pods_;
  GatedResourceClient<api::core::v1::Node> nodes_;
  GatedResourceClient<api::core::v1::Endpoints> endpoints_;
  GatedResourceClient<api::core::v1::Event> events_;
  GatedResourceClient<api::discovery::v1::EndpointSlice> slices_;
  GatedResourceClient<api::coordination::v1::Lease> leases_;
  GatedResourceClient<api::rbac::v1::Role> roles_;
  GatedResourceClient<api::rbac::v1::ClusterRole> cluster_roles_;
  GatedResourceClient<api::rbac::v1::RoleBinding> role_bindings_;
  GatedResourceClient<api::rbac::v1::ClusterRoleBinding> cluster_role_bindings_;
  GatedResourceClient<api::apps::v1::Deployment> deployments_;
  GatedResourceClient<api::apps::v1::ReplicaSet> replica_sets_;
};

}  // namespace

ComponentIdentity ServiceAccountIdentity(std::string_view ns, std::string_view name) {
  ComponentIdentity who;
  who.identity.user = fmt::format("system:serviceaccount:{}:{}", ns, name);
  who.identity.groups = {"system:serviceaccounts", fmt::format("system:serviceaccounts:{}", ns),
                         "system:authenticated"};
  who.user_agent = fmt::format("svcplane/in-process {}", name);
  who.field_manager = std::string(name);
  return who;
}

ComponentIdentity NodeIdentity(std::string_view node_name) {
  ComponentIdentity who;
  who.identity.user = fmt::format("system:node:{}", node_name);
  who.identity.groups = {"system:nodes", "system:authenticated"};
  who.user_agent = "svcplane/in-process node-simulator";
  who.field_manager = "kubelet";  // upstream's kubelet writes as manager "kubelet"
  return who;
}

ComponentIdentity UserIdentity(std::string_view user, std::vector<std::string> groups,
                               std::string_view user_agent, std::string_view field_manager) {
  ComponentIdentity who;
  who.identity.user = std::string(user);
  who.identity.groups = std::move(groups);
  who.identity.groups.push_back("system:authenticated");
  who.user_agent = std::string(user_agent);
  who.field_manager = field_manager.empty() ? fieldmanager::ManagerFromUserAgent(user_agent)
                                            : std::string(field_manager);
  return who;
}

std::unique_ptr<client::Clientset> MakeIdentityClientset(client::Clientset& inner,
                                                         ComponentIdentity who, LoopbackGate gate) {
  return std::make_unique<IdentityClientset>(inner, std::move(who), gate);
}

}  // namespace svcplane::apiserver::server
