#include "apiserver/server/api_server.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <boost/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "apiserver/allocator/repair.h"
#include "apiserver/allocator/service_allocator.h"
#include "apiserver/audit/context.h"
#include "apiserver/authorization/impersonation.h"
#include "apiserver/bootstrap/controller.h"
#include "apiserver/bootstrap/host_address.h"
#include "apiserver/bootstrap/identity_lease.h"
#include "apiserver/discovery/discovery.h"
#include "apiserver/http/auth.h"
#include "apiserver/http/server.h"
#include "apiserver/loopback/loopback_clientset.h"
#include "apiserver/openapi/openapi.h"
#include "apiserver/patch/patch.h"
#include "apiserver/pki/data_dir_lock.h"
#include "apiserver/pki/kubeconfig.h"
#include "apiserver/pki/pki.h"
#include "apiserver/registry/event_ttl.h"
#include "apiserver/rest/resource_handler.h"
#include "apiserver/rest/review_endpoints.h"
#include "apiserver/rest/router.h"
#include "apiserver/rest/status_body.h"
#include "apiserver/server/access_control.h"
#include "apiserver/server/admission.h"
#include "apiserver/server/cluster_join.h"
#include "apiserver/server/collections.h"
#include "apiserver/server/default_service_accounts.h"
#include "apiserver/server/housekeeping.h"
#include "apiserver/server/open_store.h"
#include "apiserver/server/snapshot_endpoint.h"
#include "apiserver/server/store_health.h"

namespace svcplane::apiserver::server {

using namespace api::core::v1;
using api::coordination::v1::Lease;
using api::discovery::v1::EndpointSlice;
using api::rbac::v1::ClusterRole;
using api::rbac::v1::ClusterRoleBinding;
using api::rbac::v1::Role;
using api::rbac::v1::RoleBinding;

namespace {

// GET /metrics: the Prometheus text format, as kube-apiserver serves it.
http::Reply MetricsReply(const http::Request& req, const MetricsRegistry& metrics) {
  if (req.method != "GET") {
    return rest::ErrorResponse(
        Status(Code::kMethodNotAllowed,
               "the server does not allow this method on the requested resource"));
  }
  http::Response r;
  r.content_type = "text/plain; version=0.0.4; charset=utf-8";
  r.body = metrics.RenderPrometheus();
  return r;
}

}  // namespace

// Everything the server owns, in construction order (destroyed in reverse).
class ApiServerImpl {
 public:
  ApiServerOptions options;
  std::optional<pki::DataDirLock> lock;
  pki::Pki pki;
  MetricsRegistry metrics;  // before the store, which counts into it until it closes
  std::unique_ptr<storage::Store> store;
  // --etcd-servers-overrides=/events#...: where Events live (null: `store`).
  std::unique_ptr<storage::Store> events_store;
  // Declared after the stores: they stop first.
  std::shared_ptr<void> store_companions;
  std::shared_ptr<StoreHealthProbe> store_health;
  std::shared_ptr<StoreHealthProbe> events_store_health;
  bool store_suspends_requests = false;
  registry::RegistryContext ctx;
  std::unique_ptr<registry::Registry<Namespace>> namespaces;
  std::unique_ptr<registry::Registry<Service>> services;
  std::unique_ptr<registry::Registry<Pod>> pods;
  std::unique_ptr<registry::Registry<Node>> nodes;
  std::unique_ptr<registry::Registry<Endpoints>> endpoints;
  std::unique_ptr<registry::Registry<Event>> events;
  std::unique_ptr<registry::Registry<EndpointSlice>> slices;
  std::unique_ptr<registry::Registry<Lease>> leases;
  std::unique_ptr<registry::Registry<Role>> roles;
  std::unique_ptr<registry::Registry<ClusterRole>> cluster_roles;
  std::unique_ptr<registry::Registry<api::apps::v1::Deployment>> deployments;
  std::unique_ptr<registry::Registry<api::apps::v1::ReplicaSet>> replica_sets;
  std::unique_ptr<registry::Registry<api::core::v1::ConfigMap>> config_maps;
  std::unique_ptr<registry::Registry<api::core::v1::Secret>> secrets;
  std::unique_ptr<registry::Registry<api::core::v1::ServiceAccount>> service_accounts;
  std::unique_ptr<registry::Registry<RoleBinding>> role_bindings;
  std::unique_ptr<registry::Registry<ClusterRoleBinding>> cluster_role_bindings;
  std::unique_ptr<allocator::ServiceAllocator> service_allocator;
  std::unique_ptr<allocator::ClusterIpRepair> ip_repair;
  std::unique_ptr<allocator::NodePortRepair> port_repair;
  std::unique_ptr<allocator::RepairLoop> repair_loop;
  std::atomic<int64_t> event_seq{0};
  std::unique_ptr<bootstrap::LeaseEndpointReconciler> lease_reconciler;
  std::unique_ptr<bootstrap::BootstrapController> bootstrap;
  std::unique_ptr<client::Clientset> loopback;
  std::unique_ptr<bootstrap::ApiServerIdentity> identity;  // declared after loopback: stops first
  std::vector<std::unique_ptr<Collection>> collections;
  std::unique_ptr<Housekeeping> housekeeping;
  std::unique_ptr<DefaultServiceAccounts> default_service_accounts;
  std::unique_ptr<registry::EventTtl> event_ttl;
  std::unique_ptr<rest::WatchHub> hub;
  std::unique_ptr<discovery::Documents> discovery_docs;
  std::unique_ptr<openapi::Documents> openapi_docs;
  std::unique_ptr<rest::RequestMetrics> request_metrics;
  std::unique_ptr<rest::Router> router;
  // --authorization-mode=Node,RBAC; null with AlwaysAllow. Before http: stops after it.
  std::unique_ptr<AccessControl> access;
  std::unique_ptr<audit::Auditor> auditor;  // null: no audit policy
  std::unique_ptr<http::Server> http;
  bool shut_down = false;

