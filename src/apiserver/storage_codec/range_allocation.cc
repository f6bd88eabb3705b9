#include "apiserver/storage_codec/range_allocation.h"

#include <cstdint>
#include <optional>

#include "api/codec/protobuf.h"
#include "api/meta/types.h"
#include "apiserver/allocator/range_record.h"

namespace svcplane::apiserver::storage_codec {
namespace {

using allocator::Bitmap;

constexpr std::string_view kApiVersion = "v1";
constexpr std::string_view kKind = "RangeAllocation";

// The three fields need only varints and length-delimited fields; the api codec's wire helpers
// are private to it, and RangeAllocation is no served kind to give it a model for.
void AppendVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void AppendBytesField(uint32_t field, std::string_view bytes, std::string* out) {
  AppendVarint(uint64_t{field} << 3 | 2, out);
  AppendVarint(bytes.size(), out);
  out->append(bytes);
}

// Bounds-checked reads over one message body; every call returns nullopt on malformed input.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool done() const { return data_.empty(); }

  std::optional<uint64_t> Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && !data_.empty(); shift += 7) {
      const auto c = static_cast<uint8_t>(data_.front());
      data_.remove_prefix(1);
      v |= uint64_t{c & 0x7fu} << shift;
      if (c < 0x80) return v;
    }
    return std::nullopt;
  }
  std::optional<std::string_view> Take(uint64_t n) {
    if (n > data_.size()) return std::nullopt;
    auto out = data_.substr(0, n);
    data_.remove_prefix(n);
    return out;
  }

 private:
  std::string_view data_;
};

struct Fields {
  std::string range;
  std::string data;
};

// RangeAllocation's body: range and data kept, metadata and any unknown field skipped (kube's
// allocator writes an empty ObjectMeta; a field from a newer version is nothing to us).
Result<Fields> ParseMessage(std::string_view body) {
  auto bad = [] { return InternalError("malformed RangeAllocation"); };
  Fields f;
  Reader r(body);
  while (!r.done()) {
    auto key = r.Varint();
    if (!key || (*key >> 3) == 0) return bad();
    const uint64_t field = *key >> 3;
    std::optional<std::string_view> value;
    switch (*key & 7) {
      case 0:
        if (!r.Varint()) return bad();
        continue;
      case 1:
        if (!r.Take(8)) return bad();
        continue;
      case 5:
        if (!r.Take(4)) return bad();
        continue;
      case 2:
        if (auto n = r.Varint()) value = r.Take(*n);
        if (!value) return bad();
        break;
      default:
        return bad();
    }
    if (field == 2) f.range.assign(*value);
    if (field == 3) f.data.assign(*value);
  }
  return f;
}

}  // namespace

Result<std::string> RangeAllocationToProtobuf(std::string_view json) {
  auto record = allocator::ParseRangeRecord(json);
  if (!record.ok()) return record.status();
  std::string bitmap;
  // An empty map needs no size, so a record whose range means nothing to us still passes.
  if (!record->data.empty()) {
    auto size = allocator::MapSizeOf(record->range);
    if (!size.ok()) return size.status();
    auto map = record->Map(*size, 0);
    if (!map.ok()) return map.status();
    bitmap = map->BigIntBytes();
  }
  std::string meta;
  api::codec::EncodeProtobufMessage(api::meta::ObjectMeta{}, &meta);
  std::string message;
  message.reserve(meta.size() + record->range.size() + bitmap.size() + 16);
  AppendBytesField(1, meta, &message);
  AppendBytesField(2, record->range, &message);
  // Always, empty or not: big.Int.Bytes() is never nil, and Go's Marshal skips only a nil
  // []byte.
  AppendBytesField(3, bitmap, &message);
  std::string out;
  api::codec::EncodeProtobufEnvelope(kApiVersion, kKind, message, &out);
  return out;
}

Result<std::string> RangeAllocationToJson(std::string_view key, std::string_view protobuf) {
  auto env = api::codec::DecodeProtobufEnvelope(protobuf);
  if (!env.ok()) return InternalError(env.status().message());
  if (env->api_version != kApiVersion || env->kind != kKind) {
    return InternalError("stored object is " + env->api_version + " " + env->kind +
                         ", expected v1 RangeAllocation");
  }
  auto fields = ParseMessage(env->raw);
  if (!fields.ok()) return fields.status();
  Bitmap map;
  if (!fields->data.empty()) {
    auto size = allocator::MapSizeOf(fields->range);
    if (!size.ok()) return size.status();
    auto restored = Bitmap::FromBigIntBytes(fields->data, *size, 0);
    if (!restored.ok()) return restored.status();
    map = std::move(*restored);
  }
  return allocator::EncodeRangeRecord(key, fields->range, map);
}

}  // namespace svcplane::apiserver::storage_codec
