#pragma once

// The fan-out phase's watchers: many protobuf watches read by one thread (or a few) with as few
// client cycles per delivered event as we could manage, since the bench shares two cores with
// the server. A level-triggered epoll loop does one recv per readable socket into a memory BIO;
// OpenSSL decrypts from there (no second recv to learn the socket is drained, no Asio handler
// per event). Each watcher records when the bench's markers ("fm-" and 8 digits, a label value
// of its slice writes) first arrive, searching the decoded body bytes without decoding events.

#include <openssl/ssl.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bench/common/https_client.h"

namespace svcplane::bench::e2e {

inline constexpr std::string_view kFanoutMarker = "fm-";
inline constexpr size_t kFanoutDigits = 8;

// What the watchers of one run share. Counters are safe from any thread.
struct FanoutShared {
  size_t writes = 0;     // markers 0..writes
  Clock::time_point t0;  // the origin of recorded arrival times
  std::atomic<int> ready{0}, failed{0};
  std::atomic<int> ended{0};         // streams the server closed after their head
  std::atomic<size_t> delivered{0};  // (watcher, marker) pairs seen
};

// `watchers` watches sent as `request` (a complete GET) to 127.0.0.1:port, read on one thread.
// Each counts itself in shared ready or failed once its response head (200, protobuf) came or
// its attempt failed. `tls`, `request` and `shared` must outlive the poller.
class FanoutPoller {
 public:
  FanoutPoller(SSL_CTX* tls, uint16_t port, const std::string& request, FanoutShared* shared,
               size_t watchers);
  ~FanoutPoller();  // Stop()
  FanoutPoller(const FanoutPoller&) = delete;
  FanoutPoller& operator=(const FanoutPoller&) = delete;

  // Starts the thread, which connects the watchers and reads them until Stop.
  void Start();
  // Stops the thread and closes every connection. Idempotent.
  void Stop();

  // After Stop: per watcher, whether its watch was accepted, and per marker nanoseconds after
  // shared t0 when it first arrived plus 1, 0 if never.
  size_t size() const { return conns_.size(); }
  bool ok(size_t i) const { return conns_[i]->head_ok; }
  const std::vector<int64_t>& arrivals(size_t i) const { return conns_[i]->arrivals; }

 private:
  enum class State { kConnecting, kHandshake, kHead, kBody, kClosed };
  struct Conn {
    int fd = -1;
    SSL* ssl = nullptr;
    BIO* rbio = nullptr;  // owned by ssl: bytes received, for OpenSSL to decrypt
    BIO* wbio = nullptr;  // owned by ssl: bytes OpenSSL wants sent
    State state = State::kConnecting;
    bool counted = false, head_ok = false, want_out = false;
    std::string head, out;
    ChunkedReader chunks;
    std::string scan;  // decoded body bytes not yet searched (a marker's unfinished start)
    std::vector<int64_t> arrivals;
  };

  void Run();
  void Connect(size_t i);
  void OnEvent(size_t i, uint32_t events, Clock::time_point now);
  void Drive(Conn& c);  // advances the handshake; sends the request once it is done
  void Flush(size_t i);
  void OnData(Conn& c, const char* p, size_t n);
  void Scan(Conn& c, Clock::time_point now);
  void Fail(Conn& c);
  void Close(size_t i);

  SSL_CTX* const tls_;
  const uint16_t port_;
  const std::string& request_;
  FanoutShared* const shared_;
  std::vector<std::unique_ptr<Conn>> conns_;
  int epoll_ = -1;
  int wake_ = -1;  // an eventfd: Stop wakes the thread with it
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::vector<char> net_, plain_;  // the thread's receive and decrypt buffers
};

}  // namespace svcplane::bench::e2e