  // A request that passed authentication (and, when on, authorization).
  http::Reply Route(const http::Request& req) {
    if (req.path == "/metrics") return MetricsReply(req, metrics);
    if (req.path == kSnapshotPath) return SnapshotReply(req, *store, access != nullptr);
    http::Reply reply = router->Handle(req);
    if (req.method == "DELETE") housekeeping->Kick();
    return reply;
  }

  // Impersonation and authorization in front of Route (spec authn-authz-audit §1).
  http::Reply Handle(const http::Request& req) {
    if (!access) return Route(req);
    AccessDecision decided = access->Check(req);
    AnnotateAudit(req, decided);
    if (decided.response) return std::move(*decided.response);
    if (!decided.impersonated) return Route(req);
    // The rare impersonated request continues as a copy carrying the impersonated identity,
    // without the Impersonate-* headers (upstream removes them).
    http::Request as = req;
    as.identity = std::move(*decided.impersonated);
    std::erase_if(as.headers,
                  [](const auto& h) { return authorization::IsImpersonationHeader(h.first); });
    return Route(as);
  }

  ~ApiServerImpl() { Shutdown(); }

  void BeginShutdown() {
    if (http) http->BeginShutdown();
    // As upstream's pre-shutdown hook: our address leaves the `kubernetes` endpoints now
    // instead of when the lease expires. The identity lease is left to expire.
    if (bootstrap) bootstrap->Stop();
    if (identity) identity->Stop();
  }

  void Shutdown() {
    if (shut_down) return;
    shut_down = true;
    BeginShutdown();
    if (http) http->Shutdown(std::chrono::seconds(5));
    repair_loop.reset();
    default_service_accounts.reset();
    housekeeping.reset();
    event_ttl.reset();
    hub.reset();
  }

  template <typename T>
  void Serve(std::unique_ptr<registry::Registry<T>>& reg, storage::Store* own_store = nullptr) {
    registry::RegistryContext reg_ctx = ctx;
    if (own_store) reg_ctx.store = own_store;
    reg = std::make_unique<registry::Registry<T>>(std::move(reg_ctx));
    router->Add(reg->info().group, reg->info().resource,
                std::make_unique<rest::ResourceHandler<T>>(reg.get(), hub.get()));
    collections.push_back(std::make_unique<CollectionFor<T>>(reg.get()));
  }

