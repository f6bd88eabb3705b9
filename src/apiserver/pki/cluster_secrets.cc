#include "apiserver/pki/cluster_secrets.h"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <boost/json.hpp>
#include <memory>

#include <fmt/format.h>

#include "apiserver/pki/internal/files.h"
#include "apiserver/pki/pki.h"
#include "base/tls/x509.h"

namespace svcplane::apiserver::pki {

namespace {

constexpr std::string_view kFormat = "svcplane-sealed-secrets/v1";
// PBKDF2 work factor: about 50 ms on this class of machine, paid once per server start, and
// enough to make guessing a short --token from a stolen etcd backup slow.
constexpr int kIterations = 200'000;
constexpr size_t kSaltBytes = 16;
constexpr size_t kNonceBytes = 12;
constexpr size_t kTagBytes = 16;
constexpr size_t kKeyBytes = 32;

std::string Hex(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) out += fmt::format("{:02x}", b);
  return out;
}

std::optional<std::string> Unhex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out(hex.size() / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i) {
    int hi = digit(hex[2 * i]), lo = digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<char>(hi * 16 + lo);
  }
  return out;
}

Result<std::string> RandomBytes(size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) {
    return InternalError("RAND_bytes failed");
  }
  return out;
}

Result<std::string> DeriveKey(std::string_view token, std::string_view salt, int iterations) {
  std::string key(kKeyBytes, '\0');
  if (PKCS5_PBKDF2_HMAC(token.data(), static_cast<int>(token.size()),
                        reinterpret_cast<const unsigned char*>(salt.data()),
                        static_cast<int>(salt.size()), iterations, EVP_sha256(),
                        static_cast<int>(key.size()),
                        reinterpret_cast<unsigned char*>(key.data())) != 1) {
    return InternalError("PBKDF2 failed");
  }
  return key;
}

using CipherCtx = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

// AES-256-GCM of `plain` (encrypt) or of ciphertext||tag (decrypt); nullopt when the tag does
// not verify.
std::optional<std::string> AesGcm(bool encrypt, std::string_view key, std::string_view nonce,
                                  std::string_view aad, std::string_view in) {
  CipherCtx ctx(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
  if (!ctx) return std::nullopt;
  auto u = [](std::string_view s) { return reinterpret_cast<const unsigned char*>(s.data()); };
  std::string_view body = in;
  std::string tag;
  if (!encrypt) {
    if (in.size() < kTagBytes) return std::nullopt;
    body = in.substr(0, in.size() - kTagBytes);
    tag = std::string(in.substr(in.size() - kTagBytes));
  }
  if (EVP_CipherInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr, encrypt) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, static_cast<int>(nonce.size()),
                          nullptr) != 1 ||
      EVP_CipherInit_ex(ctx.get(), nullptr, nullptr, u(key), u(nonce), encrypt) != 1) {
    return std::nullopt;
  }
  int n = 0;
  if (EVP_CipherUpdate(ctx.get(), nullptr, &n, u(aad), static_cast<int>(aad.size())) != 1) {
    return std::nullopt;
  }
  std::string out(body.size() + kTagBytes, '\0');
  auto* o = reinterpret_cast<unsigned char*>(out.data());
  if (EVP_CipherUpdate(ctx.get(), o, &n, u(body), static_cast<int>(body.size())) != 1) {
    return std::nullopt;
  }
  int len = n;
  if (!encrypt && EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, kTagBytes,
                                      const_cast<char*>(tag.data())) != 1) {
    return std::nullopt;
  }
  if (EVP_CipherFinal_ex(ctx.get(), o + len, &n) != 1) return std::nullopt;
  len += n;
  if (encrypt) {
    if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kTagBytes, o + len) != 1) {
      return std::nullopt;
    }
    len += kTagBytes;
  }
  out.resize(len);
  return out;
}

}  // namespace

std::string BootstrapKey(std::string_view token) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(), digest);
  return "/svcplane/bootstrap/" + Hex(std::string_view(reinterpret_cast<const char*>(digest), 8));
}

