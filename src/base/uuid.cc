#include "base/uuid.h"

#include <cstdint>
#include <random>

namespace svcplane {
namespace {

std::mt19937_64& Rng() {
  thread_local std::mt19937_64 rng([] {
    std::random_device rd;
    return (static_cast<uint64_t>(rd()) << 32) ^ rd();
  }());
  return rng;
}

}  // namespace

std::string NewUuid() {
  uint64_t hi = Rng()(), lo = Rng()();
  hi = (hi & 0xFFFFFFFFFFFF0FFFull) | 0x0000000000004000ull;  // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFull) | 0x8000000000000000ull;  // RFC 4122 variant
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  auto put = [&](uint64_t v, int nibbles) {
    for (int i = nibbles - 1; i >= 0; --i) out.push_back(kHex[(v >> (i * 4)) & 0xF]);
  };
  put(hi >> 32, 8);
  out.push_back('-');
  put(hi >> 16, 4);
  out.push_back('-');
  put(hi, 4);
  out.push_back('-');
  put(lo >> 48, 4);
  out.push_back('-');
  put(lo, 12);
  return out;
}

std::string RandomNameSuffix(int n) {
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  for (int i = 0; i < n; ++i) out.push_back(kAlphabet[Rng()() % (sizeof(kAlphabet) - 1)]);
  return out;
}

}  // namespace svcplane
