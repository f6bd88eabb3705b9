#include "apiserver/allocator/allocators.h"

namespace svcplane::apiserver::allocator {

IpAllocator::IpAllocator(storage::Store* store, CidrRange cidr, std::string key)
    : cidr_(std::move(cidr)),
      stored_(store, std::move(key), cidr_.text(), cidr_.Size(), cidr_.BandOffset()) {}

Result<AllocError> IpAllocator::Allocate(std::string_view ip, bool dry_run) {
  auto parsed = ParseIp(ip);
  std::optional<size_t> offset = parsed ? cidr_.OffsetOf(*parsed) : std::nullopt;
  if (!offset) return AllocError::kNotInRange;
  auto taken = stored_.Allocate(*offset, dry_run);
  if (!taken.ok()) return taken.status();
  return *taken ? AllocError::kNone : AllocError::kAllocated;
}

Result<std::optional<std::string>> IpAllocator::AllocateNext(bool dry_run) {
  auto offset = stored_.AllocateNext(dry_run);
  if (!offset.ok()) return offset.status();
  if (!*offset) return std::optional<std::string>();
  return std::optional<std::string>(FormatIp(cidr_.At(**offset)));
}

Status IpAllocator::Release(std::string_view ip) {
  auto parsed = ParseIp(ip);
  std::optional<size_t> offset = parsed ? cidr_.OffsetOf(*parsed) : std::nullopt;
  if (!offset) return Status::Ok();
  return stored_.Release(*offset);
}

std::string IpAllocator::ErrorText(AllocError e) const {
  switch (e) {
    case AllocError::kAllocated:
      return "provided IP is already allocated";
    case AllocError::kNotInRange:
      return "provided IP is not in the valid range. The range of valid IPs is " + cidr_.text();
    case AllocError::kFull:
      return "range is full";
    case AllocError::kNone:
      break;
  }
  return "";
}

PortAllocator::PortAllocator(storage::Store* store, PortRange range, std::string key)
    : range_(std::move(range)),
      stored_(store, std::move(key), range_.text(), range_.Size(), range_.BandOffset()) {}

Result<AllocError> PortAllocator::Allocate(int port, bool dry_run) {
  auto offset = range_.OffsetOf(port);
  if (!offset) return AllocError::kNotInRange;
  auto taken = stored_.Allocate(*offset, dry_run);
  if (!taken.ok()) return taken.status();
  return *taken ? AllocError::kNone : AllocError::kAllocated;
}

Result<std::optional<int>> PortAllocator::AllocateNext(bool dry_run) {
  auto offset = stored_.AllocateNext(dry_run);
  if (!offset.ok()) return offset.status();
  if (!*offset) return std::optional<int>();
  return std::optional<int>(range_.At(**offset));
}

Status PortAllocator::Release(int port) {
  auto offset = range_.OffsetOf(port);
  if (!offset) return Status::Ok();
  return stored_.Release(*offset);
}

std::string PortAllocator::ErrorText(AllocError e) const {
  switch (e) {
    case AllocError::kAllocated:
      return "provided port is already allocated";
    case AllocError::kNotInRange:
      return "provided port is not in the valid range. The range of valid ports is " +
             range_.text();
    case AllocError::kFull:
      return "range is full";
    case AllocError::kNone:
      break;
  }
  return "";
}

}  // namespace svcplane::apiserver::allocator
