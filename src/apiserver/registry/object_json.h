#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

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
  ObjectJson() = default;
  // `revision` 0: `bytes` are written as they are (an object that was never stored, whose
  // encoding already carries whatever resourceVersion it has).
  // Finds where the revision goes once, here: every list and watch event writes it again.
  ObjectJson(std::shared_ptr<const std::string> bytes, storage::Revision revision);

  void AppendTo(std::string* out) const;
  std::string str() const;
  // The exact size AppendTo writes (a streamed list announces its Content-Length up front).
  size_t size() const;

 private:
  static constexpr uint32_t kNoSplice = UINT32_MAX;  // written as stored

  std::shared_ptr<const std::string> bytes_;
  storage::Revision revision_ = 0;
  uint32_t splice_ = kNoSplice;  // offset just inside the stored metadata
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
