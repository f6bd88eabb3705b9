#include "apiserver/server/cluster_join.h"

#include <spdlog/spdlog.h>

namespace svcplane::apiserver::server {

Result<pki::ClusterSecrets> JoinCluster(storage::Store& store, const std::string& token,
                                        const std::string& data_dir) {
  const std::string key = pki::BootstrapKey(token);
  // Two rounds suffice: a Create loses only to a value that the next Get then reads.
  for (int round = 0; round < 2; ++round) {
    auto stored = store.Get(key);
    if (stored.ok()) {
      auto secrets = pki::Unseal(*stored->value, token);
      if (!secrets.ok())
        return Status(secrets.status().code(), key + ": " + secrets.status().message());
      spdlog::info("joined the cluster: its CA and admin token read from {}", key);
      return secrets;
    }
    if (stored.status().code() != Code::kNotFound) {
      return Status(stored.status().code(),
                    "reading the cluster's secrets (" + key + "): " + stored.status().message());
    }
    auto mine = pki::LocalOrNewClusterSecrets(data_dir);
    if (!mine.ok()) return mine.status();
    auto sealed = pki::Seal(*mine, token);
    if (!sealed.ok()) return sealed.status();
    auto created = store.Create(key, storage::MakeValue(std::move(*sealed)));
    if (created.ok()) {
      spdlog::info("first server of the cluster: its CA and admin token sealed into {}", key);
      return mine;
    }
    if (created.status().code() != Code::kAlreadyExists) {
      return Status(created.status().code(),
                    "storing the cluster's secrets (" + key + "): " + created.status().message());
    }
  }
  return InternalError(key + " was created by another server but cannot be read back");
}

}  // namespace svcplane::apiserver::server
