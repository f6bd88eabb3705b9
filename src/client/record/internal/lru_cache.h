#pragma once

#include <cstddef>
#include <list>
#include <string>
#include <unordered_map>
#include <utility>

namespace svcplane::client::record::internal {

// A string-keyed LRU cache of at most `capacity` entries (golang groupcache/lru, which
// client-go's event caches use). Not thread-safe: callers lock.
template <typename V>
class LruCache {
 public:
  explicit LruCache(size_t capacity) : capacity_(capacity) {}

  // The value for `key` (marked most recently used), or null.
  V* Get(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    entries_.splice(entries_.begin(), entries_, it->second);
    return &it->second->second;
  }

  void Add(const std::string& key, V value) {
    if (V* v = Get(key)) {
      *v = std::move(value);
      return;
    }
    entries_.emplace_front(key, std::move(value));
    index_[key] = entries_.begin();
    if (entries_.size() > capacity_) {
      index_.erase(entries_.back().first);
      entries_.pop_back();
    }
  }

  size_t size() const { return entries_.size(); }

 private:
  using Entry = std::pair<std::string, V>;
  const size_t capacity_;
  std::list<Entry> entries_;  // most recently used first
  std::unordered_map<std::string, typename std::list<Entry>::iterator> index_;
};

}  // namespace svcplane::client::record::internal
