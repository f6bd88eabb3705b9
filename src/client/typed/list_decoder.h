#pragma once

// Decodes the items of a streamed List on two threads: the thread that reads the body (and
// splits it into items) and one process-wide decode thread. On a 2-core machine the read side
// (TLS, HTTP, splitting) and the decode side (parsing, allocating the objects) of a
// 100,000-Pod list then overlap instead of adding up.
//
// Items are copied into batches of about kBatchBytes. A full batch goes to a short queue that
// the decode thread takes from; when the queue is full the reading thread decodes the oldest
// queued batch itself rather than wait. So a decode thread that the scheduler starves (a loaded
// machine) only costs the batch it is on, never a stall. Results are kept per batch and put
// back in order at Finish, whoever decoded them. A list smaller than one batch is decoded on
// the calling thread alone.
//
// The decode thread lives as long as the process, on purpose: the objects it decodes come from
// its malloc arena, so the memory a dropped cache gave back is what the next list (a relist, a
// new informer) reuses. A thread per list got a different arena each time and faulted in fresh
// pages from the kernel instead (~170,000 page faults per 100,000 Pods; on this VM clearing
// those pages sometimes cost more than the decoding).

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace svcplane::client::typed {
namespace internal {

// Runs `job` on the process-wide list decode thread (started on first use, never stopped).
// Jobs run one at a time, in order. Safe from any thread.
void PostToListDecodeThread(std::function<void()> job);

}  // namespace internal

template <typename T>
class ListItemDecoder {
 public:
  // Decodes one item (a JSON object or a protobuf message). Must be safe to call from two
  // threads at once (the codecs keep their scratch space per thread).
  using DecodeFn = Result<T> (*)(std::string_view item);

  static constexpr size_t kBatchBytes = 256 * 1024;
  static constexpr size_t kMaxQueued = 8;  // 2 MiB of item bytes waiting, at most

  explicit ListItemDecoder(DecodeFn decode, size_t batch_bytes = kBatchBytes)
      : shared_(std::make_shared<Shared>(decode)), batch_bytes_(batch_bytes) {}
  // Waits for the batch the decode thread may be on (the batches hold it).
  ~ListItemDecoder() {
    std::unique_lock<std::mutex> l(shared_->mu);
    shared_->queue.clear();
    shared_->idle.wait(l, [this] { return shared_->in_progress == 0; });
  }
  ListItemDecoder(const ListItemDecoder&) = delete;
  ListItemDecoder& operator=(const ListItemDecoder&) = delete;

  // Calling thread only. Copies `item`; decoding errors are reported by Finish.
  void Add(std::string_view item) {
    if (shared_->failed.load(std::memory_order_relaxed)) return;
    if (!open_) {
      open_ = std::make_unique<Batch>();
      open_->bytes.reserve(batch_bytes_ + batch_bytes_ / 4);
    }
    open_->bytes.append(item);
    open_->ends.push_back(open_->bytes.size());
    if (open_->bytes.size() >= batch_bytes_) Submit();
  }

  // Calling thread only, once: the decoded items in order, or the error of an item that did not
  // decode (decoding stops at the first failure either thread sees; no items are returned).
  Status Finish(std::vector<std::shared_ptr<const T>>* out) {
    if (open_) {
      Batch* last = open_.get();
      batches_.push_back(std::move(open_));
      shared_->Decode(*last);
    }
    // Whatever is still queued is decoded here; then only the decode thread's batch is left.
    while (Batch* b = Take()) shared_->Decode(*b);
    {
      std::unique_lock<std::mutex> l(shared_->mu);
      shared_->idle.wait(l, [this] { return shared_->in_progress == 0; });
    }
    size_t n = 0;
    for (const auto& b : batches_) n += b->done.size();
    out->clear();
    out->reserve(n);
    for (auto& b : batches_) {
      for (auto& obj : b->done) out->push_back(std::move(obj));
      if (!b->error.ok()) {
        out->clear();
        return b->error;
      }
    }
    batches_.clear();
    return Status::Ok();
  }

  // Batches the decode thread decoded so far (for tests).
  size_t decoded_elsewhere() const { return shared_->decoded_elsewhere.load(); }

 private:
  struct Batch {
    std::string bytes;
    std::vector<size_t> ends;  // item i is bytes[ends[i-1], ends[i])
    std::vector<std::shared_ptr<const T>> done;
    Status error;
  };

  // What the decode thread's jobs share with the decoder: a job may run after the decoder is
  // gone (it then finds the queue empty).
  struct Shared {
    explicit Shared(DecodeFn d) : decode(d) {}
    const DecodeFn decode;
    std::atomic<bool> failed{false};
    std::atomic<size_t> decoded_elsewhere{0};
    std::mutex mu;
    std::condition_variable idle;  // in_progress dropped to 0
    std::deque<Batch*> queue;      // guarded by mu; submitted, not yet taken
    int in_progress = 0;           // guarded by mu; batches the decode thread is on

    // Either thread. Frees the batch's bytes once decoded (a big list is never held twice).
    void Decode(Batch& b) {
      b.done.reserve(b.ends.size());
      size_t begin = 0;
      for (size_t end : b.ends) {
        if (failed.load(std::memory_order_relaxed)) break;  // an earlier item already failed
        auto obj = decode(std::string_view(b.bytes).substr(begin, end - begin));
        begin = end;
        if (!obj.ok()) {
          b.error = obj.status();
          failed.store(true, std::memory_order_relaxed);
          break;
        }
        b.done.push_back(std::make_shared<const T>(std::move(*obj)));
      }
      std::string().swap(b.bytes);
      std::vector<size_t>().swap(b.ends);
    }

    // On the decode thread: the oldest queued batch, if the reader has not taken it meanwhile.
    void RunOne() {
      Batch* b = nullptr;
      {
        std::lock_guard<std::mutex> l(mu);
        if (queue.empty()) return;
        b = queue.front();
        queue.pop_front();
        ++in_progress;
      }
      Decode(*b);
      decoded_elsewhere.fetch_add(1, std::memory_order_relaxed);
      {
        std::lock_guard<std::mutex> l(mu);
        --in_progress;
      }
      idle.notify_all();
    }
  };

  void Submit() {
    Batch* b = open_.get();
    batches_.push_back(std::move(open_));
    Batch* mine = nullptr;
    {
      std::lock_guard<std::mutex> l(shared_->mu);
      shared_->queue.push_back(b);
      if (shared_->queue.size() > kMaxQueued) {
        mine = shared_->queue.front();
        shared_->queue.pop_front();
      }
    }
    internal::PostToListDecodeThread([s = shared_] { s->RunOne(); });
    if (mine != nullptr) shared_->Decode(*mine);
  }

  Batch* Take() {
    std::lock_guard<std::mutex> l(shared_->mu);
    if (shared_->queue.empty()) return nullptr;
    Batch* b = shared_->queue.front();
    shared_->queue.pop_front();
    return b;
  }

  const std::shared_ptr<Shared> shared_;
  const size_t batch_bytes_;
  std::unique_ptr<Batch> open_;                  // calling thread only
  std::vector<std::unique_ptr<Batch>> batches_;  // calling thread only; every batch, in order
};

}  // namespace svcplane::client::typed
