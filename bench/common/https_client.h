#pragma once

// The benches' HTTPS client: OpenSSL straight on a blocking loopback socket, as `curl` does.
// Beast over Asio's TLS stream costs a client more CPU than the server spends on a LIST (two
// extra copies and a BIO round trip per 16 KB record, and growing a 260 MB string), and on a
// create about as much as the server's whole TLS and HTTP layer; on two cores that CPU is taken
// from the server being measured.
//
// Errors throw std::runtime_error: a bench stops at the first broken connection.

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace svcplane::bench {

using Clock = std::chrono::steady_clock;

inline double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }
inline double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// The p-th percentile (0..100) of `v` by rank, no interpolation; reorders `v`. 0 when empty.
double Percentile(std::vector<double>& v, double p);
// Largest value, 0 when empty.
double Max(const std::vector<double>& v);
// "p50 / p99 / max" in ms with two decimals, e.g. "0.41 / 1.20 / 3.05 ms"; reorders `v`.
std::string FormatLatencies(std::vector<double>& v);

// Where the server listens (always 127.0.0.1) and how to authenticate to it.
struct Endpoint {
  uint16_t port = 0;
  std::string token;
  std::string ca_pem;
};

// A TLS client context trusting only the server's CA; share one between connections.
std::shared_ptr<boost::asio::ssl::context> MakeTls(const Endpoint& ep);

struct Response {
  int status = 0;
  std::string body;
};

// The head of a response, as ResponseHead reads it.
struct ResponseHead {
  int status = 0;
  bool chunked = false;  // Transfer-Encoding: chunked
  bool has_length = false;
  size_t content_length = 0;  // when has_length
  std::string content_type;
};

// Decodes a chunked HTTP body fed in pieces, handing the data bytes to a callback without
// copying them: a 260 MB list goes through one reused buffer.
class ChunkedReader {
 public:
  bool done() const { return state_ == State::kDone; }

  template <typename Take>
  void Feed(const char* p, size_t n, Take&& take) {
    size_t i = 0;
    while (i < n && state_ != State::kDone) {
      if (state_ == State::kData) {
        const size_t k = std::min(remaining_, n - i);
        take(p + i, k);
        i += k;
        remaining_ -= k;
        if (remaining_ == 0) state_ = State::kDataEnd;
        continue;
      }
      const char c = p[i++];
      if (c != '\n') {
        line_.push_back(c);
        continue;
      }
      if (!line_.empty() && line_.back() == '\r') line_.pop_back();
      if (state_ == State::kDataEnd) {
        if (!line_.empty()) throw std::runtime_error("chunk data longer than its size");
        state_ = State::kSize;
      } else if (state_ == State::kSize) {
        remaining_ = std::stoull(line_.substr(0, line_.find(';')), nullptr, 16);
        state_ = remaining_ == 0 ? State::kTrailer : State::kData;
      } else if (line_.empty()) {  // kTrailer: the empty line ends the body
        state_ = State::kDone;
      }
      line_.clear();
    }
  }

 private:
  enum class State { kSize, kData, kDataEnd, kTrailer, kDone };
  State state_ = State::kSize;
  size_t remaining_ = 0;
  std::string line_;
};

// Parses a response head (up to and including the blank line's first "\r\n"); throws on a
// malformed status line.
ResponseHead ParseResponseHead(std::string_view head);

// One blocking keep-alive HTTPS connection to 127.0.0.1; no body limit so a 100,000-Pod LIST
// fits. Requests use keep-alive; responses carry a Content-Length or are chunked (LISTs; watches
// are read with OpenStream). Not thread-safe, except Shutdown.
class Client {
 public:
  Client(const Endpoint& ep, std::shared_ptr<boost::asio::ssl::context> tls);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Sends `request`, a complete HTTP/1.1 request, as one TLS write; returns status and body
  // (chunked bodies decoded).
  Response DoRaw(const std::string& request);

  // `method` with the bearer token and Accept: application/json; a non-empty body goes with
  // `content_type`.
  Response Do(std::string_view method, const std::string& target, const std::string& body = "",
              std::string_view content_type = "application/json");

  // The head of a request for `method` `target` up to and including Content-Type (if a body
  // is to follow) but without Content-Length or the blank line: callers that send the same
  // request many times format it once.
  std::string RequestHead(std::string_view method, std::string_view target,
                          std::string_view content_type = "") const;

  // A GET whose body is read through one reused 1 MiB buffer and not kept, as
  // `curl -o /dev/null` does: a LIST's latency is the server's. Returns the status; `bytes` is
  // the body's size, `head` and `tail` its first and last bytes.
  int Get(const std::string& target, size_t* bytes, std::string* head, std::string* tail);

  // Sends a GET for a streaming response (a watch) and reads its head. The body bytes read
  // with the head go to `body_start`; ReadSome returns the rest as it arrives.
  ResponseHead OpenStream(const std::string& target, std::string_view accept,
                          std::string* body_start);
  // Up to `n` more bytes of the response; 0 when the connection ended (or Shutdown was called).
  size_t ReadSome(char* buf, size_t n);

  // Shuts the socket down so a ReadSome blocked on another thread returns 0. Safe from any
  // thread.
  void Shutdown();

  const Endpoint& endpoint() const { return ep_; }

 private:
  void Write(const std::string& request);
  // Reads a response head; leaves in `body_start` the body bytes read with it (never more than
  // its Content-Length: keep-alive responses do not overlap since each request waits for its
  // response).
  ResponseHead ReadHead(std::string* body_start);

  Endpoint ep_;
  std::shared_ptr<boost::asio::ssl::context> tls_;
  boost::asio::io_context ioc_;
  boost::asio::ip::tcp::socket socket_;
  struct ssl_st* ssl_ = nullptr;
  std::string piece_;
};

}  // namespace svcplane::bench
