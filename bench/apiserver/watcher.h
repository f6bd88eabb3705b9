#pragma once

// apiserver_bench's watch streams: many of them driven asynchronously on one io_context.

#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <memory>
#include <string>
#include <vector>

#include "bench/common/https_client.h"

namespace svcplane::bench::apiserver {

// One watch stream driven asynchronously on a shared io_context: records, per Pod index, the
// first time an event line naming that Pod arrives. Lives on the io_context's thread.
class Watcher : public std::enable_shared_from_this<Watcher> {
 public:
  Watcher(boost::asio::io_context& ioc, boost::asio::ssl::context& tls, const Endpoint& ep,
          std::string target, std::string prefix, size_t events, std::atomic<int>* ready,
          std::atomic<int>* failed);

  void Start();
  void Close();
  const std::vector<Clock::time_point>& seen() const { return seen_; }

 private:
  void Fail();
  void SendRequest();
  void ReadMore();
  // Consumes complete lines of the body, noting each Pod index named in them.
  void Scan();

  boost::beast::ssl_stream<boost::beast::tcp_stream> stream_;
  const Endpoint& ep_;
  std::string target_;
  std::string prefix_;
  std::vector<Clock::time_point> seen_;
  std::atomic<int>* ready_;
  std::atomic<int>* failed_;
  bool counted_ = false;
  boost::beast::http::request<boost::beast::http::empty_body> req_;
  boost::beast::flat_buffer buffer_;
  boost::beast::http::response_parser<boost::beast::http::string_body> parser_;
};

}  // namespace svcplane::bench::apiserver
