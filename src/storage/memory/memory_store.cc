#include "storage/memory/memory_store.h"

#include <utility>

namespace svcplane::storage::memory {

namespace {
internal::WallClock ClockOrDefault(const internal::WallClock& clock) {
  if (clock) return clock;
  return [] { return std::chrono::system_clock::now(); };
}
}  // namespace

MemoryStore::MemoryStore(MemoryStoreOptions options)
    : now_(ClockOrDefault(options.history.now)), map_(std::move(options.history)) {}

Result<KeyValue> MemoryStore::Get(std::string_view key) { return map_.Get(key); }

Result<ListResult> MemoryStore::List(const ListOptions& options) { return map_.List(options); }

Result<KeyValue> MemoryStore::Create(std::string_view key,
                                     std::shared_ptr<const std::string> value) {
  return Write({internal::WriteKind::kCreate, std::string(key), std::move(value), 0});
}

Result<KeyValue> MemoryStore::Update(std::string_view key, std::shared_ptr<const std::string> value,
                                     Revision expected_mod_revision) {
  return Write(
      {internal::WriteKind::kUpdate, std::string(key), std::move(value), expected_mod_revision});
}

Result<KeyValue> MemoryStore::Delete(std::string_view key, Revision expected_mod_revision) {
  return Write({internal::WriteKind::kDelete, std::string(key), nullptr, expected_mod_revision});
}

Result<KeyValue> MemoryStore::Write(internal::WriteRequest request) {
  std::lock_guard lock(write_mu_);
  internal::WritePlanner planner(map_, now_());
  auto event = planner.Plan(request);
  if (!event.ok()) return event.status();
  map_.Apply(planner.TakeEntries());
  return (*event)->kv;
}

Result<std::unique_ptr<storage::WatchStream>> MemoryStore::Watch(std::string_view prefix,
                                                                 Revision after_revision,
                                                                 const WatchOptions& options) {
  return map_.Watch(prefix, after_revision, options);
}

Status MemoryStore::Compact(Revision revision) {
  std::lock_guard lock(write_mu_);
  return map_.Compact(revision);
}

Revision MemoryStore::CurrentRevision() { return map_.current_revision(); }

Revision MemoryStore::CompactedRevision() { return map_.compacted_revision(); }

}  // namespace svcplane::storage::memory
