#include "apiserver/http/stream_writer.h"

#include "base/check.h"

namespace svcplane::apiserver::http {

std::shared_ptr<StreamWriter> StreamWriter::Create(StreamHead head) {
  return std::make_shared<StreamWriter>(std::move(head));
}

WriteResult StreamWriter::Write(std::string_view bytes) {
  std::function<void()> wake;
  {
    std::lock_guard lock(mu_);
    if (ended_ || end_requested_) return WriteResult::kEnded;
    if (pending_.size() + inflight_ + bytes.size() > head_.max_buffered_bytes) {
      return WriteResult::kOverflow;
    }
    pending_.append(bytes);
    // One wake-up per batch: the connection takes everything queued when it runs.
    if (attached_ && !wake_scheduled_) {
      wake_scheduled_ = true;
      wake = wake_;
    }
  }
  if (wake) wake();
  return WriteResult::kOk;
}

void StreamWriter::Close() {
  std::function<void()> wake;
  {
    std::lock_guard lock(mu_);
    if (ended_ || end_requested_) return;
    end_requested_ = true;
    end_reason_ = StreamEnd::kClosed;
    if (attached_ && !wake_scheduled_) {
      wake_scheduled_ = true;
      wake = wake_;
    }
  }
  if (wake) wake();
}

void StreamWriter::OnEnd(std::function<void(StreamEnd)> cb) {
  StreamEnd reason;
  {
    std::lock_guard lock(mu_);
    if (!ended_) {
      on_end_.push_back(std::move(cb));
      return;
    }
    reason = end_reason_;
  }
  cb(reason);
}

void StreamWriter::OnHeadWritten(std::function<void()> cb) {
  {
    std::lock_guard lock(mu_);
    if (ended_ && !head_written_) return;
    if (!head_written_) {
      on_head_written_.push_back(std::move(cb));
      return;
    }
  }
  cb();
}

size_t StreamWriter::buffered_bytes() const {
  std::lock_guard lock(mu_);
  return pending_.size() + inflight_;
}

bool StreamWriter::ended() const {
  std::lock_guard lock(mu_);
  return ended_;
}

// The connection attaches once the head is written.
void StreamWriter::Attach(std::function<void()> wake) {
  std::vector<std::function<void()>> head_written;
  {
    std::lock_guard lock(mu_);
    SVC_CHECK(!attached_) << "a StreamWriter was returned by more than one request";
    attached_ = true;
    wake_ = std::move(wake);
    wake_scheduled_ = false;
    head_written_ = true;
    head_written.swap(on_head_written_);
  }
  for (auto& cb : head_written) cb();
}

StreamWriter::Batch StreamWriter::Take() {
  std::lock_guard lock(mu_);
  wake_scheduled_ = false;
  Batch batch{std::move(pending_), end_requested_};
  pending_.clear();
  inflight_ = batch.data.size();
  return batch;
}

void StreamWriter::WriteDone() {
  std::lock_guard lock(mu_);
  inflight_ = 0;
}

void StreamWriter::RequestEnd(StreamEnd why) {
  std::lock_guard lock(mu_);
  if (ended_ || end_requested_) return;
  end_requested_ = true;
  end_reason_ = why;
}

StreamEnd StreamWriter::requested_end() const {
  std::lock_guard lock(mu_);
  return end_reason_;
}

void StreamWriter::Finish(StreamEnd why) {
  std::vector<std::function<void(StreamEnd)>> cbs;
  {
    std::lock_guard lock(mu_);
    if (ended_) return;
    ended_ = true;
    end_reason_ = why;
    pending_.clear();
    inflight_ = 0;
    wake_ = nullptr;
    cbs.swap(on_end_);
    on_head_written_.clear();
  }
  for (auto& cb : cbs) cb(why);
}

}  // namespace svcplane::apiserver::http