  // NamespaceLifecycle admission. Upstream reads its namespace informer and looks the
  // namespace up live only when the informer lacks it; the cache read is the same trade (a
  // namespace that started terminating a moment ago on another server may still admit a
  // create, which the namespace controller then deletes).
  Status CheckNamespace(std::string_view ns) {
    auto got = namespaces->GetCached("", ns);
    if (!got.ok()) {
      if (got.status().code() == Code::kNotFound) {
        return NotFoundError("namespaces \"" + std::string(ns) + "\" not found");
      }
      return got.status();
    }
    if (got->obj->metadata.deletion_timestamp) {
      return Status(Code::kForbidden, "unable to create new content in namespace " +
                                          std::string(ns) + " because it is being terminated");
    }
    return Status::Ok();
  }

  Status FinalizeNamespace(std::string_view name) {
    auto cur = namespaces->Get("", name);
    if (!cur.ok()) return cur.status().code() == Code::kNotFound ? Status::Ok() : cur.status();
    Namespace ns = *cur->obj;
    std::erase(ns.spec.finalizers, std::string("kubernetes"));
    auto r = namespaces->Update("", name, registry::Subresource::kFinalize, std::move(ns), {});
    return r.ok() || r.status().code() == Code::kNotFound ? Status::Ok() : r.status();
  }

  // ClusterIP/NodePort allocation around every Service write.
  Status StartAllocators() {
    allocator::ServiceAllocatorOptions ao;
    std::string_view ranges = options.service_cluster_ip_range;
    while (!ranges.empty()) {
      auto comma = ranges.find(',');
      auto cidr = allocator::CidrRange::Parse(ranges.substr(0, comma));
      if (!cidr.ok())
        return BadRequestError("--service-cluster-ip-range: " + cidr.status().message());
      ao.cidrs.push_back(std::move(*cidr));
      ranges = comma == std::string_view::npos ? std::string_view() : ranges.substr(comma + 1);
    }
    if (ao.cidrs.empty() || ao.cidrs.size() > 2 ||
        (ao.cidrs.size() == 2 && ao.cidrs[0].family() == ao.cidrs[1].family())) {
      return BadRequestError(
          "--service-cluster-ip-range: expected one CIDR or two of different IP families, got \"" +
          options.service_cluster_ip_range + "\"");
    }
    auto ports = allocator::PortRange::Parse(options.service_node_port_range);
    if (!ports.ok())
      return BadRequestError("--service-node-port-range: " + ports.status().message());
    ao.node_ports = std::move(*ports);
    service_allocator = std::make_unique<allocator::ServiceAllocator>(store.get(), std::move(ao));
    registry::WriteHooks<Service> hooks;
    auto* alloc = service_allocator.get();
    hooks.begin_write = [alloc](Service& svc, const Service* old, bool dry_run) {
      return alloc->Begin(svc, old, dry_run);
    };
    hooks.after_delete = [alloc](const Service& svc) { alloc->ReleaseAll(svc); };
    services->SetHooks(std::move(hooks));
    return Status::Ok();
  }

  Result<std::vector<Service>> ListAllServices() {
    auto list = services->List("", {});
    if (!list.ok()) return list.status();
    std::vector<Service> out;
    out.reserve(list->items.size());
    for (const auto& o : list->items) out.push_back(*o.obj);
    return out;
  }

