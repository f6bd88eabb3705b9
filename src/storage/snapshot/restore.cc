#include "storage/snapshot/restore.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <utility>

namespace svcplane::storage::snapshot {

Result<VerifiedSnapshot> VerifiedSnapshot::Load(const std::string& path) {
  auto reader = Reader::Open(path);
  if (!reader.ok()) return reader.status();
  VerifiedSnapshot out;
  out.path_ = path;
  out.header_ = (*reader)->header();
  while (true) {
    auto next = (*reader)->Next();
    if (!next.ok()) return next.status();
    if (!next->has_value()) break;
    out.index_.push_back({(*next)->mod_revision, (*reader)->last_offset()});
  }
  out.sha256_hex_ = (*reader)->sha256_hex();
  out.file_bytes_ = (*reader)->file_bytes();
  return out;
}

Result<RecordSource> VerifiedSnapshot::InKeyOrder() const {
  auto reader = Reader::Open(path_);
  if (!reader.ok()) return reader.status();
  // The file was verified whole; reading it again in order only re-checks the framing. A file
  // changed in between (it should not be) still fails on its trailer.
  std::shared_ptr<Reader> r = std::move(*reader);
  return RecordSource([r] { return r->Next(); });
}

Result<RecordSource> VerifiedSnapshot::InRevisionOrder() const {
  auto reader = Reader::Open(path_);
  if (!reader.ok()) return reader.status();
  auto order = std::make_shared<std::vector<Entry>>(index_);
  // Stable: entries of one revision keep their key order.
  std::stable_sort(order->begin(), order->end(),
                   [](const Entry& a, const Entry& b) { return a.mod_revision < b.mod_revision; });
  std::shared_ptr<Reader> r = std::move(*reader);
  return RecordSource([r, order, i = size_t{0}]() mutable -> Result<std::optional<KeyValue>> {
    if (i == order->size()) return std::optional<KeyValue>();
    auto kv = r->ReadAt((*order)[i++].offset);
    if (!kv.ok()) return kv.status();
    return std::optional<KeyValue>(std::move(*kv));
  });
}

Status CheckEmpty(Store& store, std::string_view prefix) {
  auto any = store.List({.prefix = std::string(prefix), .limit = 1});
  if (!any.ok()) return any.status();
  if (any->items.empty()) return Status::Ok();
  return AlreadyExistsError(
      fmt::format("the store already holds keys under {} (\"{}\" and {} more)", prefix,
                  any->items[0].key, any->remaining));
}

Result<RestoreStats> WriteInRevisionOrder(const VerifiedSnapshot& snapshot, Store& store,
                                          const std::function<void(uint64_t)>& progress,
                                          uint64_t progress_every) {
  auto source = snapshot.InRevisionOrder();
  if (!source.ok()) return source.status();
  RestoreStats stats;
  while (true) {
    auto next = (*source)();
    if (!next.ok()) return next.status();
    if (!next->has_value()) break;
    const KeyValue& kv = **next;
    auto created = store.Create(kv.key, kv.value);
    if (!created.ok()) {
      return Status(created.status().code(),
                    fmt::format("restoring \"{}\" (record {} of {} in revision order): {}", kv.key,
                                stats.records + 1, snapshot.records(), created.status().message()));
    }
    if (stats.records == 0) stats.first_revision = created->mod_revision;
    stats.last_revision = created->mod_revision;
    ++stats.records;
    if (progress && progress_every > 0 && stats.records % progress_every == 0) {
      progress(stats.records);
    }
  }
  return stats;
}

}  // namespace svcplane::storage::snapshot
