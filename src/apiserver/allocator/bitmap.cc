#include "apiserver/allocator/bitmap.h"

#include <bit>

namespace svcplane::apiserver::allocator {
namespace {

constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string Base64(const std::string& in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out.push_back(kB64[(v >> s) & 63]);
  }
  if (i + 1 == in.size()) {
    uint32_t v = uint8_t(in[i]) << 16;
    out += {kB64[v >> 18], kB64[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == in.size()) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8);
    out += {kB64[v >> 18], kB64[(v >> 12) & 63], kB64[(v >> 6) & 63], '='};
  }
  return out;
}

std::optional<std::string> Unbase64(std::string_view in) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=') break;
    const char* p = std::char_traits<char>::find(kB64, 64, c);
    if (!p) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(p - kB64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

}  // namespace

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
