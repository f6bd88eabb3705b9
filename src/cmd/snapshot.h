#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>

#include "apiserver/server/api_server.h"

namespace svcplane::cmd {

// `svcplane snapshot save FILE`: a consistent snapshot of a running server (embedded store or
// etcd) over its admin-only /svcplane/snapshot endpoint, written to FILE atomically.
// `svcplane snapshot restore FILE --data-dir DIR | --etcd-servers URL[,URL]`: the snapshot into
// a new embedded store or an empty etcd, for `svcplane serve` to serve.
// `svcplane snapshot status FILE`: checks a file whole and prints what it holds.
struct SnapshotFlags {
  std::string file;
  // save
  std::string kubeconfig = "./svcplane-data/kubeconfig";  // serve's default data dir
  std::string context;
  size_t page_size = 0;  // keys the server reads per page; 0: the server's default
  // restore: one of these targets
  std::string data_dir;
  apiserver::server::ApiServerOptions etcd;  // only the etcd_* fields are used
};

CLI::App* AddSnapshotCommand(CLI::App& app, SnapshotFlags& flags);

// 0 on success, 1 when the snapshot could not be saved or restored, 2 for a usage error.
int RunSnapshot(const CLI::App& snapshot, const SnapshotFlags& flags);

}  // namespace svcplane::cmd
