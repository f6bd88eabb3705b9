#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "storage/snapshot/snapshot_file.h"
#include "storage/store.h"

namespace svcplane::storage::snapshot {

// Records pulled one at a time: the next KeyValue, nullopt at the end, or an error.
using RecordSource = std::function<Result<std::optional<KeyValue>>()>;

// A snapshot file read once to its end and found whole (every check of Reader, checksum
// included), so that a restore never starts from a damaged file and stops half-way. Keeps an
// index of 16 bytes per key (its mod revision and offset), not the values: the records are read
// from the file again, in key order or in mod-revision order.
class VerifiedSnapshot {
 public:
  static Result<VerifiedSnapshot> Load(const std::string& path);

  const Header& header() const { return header_; }
  uint64_t records() const { return index_.size(); }
  const std::string& sha256_hex() const { return sha256_hex_; }
  uint64_t file_bytes() const { return file_bytes_; }

  // File order (ascending keys).
  Result<RecordSource> InKeyOrder() const;
  // Ascending mod revision; keys of one revision (none in a store that writes one key per
  // revision) in key order.
  Result<RecordSource> InRevisionOrder() const;

 private:
  struct Entry {
    Revision mod_revision;
    uint64_t offset;
  };

  std::string path_;
  Header header_;
  std::string sha256_hex_;
  uint64_t file_bytes_ = 0;
  std::vector<Entry> index_;  // in key order
};

// AlreadyExists, naming a key, when `store` holds anything under `prefix`.
Status CheckEmpty(Store& store, std::string_view prefix);

struct RestoreStats {
  uint64_t records = 0;
  // The revisions the target store gave the first and the last record.
  Revision first_revision = 0;
  Revision last_revision = 0;
};

// Creates every record in `store`, one Create per record in mod-revision order: a store that
// assigns its own revisions (etcd) then numbers the objects in the order the snapshot's store
// did, so resourceVersions compare as before even though their values change. `progress`, if
// set, is called after every `progress_every` records. Stops at the first failed Create (an
// AlreadyExists means something else writes into the store meanwhile).
Result<RestoreStats> WriteInRevisionOrder(const VerifiedSnapshot& snapshot, Store& store,
                                          const std::function<void(uint64_t done)>& progress = {},
                                          uint64_t progress_every = 10'000);

}  // namespace svcplane::storage::snapshot
