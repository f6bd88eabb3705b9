#include "storage/snapshot/exporter.h"

#include <utility>

namespace svcplane::storage::snapshot {

Result<std::unique_ptr<Exporter>> Exporter::Start(Store& store, std::string prefix,
                                                  size_t page_size) {
  if (prefix.empty()) return BadRequestError("a snapshot needs a key prefix");
  if (page_size == 0) page_size = 1;
  auto first = store.List({.prefix = prefix, .limit = page_size, .match = RevisionMatch::kLatest});
  if (!first.ok()) return first.status();
  return std::unique_ptr<Exporter>(
      new Exporter(store, std::move(prefix), page_size, std::move(*first)));
}

Exporter::Exporter(Store& store, std::string prefix, size_t page_size, ListResult first)
    : store_(store),
      prefix_(std::move(prefix)),
      page_size_(page_size),
      encoder_(Header{first.revision, prefix_}),
      page_(std::move(first)) {}

bool Exporter::Next(std::string* out) {
  if (done_) return false;
  if (!started_) {
    encoder_.AppendHeader(out);
    started_ = true;
  } else {
    auto page = store_.List({.prefix = prefix_,
                             .start_key = page_.continue_key,
                             .limit = page_size_,
                             .revision = revision(),
                             .match = RevisionMatch::kExact});
    if (!page.ok()) {
      status_ = page.status();
      Encoder::AppendError(status_.ToString(), out);
      done_ = true;
      return false;
    }
    page_ = std::move(*page);
  }
  for (const KeyValue& kv : page_.items) encoder_.AppendRecord(kv, out);
  page_.items.clear();
  if (page_.continue_key.empty()) {
    encoder_.AppendTrailer(out);
    done_ = true;
  }
  return !done_;
}

}  // namespace svcplane::storage::snapshot
