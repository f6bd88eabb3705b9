#include "bench/common/https_client.h"

#include <openssl/ssl.h>
#include <sys/socket.h>

#include <algorithm>
#include <boost/asio/ssl.hpp>
#include <cctype>

#include <fmt/format.h>

namespace svcplane::bench {

namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;

double Percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  size_t k = std::min(v.size() - 1, static_cast<size_t>(p / 100.0 * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

double Max(const std::vector<double>& v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

std::string FormatLatencies(std::vector<double>& v) {
  const double p50 = Percentile(v, 50), p99 = Percentile(v, 99);
  return fmt::format("{:.2f} / {:.2f} / {:.2f} ms", p50, p99, Max(v));
}

std::shared_ptr<ssl::context> MakeTls(const Endpoint& ep) {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_client);
  ctx->add_certificate_authority(asio::buffer(ep.ca_pem));
  ctx->set_verify_mode(ssl::verify_peer);
  return ctx;
}

ResponseHead ParseResponseHead(std::string_view head) {
  if (head.size() < 12 || !head.starts_with("HTTP/1.")) {
    throw std::runtime_error("malformed response head: " + std::string(head.substr(0, 64)));
  }
  ResponseHead out;
  out.status = std::stoi(std::string(head.substr(9, 3)));
  std::string lower(head);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  auto value = [&](std::string_view name) -> std::string {
    const std::string key = "\r\n" + std::string(name) + ":";
    const size_t pos = lower.find(key);
    if (pos == std::string::npos) return "";
    size_t b = pos + key.size();
    const size_t e = head.find("\r\n", b);
    while (b < e && head[b] == ' ') ++b;
    return std::string(head.substr(b, e - b));
  };
  out.chunked = lower.find("\r\ntransfer-encoding: chunked") != std::string::npos;
  out.content_type = value("content-type");
  if (!out.chunked) {
    const std::string length = value("content-length");
    if (!length.empty()) {
      out.has_length = true;
      out.content_length = std::stoull(length);
    }
  }
  return out;
}

Client::Client(const Endpoint& ep, std::shared_ptr<ssl::context> tls)
    : ep_(ep), tls_(std::move(tls)), socket_(ioc_) {
  socket_.connect({asio::ip::make_address("127.0.0.1"), ep_.port});
  socket_.set_option(asio::ip::tcp::no_delay(true));
  ssl_ = SSL_new(tls_->native_handle());
  SSL_set_fd(ssl_, socket_.native_handle());
  if (SSL_connect(ssl_) != 1) throw std::runtime_error("TLS handshake failed");
}

Client::~Client() {
  SSL_shutdown(ssl_);
  SSL_free(ssl_);
}

void Client::Shutdown() { ::shutdown(socket_.native_handle(), SHUT_RDWR); }

Response Client::DoRaw(const std::string& request) {
  Write(request);
  Response out;
  std::string first;
  const ResponseHead head = ReadHead(&first);
  out.status = head.status;
  if (head.chunked) {  // a LIST, encoded as it goes out
    ChunkedReader reader;
    auto take = [&](const char* p, size_t n) { out.body.append(p, n); };
    reader.Feed(first.data(), first.size(), take);
    char buf[64 * 1024];
    while (!reader.done()) {
      const int n = SSL_read(ssl_, buf, sizeof(buf));
      if (n <= 0) throw std::runtime_error("chunked response body ended early");
      reader.Feed(buf, static_cast<size_t>(n), take);
    }
    return out;
  }
  if (!head.has_length) throw std::runtime_error("response without Content-Length");
  out.body = std::move(first);
  while (out.body.size() < head.content_length) {
    const size_t have = out.body.size();
    out.body.resize(std::min(head.content_length, have + 64 * 1024));
    const int n = SSL_read(ssl_, out.body.data() + have, static_cast<int>(out.body.size() - have));
    if (n <= 0) throw std::runtime_error("response body ended early");
    out.body.resize(have + static_cast<size_t>(n));
  }
  return out;
}

std::string Client::RequestHead(std::string_view method, std::string_view target,
                                std::string_view content_type) const {
  std::string req = fmt::format(
      "{} {} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {}\r\n"
      "Accept: application/json\r\n",
      method, target, ep_.token);
  if (!content_type.empty()) req += fmt::format("Content-Type: {}\r\n", content_type);
  return req;
}

Response Client::Do(std::string_view method, const std::string& target, const std::string& body,
                    std::string_view content_type) {
  std::string req = RequestHead(method, target, body.empty() ? "" : content_type);
  if (!body.empty()) req += fmt::format("Content-Length: {}\r\n", body.size());
  req += "\r\n";
  req += body;
  return DoRaw(req);
}

int Client::Get(const std::string& target, size_t* bytes, std::string* head, std::string* tail) {
  Write(RequestHead("GET", target) + "\r\n");
  std::string first;
  const ResponseHead h = ReadHead(&first);
  if (!h.chunked && !h.has_length) throw std::runtime_error("response without Content-Length");
  *bytes = 0;
  head->clear();
  tail->clear();
  auto take = [&](const char* p, size_t n) {
    if (head->size() < 64) head->append(p, std::min(n, 64 - head->size()));
    tail->append(p + (n > 64 ? n - 64 : 0), std::min<size_t>(n, 64));
    if (tail->size() > 64) tail->erase(0, tail->size() - 64);
    *bytes += n;
  };
  if (piece_.empty()) piece_.resize(1 << 20);
  if (h.chunked) {
    // Transfer-Encoding: chunked (a JSON list): sizes are parsed, data goes to `take`.
    ChunkedReader reader;
    reader.Feed(first.data(), first.size(), take);
    while (!reader.done()) {
      const int n = SSL_read(ssl_, piece_.data(), static_cast<int>(piece_.size()));
      if (n <= 0) throw std::runtime_error("chunked LIST body ended early");
      reader.Feed(piece_.data(), static_cast<size_t>(n), take);
    }
    return h.status;
  }
  take(first.data(), first.size());
  while (*bytes < h.content_length) {
    const int want = static_cast<int>(std::min(piece_.size(), h.content_length - *bytes));
    const int n = SSL_read(ssl_, piece_.data(), want);
    if (n <= 0) throw std::runtime_error("LIST body ended early");
    take(piece_.data(), static_cast<size_t>(n));
  }
  return h.status;
}

ResponseHead Client::OpenStream(const std::string& target, std::string_view accept,
                                std::string* body_start) {
  Write(fmt::format(
      "GET {} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {}\r\nAccept: {}\r\n\r\n",
      target, ep_.token, accept));
  return ReadHead(body_start);
}

size_t Client::ReadSome(char* buf, size_t n) {
  const int r = SSL_read(ssl_, buf, static_cast<int>(std::min<size_t>(n, 1 << 30)));
  return r > 0 ? static_cast<size_t>(r) : 0;
}

void Client::Write(const std::string& request) {
  if (SSL_write(ssl_, request.data(), static_cast<int>(request.size())) <= 0) {
    throw std::runtime_error("TLS write failed");
  }
}

ResponseHead Client::ReadHead(std::string* body_start) {
  std::string header;
  size_t end;
  char buf[16 * 1024];
  while ((end = header.find("\r\n\r\n")) == std::string::npos) {
    const int n = SSL_read(ssl_, buf, sizeof(buf));
    if (n <= 0) throw std::runtime_error("connection closed before the response head");
    header.append(buf, static_cast<size_t>(n));
  }
  *body_start = header.substr(end + 4);
  header.resize(end + 2);
  ResponseHead head = ParseResponseHead(header);
  if (head.has_length && body_start->size() > head.content_length) {
    throw std::runtime_error("more bytes than Content-Length");
  }
  return head;
}

}  // namespace svcplane::bench
