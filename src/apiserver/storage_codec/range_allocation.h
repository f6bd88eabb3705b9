#pragma once

// The allocators' maps as kube-apiserver keeps them in etcd (/registry/ranges/serviceips,
// secondaryserviceips, servicenodeports): a core/v1 RangeAllocation {metadata = 1, range = 2,
// data = 3} in the "k8s\0" envelope, `data` being Go's big.Int.Bytes() of the bitmap
// (Bitmap::BigIntBytes). svcplane's side is its sparse JSON record (allocator/range_record.h),
// which ProtobufValueCodec converts at the etcd boundary only, so the embedded store and the
// watch cache keep the compact form and StoredRange reads one form only.
//
// What is written is what kube's allocator writes: it stores through raw storage (no strategy),
// so metadata is empty (no name, uid or creationTimestamp; resourceVersion is never stored), and
// the bitmap's bytes are always present, empty for an empty map. `range` is the CIDR
// ("10.96.0.0/12") or the port range as net.PortRange.String() writes it, "base-max"
// ("30000-32767"), which is what svcplane's ranges write too (ranges.h).

#include <string>
#include <string_view>

#include "base/result.h"

namespace svcplane::apiserver::storage_codec {

// svcplane's JSON record (either JSON form range_record.h parses) as kube's bytes. The map is
// sized from the record's own `range`; InternalError for a record that does not parse or whose
// data does not fit its range.
Result<std::string> RangeAllocationToProtobuf(std::string_view json);

// kube's bytes as svcplane's JSON record, named after `key` as StoredRange names it.
// InternalError for another kind, malformed protobuf, or bits beyond the record's range.
Result<std::string> RangeAllocationToJson(std::string_view key, std::string_view protobuf);

}  // namespace svcplane::apiserver::storage_codec