Result<std::string> Seal(const ClusterSecrets& secrets, std::string_view token) {
  if (token.empty()) return InvalidError("the join token is empty");
  auto salt = RandomBytes(kSaltBytes);
  if (!salt.ok()) return salt.status();
  auto nonce = RandomBytes(kNonceBytes);
  if (!nonce.ok()) return nonce.status();
  auto key = DeriveKey(token, *salt, kIterations);
  if (!key.ok()) return key.status();
  boost::json::object plain{{"ca.crt", secrets.ca_cert_pem},
                            {"ca.key", secrets.ca_key_pem},
                            {"admin.token", secrets.admin_token}};
  auto sealed = AesGcm(true, *key, *nonce, BootstrapKey(token), boost::json::serialize(plain));
  if (!sealed) return InternalError("AES-256-GCM encryption failed");
  boost::json::object doc{{"format", kFormat},         {"kdf", "pbkdf2-hmac-sha256"},
                          {"iterations", kIterations}, {"salt", Hex(*salt)},
                          {"nonce", Hex(*nonce)},      {"sealed", Hex(*sealed)}};
  return boost::json::serialize(doc);
}

Result<ClusterSecrets> Unseal(std::string_view sealed, std::string_view token) {
  boost::system::error_code ec;
  boost::json::value doc = boost::json::parse(sealed, ec);
  auto field = [&](const char* name) -> std::optional<std::string> {
    const auto* o = doc.if_object();
    const auto* v = o ? o->if_contains(name) : nullptr;
    if (!v || !v->is_string()) return std::nullopt;
    return std::string(v->as_string());
  };
  if (ec || field("format") != kFormat) {
    return InvalidError("not a " + std::string(kFormat) + " document");
  }
  const auto* iterations = doc.as_object().if_contains("iterations");
  auto salt = Unhex(field("salt").value_or("x"));
  auto nonce = Unhex(field("nonce").value_or("x"));
  auto body = Unhex(field("sealed").value_or("x"));
  if (!iterations || !iterations->is_int64() || iterations->as_int64() <= 0 || !salt || !nonce ||
      !body) {
    return InvalidError("malformed " + std::string(kFormat) + " document");
  }
  auto key = DeriveKey(token, *salt, static_cast<int>(iterations->as_int64()));
  if (!key.ok()) return key.status();
  auto plain = AesGcm(false, *key, *nonce, BootstrapKey(token), *body);
  if (!plain) {
    return Status(Code::kForbidden,
                  "the cluster's secrets do not open with this --token (another token sealed "
                  "them, or they were altered)");
  }
  boost::json::value p = boost::json::parse(*plain, ec);
  const auto* o = ec ? nullptr : p.if_object();
  auto get = [&](const char* name) {
    const auto* v = o ? o->if_contains(name) : nullptr;
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
  };
  ClusterSecrets out{get("ca.crt"), get("ca.key"), get("admin.token")};
  if (out.ca_cert_pem.empty() || out.ca_key_pem.empty() || out.admin_token.empty()) {
    return InvalidError("the sealed secrets lack the CA or the admin token");
  }
  return out;
}

Result<ClusterSecrets> LocalOrNewClusterSecrets(const std::string& data_dir) {
  const std::string dir = data_dir + "/pki";
  auto crt = internal::ReadFile(dir + "/ca.crt");
  if (crt.ok()) {
    auto key = internal::ReadFile(dir + "/ca.key");
    if (!key.ok()) return key.status();
    auto token = internal::ReadFile(dir + "/admin.token");
    if (!token.ok()) return token.status();
    std::string t = *token;
    while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
    return ClusterSecrets{*crt, *key, t};
  }
  if (crt.status().code() != Code::kNotFound) return crt.status();
  base::tls::CertTemplate tmpl{
      .kind = base::tls::CertKind::kCa, .common_name = "svcplane-ca", .valid_days = 3650};
  auto ca = base::tls::IssueKeyPair(tmpl, nullptr, nullptr);
  if (!ca.ok()) return ca.status();
  auto token = GenerateToken();
  if (!token.ok()) return token.status();
  return ClusterSecrets{ca->cert_pem, ca->key_pem, *token};
}

}  // namespace svcplane::apiserver::pki
