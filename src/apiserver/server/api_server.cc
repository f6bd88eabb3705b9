#include "apiserver/server/api_server.h"

#include <spdlog/spdlog.h>

#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "apiserver/discovery/discovery.h"
#include "apiserver/http/auth.h"
#include "apiserver/http/server.h"
#include "apiserver/loopback/loopback_clientset.h"
#include "apiserver/openapi/openapi.h"
#include "apiserver/patch/patch.h"
#include "apiserver/pki/data_dir_lock.h"
#include "apiserver/pki/kubeconfig.h"
#include "apiserver/pki/pki.h"
#include "apiserver/rest/router.h"
#include "apiserver/server/collections.h"
#include "apiserver/server/housekeeping.h"
#include "storage/cache/cached_store.h"
#include "storage/rocks/rocks_store.h"

namespace svcplane::apiserver::server {

using namespace api::core::v1;
using api::coordination::v1::Lease;
using api::discovery::v1::EndpointSlice;

// Everything the server owns, in construction order (destroyed in reverse).
class ApiServerImpl {
 public:
  ApiServerOptions options;
  std::optional<pki::DataDirLock> lock;
  pki::Pki pki;
  std::unique_ptr<storage::Store> store;
  registry::RegistryContext ctx;
  std::unique_ptr<registry::Registry<Namespace>> namespaces;
  std::unique_ptr<registry::Registry<Service>> services;
  std::unique_ptr<registry::Registry<Pod>> pods;
  std::unique_ptr<registry::Registry<Node>> nodes;
  std::unique_ptr<registry::Registry<Endpoints>> endpoints;
  std::unique_ptr<registry::Registry<Event>> events;
  std::unique_ptr<registry::Registry<EndpointSlice>> slices;
  std::unique_ptr<registry::Registry<Lease>> leases;
  std::unique_ptr<client::Clientset> loopback;
  std::vector<std::unique_ptr<Collection>> collections;
  std::unique_ptr<Housekeeping> housekeeping;
  std::unique_ptr<rest::WatchHub> hub;
  std::unique_ptr<discovery::Documents> discovery_docs;
  std::unique_ptr<openapi::Documents> openapi_docs;
  std::unique_ptr<rest::Router> router;
  std::unique_ptr<http::Server> http;
  bool shut_down = false;

  ~ApiServerImpl() { Shutdown(); }

  void Shutdown() {
    if (shut_down) return;
    shut_down = true;
    if (http) http->Shutdown(std::chrono::seconds(5));
    housekeeping.reset();
    hub.reset();
  }

  template <typename T>
  void Serve(std::unique_ptr<registry::Registry<T>>& reg) {
    reg = std::make_unique<registry::Registry<T>>(ctx);
    router->Add(reg->info().group, reg->info().resource,
                std::make_unique<rest::ResourceHandler<T>>(reg.get(), hub.get()));
    collections.push_back(std::make_unique<CollectionFor<T>>(reg.get()));
  }

  Status CheckNamespace(std::string_view ns) {
    auto got = namespaces->Get("", ns);
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

  // The namespaces every cluster has; recreated at start if someone deleted them.
  void EnsureSystemNamespaces() {
    for (const char* name : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
      Namespace ns;
      ns.metadata.name = name;
      auto r = namespaces->Create("", ns, {});
      if (!r.ok() && r.status().code() != Code::kAlreadyExists) {
        spdlog::warn("creating namespace {}: {}", name, r.status().message());
      }
    }
  }
};

Result<std::unique_ptr<ApiServer>> ApiServer::Start(const ApiServerOptions& options) {
  if (options.store != "embedded") {
    return BadRequestError("--store " + options.store +
                           " is not supported yet (only \"embedded\"; etcd comes later)");
  }
  auto impl = std::make_unique<ApiServerImpl>();
  impl->options = options;
  auto lock = pki::DataDirLock::Acquire(options.data_dir);
  if (!lock.ok()) return lock.status();
  impl->lock.emplace(std::move(*lock));

  auto pki = pki::LoadOrCreatePki({.dir = options.data_dir, .listen_host = options.host});
  if (!pki.ok()) return pki.status();
  impl->pki = std::move(*pki);

  storage::rocks::RocksStoreOptions ro;
  ro.path = (std::filesystem::path(options.data_dir) / "store").string();
  storage::cache::CachedStoreOptions co;
  if (options.watch_history_events > 0) {
    ro.history.max_events = options.watch_history_events;
    ro.history.min_events = std::min(ro.history.min_events, options.watch_history_events);
    co.history.max_events = ro.history.max_events;
    co.history.min_events = ro.history.min_events;
  }
  auto rocks = storage::rocks::RocksStore::Open(ro);
  if (!rocks.ok()) return rocks.status();
  auto cached = storage::cache::CachedStore::Open(std::move(*rocks), co);
  if (!cached.ok()) return cached.status();
  impl->store = std::move(*cached);

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
  impl->Serve(impl->namespaces);
  impl->Serve(impl->services);
  impl->Serve(impl->pods);
  impl->Serve(impl->nodes);
  impl->Serve(impl->endpoints);
  impl->Serve(impl->events);
  impl->Serve(impl->slices);
  impl->Serve(impl->leases);
  impl->EnsureSystemNamespaces();
  impl->loopback = loopback::MakeLoopbackClientset(
      {impl->namespaces.get(), impl->services.get(), impl->pods.get(), impl->nodes.get(),
       impl->endpoints.get(), impl->events.get(), impl->slices.get(), impl->leases.get()},
      {.after_delete = [raw] {
        if (raw->housekeeping) raw->housekeeping->Kick();
      }});

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
  ho.cert_pem = impl->pki.serving_cert_pem;
  ho.key_pem = impl->pki.serving_key_pem;
  ho.client_ca_pem = impl->pki.ca_cert_pem;
  ho.authenticator =
      http::FirstOf({http::BearerTokenAuthenticator(impl->pki.admin_token, http::AdminIdentity()),
                     http::ClientCertAuthenticator()});
  auto server = http::Server::Start(std::move(ho), [raw](const http::Request& req) {
    http::Reply reply = raw->router->Handle(req);
    if (req.method == "DELETE") raw->housekeeping->Kick();
    return reply;
  });
  if (!server.ok()) return server.status();
  impl->http = std::move(*server);
  impl->http->SetReady(true);

  pki::KubeconfigParams kp;
  kp.server_url = pki::ServerUrl(options.host, impl->http->port());
  kp.ca_pem = impl->pki.ca_cert_pem;
  kp.token = impl->pki.admin_token;
  std::string kubeconfig = (std::filesystem::path(options.data_dir) / "kubeconfig").string();
  SVC_RETURN_IF_ERROR(pki::WriteKubeconfig(kubeconfig, kp));
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

void ApiServer::Shutdown() { impl_->Shutdown(); }

}  // namespace svcplane::apiserver::server