  // A core/v1 Warning Event on `svc`, as client-go's recorder writes it.
  void RecordServiceEvent(const Service& svc, std::string_view component, std::string_view reason,
                          const std::string& message) {
    const int64_t now = ctx.now_micros();
    Event ev;
    // "<name>.<UnixNano hex>" as client-go names them; the sequence keeps two events recorded
    // in one microsecond apart.
    ev.metadata.name = fmt::format("{}.{:x}", svc.metadata.name, now * 1000 + (event_seq++ % 1000));
    ev.involved_object.kind = "Service";
    ev.involved_object.namespace_ = svc.metadata.namespace_;
    ev.involved_object.name = svc.metadata.name;
    ev.involved_object.uid = svc.metadata.uid;
    ev.involved_object.api_version = "v1";
    ev.involved_object.resource_version = svc.metadata.resource_version;
    ev.reason = std::string(reason);
    ev.message = message;
    ev.type = "Warning";
    ev.source.component = std::string(component);
    ev.first_timestamp = api::meta::Time::FromUnix(now / 1000000);
    ev.last_timestamp = ev.first_timestamp;
    ev.count = 1;
    auto r = events->Create(svc.metadata.namespace_, std::move(ev), {});
    if (!r.ok()) {
      spdlog::warn("recording event {} on service {}/{}: {}", reason, svc.metadata.namespace_,
                   svc.metadata.name, r.status().message());
    }
  }

  // The repair loops: one pass now (allocations are trustworthy once it succeeded), then every
  // repair_interval.
  void StartRepair() {
    auto list = [this] { return ListAllServices(); };
    auto sink = [this](const Service& svc, std::string_view component, std::string_view reason,
                       const std::string& message) {
      RecordServiceEvent(svc, component, reason, message);
    };
    std::vector<allocator::IpAllocator*> ips;
    for (const auto& a : service_allocator->ip_allocators()) ips.push_back(a.get());
    if (options.debug_reset_allocations) {
      spdlog::warn("--debug-reset-allocations: emptying the stored allocation maps");
      std::vector<allocator::StoredRange*> ranges;
      for (auto* a : ips) ranges.push_back(&a->stored());
      ranges.push_back(&service_allocator->node_ports().stored());
      for (auto* r : ranges) {
        auto snap = r->Read();
        if (!snap.ok()) continue;
        (void)r->Write(allocator::Bitmap(r->size(), r->band_offset()), snap->revision);
      }
    }
    ip_repair = std::make_unique<allocator::ClusterIpRepair>(ips, list, sink);
    port_repair =
        std::make_unique<allocator::NodePortRepair>(&service_allocator->node_ports(), list, sink);
    repair_loop = std::make_unique<allocator::RepairLoop>(
        RealClock::Get(), options.repair_interval, [this]() -> Status {
          Status a = ip_repair->RunOnce();
          if (!a.ok()) spdlog::error("ClusterIP repair: {}", a.message());
          Status b = port_repair->RunOnce();
          if (!b.ok()) spdlog::error("NodePort repair: {}", b.message());
          return a.ok() ? b : a;
        });
    (void)repair_loop->RunNow();
    repair_loop->Start();
  }

