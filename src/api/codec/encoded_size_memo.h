#pragma once

// The sizes of stored objects' protobuf messages, remembered after they were encoded once, so
// that a protobuf List can announce its lengths (ProtobufListFrame) and then encode its items
// while the connection sends them, instead of encoding all of them before the first byte. A
// size costs ~70 bytes where the message itself (EncodingCache) costs ~1.8 KB per Pod: there is
// room for every object's size, not for every object's encoding.
//
// Keyed by the object's address and checked against a fingerprint of its uid and
// resourceVersion: a stored object version never changes, so a match means the same bytes
// again, and an address reused by another object (or version) does not match. Entries not
// looked up for two generations (of `generation_entries` new entries each) are dropped, so the
// memo stays bounded whatever the churn. Safe from any thread.

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string_view>
#include <unordered_map>

namespace svcplane::api::codec {

class EncodedSizeMemo {
 public:
  explicit EncodedSizeMemo(size_t generation_entries) : generation_(generation_entries) {}

  // The remembered message size of `obj`, if any. Objects without a uid or resourceVersion
  // (never stored) are never remembered.
  template <typename T>
  std::optional<size_t> Find(const T& obj) {
    const uint64_t fp = Fingerprint(obj.metadata.uid, obj.metadata.resource_version);
    if (fp == 0) return std::nullopt;
    return Find(&obj, fp);
  }
  template <typename T>
  void Remember(const T& obj, size_t message_size) {
    const uint64_t fp = Fingerprint(obj.metadata.uid, obj.metadata.resource_version);
    if (fp != 0) Remember(&obj, fp, message_size);
  }

  size_t entries() const;

  // The process-wide memo the API server's protobuf lists use (two generations of 256Ki
  // entries: at most ~36 MB, for ~512k live objects listed in protobuf).
  static EncodedSizeMemo& Shared();

  // 0 for an object without uid or resourceVersion; never 0 otherwise.
  static uint64_t Fingerprint(std::string_view uid, std::string_view resource_version);

 private:
  struct Entry {
    uint64_t fingerprint;
    size_t size;
  };
  using Map = std::unordered_map<const void*, Entry>;

  std::optional<size_t> Find(const void* key, uint64_t fingerprint);
  void Remember(const void* key, uint64_t fingerprint, size_t size);

  const size_t generation_;
  mutable std::mutex mu_;
  Map current_;   // guarded by mu_; looked up or added in this generation
  Map previous_;  // guarded by mu_; the generation before: moved to current_ when looked up
};

}  // namespace svcplane::api::codec
