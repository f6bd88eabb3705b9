#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace svcplane::storage::snapshot::internal {

// Incremental SHA-256 (OpenSSL's EVP, kept in the .cc).
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void Update(std::string_view bytes);
  // The 32-byte digest of everything passed to Update; the hash must not be updated after.
  std::string Final();

 private:
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

// Lowercase hex of `bytes`.
std::string Hex(std::string_view bytes);

}  // namespace svcplane::storage::snapshot::internal
