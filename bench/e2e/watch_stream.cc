#include "bench/e2e/watch_stream.h"

#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace svcplane::bench::e2e {

std::string_view EncodingName(Encoding e) { return e == Encoding::kJson ? "JSON" : "protobuf"; }

WatchStream::WatchStream(const Endpoint& ep, std::shared_ptr<boost::asio::ssl::context> tls,
                         std::string target, Encoding encoding, OnEvent on_event)
    : target_(std::move(target)),
      encoding_(encoding),
      on_event_(std::move(on_event)),
      client_(std::make_unique<Client>(ep, std::move(tls))) {}

WatchStream::~WatchStream() { Stop(); }

void WatchStream::Start() {
  const bool pb = encoding_ == Encoding::kProtobuf;
  std::string first;
  const ResponseHead head = client_->OpenStream(
      target_, pb ? "application/vnd.kubernetes.protobuf, application/json" : "application/json",
      &first);
  if (head.status != 200) {
    throw std::runtime_error(fmt::format("watch {}: status {}", target_, head.status));
  }
  if (!head.chunked) throw std::runtime_error("watch " + target_ + ": not a chunked stream");
  if (pb != (head.content_type.find("protobuf") != std::string::npos)) {
    throw std::runtime_error(fmt::format("watch {}: asked for {}, got {}", target_,
                                         EncodingName(encoding_), head.content_type));
  }
  thread_ = std::thread([this, first = std::move(first)]() mutable { Run(std::move(first)); });
}

void WatchStream::Stop() {
  stopping_ = true;
  if (client_) client_->Shutdown();
  if (thread_.joinable()) thread_.join();
}

std::string WatchStream::error() const { return ended_ ? error_ : ""; }

void WatchStream::Run(std::string first) {
  ChunkedReader reader;
  auto take = [this](const char* p, size_t n) { pending_.append(p, n); };
  std::string buf(256 * 1024, '\0');
  try {
    reader.Feed(first.data(), first.size(), take);
    Split(Clock::now());
    while (!reader.done()) {
      const size_t n = client_->ReadSome(buf.data(), buf.size());
      const auto now = Clock::now();
      if (n == 0) {
        if (!stopping_) error_ = "the server closed the watch";
        break;
      }
      reader.Feed(buf.data(), n, take);
      Split(now);
    }
    if (reader.done() && error_.empty()) error_ = "the server ended the watch";
  } catch (const std::exception& e) {
    error_ = e.what();
  }
  if (!stopping_) ended_ = true;
}

void WatchStream::Split(Clock::time_point arrived) {
  size_t at = 0;
  while (true) {
    if (encoding_ == Encoding::kJson) {
      const size_t nl = pending_.find('\n', at);
      if (nl == std::string::npos) break;
      on_event_(std::string_view(pending_).substr(at, nl - at), arrived);
      at = nl + 1;
    } else {
      if (pending_.size() - at < 4) break;
      const auto* p = reinterpret_cast<const unsigned char*>(pending_.data() + at);
      const size_t len = (size_t{p[0]} << 24) | (size_t{p[1]} << 16) | (size_t{p[2]} << 8) | p[3];
      if (pending_.size() - at < 4 + len) break;
      on_event_(std::string_view(pending_).substr(at, 4 + len), arrived);
      at += 4 + len;
    }
  }
  pending_.erase(0, at);
}

}  // namespace svcplane::bench::e2e
