#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "apiserver/audit/auditor.h"
#include "apiserver/server/identity_clientset.h"
#include "base/clock.h"
#include "base/result.h"
#include "base/tls/cipher_suites.h"
#include "client/typed/interface.h"

namespace svcplane::apiserver::server {

struct ApiServerOptions {
  std::string data_dir = "./svcplane-data";
  std::string host = "127.0.0.1";
  uint16_t port = 6443;            // 0: pick a free port
  std::string store = "embedded";  // or "etcd"
  // --store etcd: kube-apiserver's flags of the same names.
  std::string etcd_servers;  // comma-separated http://, https:// or unix:// URLs
  std::string etcd_prefix = "/registry";
  std::string etcd_cafile;
  std::string etcd_certfile;
  std::string etcd_keyfile;
  // kube-apiserver's per-resource etcd: "group/resource#url;url,...". Only core Events
  // ("/events#...") may move, as kube-apiserver's usual use: their write rate then costs the main
  // etcd nothing (each server also watches them there, not in the main keyspace).
  std::string etcd_servers_overrides;
  // kube-apiserver's --authorization-mode: "Node,RBAC" (default) or "AlwaysAllow" (every
  // authenticated request may do anything, as before issue 22).
  std::string authorization_mode = "Node,RBAC";
  // How often this server takes its turn at compacting etcd's history (0: never).
  Duration etcd_compaction_interval = std::chrono::minutes(5);
  // --store etcd: the join token. The first server seals the cluster's CA and admin token with
  // it into etcd; later servers read them, so every server trusts the same clients and signs
  // its own serving certificate with the same CA (cluster_join.h). Empty: this server keeps the
  // CA of its own data folder, and others cannot join it.
  std::string token;
  // --client-ca-file: PEM bundle (one or more CAs) client certificates may be signed by, on top
  // of the data folder's own CA (which signs the admin certificate).
  std::string client_ca_file;
  // --token-auth-file: static bearer tokens (spec authn §2.3); a bad file fails Start.
  std::string token_auth_file;
  // --anonymous-auth: requests without credentials run as system:anonymous (upstream's default;
  // the bootstrap policy lets them read only /healthz, /livez, /readyz and /version).
  bool anonymous_auth = true;
  // /livez /readyz /healthz refuse clients without credentials (upstream with
  // --anonymous-auth=false; `serve` sets it then).
  bool health_requires_auth = false;
  // More names and addresses for the serving certificate (a load balancer's), as --tls-san.
  std::vector<std::string> tls_sans;
  // The host name this server's identity Lease is named after (kube-system/apiserver-<hash>);
  // empty: gethostname(). Servers sharing a machine need distinct ones.
  std::string hostname;
  int io_threads = 2;
  int worker_threads = 32;
  int watch_threads = 2;
  // Single-object requests and creates run on the I/O threads as fibers that suspend on store
  // commits (http::ServerOptions::run_on_io_thread); false: every handler runs on the workers.
  bool requests_on_io_threads = true;
  // Large response bodies (LISTs) are built one piece ahead on the workers
  // (http::ServerOptions::build_pieces_ahead).
  bool build_pieces_ahead = true;
  // The embedded store writes its WAL ahead with zeros (storage::rocks::RocksStoreOptions).
  bool prewritten_wal = true;
  // Events of watch history kept by the store (0: the defaults). Tests shrink it
  // to force "too old resource version" (410) after a few writes.
  size_t watch_history_events = 0;
  // kube-apiserver's --event-ttl: Events are deleted this long after their last write (0: kept).
  Duration event_ttl = std::chrono::hours(1);
  // ClusterIP range: one CIDR or "v4cidr,v6cidr" (dual stack; the first is primary).
  std::string service_cluster_ip_range = "10.96.0.0/12";
  std::string service_node_port_range = "30000-32767";
  // How often the ClusterIP/NodePort repair loops run (upstream: 3 min); tests shorten it.
  std::chrono::seconds repair_interval{180};
  // The address the `kubernetes` endpoints advertise; empty: --listen's host unless loopback
  // or unspecified, else the host's default-route IPv4 address (as kube-apiserver picks it).
  std::string advertise_address;
  // Hardening (spec §6), as kube-apiserver's flags of these names: --tls-min-version,
  // --tls-cipher-suites (IANA names; empty: ECDHE + AEAD only), --request-timeout,
  // --max-requests-inflight, --max-mutating-requests-inflight (0: no limit).
  base::tls::TlsVersion tls_min_version = base::tls::TlsVersion::kTls12;
  std::vector<std::string> tls_cipher_suites;
  Duration request_timeout = std::chrono::seconds(60);
  int max_requests_inflight = 400;
  int max_mutating_requests_inflight = 200;
  // Go's ReadHeaderTimeout for a connection's first request head; tests shorten it.
  Duration read_header_timeout = std::chrono::seconds(32);
  // Test hook: empty the stored allocation maps at start, before the first repair pass, so
  // that pass must rebuild them from the Services (and report each as not allocated).
  bool debug_reset_allocations = false;
  // --audit-policy-file and --audit-log-* (spec authn-authz-audit §5): off unless both a policy
  // file and a log path are given.
  audit::AuditOptions audit;
};

class ApiServerImpl;

// `svcplane serve`: the embedded durable store, the REST API over HTTPS, discovery, OpenAPI,
// and the housekeeping loops, all in one process holding one data folder.
class ApiServer {
 public:
  // Locks the data folder, opens (or creates) the store and the PKI, starts serving, writes
  // DIR/kubeconfig once ready. Errors name what failed (folder in use, store damaged, port
  // taken...).
  static Result<std::unique_ptr<ApiServer>> Start(const ApiServerOptions& options);
  ~ApiServer();

  uint16_t port() const;
  std::string kubeconfig_path() const;
  // The in-process Clientset over this server's registries (apiserver/loopback). Valid until
  // the server is destroyed; stop informers using it before Shutdown.
  client::Clientset& loopback();
  // An in-process Clientset over loopback() acting as `who`: authorized by this server's
  // --authorization-mode and audited under its policy, as the same calls over HTTPS would be
  // (identity_clientset.h). Same lifetime rules as loopback().
  std::unique_ptr<client::Clientset> LoopbackAs(ComponentIdentity who);
  // The first step of a graceful stop (spec §4.7): /readyz fails from now on, so load
  // balancers drain this server, and this server's address leaves the `kubernetes` endpoints;
  // requests are still served until Shutdown.
  void BeginShutdown();
  // Stops accepting, finishes in-flight requests, ends watches, closes the store.
  void Shutdown();

 private:
  explicit ApiServer(std::unique_ptr<ApiServerImpl> impl);
  std::unique_ptr<ApiServerImpl> impl_;
};

}  // namespace svcplane::apiserver::server