  // The `kubernetes` Service, its endpoints and the system namespaces (bootstrap controller).
  void StartBootstrap(uint16_t secure_port) {
    bootstrap::BootstrapOptions bo;
    bo.service_ip = allocator::FormatIp(service_allocator->primary().cidr().First());
    bo.secure_port = secure_port;
    bo.public_ip = options.advertise_address.empty() ? bootstrap::AdvertiseAddressFor(options.host)
                                                     : options.advertise_address;
    if (bo.public_ip.empty()) {
      spdlog::warn("no address to advertise: the kubernetes endpoints stay empty");
    } else if (allocator::FamilyOf(bo.public_ip) != service_allocator->primary().family()) {
      spdlog::warn(
          "advertised address {} is not of the service range's family ({}): the "
          "kubernetes endpoints stay empty",
          bo.public_ip, service_allocator->primary().family());
      bo.public_ip.clear();
    }
    lease_reconciler = std::make_unique<bootstrap::LeaseEndpointReconciler>(
        store.get(), endpoints.get(), slices.get(), RealClock::Get(), bootstrap::kMasterLeaseTtl,
        /*store_expires_records=*/options.store == "etcd");
    bootstrap = std::make_unique<bootstrap::BootstrapController>(
        bootstrap::BootstrapRegistries{namespaces.get(), services.get(), endpoints.get(),
                                       slices.get()},
        lease_reconciler.get(), RealClock::Get(), bo);
    bootstrap->Start();
  }
};

namespace {

// The authenticator chain of spec authn §2.1, built once the admin token is known.
using AuthenticatorFactory = std::function<http::Authenticator(const pki::Pki& pki)>;

Result<AuthenticatorFactory> MakeAuthenticator(const ApiServerOptions& options) {
  std::shared_ptr<const http::TokenFile> tokens;
  if (!options.token_auth_file.empty()) {
    std::vector<std::string> warnings;
    auto file = http::TokenFile::Load(options.token_auth_file, &warnings);
    if (!file.ok()) return file.status();
    for (const auto& w : warnings) spdlog::warn("{}", w);
    tokens = std::make_shared<const http::TokenFile>(std::move(*file));
  }
  const bool anonymous = options.anonymous_auth;
  return AuthenticatorFactory([tokens, anonymous](const pki::Pki& pki) {
    http::Authenticator chain = http::WithAuthenticatedGroup(http::Union(
        {http::X509Authenticator(),
         http::BearerTokenAuthenticator({.fast_token = pki.admin_token,
                                         .fast_identity = http::AdminIdentity(),
                                         .tokens = tokens,
                                         .break_glass_token = pki.super_admin_token,
                                         .break_glass_identity = http::SuperAdminIdentity()})}));
    return anonymous ? http::WithAnonymous(std::move(chain)) : chain;
  });
}

Result<std::string> ReadClientCaFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream data;
  data << in.rdbuf();
  if (!in || data.str().find("-----BEGIN CERTIFICATE-----") == std::string::npos) {
    return InvalidError(
        fmt::format("--client-ca-file {}: cannot be read or holds no PEM certificate", path));
  }
  return data.str();
}

}  // namespace

