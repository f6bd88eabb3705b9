#pragma once

// The allocation maps' records in the store (/registry/ranges/serviceips, secondaryserviceips,
// servicenodeports), as JSON.
//
// svcplane keeps its own form in every store: the set offsets as sparse deltas
// (Bitmap::Encode), a few bytes per allocation, where upstream keeps the raw bitmap, up to
// 128 KiB for a /12 on every allocation write, all of it kept by the embedded store's watch
// history. On etcd, where kube-apiserver must read it too, storage_codec converts this record
// to and from kube's protobuf RangeAllocation at the boundary (range_allocation.h there), so
// StoredRange and the watch cache above the store only ever see this form.

#include <cstddef>
#include <string>
#include <string_view>

#include "apiserver/allocator/bitmap.h"
#include "base/result.h"

namespace svcplane::apiserver::allocator {

inline constexpr std::string_view kRangesPrefix = "/registry/ranges/";

// {"kind":"RangeAllocation","apiVersion":"v1","metadata":{"name":<the key's last segment>},
//  "range":<range>,"encoding":"offset-deltas","data":<map.Encode()>}
std::string EncodeRangeRecord(std::string_view key, std::string_view range, const Bitmap& map);

// A record's fields, from svcplane's JSON or from the JSON kube-apiserver writes when told to
// store JSON (--storage-media-type): no "encoding", and "data" the base64 of the bitmap as
// Bitmap::BigIntBytes lays it out.
struct RangeRecord {
  std::string range;  // "" when absent
  std::string data;   // base64, as in the JSON ("" when absent or null)
  bool offset_deltas = false;

  // The allocated offsets in a map of `size`; InternalError on malformed data or an offset
  // beyond the map.
  Result<Bitmap> Map(size_t size, size_t band_offset) const;
};
// InternalError if `json` is not a JSON object or its encoding is one we do not know.
Result<RangeRecord> ParseRangeRecord(std::string_view json);

// How many offsets the map of a record's range has: CidrRange::Size for a CIDR
// ("10.96.0.0/12", "fd00::/108"), PortRange::Size for a port range ("30000-32767"). Decoding
// kube's bitmap needs it, to reject bits beyond the range.
Result<size_t> MapSizeOf(std::string_view range);

}  // namespace svcplane::apiserver::allocator
