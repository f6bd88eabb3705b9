#pragma once

// A watch read on its own thread over its own blocking TLS connection: for the few watchers
// whose every event the bench inspects (the idle and propagation phases, the burst's tracker).

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "bench/common/https_client.h"

namespace svcplane::bench::e2e {

enum class Encoding { kJson, kProtobuf };
std::string_view EncodingName(Encoding e);

class WatchStream {
 public:
  // One whole event: a JSON line (without its newline), or a protobuf frame with its 4-byte
  // length, as api::codec::NextProtobufWatchFrame takes it. `arrived` is when the read that
  // completed the event returned. Called on the stream's thread only.
  using OnEvent = std::function<void(std::string_view event, Clock::time_point arrived)>;

  WatchStream(const Endpoint& ep, std::shared_ptr<boost::asio::ssl::context> tls,
              std::string target, Encoding encoding, OnEvent on_event);
  ~WatchStream();  // Stop()
  WatchStream(const WatchStream&) = delete;
  WatchStream& operator=(const WatchStream&) = delete;

  // Connects, sends the watch and checks its head (200, and protobuf frames when asked for);
  // throws std::runtime_error otherwise. Events go to on_event from then on.
  void Start();
  // Closes the connection and joins the thread. Idempotent.
  void Stop();
  // True if the stream ended before Stop (the server closed it, or an event did not parse);
  // error() says why.
  bool ended() const { return ended_.load(); }
  std::string error() const;

 private:
  void Run(std::string first);
  // Hands whole events at the front of pending_ to on_event_ and drops them.
  void Split(Clock::time_point arrived);

  const std::string target_;
  const Encoding encoding_;
  const OnEvent on_event_;
  std::unique_ptr<Client> client_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> ended_{false};
  std::string error_;  // written by the thread before ended_ is set
  std::string pending_;
};

}  // namespace svcplane::bench::e2e
