#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/status.h"
#include "storage/watch.h"

namespace svcplane::storage {

// How a List pins the revision it reads at (metav1.ResourceVersionMatch).
enum class RevisionMatch {
  kLatest,        // a consistent read at the current revision; ListOptions::revision is ignored
  kNotOlderThan,  // any snapshot at or after `revision` (waits for it to arrive, then Timeout)
  kExact,         // exactly at `revision`; Gone once compacted
};

struct ListOptions {
  std::string prefix;
  // Inclusive first key (a continue position); empty starts at `prefix`. Must have `prefix`.
  std::string start_key;
  // At most this many items; 0 means no limit.
  size_t limit = 0;
  Revision revision = 0;
  RevisionMatch match = RevisionMatch::kLatest;
  // false: the caller reads only values, and a store may leave the items' keys empty (a copy
  // of each key saved). continue_key is set either way.
  bool keys = true;
};

struct ListResult {
  std::vector<KeyValue> items;  // sorted by key
  // The snapshot revision the list was read at, also for an empty result. Continue pages
  // must pass it back with kExact so that all pages show one snapshot.
  Revision revision = 0;
  // First key of the next page; empty when this was the last page.
  std::string continue_key;
  // Items left after this page (Kubernetes' remainingItemCount).
  int64_t remaining = 0;
};

// Errors (Status codes):
//   NotFound       Get/Update/Delete of a key that does not exist
//   AlreadyExists  Create of a key that exists
//   Conflict       Update/Delete whose expected mod revision is not the key's current one
//   Gone           a read or watch at a revision that history no longer holds (compacted)
//   Timeout        a read at a future revision that did not arrive within the wait limit
//   Unavailable    the backend cannot serve (I/O error, disk full, closed, read-only folder).
//                  For a write this means "outcome unknown" (as an etcd timeout): it may have
//                  reached the disk. A durable backend then refuses further writes until it is
//                  reopened, so no revision can be handed out twice.
//   BadRequest     malformed arguments (empty key, start key outside prefix, future compaction)
//
// All methods are safe to call from any thread concurrently. A write that returned OK is
// visible to every read that starts after it returned and is durable if the backend is.
class Store {
 public:
  virtual ~Store() = default;

  // The latest value of `key`.
  virtual Result<KeyValue> Get(std::string_view key) = 0;

  // The value of `key` as this server last saw it, possibly behind other servers' writes: for
  // admission lookups that upstream answers from an informer (the namespace of a create). A
  // store without a cache reads the latest value. NotFound only after a latest read agreed.
  virtual Result<KeyValue> GetCached(std::string_view key) { return Get(key); }

  virtual Result<ListResult> List(const ListOptions& options) = 0;

  // Creates `key`; AlreadyExists if it exists. Returns the stored KeyValue with its revisions.
  virtual Result<KeyValue> Create(std::string_view key,
                                  std::shared_ptr<const std::string> value) = 0;

  // Replaces the value of `key` if its mod revision is still `expected_mod_revision`.
  virtual Result<KeyValue> Update(std::string_view key, std::shared_ptr<const std::string> value,
                                  Revision expected_mod_revision) = 0;

  // Deletes `key` if its mod revision is still `expected_mod_revision`. Returns the last value
  // with mod_revision set to the deletion revision (as the DELETED watch event carries it).
  virtual Result<KeyValue> Delete(std::string_view key, Revision expected_mod_revision) = 0;

  // Delivers every change to keys under `prefix` with revision > `after_revision`, in
  // revision order, first from history and then live. Gone if `after_revision` is older than
  // CompactedRevision(). A future `after_revision` is allowed: earlier events are skipped.
  virtual Result<std::unique_ptr<WatchStream>> Watch(std::string_view prefix,
                                                     Revision after_revision,
                                                     const WatchOptions& options = {}) = 0;

  // Forgets history at and below `revision`: later reads/watches at or after `revision` still
  // work, older ones get Gone. BadRequest for a future revision; a no-op if already compacted.
  virtual Status Compact(Revision revision) = 0;

  // The revision of the latest committed write (0 for a store that was never written).
  virtual Revision CurrentRevision() = 0;
  // Reads and watches need a revision >= this.
  virtual Revision CompactedRevision() = 0;
};

// Convenience for tests and callers holding plain strings.
inline std::shared_ptr<const std::string> MakeValue(std::string v) {
  return std::make_shared<const std::string>(std::move(v));
}

// The smallest key greater than every key that starts with `prefix` ("" for no bound).
std::string PrefixEnd(std::string_view prefix);

}  // namespace svcplane::storage
