#pragma once

// Typed views of a StoredRange: ClusterIPs of one family and NodePorts, with upstream's error
// texts (ipallocator/interfaces.go, portallocator/allocator.go).

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "apiserver/allocator/ranges.h"
#include "apiserver/allocator/stored_range.h"

namespace svcplane::apiserver::allocator {

// Why a static allocation failed (upstream's ErrAllocated / ErrNotInRange / ErrFull).
enum class AllocError { kNone, kAllocated, kNotInRange, kFull };

inline constexpr std::string_view kServiceIpsKey = "/registry/ranges/serviceips";
inline constexpr std::string_view kSecondaryServiceIpsKey = "/registry/ranges/secondaryserviceips";
inline constexpr std::string_view kNodePortsKey = "/registry/ranges/servicenodeports";

// Safe from any thread.
class IpAllocator {
 public:
  IpAllocator(storage::Store* store, CidrRange cidr, std::string key);

  const CidrRange& cidr() const { return cidr_; }
  std::string_view family() const { return cidr_.family(); }
  StoredRange& stored() { return stored_; }

  // A specific (static) address; kNotInRange also for unparseable text.
  Result<AllocError> Allocate(std::string_view ip, bool dry_run = false);
  // Any free address (dynamic band first); nullopt when the range is full.
  Result<std::optional<std::string>> AllocateNext(bool dry_run = false);
  // Frees `ip`; out-of-range or free addresses are a no-op, as upstream.
  Status Release(std::string_view ip);

  // "provided IP is already allocated", "provided IP is not in the valid range. The range of
  // valid IPs is 10.96.0.0/12", "range is full".
  std::string ErrorText(AllocError e) const;

 private:
  CidrRange cidr_;
  StoredRange stored_;
};

class PortAllocator {
 public:
  PortAllocator(storage::Store* store, PortRange range,
                std::string key = std::string(kNodePortsKey));

  const PortRange& range() const { return range_; }
  StoredRange& stored() { return stored_; }

  Result<AllocError> Allocate(int port, bool dry_run = false);
  Result<std::optional<int>> AllocateNext(bool dry_run = false);
  Status Release(int port);

  // "provided port is already allocated", "provided port is not in the valid range. The range
  // of valid ports is 30000-32767", "range is full".
  std::string ErrorText(AllocError e) const;

 private:
  PortRange range_;
  StoredRange stored_;
};

}  // namespace svcplane::apiserver::allocator
