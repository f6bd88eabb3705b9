#include "api/codec/encoding_cache.h"

namespace svcplane::api::codec {

std::shared_ptr<const std::string> EncodingCache::Find(const void* key,
                                                       const std::shared_ptr<const void>& obj) {
  std::lock_guard lock(mu_);
  auto it = map_.find(key);
  if (it == map_.end()) return nullptr;
  // owner_before both ways false: the same control block, i.e. the very same object.
  const auto& owner = it->second.owner;
  if (owner.owner_before(obj) || obj.owner_before(owner)) {
    bytes_ -= it->second.bytes->size();
    lru_.erase(it->second.lru);
    map_.erase(it);
    return nullptr;
  }
  lru_.splice(lru_.begin(), lru_, it->second.lru);
  return it->second.bytes;
}

void EncodingCache::Put(const void* key, const std::shared_ptr<const void>& obj,
                        std::shared_ptr<const std::string> bytes) {
  if (bytes->size() > capacity_) return;
  std::lock_guard lock(mu_);
  auto it = map_.find(key);
  if (it != map_.end()) {
    bytes_ -= it->second.bytes->size();
    lru_.erase(it->second.lru);
    map_.erase(it);
  }
  bytes_ += bytes->size();
  lru_.push_front(key);
  map_.emplace(key, Entry{obj, std::move(bytes), lru_.begin()});
  while (bytes_ > capacity_ && !lru_.empty()) {
    auto victim = map_.find(lru_.back());
    bytes_ -= victim->second.bytes->size();
    map_.erase(victim);
    lru_.pop_back();
  }
}

size_t EncodingCache::size_bytes() const {
  std::lock_guard lock(mu_);
  return bytes_;
}

size_t EncodingCache::entries() const {
  std::lock_guard lock(mu_);
  return map_.size();
}

EncodingCache& EncodingCache::Shared() {
  static EncodingCache* cache = new EncodingCache(size_t{64} << 20);
  return *cache;
}

}  // namespace svcplane::api::codec
