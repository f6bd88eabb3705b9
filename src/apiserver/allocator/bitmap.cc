#include "apiserver/allocator/bitmap.h"

#include <bit>

#include "base/base64.h"

namespace svcplane::apiserver::allocator {

Bitmap::Bitmap(size_t size, size_t band_offset)
    : size_(size), band_offset_(band_offset < size ? band_offset : 0), words_((size + 63) / 64) {}

bool Bitmap::Has(size_t offset) const {
  return offset < size_ && (words_[offset / 64] >> (offset % 64)) & 1;
}

bool Bitmap::Allocate(size_t offset) {
  if (offset >= size_ || Has(offset)) return false;
  words_[offset / 64] |= uint64_t{1} << (offset % 64);
  ++count_;
  return true;
}

void Bitmap::Release(size_t offset) {
  if (!Has(offset)) return;
  words_[offset / 64] &= ~(uint64_t{1} << (offset % 64));
  --count_;
}

// First free offset in [start, hi), then in [lo, start).
std::optional<size_t> Bitmap::ScanFree(size_t lo, size_t hi, size_t start) const {
  auto scan = [&](size_t a, size_t b) -> std::optional<size_t> {
    size_t i = a;
    while (i < b) {
      uint64_t free_bits = ~words_[i / 64] >> (i % 64);
      if (free_bits == 0) {
        i = (i / 64 + 1) * 64;
        continue;
      }
      size_t cand = i + static_cast<size_t>(std::countr_zero(free_bits));
      return cand < b ? std::optional<size_t>(cand) : std::nullopt;
    }
    return std::nullopt;
  };
  if (auto got = scan(start, hi)) return got;
  return scan(lo, start);
}

std::optional<size_t> Bitmap::PeekNext(const std::function<uint64_t()>& random) const {
  if (count_ >= size_) return std::nullopt;
  if (band_offset_ > 0 && band_offset_ < size_) {
    size_t start = band_offset_ + random() % (size_ - band_offset_);
    if (auto got = ScanFree(band_offset_, size_, start)) return got;
    return ScanFree(0, band_offset_, random() % band_offset_);
  }
  return ScanFree(0, size_, random() % size_);
}

std::optional<size_t> Bitmap::AllocateNext(const std::function<uint64_t()>& random) {
  auto got = PeekNext(random);
  if (got) Allocate(*got);
  return got;
}

void Bitmap::ForEach(const std::function<void(size_t)>& fn) const {
  for (size_t w = 0; w < words_.size(); ++w) {
    uint64_t bits = words_[w];
    while (bits) {
      fn(w * 64 + static_cast<size_t>(std::countr_zero(bits)));
      bits &= bits - 1;
    }
  }
}

std::string Bitmap::Encode() const {
  std::string raw;
  size_t prev = 0;
  ForEach([&](size_t off) {
    uint64_t delta = off - prev;
    prev = off;
    do {
      uint8_t b = delta & 0x7f;
      delta >>= 7;
      raw.push_back(static_cast<char>(delta ? (b | 0x80) : b));
    } while (delta);
  });
  return Base64(raw);
}

std::string Bitmap::BigIntBytes() const {
  size_t top = words_.size();
  while (top > 0 && words_[top - 1] == 0) --top;
  if (top == 0) return {};
  // Bytes of the number, least significant first, without the zero bytes above its top bit.
  const size_t n =
      (top - 1) * 8 + (71 - static_cast<size_t>(std::countl_zero(words_[top - 1]))) / 8;
  std::string out(n, '\0');
  for (size_t j = 0; j < n; ++j) {
    out[n - 1 - j] = static_cast<char>((words_[j / 8] >> (j % 8 * 8)) & 0xff);
  }
  return out;
}

Result<Bitmap> Bitmap::FromBigIntBytes(std::string_view bytes, size_t size, size_t band_offset) {
  Bitmap bm(size, band_offset);
  const size_t n = bytes.size();
  for (size_t j = 0; j < n; ++j) {
    const uint64_t b = static_cast<uint8_t>(bytes[n - 1 - j]);
    if (b == 0) continue;  // leading zero bytes (which Go never writes) are harmless
    const size_t highest = j * 8 + 7 - static_cast<size_t>(std::countl_zero(uint8_t(b)));
    if (highest >= size) return InternalError("allocation bitmap names an offset beyond the range");
    bm.words_[j / 8] |= b << (j % 8 * 8);
  }
  for (uint64_t w : bm.words_) bm.count_ += static_cast<size_t>(std::popcount(w));
  return bm;
}

Result<Bitmap> Bitmap::Decode(std::string_view data, size_t size, size_t band_offset) {
  auto raw = Unbase64(data);
  if (!raw) return InternalError("allocation data is not base64");
  Bitmap bm(size, band_offset);
  size_t pos = 0;
  uint64_t delta = 0;
  int shift = 0;
  for (char c : *raw) {
    uint8_t b = static_cast<uint8_t>(c);
    if (shift > 56) return InternalError("allocation data is corrupt");
    delta |= uint64_t{b & 0x7fu} << shift;
    shift += 7;
    if (b & 0x80) continue;
    pos += delta;
    if (pos >= size || !bm.Allocate(pos)) {
      if (pos >= size) return InternalError("allocation data names an offset beyond the range");
    }
    delta = 0;
    shift = 0;
  }
  if (shift != 0) return InternalError("allocation data is truncated");
  return bm;
}

}  // namespace svcplane::apiserver::allocator
