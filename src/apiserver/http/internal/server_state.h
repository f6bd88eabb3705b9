#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <unordered_map>

#include <boost/asio/ssl/context.hpp>
#include <boost/asio/thread_pool.hpp>

#include "apiserver/http/inflight_limiter.h"
#include "apiserver/http/server.h"

namespace svcplane::apiserver::http::internal {

class Connection;

// What the server shares with its connections. Held by shared_ptr from both sides, so it
// outlives the last connection whatever the order of teardown.
struct ServerState {
  ServerState(ServerOptions o, Handler h, boost::asio::ssl::context ctx)
      : options(std::move(o)),
        handler(std::move(h)),
        ssl(std::move(ctx)),
        inflight(options.max_requests_inflight, options.max_mutating_requests_inflight) {}

  void Register(const std::shared_ptr<Connection>& c);
  void Unregister(Connection* c);

  // Constant after construction.
  const ServerOptions options;
  const Handler handler;
  boost::asio::ssl::context ssl;
  InflightLimiter inflight;                     // thread-safe
  boost::asio::thread_pool* workers = nullptr;  // owned by ServerImpl, outlives connections' use

  std::atomic<bool> ready{false};
  std::atomic<bool> shutting_down{false};
  std::atomic<bool> draining{false};  // BeginShutdown: /readyz fails, requests still served
  std::atomic<uint64_t> accepted{0};

  std::mutex mu;
  std::condition_variable cv;  // signalled when `connections` shrinks
  std::unordered_map<Connection*, std::weak_ptr<Connection>> connections;  // guarded by mu
};

}  // namespace svcplane::apiserver::http::internal
