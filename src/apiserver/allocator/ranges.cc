#include "apiserver/allocator/ranges.h"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>

namespace svcplane::apiserver::allocator {
namespace {

size_t ClampBand(size_t total, size_t divisor, size_t lo, size_t hi) {
  if (total <= 16) return 0;
  return std::clamp(total / divisor, lo, hi);
}

}  // namespace

std::optional<IpAddress> ParseIp(std::string_view text) {
  if (text.empty() || text.size() >= INET6_ADDRSTRLEN) return std::nullopt;
  std::string s(text);
  IpAddress ip;
  if (s.find(':') == std::string::npos) {
    in_addr a{};
    if (inet_pton(AF_INET, s.c_str(), &a) != 1) return std::nullopt;
    ip.value = ntohl(a.s_addr);
    return ip;
  }
  in6_addr a{};
  if (inet_pton(AF_INET6, s.c_str(), &a) != 1) return std::nullopt;
  ip.v6 = true;
  for (uint8_t b : a.s6_addr) ip.value = (ip.value << 8) | b;
  return ip;
}

std::string FormatIp(const IpAddress& ip) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (!ip.v6) {
    in_addr a{};
    a.s_addr = htonl(static_cast<uint32_t>(ip.value));
    inet_ntop(AF_INET, &a, buf, sizeof(buf));
  } else {
    in6_addr a{};
    unsigned __int128 v = ip.value;
    for (int i = 15; i >= 0; --i) {
      a.s6_addr[i] = static_cast<uint8_t>(v & 0xff);
      v >>= 8;
    }
    inet_ntop(AF_INET6, &a, buf, sizeof(buf));
  }
  return buf;
}

std::string_view FamilyOf(std::string_view ip_text) {
  auto ip = ParseIp(ip_text);
  if (!ip) return {};
  return ip->v6 ? kIPv6 : kIPv4;
}

Result<CidrRange> CidrRange::Parse(std::string_view text) {
  auto slash = text.find('/');
  auto bad = [&] { return BadRequestError("invalid CIDR address: " + std::string(text)); };
  if (slash == std::string_view::npos) return bad();
  auto ip = ParseIp(text.substr(0, slash));
  if (!ip) return bad();
  std::string_view bits = text.substr(slash + 1);
  int prefix = -1;
  auto [p, ec] = std::from_chars(bits.data(), bits.data() + bits.size(), prefix);
  const int width = ip->v6 ? 128 : 32;
  if (ec != std::errc() || p != bits.data() + bits.size() || prefix < 0 || prefix > width) {
    return bad();
  }
  const int host_bits = width - prefix;
  unsigned __int128 host_mask = host_bits == 128
                                    ? ~static_cast<unsigned __int128>(0)
                                    : ((static_cast<unsigned __int128>(1) << host_bits) - 1);
  CidrRange r;
  r.network_ = *ip;
  r.network_.value &= ~host_mask;
  if (!ip->v6) r.network_.value &= 0xffffffffu;
  r.prefix_ = prefix;
  // Total addresses, capped: only comparisons against small numbers need it exactly.
  const size_t total = host_bits >= 32 ? (size_t{1} << 32) : (size_t{1} << host_bits);
  if (!ip->v6) {
    r.size_ = total >= 2 ? total - 2 : 0;
  } else {
    r.size_ = std::min<size_t>(total, 65536) - 1;
  }
  if (r.size_ == 0) {
    return BadRequestError("the service cluster IP range " + std::string(text) +
                           " has no allocatable addresses");
  }
  r.band_offset_ = ClampBand(total, 16, 16, 256);
  r.text_ = FormatIp(r.network_) + "/" + std::to_string(prefix);
  return r;
}

std::optional<size_t> CidrRange::OffsetOf(const IpAddress& ip) const {
  if (ip.v6 != network_.v6 || ip.value <= network_.value) return std::nullopt;
  unsigned __int128 k = ip.value - network_.value - 1;
  if (k >= size_) return std::nullopt;
  return static_cast<size_t>(k);
}

IpAddress CidrRange::At(size_t offset) const {
  IpAddress ip = network_;
  ip.value += 1 + offset;
  return ip;
}

Result<PortRange> PortRange::Parse(std::string_view text) {
  auto bad = [&] {
    return BadRequestError("unable to parse port range: " + std::string(text) +
                           ": expected a range like 30000-32767");
  };
  auto dash = text.find('-');
  int lo = 0, hi = 0;
  auto num = [](std::string_view s, int* out) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
    return ec == std::errc() && p == s.data() + s.size() && !s.empty();
  };
  if (dash == std::string_view::npos) {
    if (!num(text, &lo)) return bad();
    hi = lo;
  } else if (!num(text.substr(0, dash), &lo) || !num(text.substr(dash + 1), &hi)) {
    return bad();
  }
  if (lo < 0 || hi > 65535 || hi < lo) return bad();
  PortRange r;
  r.base_ = lo;
  r.size_ = static_cast<size_t>(hi - lo + 1);
  r.band_offset_ = ClampBand(r.size_, 32, 16, 128);
  r.text_ = std::to_string(lo) + "-" + std::to_string(hi);
  return r;
}

std::optional<size_t> PortRange::OffsetOf(int port) const {
  if (port < base_ || port >= base_ + static_cast<int>(size_)) return std::nullopt;
  return static_cast<size_t>(port - base_);
}

}  // namespace svcplane::apiserver::allocator
