#pragma once

// The snapshot file: every key of a store under one prefix, read at one revision.
//
// Format, version 1 (integers little-endian):
//   header   one ASCII line: "svcplane-snapshot 1 revision=<R> prefix=<P>\n" (at most 4 KiB)
//   records  one per key, keys strictly ascending:
//              'R' | key length u32 | key | create_revision u64 | mod_revision u64
//                  | value length u32 | value
//   trailer  'T' | record count u64 | SHA-256 (32 bytes) of every byte before this 'T'
// Nothing follows the trailer. A writer that fails part-way (the store lost the revision it
// read at, say) ends with an error record instead of the trailer,
//            'E' | message length u32 | message
// and what it wrote is no snapshot: readers report the message.
// Every key starts with P, and 0 < create_revision <= mod_revision <= R. Values are what the
// Store interface yields: JSON, whichever backend the snapshot was read from (storage::
// ValueCodec), so one file restores into any backend.

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "storage/watch.h"

namespace svcplane::storage::snapshot {

namespace internal {
class Sha256;
}

inline constexpr std::string_view kMagic = "svcplane-snapshot";
inline constexpr int kVersion = 1;
// Bounds that no real record reaches; a larger length means a damaged file, and is refused
// before allocating it.
inline constexpr uint32_t kMaxKeyBytes = 64 << 10;
inline constexpr uint32_t kMaxValueBytes = 256 << 20;

struct Header {
  Revision revision = 0;
  std::string prefix;  // every key starts with it, e.g. "/registry/"
};

// Produces the bytes of one snapshot, appended to caller-owned strings so that a writer can
// send or store them piece by piece: AppendHeader once, AppendRecord per key in ascending key
// order, then AppendTrailer (or AppendError). Not thread-safe.
class Encoder {
 public:
  explicit Encoder(Header header);
  ~Encoder();

  void AppendHeader(std::string* out);
  void AppendRecord(const KeyValue& kv, std::string* out);
  void AppendTrailer(std::string* out);
  // Ends the bytes as a failed snapshot (in place of the trailer).
  static void AppendError(std::string_view message, std::string* out);

  const Header& header() const { return header_; }
  uint64_t records() const { return records_; }

 private:
  void Hashed(std::string* out, size_t from);

  const Header header_;
  std::unique_ptr<internal::Sha256> hash_;
  uint64_t records_ = 0;
};

// Reads a snapshot file front to back and checks all of it: framing, key order, revision
// bounds, then the trailer's count and checksum, and that nothing follows. Errors name the file
// and where it went wrong: NotFound (no such file), Unavailable (I/O, or the writer's error
// record), Invalid (not a snapshot, another version, truncated, damaged, checksum mismatch).
// Not thread-safe.
class Reader {
 public:
  // Opens `path` and reads the header.
  static Result<std::unique_ptr<Reader>> Open(const std::string& path);
  ~Reader();

  const Header& header() const { return header_; }

  // The next record in file order; nullopt once the trailer was read and matched. After an
  // error every further call returns it again.
  Result<std::optional<KeyValue>> Next();
  // The byte offset of the record Next returned last (for ReadAt).
  uint64_t last_offset() const { return last_offset_; }
  // Once Next returned nullopt: the record count and the checksum as hex.
  uint64_t records() const { return records_; }
  const std::string& sha256_hex() const { return sha256_hex_; }
  uint64_t file_bytes() const { return file_bytes_; }

  // The record at `offset` (a last_offset()), for a second pass in another order over a file
  // that Next already verified to its end. Framing is checked again, the checksum is not.
  Result<KeyValue> ReadAt(uint64_t offset);

 private:
  Reader(std::string path, std::FILE* file, uint64_t size);
  Status ReadHeader();
  Result<KeyValue> ReadRecordBody(bool hash);
  Status ReadTrailer();
  // Reads exactly n bytes into *out (hashed when asked); false at the end of the file.
  bool ReadExact(size_t n, std::string* out, bool hash);
  Status Truncated(std::string_view what) const;
  Status Damaged(std::string_view what) const;

  const std::string path_;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_;
  const uint64_t file_bytes_;
  Header header_;
  std::unique_ptr<internal::Sha256> hash_;
  uint64_t offset_ = 0;  // of the next unread byte
  uint64_t last_offset_ = 0;
  uint64_t records_ = 0;
  std::string last_key_;
  std::string sha256_hex_;
  bool done_ = false;
  Status failed_;
};

}  // namespace svcplane::storage::snapshot
