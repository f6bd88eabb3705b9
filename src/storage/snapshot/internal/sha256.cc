#include "storage/snapshot/internal/sha256.h"

#include <openssl/evp.h>

#include "base/check.h"

namespace svcplane::storage::snapshot::internal {

struct Sha256::Ctx {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  ~Ctx() { EVP_MD_CTX_free(md); }
};

Sha256::Sha256() : ctx_(std::make_unique<Ctx>()) {
  // Failing here means OpenSSL cannot allocate or lacks SHA-256: not a condition to handle.
  SVC_CHECK(ctx_->md != nullptr && EVP_DigestInit_ex(ctx_->md, EVP_sha256(), nullptr) == 1)
      << "SHA-256 unavailable";
}

Sha256::~Sha256() = default;

void Sha256::Update(std::string_view bytes) {
  SVC_CHECK(EVP_DigestUpdate(ctx_->md, bytes.data(), bytes.size()) == 1) << "SHA-256 update";
}

std::string Sha256::Final() {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  SVC_CHECK(EVP_DigestFinal_ex(ctx_->md, out, &n) == 1) << "SHA-256 final";
  return std::string(reinterpret_cast<const char*>(out), n);
}

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

}  // namespace svcplane::storage::snapshot::internal
