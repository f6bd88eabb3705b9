#include "apiserver/allocator/range_record.h"

#include <boost/json.hpp>

#include "apiserver/allocator/ranges.h"
#include "base/base64.h"

namespace svcplane::apiserver::allocator {
namespace {

constexpr std::string_view kOffsetDeltas = "offset-deltas";

std::string_view NameOf(std::string_view key) {
  auto slash = key.rfind('/');
  return slash == std::string_view::npos ? key : key.substr(slash + 1);
}

}  // namespace

std::string EncodeRangeRecord(std::string_view key, std::string_view range, const Bitmap& map) {
  boost::json::object o;
  o["kind"] = "RangeAllocation";
  o["apiVersion"] = "v1";
  o["metadata"] = boost::json::object{{"name", NameOf(key)}};
  o["range"] = range;
  o["encoding"] = kOffsetDeltas;
  o["data"] = map.Encode();
  return boost::json::serialize(o);
}

Result<RangeRecord> ParseRangeRecord(std::string_view json) {
  boost::system::error_code ec;
  boost::json::value doc = boost::json::parse(json, ec);
  if (ec || !doc.is_object()) return InternalError("range record is not a JSON object");
  const auto& o = doc.as_object();
  auto str = [&](std::string_view field) -> std::string {
    auto it = o.find(field);
    return it != o.end() && it->value().is_string() ? std::string(it->value().as_string())
                                                    : std::string();
  };
  RangeRecord r;
  r.range = str("range");
  r.data = str("data");
  const std::string encoding = str("encoding");
  r.offset_deltas = encoding == kOffsetDeltas;
  if (!r.offset_deltas && !encoding.empty()) {
    return InternalError("range record has an unknown encoding \"" + encoding + "\"");
  }
  return r;
}

Result<Bitmap> RangeRecord::Map(size_t size, size_t band_offset) const {
  if (offset_deltas) return Bitmap::Decode(data, size, band_offset);
  auto bytes = Unbase64(data);
  if (!bytes) return InternalError("allocation data is not base64");
  return Bitmap::FromBigIntBytes(*bytes, size, band_offset);
}

Result<size_t> MapSizeOf(std::string_view range) {
  if (range.find('/') != std::string_view::npos) {
    auto cidr = CidrRange::Parse(range);
    if (!cidr.ok()) return InternalError("range record: " + cidr.status().message());
    return cidr->Size();
  }
  auto ports = PortRange::Parse(range);
  if (!ports.ok()) return InternalError("range record: " + ports.status().message());
  return ports->Size();
}

}  // namespace svcplane::apiserver::allocator
