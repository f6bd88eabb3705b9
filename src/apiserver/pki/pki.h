#pragma once

#include <string>
#include <vector>

#include "apiserver/pki/cluster_secrets.h"
#include "base/result.h"

namespace svcplane::apiserver::pki {

struct PkiOptions {
  // The data dir. Files live in `dir`/pki/: ca.crt, ca.key, apiserver.crt, apiserver.key,
  // admin.token, super-admin.token and (optionally) admin.crt, admin.key. Keys and the token are
  // mode 0600.
  std::string dir;
  // The host of --listen; it goes into the serving certificate as an IP or DNS SAN.
  std::string listen_host = "127.0.0.1";
  // More SANs for the serving certificate; IP literals become IP SANs, the rest DNS SANs.
  std::vector<std::string> extra_sans;
  // Also issue an admin client certificate (CN=kubernetes-admin, O=svcplane:cluster-admins).
  bool admin_client_cert = true;
  // A server joining a cluster (etcd, --token): the CA and admin token every server shares.
  // They are written into the folder when it has none; a folder holding another CA is an
  // error (its clients trust that one), never silently replaced.
  const ClusterSecrets* cluster = nullptr;
};

// Everything a server and its admin kubeconfig need, as PEM text.
struct Pki {
  std::string ca_cert_pem;
  std::string ca_key_pem;
  std::string serving_cert_pem;
  std::string serving_key_pem;
  std::string admin_token;  // 64 hex characters (32 random bytes)
  // The break-glass token (system:masters) of DIR/super-admin.kubeconfig; per server.
  std::string super_admin_token;
  std::string admin_cert_pem;  // empty unless PkiOptions::admin_client_cert
  std::string admin_key_pem;
  bool created_ca = false;  // true when this call created a new CA
};

// First start: creates the CA, the serving certificate, the admin token and client certificate.
// Later starts: loads them. The CA and the token are never replaced once they exist; the serving
// certificate is reissued from the same CA when it is missing, near expiry (30 days) or lacks a
// required SAN (for example after --listen changed), and the admin certificate when missing or
// near expiry. A CA certificate without its key, or a key that does not match, is an error (the
// files are damaged, and replacing the CA would lock out every existing client).
// Not safe against a concurrent call on the same dir; hold the DataDirLock first.
Result<Pki> LoadOrCreatePki(const PkiOptions& options);

// The SANs a serving certificate must carry: localhost, 127.0.0.1, the kubernetes.default names,
// the listen host and the extras, deduplicated.
std::vector<std::string> RequiredServingSans(const PkiOptions& options);

// 32 random bytes as 64 lowercase hex characters.
Result<std::string> GenerateToken();

}  // namespace svcplane::apiserver::pki
