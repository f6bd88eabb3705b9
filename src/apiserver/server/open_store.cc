#include "apiserver/server/open_store.h"

#include <algorithm>
#include <filesystem>

#include "apiserver/bootstrap/lease_reconciler.h"
#include "apiserver/server/api_server.h"
#include "apiserver/server/store_health.h"
#include "apiserver/storage_codec/protobuf_value_codec.h"
#include "storage/cache/cached_store.h"
#include "storage/etcd/compactor.h"
#include "storage/etcd/etcd_store.h"
#include "storage/rocks/rocks_store.h"

namespace svcplane::apiserver::server {

namespace {

// The embedded store serves reads and watches from memory itself (its VersionedMap is what a
// CachedStore would build), so no watch cache sits in front of it: a cache would hold a second
// copy of the state and history and cost every write two more thread hand-offs (its feeder and
// its dispatcher).
Result<OpenedStore> OpenEmbedded(const ApiServerOptions& options) {
  storage::rocks::RocksStoreOptions ro;
  ro.path = EmbeddedStorePath(options.data_dir);
  ro.prewritten_wal = options.prewritten_wal;
  if (options.watch_history_events > 0) {
    ro.history.max_events = options.watch_history_events;
    ro.history.min_events = std::min(ro.history.min_events, options.watch_history_events);
  }
  auto rocks = storage::rocks::RocksStore::Open(ro);
  if (!rocks.ok()) return rocks.status();
  return OpenedStore{.store = std::move(*rocks), .suspends_requests = true};
}

Result<std::unique_ptr<storage::etcd::EtcdStore>> OpenEtcdStore(const ApiServerOptions& options,
                                                                MetricsRegistry* metrics,
                                                                const std::string& endpoints) {
  if (endpoints.empty()) {
    return BadRequestError("--store etcd needs --etcd-servers (comma-separated URLs)");
  }
  // Our keys are kube's under the default prefix; another one would need every key rewritten.
  if (options.etcd_prefix != "/registry") {
    return BadRequestError("--etcd-prefix " + options.etcd_prefix +
                           " is not supported yet: svcplane keeps kube-apiserver's default "
                           "\"/registry\"");
  }
  storage::etcd::EtcdStoreOptions eo;
  eo.client.endpoints = endpoints;
  eo.client.ca_file = options.etcd_cafile;
  eo.client.cert_file = options.etcd_certfile;
  eo.client.key_file = options.etcd_keyfile;
  eo.probe_key = options.etcd_prefix + "/health";
  eo.metrics = metrics;
  eo.codec = std::make_shared<storage_codec::ProtobufValueCodec>();
  // kube-apiserver's TTL objects (spec §2.3): Events live --event-ttl after their last write,
  // master leases 15 s; etcd deletes them, whichever server wrote them last.
  const int64_t event_ttl =
      std::chrono::duration_cast<std::chrono::seconds>(options.event_ttl).count();
  const std::string events = options.etcd_prefix + "/events/";
  const std::string masterleases = options.etcd_prefix + "/masterleases/";
  eo.ttl_seconds = [event_ttl, events, masterleases](std::string_view key) -> int64_t {
    if (key.starts_with(events)) return event_ttl;
    if (key.starts_with(masterleases)) return bootstrap::kMasterLeaseTtl.count();
    return 0;
  };
  return storage::etcd::EtcdStore::Open(std::move(eo));
}

// One etcd cluster behind its watch cache, with its compactor and health probe.
struct CachedEtcd {
  std::unique_ptr<storage::Store> store;
  std::shared_ptr<storage::etcd::Compactor> compactor;
  std::shared_ptr<StoreHealthProbe> health;
};

Result<CachedEtcd> OpenCachedEtcd(const ApiServerOptions& options, MetricsRegistry* metrics,
                                  const std::string& endpoints, const std::string& check_name) {
  auto etcd = OpenEtcdStore(options, metrics, endpoints);
  if (!etcd.ok()) return etcd.status();
  storage::etcd::EtcdStore& raw = **etcd;

  storage::cache::CachedStoreOptions co;
  if (options.watch_history_events > 0) {
    co.history.max_events = options.watch_history_events;
    co.history.min_events = std::min(co.history.min_events, options.watch_history_events);
  }
  auto cached = storage::cache::CachedStore::Open(std::move(*etcd), co);
  if (!cached.ok()) {
    return Status(cached.status().code(),
                  "etcd at " + endpoints + ": " + cached.status().message());
  }
  CachedEtcd out;
  if (options.etcd_compaction_interval > Duration::zero()) {
    out.compactor = std::make_shared<storage::etcd::Compactor>(raw);
    out.compactor->Start(
        std::chrono::duration_cast<std::chrono::milliseconds>(options.etcd_compaction_interval));
  }
  // kube-apiserver's probe: a linearizable read with a 2 s timeout, at most once a second.
  out.health = std::make_shared<StoreHealthProbe>(
      check_name, [&raw] { return raw.CheckHealth(std::chrono::seconds(2)); },
      std::chrono::seconds(1), "etcd client connection not yet established");
  out.store = std::move(*cached);
  return out;
}

// etcd, as kube-apiserver uses it: the same keys and protobuf values (so either can read what
// the other wrote), one watch cache per server over a single whole-keyspace watch, and the
// shared compaction protocol. Its calls block their thread, so requests run on the workers.
Result<OpenedStore> OpenEtcd(const ApiServerOptions& options, MetricsRegistry* metrics) {
  auto events_servers = EventsEtcdServers(options.etcd_servers_overrides);
  if (!events_servers.ok()) return events_servers.status();
  auto main = OpenCachedEtcd(options, metrics, options.etcd_servers, "etcd");
  if (!main.ok()) return main.status();
  OpenedStore opened{.store = std::move(main->store),
                     .companions = main->compactor,
                     .health = std::move(main->health)};
  if (!events_servers->empty()) {
    // kube-apiserver names the check of each distinct override set etcd-override-<index>.
    auto events = OpenCachedEtcd(options, metrics, *events_servers, "etcd-override-0");
    if (!events.ok()) return events.status();
    opened.events_store = std::move(events->store);
    opened.events_health = std::move(events->health);
    opened.companions = std::make_shared<std::pair<std::shared_ptr<storage::etcd::Compactor>,
                                                   std::shared_ptr<storage::etcd::Compactor>>>(
        main->compactor, events->compactor);
  }
  return opened;
}

}  // namespace

std::string EmbeddedStorePath(const std::string& data_dir) {
  return (std::filesystem::path(data_dir) / "store").string();
}

Result<std::string> EventsEtcdServers(std::string_view overrides) {
  std::string events;
  while (!overrides.empty()) {
    const size_t comma = overrides.find(',');
    std::string_view entry = overrides.substr(0, comma);
    overrides = comma == std::string_view::npos ? "" : overrides.substr(comma + 1);
    const size_t hash = entry.find('#');
    if (hash == std::string_view::npos || hash + 1 == entry.size()) {
      return BadRequestError("--etcd-servers-overrides: \"" + std::string(entry) +
                             "\" is not group/resource#servers");
    }
    std::string_view resource = entry.substr(0, hash);
    if (resource != "/events") {
      return BadRequestError(
          "--etcd-servers-overrides: only core Events (\"/events#...\") may "
          "use other etcd servers, not \"" +
          std::string(resource) + "\"");
    }
    // Servers are ';'-separated there, ',' in --etcd-servers.
    std::string servers(entry.substr(hash + 1));
    std::replace(servers.begin(), servers.end(), ';', ',');
    events = std::move(servers);
  }
  return events;
}

Result<std::unique_ptr<storage::Store>> OpenEtcdBackend(const ApiServerOptions& options,
                                                        MetricsRegistry* metrics) {
  auto etcd = OpenEtcdStore(options, metrics, options.etcd_servers);
  if (!etcd.ok()) return etcd.status();
  return std::unique_ptr<storage::Store>(std::move(*etcd));
}

Result<OpenedStore> OpenStore(const ApiServerOptions& options, MetricsRegistry* metrics) {
  if (options.store == "embedded") return OpenEmbedded(options);
  if (options.store == "etcd") return OpenEtcd(options, metrics);
  return BadRequestError("--store " + options.store + " is not a store: \"embedded\" or \"etcd\"");
}

}  // namespace svcplane::apiserver::server
