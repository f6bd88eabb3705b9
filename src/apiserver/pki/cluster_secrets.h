#pragma once

// What every API server of one cluster must share (the CA that signs serving and client
// certificates, and the admin token), and its sealed form for the shared store. As k3s does
// for clusters on an external datastore, the first server stores these in etcd encrypted with
// the join token (--token), and later servers read them back with the same token, so a server
// joins without files copied by hand (etcd-backend-and-ha.md §4.1).

#include <string>
#include <string_view>

#include "base/result.h"

namespace svcplane::apiserver::pki {

struct ClusterSecrets {
  std::string ca_cert_pem;
  std::string ca_key_pem;
  std::string admin_token;
  bool operator==(const ClusterSecrets&) const = default;
};

// The key that holds the sealed secrets of the cluster joined with `token`, outside kube's
// /registry/ so that nothing kube-apiserver or a migration tool reads sees it:
// "/svcplane/bootstrap/" + the first 16 hex digits of SHA-256(token). Tokens that differ get
// different keys, so a wrong token finds nothing rather than failing to decrypt.
std::string BootstrapKey(std::string_view token);

// AES-256-GCM under a key derived from `token` with PBKDF2-HMAC-SHA256 (a fresh random salt
// and nonce each time), as JSON with hex fields. The key name is bound in as associated data,
// so a sealed value copied under another key does not open.
Result<std::string> Seal(const ClusterSecrets& secrets, std::string_view token);
// PermissionDenied when `token` is not the one that sealed it (or the data was altered);
// Invalid when `sealed` is not a sealed-secrets document.
Result<ClusterSecrets> Unseal(std::string_view sealed, std::string_view token);

// The secrets this data folder already holds (DIR/pki/ca.crt, ca.key, admin.token), so that a
// server that ran alone keeps its CA when it becomes the first of a cluster; NotFound when it
// holds none, and then fresh ones are made in memory (written by LoadOrCreatePki).
Result<ClusterSecrets> LocalOrNewClusterSecrets(const std::string& data_dir);

}  // namespace svcplane::apiserver::pki
