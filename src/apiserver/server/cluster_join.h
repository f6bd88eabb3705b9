#pragma once

// How a server on a shared store gets the cluster's CA and admin token (etcd-backend-and-ha.md
// §4.1, as k3s does on an external datastore): the first server seals its own (or fresh ones)
// with the join token and creates them under pki::BootstrapKey(token); every later server, and
// the first one on restart, reads them back. A lost creation race means another server won:
// its copy is used.

#include <string>

#include "apiserver/pki/cluster_secrets.h"
#include "base/result.h"
#include "storage/store.h"

namespace svcplane::apiserver::server {

// `store` is the shared one (its codec passes keys outside /registry/ through unchanged).
// Errors: Forbidden when the stored secrets do not open with `token`; the store's error
// (Unavailable, Timeout) when it cannot be read or written.
Result<pki::ClusterSecrets> JoinCluster(storage::Store& store, const std::string& token,
                                        const std::string& data_dir);

}  // namespace svcplane::apiserver::server
