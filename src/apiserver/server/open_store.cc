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
                                                                MetricsRegistry* metrics) {
  if (options.etcd_servers.empty()) {
    return BadRequestError("--store etcd needs --etcd-servers (comma-separated URLs)");
  }
  // Our keys are kube's under the default prefix; another one would need every key rewritten.
  if (options.etcd_prefix != "/registry") {
    return BadRequestError("--etcd-prefix " + options.etcd_prefix +
                           " is not supported yet: svcplane keeps kube-apiserver's default "
                           "\"/registry\"");
  }
  storage::etcd::EtcdStoreOptions eo;
  eo.client.endpoints = options.etcd_servers;
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

// etcd, as kube-apiserver uses it: the same keys and protobuf values (so either can read what
// the other wrote), one watch cache per server over a single whole-keyspace watch, and the
// shared compaction protocol. Its calls block their thread, so requests run on the workers.
Result<OpenedStore> OpenEtcd(const ApiServerOptions& options, MetricsRegistry* metrics) {
  auto etcd = OpenEtcdStore(options, metrics);
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
                  "etcd at " + options.etcd_servers + ": " + cached.status().message());
  }
  std::shared_ptr<storage::etcd::Compactor> compactor;
  if (options.etcd_compaction_interval > Duration::zero()) {
    compactor = std::make_shared<storage::etcd::Compactor>(raw);
    compactor->Start(
        std::chrono::duration_cast<std::chrono::milliseconds>(options.etcd_compaction_interval));
  }
  // kube-apiserver's probe: a linearizable read with a 2 s timeout, at most once a second.
  auto health = std::make_shared<StoreHealthProbe>(
      "etcd", [&raw] { return raw.CheckHealth(std::chrono::seconds(2)); }, std::chrono::seconds(1),
      "etcd client connection not yet established");
  return OpenedStore{
      .store = std::move(*cached), .companions = std::move(compactor), .health = std::move(health)};
}

}  // namespace

std::string EmbeddedStorePath(const std::string& data_dir) {
  return (std::filesystem::path(data_dir) / "store").string();
}

Result<std::unique_ptr<storage::Store>> OpenEtcdBackend(const ApiServerOptions& options,
                                                        MetricsRegistry* metrics) {
  auto etcd = OpenEtcdStore(options, metrics);
  if (!etcd.ok()) return etcd.status();
  return std::unique_ptr<storage::Store>(std::move(*etcd));
}

Result<OpenedStore> OpenStore(const ApiServerOptions& options, MetricsRegistry* metrics) {
  if (options.store == "embedded") return OpenEmbedded(options);
  if (options.store == "etcd") return OpenEtcd(options, metrics);
  return BadRequestError("--store " + options.store + " is not a store: \"embedded\" or \"etcd\"");
}

}  // namespace svcplane::apiserver::server
