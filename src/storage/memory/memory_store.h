#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "storage/internal/versioned_map.h"
#include "storage/store.h"

namespace svcplane::storage::memory {

struct MemoryStoreOptions {
  internal::HistoryOptions history;
};

// A Store that lives in process memory only: for unit tests and for callers that need no
// durability. Same semantics as the durable backends, including history and compaction.
class MemoryStore final : public Store {
 public:
  explicit MemoryStore(MemoryStoreOptions options = {});

  Result<KeyValue> Get(std::string_view key) override;
  Result<ListResult> List(const ListOptions& options) override;
  Result<KeyValue> Create(std::string_view key, std::shared_ptr<const std::string> value) override;
  Result<KeyValue> Update(std::string_view key, std::shared_ptr<const std::string> value,
                          Revision expected_mod_revision) override;
  Result<KeyValue> Delete(std::string_view key, Revision expected_mod_revision) override;
  Result<std::unique_ptr<storage::WatchStream>> Watch(std::string_view prefix,
                                                      Revision after_revision,
                                                      const WatchOptions& options) override;
  Status Compact(Revision revision) override;
  Revision CurrentRevision() override;
  Revision CompactedRevision() override;

 private:
  Result<KeyValue> Write(internal::WriteRequest request);

  const internal::WallClock now_;
  std::mutex write_mu_;  // serialises plan + apply
  internal::VersionedMap map_;
};

}  // namespace svcplane::storage::memory