Result<std::unique_ptr<ApiServer>> ApiServer::Start(const ApiServerOptions& options) {
  auto impl = std::make_unique<ApiServerImpl>();
  impl->options = options;
  // Before anything else: a broken token file must stop the server with its reason at once.
  auto authenticator = MakeAuthenticator(options);
  if (!authenticator.ok()) return authenticator.status();
  auto lock = pki::DataDirLock::Acquire(options.data_dir);
  if (!lock.ok()) return lock.status();
  impl->lock.emplace(std::move(*lock));

  auto opened = OpenStore(options, &impl->metrics);
  if (!opened.ok()) return opened.status();
  impl->store = std::move(opened->store);
  impl->store_companions = std::move(opened->companions);
  impl->store_suspends_requests = opened->suspends_requests;
  impl->store_health = std::move(opened->health);
  impl->events_store = std::move(opened->events_store);
  impl->events_store_health = std::move(opened->events_health);

  // The store first: a server joining a cluster gets its CA from there.
  std::optional<pki::ClusterSecrets> cluster;
  if (options.store == "etcd" && !options.token.empty()) {
    auto joined = JoinCluster(*impl->store, options.token, options.data_dir);
    if (!joined.ok()) return joined.status();
    cluster = std::move(*joined);
  }
  pki::PkiOptions po{.dir = options.data_dir,
                     .listen_host = options.host,
                     .extra_sans = options.tls_sans,
                     .cluster = cluster ? &*cluster : nullptr};
  // Clients reach a server of a cluster by its advertised address too (and see it listed in
  // the `kubernetes` endpoints), so the certificate names it.
  if (!options.advertise_address.empty()) po.extra_sans.push_back(options.advertise_address);
  // Audit flags fail the start before anything is served.
  auto auditor = audit::NewAuditor(options.audit);
  if (!auditor.ok()) return auditor.status();
  impl->auditor = std::move(*auditor);
  auto pki = pki::LoadOrCreatePki(po);
  if (!pki.ok()) return pki.status();
  impl->pki = std::move(*pki);

  ApiServerImpl* raw = impl.get();
  impl->ctx.store = impl->store.get();
  impl->ctx.now_micros = [] {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  impl->ctx.check_namespace = [raw](std::string_view ns) { return raw->CheckNamespace(ns); };
  impl->ctx.apply_patch = [](std::string_view content_type, std::string_view kind,
                             std::string_view current,
                             std::string_view body) -> Result<std::string> {
    auto type = patch::ParsePatchType(content_type);
    if (!type.ok()) return type.status();
    boost::system::error_code ec;
    boost::json::value doc = boost::json::parse(current, ec);
    if (ec) return InternalError("stored object is not JSON: " + ec.message());
    auto patched = patch::ApplyPatch(*type, kind, doc, body);
    if (!patched.ok()) return patched.status();
    return boost::json::serialize(*patched);
  };

  impl->hub = std::make_unique<rest::WatchHub>(options.watch_threads);
  impl->openapi_docs = std::make_unique<openapi::Documents>();
  // Discovery names the server address; the port is known only after binding, but clients
  // use serverAddressByClientCIDRs only for proxies, so the configured one is fine.
  impl->discovery_docs =
      std::make_unique<discovery::Documents>(options.host + ":" + std::to_string(options.port));
  impl->router =
      std::make_unique<rest::Router>(impl->discovery_docs.get(), impl->openapi_docs.get());
  impl->request_metrics = std::make_unique<rest::RequestMetrics>(&impl->metrics);
  impl->router->SetMetrics(impl->request_metrics.get());
  impl->Serve(impl->namespaces);
  impl->Serve(impl->services);
  impl->Serve(impl->pods);
  impl->Serve(impl->nodes);
  impl->Serve(impl->endpoints);
  impl->Serve(impl->events, impl->events_store.get());
  // On etcd, Events are written with a lease and etcd deletes them (open_store.cc).
  if (options.event_ttl > Duration::zero() && options.store != "etcd") {
    impl->event_ttl = std::make_unique<registry::EventTtl>(impl->events.get(), RealClock::Get(),
                                                           options.event_ttl);
    impl->event_ttl->Start();
  }
  impl->Serve(impl->slices);
  impl->Serve(impl->leases);
  impl->Serve(impl->roles);
  impl->Serve(impl->cluster_roles);
  impl->Serve(impl->role_bindings);
  impl->Serve(impl->cluster_role_bindings);
  impl->Serve(impl->deployments);
  impl->Serve(impl->replica_sets);
  impl->Serve(impl->config_maps);
  impl->Serve(impl->secrets);
  impl->Serve(impl->service_accounts);
  if (options.authorization_mode == "Node,RBAC") {
    impl->access = std::make_unique<AccessControl>(AccessControlRegistries{
        impl->roles.get(), impl->cluster_roles.get(), impl->role_bindings.get(),
        impl->cluster_role_bindings.get(), impl->pods.get(), impl->nodes.get()});
    SVC_RETURN_IF_ERROR(impl->access->Start(std::chrono::seconds(30)));
    // NodeRestriction and the RBAC escalation checks on users' writes (admission.h).
    InstallAdmission(
        *impl->access,
        {impl->pods.get(), impl->nodes.get(), impl->leases.get(), impl->roles.get(),
         impl->cluster_roles.get(), impl->role_bindings.get(), impl->cluster_role_bindings.get(),
         impl->services.get(), impl->endpoints.get(), impl->events.get()});
    // upstream's rbac/bootstrap-roles post-start hook, done before serving: no request is
    // ever authorized against a half-written default policy.
    SVC_RETURN_IF_ERROR(impl->access->ReconcileBootstrapPolicy());
    SVC_RETURN_IF_ERROR(
        impl->access->BindClusterAdminsOnce(std::string(http::kClusterAdminsGroup)));
  } else if (options.authorization_mode != "AlwaysAllow") {
    return BadRequestError("--authorization-mode " + options.authorization_mode +
                           " is not supported: \"Node,RBAC\" or \"AlwaysAllow\"");
  }
  // The review kinds (never stored), answered by the authorizer chain; with AlwaysAllow, as
  // upstream's AlwaysAllow authorizer answers them.
  impl->router->Add(api::authentication::v1::kGroupName, "selfsubjectreviews",
                    rest::SelfSubjectReviewEndpoint());
  if (impl->access) {
    const AccessControl* access = impl->access.get();
    impl->router->Add(api::authorization::v1::kGroupName, "selfsubjectaccessreviews",
                      rest::SelfSubjectAccessReviewEndpoint(
                          [access](const api::authorization::v1::SelfSubjectAccessReview& review,
                                   const http::Identity& user)
                              -> Result<api::authorization::v1::SubjectAccessReviewStatus> {
                            return access->ReviewAccess(review, user);
                          }));
    impl->router->Add(api::authorization::v1::kGroupName, "selfsubjectrulesreviews",
                      rest::SelfSubjectRulesReviewEndpoint(
                          [access](std::string_view ns, const http::Identity& user)
                              -> Result<api::authorization::v1::SubjectRulesReviewStatus> {
                            return access->ReviewRules(ns, user);
                          }));
  } else {
    impl->router->Add(api::authorization::v1::kGroupName, "selfsubjectaccessreviews",
                      rest::SelfSubjectAccessReviewEndpoint(rest::AlwaysAllowAccessReview));
    impl->router->Add(api::authorization::v1::kGroupName, "selfsubjectrulesreviews",
                      rest::SelfSubjectRulesReviewEndpoint(rest::AlwaysAllowRulesReview));
  }
  SVC_RETURN_IF_ERROR(impl->StartAllocators());
  bootstrap::EnsureSystemNamespaces(*impl->namespaces);
  impl->default_service_accounts = std::make_unique<DefaultServiceAccounts>(
      impl->namespaces.get(), impl->service_accounts.get());
  impl->default_service_accounts->Start();
  impl->StartRepair();
  impl->loopback = loopback::MakeLoopbackClientset(
      {impl->namespaces.get(), impl->services.get(), impl->pods.get(), impl->nodes.get(),
       impl->endpoints.get(), impl->events.get(), impl->slices.get(), impl->leases.get(),
       impl->roles.get(), impl->cluster_roles.get(), impl->role_bindings.get(),
       impl->cluster_role_bindings.get(), impl->deployments.get(), impl->replica_sets.get()},
      {.after_delete = [raw] {
        if (raw->housekeeping) raw->housekeeping->Kick();
      }});

  impl->identity = std::make_unique<bootstrap::ApiServerIdentity>(
      impl->loopback->Leases(),
      bootstrap::IdentityOptions{.hostname = options.hostname.empty() ? bootstrap::HostName()
                                                                      : options.hostname});
  impl->identity->Start();

  std::vector<Collection*> all;
  for (auto& c : impl->collections) all.push_back(c.get());
  impl->housekeeping = std::make_unique<Housekeeping>(
      all, impl->collections[0].get(),
      // Every DELETE kicks a pass at once; the periodic pass only catches objects created with
      // owners that were already gone, so it can be rare (a pass lists every object).
      [raw](std::string_view ns) { return raw->FinalizeNamespace(ns); }, std::chrono::seconds(30));

  http::ServerOptions ho;
  ho.host = options.host;
  ho.port = options.port;
  ho.io_threads = options.io_threads;
  ho.worker_threads = options.worker_threads;
  // Only a store that suspends a request fiber on its commits (base/suspend.h) may run requests
  // on the I/O threads: etcd's calls would block every connection of the thread.
  if (options.requests_on_io_threads && impl->store_suspends_requests) {
    ho.run_on_io_thread = rest::RunsOnIoThread;
  }
  ho.build_pieces_ahead = options.build_pieces_ahead;
  ho.tls_min_version = options.tls_min_version;
  ho.tls_cipher_suites = options.tls_cipher_suites;
  ho.request_timeout = std::chrono::ceil<std::chrono::milliseconds>(options.request_timeout);
  ho.read_header_timeout =
      std::chrono::ceil<std::chrono::milliseconds>(options.read_header_timeout);
  ho.max_requests_inflight = options.max_requests_inflight;
  ho.max_mutating_requests_inflight = options.max_mutating_requests_inflight;
  ho.is_long_running = rest::IsLongRunning;
  ho.health_checks = [probe = impl->store_health, events = impl->events_store_health,
                      rbac = impl->access != nullptr](std::string_view) {
    std::vector<http::HealthCheck> checks;
    if (probe) checks.push_back(probe->Check());
    if (events) checks.push_back(events->Check());
    // The policy was reconciled before the server started listening.
    if (rbac) checks.push_back({.name = "poststarthook/rbac/bootstrap-roles"});
    return checks;
  };
  ho.cert_pem = impl->pki.serving_cert_pem;
  ho.key_pem = impl->pki.serving_key_pem;
  ho.client_ca_pem = impl->pki.ca_cert_pem;
  if (!options.client_ca_file.empty()) {
    auto extra = ReadClientCaFile(options.client_ca_file);
    if (!extra.ok()) return extra.status();
    if (!ho.client_ca_pem.empty() && ho.client_ca_pem.back() != '\n') ho.client_ca_pem += '\n';
    ho.client_ca_pem += *extra;
  }
  ho.authenticator = (*authenticator)(impl->pki);
  ho.health_requires_auth = options.health_requires_auth;
  ho.unauthorized_response = [](const http::Request& req) {
    return rest::ErrorResponse(Status(Code::kUnauthorized, "Unauthorized"), {},
                               rest::AcceptsProtobuf(req.Header("Accept").value_or("")));
  };
  // As upstream, behind authentication (the HTTP layer lets only health endpoints through
  // without it).
  http::Handler handler = [raw](const http::Request& req) { return raw->Handle(req); };
  if (impl->auditor) {
    // Audit right behind authentication, in front of impersonation and authorization (spec
    // §1): they annotate the request's audit context.
    handler = impl->auditor->Wrap(std::move(handler));
    ho.on_unauthenticated = [a = impl->auditor.get()](const http::Request& req,
                                                      const http::Response& res) {
      a->LogFailedAuthentication(req, res);
    };
  }
  auto server = http::Server::Start(std::move(ho), std::move(handler));
  if (!server.ok()) return server.status();
  impl->http = std::move(*server);
  impl->StartBootstrap(impl->http->port());
  impl->http->SetReady(true);

  pki::KubeconfigParams kp;
  kp.server_url = pki::ServerUrl(options.host, impl->http->port());
  kp.ca_pem = impl->pki.ca_cert_pem;
  kp.token = impl->pki.admin_token;
  std::string kubeconfig = (std::filesystem::path(options.data_dir) / "kubeconfig").string();
  SVC_RETURN_IF_ERROR(pki::WriteKubeconfig(kubeconfig, kp));
  // Break glass: system:masters, for when the admin binding is gone (README, access control).
  kp.token = impl->pki.super_admin_token;
  kp.user_name = "super-admin";
  SVC_RETURN_IF_ERROR(pki::WriteKubeconfig(
      (std::filesystem::path(options.data_dir) / "super-admin.kubeconfig").string(), kp));
  spdlog::info("svcplane serving on {} (kubeconfig: {})", kp.server_url, kubeconfig);
  return std::unique_ptr<ApiServer>(new ApiServer(std::move(impl)));
}

ApiServer::ApiServer(std::unique_ptr<ApiServerImpl> impl) : impl_(std::move(impl)) {}
ApiServer::~ApiServer() = default;

uint16_t ApiServer::port() const { return impl_->http->port(); }

std::string ApiServer::kubeconfig_path() const {
  return (std::filesystem::path(impl_->options.data_dir) / "kubeconfig").string();
}

client::Clientset& ApiServer::loopback() { return *impl_->loopback; }

std::unique_ptr<client::Clientset> ApiServer::LoopbackAs(ComponentIdentity who) {
  return MakeIdentityClientset(*impl_->loopback, std::move(who),
                               {.access = impl_->access.get(), .auditor = impl_->auditor.get()});
}

void ApiServer::BeginShutdown() { impl_->BeginShutdown(); }

void ApiServer::Shutdown() { impl_->Shutdown(); }

}  // namespace svcplane::apiserver::server
