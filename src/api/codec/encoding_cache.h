#pragma once

// Protobuf encodings of stored objects, shared by every list and watch that sends them (as
// kube-apiserver caches an object's serialization for its watchers): stored objects are
// immutable and shared, so one encoding per object version serves every client. Keyed by the
// object's address and validated by a weak_ptr to it, so an address reused after the object died
// never matches a stale entry. Bounded by bytes, least recently used out first.
// Safe from any thread.

#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace svcplane::api::codec {

class EncodingCache {
 public:
  explicit EncodingCache(size_t capacity_bytes) : capacity_(capacity_bytes) {}

  // The cached encoding of `obj`, or encode(*obj) stored for next time.
  template <typename T, typename Encode>
  std::shared_ptr<const std::string> Get(const std::shared_ptr<const T>& obj, Encode&& encode) {
    if (auto hit = Find(obj.get(), obj)) return hit;
    auto bytes = std::make_shared<const std::string>(encode(*obj));
    Put(obj.get(), obj, bytes);
    return bytes;
  }

  // The cached encoding of `obj`, or nullptr (nothing is encoded or stored).
  template <typename T>
  std::shared_ptr<const std::string> Find(const std::shared_ptr<const T>& obj) {
    return Find(obj.get(), obj);
  }
  // Stores `bytes` as the encoding of `obj`.
  template <typename T>
  void Put(const std::shared_ptr<const T>& obj, std::shared_ptr<const std::string> bytes) {
    Put(obj.get(), obj, std::move(bytes));
  }

  size_t capacity_bytes() const { return capacity_; }
  size_t size_bytes() const;
  size_t entries() const;

  // The process-wide cache the API server's protobuf responses use (64 MiB).
  static EncodingCache& Shared();

 private:
  struct Entry {
    std::weak_ptr<const void> owner;
    std::shared_ptr<const std::string> bytes;
    std::list<const void*>::iterator lru;
  };

  std::shared_ptr<const std::string> Find(const void* key, const std::shared_ptr<const void>& obj);
  void Put(const void* key, const std::shared_ptr<const void>& obj,
           std::shared_ptr<const std::string> bytes);

  const size_t capacity_;
  mutable std::mutex mu_;
  std::unordered_map<const void*, Entry> map_;
  std::list<const void*> lru_;  // front: most recently used
  size_t bytes_ = 0;
};

}  // namespace svcplane::api::codec
