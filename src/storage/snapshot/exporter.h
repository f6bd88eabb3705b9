#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "base/result.h"
#include "storage/snapshot/snapshot_file.h"
#include "storage/store.h"

namespace svcplane::storage::snapshot {

// Reads every key of a store under one prefix at one revision, one page at a time, as the
// bytes of a snapshot file (snapshot_file.h). The first page is a consistent read at the latest
// revision, which becomes the snapshot's; every later page is a List at exactly that revision
// (RevisionMatch::kExact, as a paginated kube LIST), so writes that go on meanwhile never show
// and every backend (the embedded store from its history, etcd from its MVCC, through the watch
// cache when it still holds that revision) reads one state. Memory stays at about one page.
//
// The store must outlive the exporter. One thread at a time.
class Exporter {
 public:
  // Reads the first page. Errors are the store's.
  static Result<std::unique_ptr<Exporter>> Start(Store& store, std::string prefix,
                                                 size_t page_size);

  Revision revision() const { return encoder_.header().revision; }

  // Appends the next bytes (the header and first page, then one page per call, then the
  // trailer) and returns whether more follow. A page that cannot be read (Gone: the revision
  // was compacted away while the snapshot was read) ends the bytes with an error record, so
  // what was sent reads as a failed snapshot, never as a short one; status() then holds it.
  bool Next(std::string* out);
  const Status& status() const { return status_; }
  uint64_t records() const { return encoder_.records(); }

 private:
  Exporter(Store& store, std::string prefix, size_t page_size, ListResult first);

  Store& store_;
  const std::string prefix_;
  const size_t page_size_;
  Encoder encoder_;
  ListResult page_;  // the page to append next
  bool started_ = false;
  bool done_ = false;
  Status status_;
};

}  // namespace svcplane::storage::snapshot
