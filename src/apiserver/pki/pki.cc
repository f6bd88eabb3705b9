#include "apiserver/pki/pki.h"

#include <arpa/inet.h>
#include <openssl/rand.h>

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "apiserver/pki/certificate.h"
#include "apiserver/pki/internal/files.h"
#include "base/tls/x509.h"

namespace svcplane::apiserver::pki {

namespace tls = base::tls;

namespace {

using tls::CertKind;
using tls::CertTemplate;
using tls::KeyPair;

constexpr int kCaDays = 3650;
constexpr int kLeafDays = 365;
constexpr auto kRenewBefore = std::chrono::hours(24 * 30);

bool IsIpLiteral(const std::string& s) {
  unsigned char buf[16];
  return inet_pton(AF_INET, s.c_str(), buf) == 1 || inet_pton(AF_INET6, s.c_str(), buf) == 1;
}

// inet_ntop spelling, so "::0001" and "::1" compare equal against what ParseCertificate reports.
std::string CanonicalIp(const std::string& s) {
  unsigned char buf[16];
  char out[INET6_ADDRSTRLEN] = {};
  if (inet_pton(AF_INET, s.c_str(), buf) == 1) return inet_ntop(AF_INET, buf, out, sizeof(out));
  if (inet_pton(AF_INET6, s.c_str(), buf) == 1) return inet_ntop(AF_INET6, buf, out, sizeof(out));
  return s;
}

struct Paths {
  std::string dir, ca_crt, ca_key, srv_crt, srv_key, token, super_admin_token, admin_crt, admin_key;
  explicit Paths(const std::string& data_dir)
      : dir(data_dir + "/pki"),
        ca_crt(dir + "/ca.crt"),
        ca_key(dir + "/ca.key"),
        srv_crt(dir + "/apiserver.crt"),
        srv_key(dir + "/apiserver.key"),
        token(dir + "/admin.token"),
        super_admin_token(dir + "/super-admin.token"),
        admin_crt(dir + "/admin.crt"),
        admin_key(dir + "/admin.key") {}
};

// Key first: a crash in between leaves a key without a certificate, which the next start
// treats as "missing" and replaces.
Status Save(const KeyPair& kp, const std::string& crt, const std::string& key) {
  SVC_RETURN_IF_ERROR(internal::WriteFileAtomic(key, kp.key_pem, 0600));
  return internal::WriteFileAtomic(crt, kp.cert_pem, 0644);
}

Result<KeyPair> LoadOrCreateCa(const Paths& p, bool* created) {
  auto crt = internal::ReadFile(p.ca_crt);
  if (!crt.ok() && crt.status().code() != Code::kNotFound) return crt.status();
  if (!crt.ok()) {
    CertTemplate tmpl{.kind = CertKind::kCa, .common_name = "svcplane-ca", .valid_days = kCaDays};
    auto kp = tls::IssueKeyPair(tmpl, nullptr, nullptr);
    if (!kp.ok()) return kp.status();
    SVC_RETURN_IF_ERROR(Save(*kp, p.ca_crt, p.ca_key));
    *created = true;
    return kp;
  }
  auto key = internal::ReadFile(p.ca_key);
  if (!key.ok()) {
    return InternalError(
        fmt::format("{} exists but its key cannot be read: {}", p.ca_crt, key.status().message()));
  }
  auto cert = tls::CertFromPem(*crt);
  if (!cert.ok()) return InternalError(p.ca_crt + ": " + cert.status().message());
  auto pkey = tls::KeyFromPem(*key);
  if (!pkey.ok()) return InternalError(p.ca_key + ": " + pkey.status().message());
  if (!tls::KeyMatchesCert(pkey->get(), cert->get())) {
    return InternalError(fmt::format("{} does not match {}", p.ca_key, p.ca_crt));
  }
  return KeyPair{*crt, *key};
}

// The existing leaf if it is still good for `required_sans`, else nothing.
Result<KeyPair> LoadLeaf(const std::string& crt_path, const std::string& key_path,
                         const std::string& ca_pem, const std::vector<std::string>& required_sans) {
  auto crt = internal::ReadFile(crt_path);
  if (!crt.ok()) return crt.status();
  auto key = internal::ReadFile(key_path);
  if (!key.ok()) return key.status();
  auto cert = tls::CertFromPem(*crt);
  auto pkey = tls::KeyFromPem(*key);
  if (!cert.ok() || !pkey.ok() || !tls::KeyMatchesCert(pkey->get(), cert->get())) {
    return NotFoundError("unusable");
  }
  if (!VerifyCertificate(*crt, ca_pem).ok()) return NotFoundError("not signed by the CA");
  auto info = ParseCertificate(*crt);
  if (!info.ok()) return NotFoundError("unparsable");
  if (info->not_after - std::chrono::system_clock::now() < kRenewBefore) {
    return NotFoundError("near expiry");
  }
  for (const auto& san : required_sans) {
    const auto& have = IsIpLiteral(san) ? info->ip_sans : info->dns_sans;
    std::string want = IsIpLiteral(san) ? CanonicalIp(san) : san;
    if (std::find(have.begin(), have.end(), want) == have.end()) {
      return NotFoundError("missing SAN " + san);
    }
  }
  return KeyPair{*crt, *key};
}

Result<KeyPair> LoadOrIssueLeaf(const std::string& crt_path, const std::string& key_path,
                                const KeyPair& ca, const CertTemplate& tmpl,
                                const std::vector<std::string>& sans) {
  auto existing = LoadLeaf(crt_path, key_path, ca.cert_pem, sans);
  if (existing.ok()) return existing;
  auto ca_cert = tls::CertFromPem(ca.cert_pem);
  if (!ca_cert.ok()) return ca_cert.status();
  auto ca_key = tls::KeyFromPem(ca.key_pem);
  if (!ca_key.ok()) return ca_key.status();
  auto kp = tls::IssueKeyPair(tmpl, ca_cert->get(), ca_key->get());
  if (!kp.ok()) return kp.status();
  SVC_RETURN_IF_ERROR(Save(*kp, crt_path, key_path));
  return kp;
}

Result<std::string> LoadOrCreateToken(const std::string& path) {
  auto existing = internal::ReadFile(path);
  if (existing.ok()) {
    std::string t = *existing;
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
    if (t.size() >= 32) return t;
    return InternalError(fmt::format("{} holds no usable token", path));
  }
  if (existing.status().code() != Code::kNotFound) return existing.status();
  auto token = GenerateToken();
  if (!token.ok()) return token.status();
  SVC_RETURN_IF_ERROR(internal::WriteFileAtomic(path, *token + "\n", 0600));
  return token;
}

// Writes the shared CA and token into a folder that has none; the same ones are a no-op.
Status InstallClusterSecrets(const Paths& p, const ClusterSecrets& cluster) {
  auto crt = internal::ReadFile(p.ca_crt);
  if (crt.ok()) {
    if (*crt != cluster.ca_cert_pem) {
      return Status(Code::kConflict,
                    fmt::format("{} holds another CA than the cluster's (this folder served "
                                "another cluster, or alone): move {} away to join",
                                p.ca_crt, p.dir));
    }
  } else if (crt.status().code() != Code::kNotFound) {
    return crt.status();
  } else {
    SVC_RETURN_IF_ERROR(Save(KeyPair{cluster.ca_cert_pem, cluster.ca_key_pem}, p.ca_crt, p.ca_key));
  }
  auto token = internal::ReadFile(p.token);
  std::string have = token.ok() ? *token : "";
  while (!have.empty() && (have.back() == '\n' || have.back() == ' ')) have.pop_back();
  if (have != cluster.admin_token) {
    SVC_RETURN_IF_ERROR(internal::WriteFileAtomic(p.token, cluster.admin_token + "\n", 0600));
  }
  return Status::Ok();
}

}  // namespace

Result<std::string> GenerateToken() {
  unsigned char buf[32];
  if (RAND_bytes(buf, sizeof(buf)) != 1) return InternalError("RAND_bytes failed");
  std::string out;
  out.reserve(64);
  for (unsigned char b : buf) out += fmt::format("{:02x}", b);
  return out;
}

std::vector<std::string> RequiredServingSans(const PkiOptions& options) {
  std::vector<std::string> sans = {"localhost",
                                   "127.0.0.1",
                                   "kubernetes",
                                   "kubernetes.default",
                                   "kubernetes.default.svc",
                                   "kubernetes.default.svc.cluster.local"};
  auto add = [&](const std::string& s) {
    if (s.empty()) return;
    std::string v = IsIpLiteral(s) ? CanonicalIp(s) : s;
    if (std::find(sans.begin(), sans.end(), v) == sans.end()) sans.push_back(v);
  };
  add(options.listen_host);
  for (const auto& s : options.extra_sans) add(s);
  return sans;
}

Result<Pki> LoadOrCreatePki(const PkiOptions& options) {
  Paths p(options.dir);
  SVC_RETURN_IF_ERROR(internal::MakeDirs(p.dir, 0700));
  if (options.cluster) SVC_RETURN_IF_ERROR(InstallClusterSecrets(p, *options.cluster));
  Pki out;
  auto ca = LoadOrCreateCa(p, &out.created_ca);
  if (!ca.ok()) return ca.status();
  out.ca_cert_pem = ca->cert_pem;
  out.ca_key_pem = ca->key_pem;

  std::vector<std::string> sans = RequiredServingSans(options);
  CertTemplate srv{
      .kind = CertKind::kServer, .common_name = "svcplane-apiserver", .valid_days = kLeafDays};
  for (const auto& s : sans) (IsIpLiteral(s) ? srv.ip_sans : srv.dns_sans).push_back(s);
  auto serving = LoadOrIssueLeaf(p.srv_crt, p.srv_key, *ca, srv, sans);
  if (!serving.ok()) return serving.status();
  out.serving_cert_pem = serving->cert_pem;
  out.serving_key_pem = serving->key_pem;

  auto token = LoadOrCreateToken(p.token);
  if (!token.ok()) return token.status();
  out.admin_token = *token;
  // This server's own: not in the cluster secrets, so a break-glass token opens one server
  // (whose files the holder can read) and never travels through the shared store.
  auto super_admin = LoadOrCreateToken(p.super_admin_token);
  if (!super_admin.ok()) return super_admin.status();
  out.super_admin_token = *super_admin;

  if (options.admin_client_cert) {
    CertTemplate admin{.kind = CertKind::kClient,
                       .common_name = "kubernetes-admin",
                       .organizations = {"svcplane:cluster-admins"},
                       .valid_days = kLeafDays};
    auto kp = LoadOrIssueLeaf(p.admin_crt, p.admin_key, *ca, admin, {});
    if (!kp.ok()) return kp.status();
    out.admin_cert_pem = kp->cert_pem;
    out.admin_key_pem = kp->key_pem;
  }
  return out;
}

}  // namespace svcplane::apiserver::pki
