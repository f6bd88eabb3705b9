#pragma once

// Splits a List response into its items while the body arrives, so that a client can decode
// item N while the bytes of item N+1 are still on the wire, and never holds the whole body (a
// list of 100,000 Pods is ~350 MB of JSON; one simdjson document that big also needs ~4 bytes
// of index per byte).

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace svcplane::client::transport {

// Called with each complete item, in order (a view valid during the call only). Return false
// to stop: Feed then returns OK at once and ignores the rest.
using ListItemHandler = std::function<bool(std::string_view item)>;

// A JSON List ({"kind":..., "metadata":{...}, "items":[{...},...]}) fed in arbitrary chunks.
// Only the nesting and the strings are scanned here; items are handed out as raw JSON for the
// typed decoder, which validates them. Fields other than "items" and "metadata" are skipped.
// One list per object; not thread-safe.
class JsonListSplitter {
 public:
  // Consumes `chunk`; calls `on_item` with every item completed by it. Errors: kBadRequest for a
  // body that is not a JSON object, or an "items" that is not an array of objects.
  Status Feed(std::string_view chunk, const ListItemHandler& on_item);
  // After the last chunk: kBadRequest unless the top-level object was complete.
  Status Finish() const;
  // The raw JSON of the list's "metadata" ("" if absent).
  const std::string& metadata() const { return metadata_; }
  bool stopped() const { return stopped_; }

 private:
  enum class State { kStart, kKey, kColon, kValue, kAfterValue, kItems, kItemsNext, kDone };

  // Scans the value starting at buffer_[pos_]: true when it ended (value_end_ set), false when
  // more bytes are needed (the scan resumes from where it stopped).
  bool ScanValue();
  Status Fail(std::string_view what) const;

  std::string buffer_;  // bytes not yet consumed; buffer_[0] is body offset base_
  size_t pos_ = 0;      // next byte to look at, in buffer_
  State state_ = State::kStart;
  std::string key_;
  bool first_member_ = true;
  bool stopped_ = false;
  // ScanValue's progress through one value.
  size_t value_start_ = 0;
  size_t value_end_ = 0;
  size_t scan_ = 0;
  int depth_ = 0;
  bool scanning_ = false;
  std::string metadata_;
};

// A protobuf List ("k8s\0" + runtime.Unknown whose raw bytes are the List message: field 1
// ListMeta, field 2 each item) fed in arbitrary chunks. Items are handed out as their message
// bytes (no envelope), for DecodeProtobufMessage. One list per object; not thread-safe.
class ProtobufListSplitter {
 public:
  Status Feed(std::string_view chunk, const ListItemHandler& on_item);
  Status Finish() const;
  // The List message's field 1 as it came on the wire (tag and length included), so that
  // decoding it as a List yields the metadata ("" if absent).
  const std::string& metadata_field() const { return metadata_; }
  bool stopped() const { return stopped_; }

 private:
  Status Fail(std::string_view what) const;

  std::string buffer_;
  size_t pos_ = 0;
  bool magic_seen_ = false;
  bool raw_seen_ = false;
  uint64_t inner_left_ = 0;  // bytes of the List message (Unknown.raw) not yet consumed
  bool in_raw_ = false;
  bool stopped_ = false;
  std::string metadata_;
};

}  // namespace svcplane::client::transport
