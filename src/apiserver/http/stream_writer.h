#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace svcplane::apiserver::http {

namespace internal {
class Connection;
}

// Why a stream ended. The OnEnd callback gets exactly one of these, exactly once.
enum class StreamEnd {
  kClosed,      // the handler called Close() and every byte was written
  kClientGone,  // the client disconnected, or stalled past the write timeout
  kShutdown,    // the server shut down; buffered bytes were written and the stream ended cleanly
};

enum class WriteResult {
  kOk,        // queued; it goes out as soon as the socket takes it
  kOverflow,  // not queued: the buffer is full because the client reads too slowly
  kEnded,     // not queued: the stream has ended or Close() was called
};

struct StreamHead {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  // Bytes queued but not yet acknowledged by the socket, beyond which Write reports kOverflow.
  size_t max_buffered_bytes = 4 << 20;
};

// The write end of one chunked (Transfer-Encoding: chunked) response. A handler creates it,
// returns it as its Reply and keeps it to write to later, from any thread. The server sends the
// head as soon as the handler returns, then each batch of queued bytes as a chunk, and ends the
// stream with the terminating chunk after Close() or on server shutdown.
//
// Thread safety: every public method is safe from any thread. Write() never waits for the
// network; it copies into a bounded buffer. Many streams share the server's few I/O threads, so
// a stream costs memory, never a thread.
//
// Back-pressure: when a client reads slower than the producer writes, the buffer fills and
// Write() returns kOverflow without queuing. The stream stays open; the producer decides
// (for a watch, the right answer is Close(): the client resumes from the last event it got,
// whereas silently dropping an event would corrupt its view).
class StreamWriter {
 public:
  static std::shared_ptr<StreamWriter> Create(StreamHead head = {});

  explicit StreamWriter(StreamHead head) : head_(std::move(head)) {}
  StreamWriter(const StreamWriter&) = delete;
  StreamWriter& operator=(const StreamWriter&) = delete;

  WriteResult Write(std::string_view bytes);

  // Ends the stream cleanly once the queued bytes are out. Idempotent.
  void Close();

  // `cb` runs once when the stream ends, with the reason, on a server I/O thread (it must not
  // block and must not call back into the server synchronously); immediately, on the calling
  // thread, if the stream has already ended. The writer drops `cb` after calling it, so `cb` may
  // hold a reference to the writer. Several callbacks run in the order they were added.
  void OnEnd(std::function<void(StreamEnd)> cb);
  // `cb` runs once the response head has been written (the audit log's ResponseStarted), on a
  // server I/O thread under the same rules as OnEnd; immediately if it already was. Never runs
  // for a stream that ended before its head was written.
  void OnHeadWritten(std::function<void()> cb);

  size_t buffered_bytes() const;
  bool ended() const;
  const StreamHead& head() const { return head_; }

 private:
  friend class internal::Connection;

  // Server side, called only by the owning connection.
  struct Batch {
    std::string data;
    bool last = false;  // write the terminating chunk after `data`
  };
  void Attach(std::function<void()> wake);
  Batch Take();
  void WriteDone();
  void RequestEnd(StreamEnd why);
  void Finish(StreamEnd why);
  StreamEnd requested_end() const;

  const StreamHead head_;

  mutable std::mutex mu_;
  std::string pending_;          // guarded by mu_
  size_t inflight_ = 0;          // guarded by mu_: bytes taken by the connection, not yet written
  bool attached_ = false;        // guarded by mu_
  bool wake_scheduled_ = false;  // guarded by mu_
  bool end_requested_ = false;   // guarded by mu_
  StreamEnd end_reason_ = StreamEnd::kClosed;           // guarded by mu_
  bool ended_ = false;                                  // guarded by mu_
  std::function<void()> wake_;                          // guarded by mu_
  std::vector<std::function<void(StreamEnd)>> on_end_;  // guarded by mu_
  bool head_written_ = false;                           // guarded by mu_
  std::vector<std::function<void()>> on_head_written_;  // guarded by mu_
};

}  // namespace svcplane::apiserver::http
