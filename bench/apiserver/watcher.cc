#include "bench/apiserver/watcher.h"

#include <cstdlib>

namespace svcplane::bench::apiserver {

namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;

Watcher::Watcher(asio::io_context& ioc, ssl::context& tls, const Endpoint& ep, std::string target,
                 std::string prefix, size_t events, std::atomic<int>* ready,
                 std::atomic<int>* failed)
    : stream_(ioc, tls),
      ep_(ep),
      target_(std::move(target)),
      prefix_("\"" + std::move(prefix) + "-"),
      seen_(events),
      ready_(ready),
      failed_(failed) {}

void Watcher::Start() {
  auto self = shared_from_this();
  beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(60));
  beast::get_lowest_layer(stream_).async_connect(
      asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), ep_.port),
      [self](beast::error_code ec) {
        if (ec) return self->Fail();
        self->stream_.async_handshake(ssl::stream_base::client, [self](beast::error_code ec) {
          if (ec) return self->Fail();
          self->SendRequest();
        });
      });
}

void Watcher::Close() {
  beast::error_code ec;
  beast::get_lowest_layer(stream_).socket().shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  beast::get_lowest_layer(stream_).socket().close(ec);
}

void Watcher::Fail() {
  if (!counted_) {
    counted_ = true;
    failed_->fetch_add(1);
  }
}

void Watcher::SendRequest() {
  auto self = shared_from_this();
  req_ = {bhttp::verb::get, target_, 11};
  req_.set(bhttp::field::host, "127.0.0.1");
  req_.set(bhttp::field::authorization, "Bearer " + ep_.token);
  bhttp::async_write(stream_, req_, [self](beast::error_code ec, size_t) {
    if (ec) return self->Fail();
    self->parser_.body_limit(boost::none);
    bhttp::async_read_header(self->stream_, self->buffer_, self->parser_,
                             [self](beast::error_code ec, size_t) {
                               if (ec || self->parser_.get().result_int() != 200) {
                                 return self->Fail();
                               }
                               beast::get_lowest_layer(self->stream_).expires_never();
                               self->counted_ = true;
                               self->ready_->fetch_add(1);
                               self->ReadMore();
                             });
  });
}

void Watcher::ReadMore() {
  auto self = shared_from_this();
  bhttp::async_read_some(stream_, buffer_, parser_, [self](beast::error_code ec, size_t) {
    if (ec) return;  // closed at the end of the phase
    self->Scan();
    self->ReadMore();
  });
}

void Watcher::Scan() {
  auto now = Clock::now();
  std::string& body = parser_.get().body();
  size_t end = body.rfind('\n');
  if (end == std::string::npos) return;
  for (size_t p = body.find(prefix_); p < end; p = body.find(prefix_, p + 1)) {
    size_t i = std::strtoul(body.c_str() + p + prefix_.size(), nullptr, 10);
    if (i < seen_.size() && seen_[i] == Clock::time_point{}) seen_[i] = now;
  }
  body.erase(0, end + 1);
}

}  // namespace svcplane::bench::apiserver
