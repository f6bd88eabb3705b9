#pragma once

// The allocation map behind both allocators (pkg/registry/core/service/allocator/bitmap.go):
// one bit per offset, with upstream's random-scan-with-offset strategy for dynamic picks.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace svcplane::apiserver::allocator {

// Not thread-safe: a value type that callers copy, change and write back.
class Bitmap {
 public:
  Bitmap() = default;
  // `band_offset` splits [0, size) into a static band [0, band_offset) that dynamic picks use
  // only when the upper band [band_offset, size) is full.
  Bitmap(size_t size, size_t band_offset);

  size_t size() const { return size_; }
  size_t Count() const { return count_; }
  size_t Free() const { return size_ - count_; }
  bool Has(size_t offset) const;
  // False if `offset` was already set (or is out of bounds).
  bool Allocate(size_t offset);
  // A free offset: a uniformly random start in the upper band, scanning forward with wrap;
  // then the same in the lower band. nullopt when full. `random` returns any 64-bit value.
  std::optional<size_t> AllocateNext(const std::function<uint64_t()>& random);
  // The offset AllocateNext would pick, without taking it (dry run).
  std::optional<size_t> PeekNext(const std::function<uint64_t()>& random) const;
  void Release(size_t offset);
  void ForEach(const std::function<void(size_t)>& fn) const;

  // Stored form: the set offsets as ascending LEB128 deltas, base64. Upstream stores the raw
  // bitmap, 128 KiB for a /12; with a sparse map this is a few bytes per allocation, which
  // matters because every allocation rewrites the record and the watch history keeps it.
  std::string Encode() const;
  // Rebuilds from Encode()'s output; InternalError on malformed data or offsets >= size.
  static Result<Bitmap> Decode(std::string_view data, size_t size, size_t band_offset);

  // Upstream's stored form (allocator/bitmap.go Snapshot): Go's big.Int.Bytes() of the map read
  // as a number whose bit k is offset k, so big-endian with no leading zero bytes; empty when
  // nothing is allocated.
  std::string BigIntBytes() const;
  // Restore's inverse; leading zero bytes are accepted (big.Int.SetBytes takes them).
  // InternalError when a bit at or beyond `size` is set.
  static Result<Bitmap> FromBigIntBytes(std::string_view bytes, size_t size, size_t band_offset);

  bool operator==(const Bitmap& o) const { return size_ == o.size_ && words_ == o.words_; }

 private:
  std::optional<size_t> ScanFree(size_t lo, size_t hi, size_t start) const;

  size_t size_ = 0;
  size_t band_offset_ = 0;
  size_t count_ = 0;
  std::vector<uint64_t> words_;
};

}  // namespace svcplane::apiserver::allocator
