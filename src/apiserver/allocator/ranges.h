#pragma once

// The address spaces Services allocate from: a CIDR for ClusterIPs (--service-cluster-ip-range)
// and a port range for NodePorts (--service-node-port-range), with upstream's offset arithmetic
// (pkg/registry/core/service/ipallocator/bitmap.go, portallocator/allocator.go).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace svcplane::apiserver::allocator {

// "IPv4" / "IPv6" (api.IPFamily).
inline constexpr std::string_view kIPv4 = "IPv4";
inline constexpr std::string_view kIPv6 = "IPv6";

// An IPv4 or IPv6 address as a 128-bit number (IPv4 in the low 32 bits).
struct IpAddress {
  bool v6 = false;
  unsigned __int128 value = 0;
  bool operator==(const IpAddress&) const = default;
};

// inet_pton for either family (no zone, no IPv4-mapped forms folded); nullopt if not an IP.
std::optional<IpAddress> ParseIp(std::string_view text);
// The canonical text (inet_ntop: "10.96.0.1", "fd00::1").
std::string FormatIp(const IpAddress& ip);
// "IPv4"/"IPv6" of a parseable address; empty if unparseable.
std::string_view FamilyOf(std::string_view ip_text);

// A service CIDR. Allocatable offsets k in [0, Size()) map to network + 1 + k: for IPv4 the
// network and broadcast addresses are excluded; for IPv6 only the subnet-router address, and
// the map is capped at 65536 entries as upstream's bitmap is.
class CidrRange {
 public:
  // "10.96.0.0/12", "fd00:10:96::/112". Host bits are masked off, as net.ParseCIDR does.
  static Result<CidrRange> Parse(std::string_view text);

  std::string_view family() const { return network_.v6 ? kIPv6 : kIPv4; }
  const std::string& text() const { return text_; }
  size_t Size() const { return size_; }
  // Start of the dynamic (upper) band, KEP-3070: 0 when the CIDR has <= 16 addresses, else
  // clamp(addresses / 16, 16, 256).
  size_t BandOffset() const { return band_offset_; }
  // The offset of `ip` if it is allocatable in this range.
  std::optional<size_t> OffsetOf(const IpAddress& ip) const;
  IpAddress At(size_t offset) const;
  // The first allocatable address (offset 0): the `kubernetes` Service's ClusterIP.
  IpAddress First() const { return At(0); }

 private:
  IpAddress network_;
  int prefix_ = 0;
  size_t size_ = 0;
  size_t band_offset_ = 0;
  std::string text_;
};

// An inclusive port range "30000-32767" (net.PortRange).
class PortRange {
 public:
  static Result<PortRange> Parse(std::string_view text);

  int base() const { return base_; }
  size_t Size() const { return size_; }
  const std::string& text() const { return text_; }
  // clamp(size / 32, 16, 128), 0 for ranges of <= 16 ports: 86 for the default range.
  size_t BandOffset() const { return band_offset_; }
  std::optional<size_t> OffsetOf(int port) const;
  int At(size_t offset) const { return base_ + static_cast<int>(offset); }

 private:
  int base_ = 0;
  size_t size_ = 0;
  size_t band_offset_ = 0;
  std::string text_;
};

}  // namespace svcplane::apiserver::allocator
