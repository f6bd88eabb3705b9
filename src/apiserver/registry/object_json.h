#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "base/result.h"
#include "storage/watch.h"

namespace svcplane::apiserver::registry {

// Objects are stored as their JSON encoding without metadata.resourceVersion (the revision is
// only known once the store commits). On the way out the revision is spliced in as the first
// metadata field; every stored object starts with kind, apiVersion and metadata (our encoder's
// order), so the first `"metadata":{` is the object's own.
std::string WithResourceVersion(std::string_view stored_json, storage::Revision rv);
// The same, appended to `out`.
void AppendWithResourceVersion(std::string_view stored_json, storage::Revision rv,
                               std::string* out);

// An object's JSON as readers get it: the stored bytes (shared with the store, the watch history
// and every reader) plus the revision, spliced together only when written out. Keeping a second,
// spliced copy of every object would cost as much memory as the store itself.
class ObjectJson {
 public:
  // Where the revision goes is found here, once: a watch event is written to every watcher.
  struct FindSpliceWhenWritten {};

  ObjectJson() = default;
  // `revision` 0: `bytes` are written as they are (an object that was never stored, whose
  // encoding already carries whatever resourceVersion it has).
  ObjectJson(std::shared_ptr<const std::string> bytes, storage::Revision revision);
  // For a list's items, each written once: the bytes are first read when they are copied out.
  // Finding the splice up front read all 100k objects of a list before its first byte went out
  // (a third of the time to that byte), and they were out of cache again when copied.
  ObjectJson(std::shared_ptr<const std::string> bytes, storage::Revision revision,
             FindSpliceWhenWritten);

  // Spelled out for the atomic member. Moves stay moves: a list's items are moved into
  // vectors and replies, and a copy of the shared bytes' pointer is an atomic increment.
  ObjectJson(const ObjectJson& other) { *this = other; }
  ObjectJson(ObjectJson&& other) noexcept { *this = std::move(other); }
  ObjectJson& operator=(const ObjectJson& other);
  ObjectJson& operator=(ObjectJson&& other) noexcept;

  void AppendTo(std::string* out) const;
  std::string str() const;
  // The exact size AppendTo writes.
  size_t size() const;

 private:
  static constexpr uint32_t kNoSplice = UINT32_MAX;         // written as stored
  static constexpr uint32_t kNotFoundYet = UINT32_MAX - 1;  // FindSpliceWhenWritten
  uint32_t Splice() const;

  std::shared_ptr<const std::string> bytes_;
  storage::Revision revision_ = 0;
  // Offset just inside the stored metadata. Atomic only so that a lazily found one may be
  // remembered by whichever thread writes first: every thread finds the same offset.
  mutable std::atomic<uint32_t> splice_{kNoSplice};
};

// Storage keys: "<prefix>/<namespace>/<name>" for namespaced kinds, "<prefix>/<name>" otherwise.
std::string ObjectKey(std::string_view prefix, std::string_view ns, std::string_view name);
// The range of a collection: "<prefix>/<namespace>/" or "<prefix>/" for all namespaces.
std::string CollectionPrefix(std::string_view prefix, std::string_view ns);

// Upstream's continue token: base64url(JSON {"v":"meta.k8s.io/v1","rv":N,"start":"<key rest>"}).
struct ContinueToken {
  storage::Revision revision = 0;
  std::string start;  // key relative to the collection prefix
};
std::string EncodeContinueToken(const ContinueToken& token);
// kBadRequest "invalid continue token: ..." when malformed.
Result<ContinueToken> DecodeContinueToken(std::string_view token);

// Parses a decimal resourceVersion; kBadRequest for anything else.
Result<storage::Revision> ParseResourceVersion(std::string_view rv);

}  // namespace svcplane::apiserver::registry
