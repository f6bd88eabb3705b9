#pragma once

// Which store `serve` runs on (--store): the embedded durable store in the data folder, or etcd
// shared with other servers (and possibly a kube-apiserver), behind a watch cache.

#include <memory>
#include <string>

#include "base/metrics.h"
#include "base/result.h"
#include "storage/store.h"

namespace svcplane::apiserver::server {

struct ApiServerOptions;
class StoreHealthProbe;

struct OpenedStore {
  std::unique_ptr<storage::Store> store;
  // Whatever else must live as long as the store and stop before it (etcd's compactor).
  std::shared_ptr<void> companions;
  // The store suspends a request fiber on its commits instead of blocking the thread
  // (base/suspend.h), so requests may run on the I/O threads.
  bool suspends_requests = false;
  // The store's check for /livez and /readyz (etcd: "etcd"); null when the store needs none.
  // Stops before the store.
  std::shared_ptr<StoreHealthProbe> health;
  // --etcd-servers-overrides=/events#...: the store core Events live in (null: `store`), with
  // its own watch cache, compactor (in companions) and health check ("etcd-override-0").
  std::unique_ptr<storage::Store> events_store;
  std::shared_ptr<StoreHealthProbe> events_health;
};

// The endpoints --etcd-servers-overrides gives core Events ("" when it names none), or
// BadRequest for a malformed value or a resource other than core Events.
Result<std::string> EventsEtcdServers(std::string_view overrides);

Result<OpenedStore> OpenStore(const ApiServerOptions& options, MetricsRegistry* metrics);

// Where the embedded store of a data folder lives.
std::string EmbeddedStorePath(const std::string& data_dir);

// etcd as `--store etcd` writes to it, without the watch cache and the compactor: for tools
// that write to etcd directly (`svcplane snapshot restore`) and must store values exactly as a
// server would (the same codec). Checks the etcd flags as OpenStore does.
Result<std::unique_ptr<storage::Store>> OpenEtcdBackend(const ApiServerOptions& options,
                                                        MetricsRegistry* metrics);

}  // namespace svcplane::apiserver::server
