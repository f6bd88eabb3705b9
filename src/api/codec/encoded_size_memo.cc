#include "api/codec/encoded_size_memo.h"

#include <functional>

namespace svcplane::api::codec {

uint64_t EncodedSizeMemo::Fingerprint(std::string_view uid, std::string_view resource_version) {
  if (uid.empty() || resource_version.empty()) return 0;
  const uint64_t h = std::hash<std::string_view>{}(uid)*0x9e3779b97f4a7c15ull ^
                     std::hash<std::string_view>{}(resource_version);
  return h == 0 ? 1 : h;
}

std::optional<size_t> EncodedSizeMemo::Find(const void* key, uint64_t fingerprint) {
  std::lock_guard lock(mu_);
  if (auto it = current_.find(key); it != current_.end()) {
    if (it->second.fingerprint != fingerprint) return std::nullopt;
    return it->second.size;
  }
  auto it = previous_.find(key);
  if (it == previous_.end() || it->second.fingerprint != fingerprint) return std::nullopt;
  const Entry e = it->second;
  previous_.erase(it);
  current_.emplace(key, e);  // still in use: survives the next rotation
  return e.size;
}

void EncodedSizeMemo::Remember(const void* key, uint64_t fingerprint, size_t size) {
  std::lock_guard lock(mu_);
  previous_.erase(key);
  current_.insert_or_assign(key, Entry{fingerprint, size});
  if (current_.size() >= generation_) {
    previous_ = std::move(current_);
    current_ = Map();
  }
}

size_t EncodedSizeMemo::entries() const {
  std::lock_guard lock(mu_);
  return current_.size() + previous_.size();
}

EncodedSizeMemo& EncodedSizeMemo::Shared() {
  static EncodedSizeMemo* memo = new EncodedSizeMemo(size_t{256} << 10);
  return *memo;
}

}  // namespace svcplane::api::codec
