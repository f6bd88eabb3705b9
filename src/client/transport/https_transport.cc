#include "client/transport/https_transport.h"

#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>

#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/url/parse.hpp>
#include <limits>
#include <mutex>
#include <optional>
#include <vector>

namespace svcplane::client::transport {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace ssl = boost::asio::ssl;
using tcp = asio::ip::tcp;
using boost::system::error_code;

namespace {

constexpr uint64_t kMaxBodyBytes = 1ull << 30;  // a list of every pod in a big cluster fits
constexpr uint32_t kMaxHeaderBytes = 1 << 20;

// One TCP (+TLS) connection with its own io_context: every operation is started and then run
// to completion on the calling thread, which gives Beast's timeouts to a blocking API.
struct Conn {
  std::shared_ptr<ssl::context> ctx;  // outlives `tls`
  asio::io_context ioc;
  std::optional<beast::ssl_stream<beast::tcp_stream>> tls;
  std::optional<beast::tcp_stream> plain;
  beast::flat_buffer buffer;

  beast::tcp_stream& tcp() { return tls ? beast::get_lowest_layer(*tls) : *plain; }

  // Starts `start(handler)` and runs the io_context until it finishes.
  template <typename Start>
  error_code Run(Start&& start) {
    error_code result = asio::error::would_block;
    start([&result](error_code ec, auto&&...) { result = ec; });
    ioc.restart();
    ioc.run();
    return result;
  }

  // Calls `f` with the stream (TLS or plain), for Beast's generic algorithms.
  template <typename F>
  auto WithStream(F&& f) {
    if (tls) return f(*tls);
    return f(*plain);
  }
};

bool IsIpLiteral(const std::string& host) {
  error_code ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

std::string SslErrorString(const error_code& ec, SSL* ssl) {
  std::string msg = ec.message();
  if (ssl != nullptr) {
    const long verify = SSL_get_verify_result(ssl);
    if (verify != X509_V_OK) {
      msg =
          fmt::format("x509: certificate verify failed: {}", X509_verify_cert_error_string(verify));
    }
  }
  return msg;
}

}  // namespace

struct HttpsTransport::Impl {
  // Constant after construction.
  RestConfig config;
  const Clock* clock;
  int max_idle;
  bool use_tls = true;
  std::string host;  // for connecting (no brackets)
  std::string port;
  std::string host_header;  // "host:port" as in the URL
  std::string path_prefix;  // from the URL, without a trailing slash
  std::string verify_name;  // tls_server_name or host
  std::unique_ptr<CredentialSource> credentials;
  std::shared_ptr<TokenBucket> limiter;  // null: no client-side limit

  std::atomic<int> connections_opened{0};

  std::mutex mu_;
  // Guarded by mu_.
  std::shared_ptr<ssl::context> ctx;
  std::string ctx_cert, ctx_key;  // the client certificate `ctx` was built with
  std::vector<std::unique_ptr<Conn>> idle;

  Status ParseHost() {
    auto url = boost::urls::parse_uri(config.host);
    if (!url)
      return InvalidError(fmt::format("{}: invalid server URL \"{}\": {}", config.source,
                                      config.host, url.error().message()));
    const std::string scheme(url->scheme());
    if (scheme != "https" && scheme != "http") {
      return InvalidError(
          fmt::format("{}: server URL \"{}\" must be http(s)", config.source, config.host));
    }
    use_tls = scheme == "https";
    host = url->host_type() == boost::urls::host_type::ipv6 ? url->host_ipv6_address().to_string()
                                                            : std::string(url->host());
    port = url->has_port() ? std::string(url->port()) : (use_tls ? "443" : "80");
    host_header = std::string(url->encoded_host_and_port());
    path_prefix = std::string(url->encoded_path());
    while (path_prefix.ends_with('/')) path_prefix.pop_back();
    verify_name = config.tls_server_name.empty() ? host : config.tls_server_name;
    return Status::Ok();
  }

  // The TLS context for `creds`, rebuilt (dropping idle connections) when the client
  // certificate changes, as it does when an exec plugin rotates it.
  Result<std::shared_ptr<ssl::context>> Context(const Credentials& creds) {
    std::lock_guard<std::mutex> l(mu_);
    if (ctx && creds.client_cert_pem == ctx_cert && creds.client_key_pem == ctx_key) return ctx;
    auto fresh = std::make_shared<ssl::context>(ssl::context::tls_client);
    error_code ec;
    if (config.insecure_skip_tls_verify) {
      fresh->set_verify_mode(ssl::verify_none);
    } else {
      fresh->set_verify_mode(ssl::verify_peer);
      if (config.ca_pem.empty()) {
        fresh->set_default_verify_paths(ec);
      } else {
        fresh->add_certificate_authority(asio::buffer(config.ca_pem), ec);
      }
      if (ec) {
        return InvalidError(
            fmt::format("{}: certificate-authority: {}", config.source, ec.message()));
      }
    }
    if (!creds.client_cert_pem.empty()) {
      fresh->use_certificate_chain(asio::buffer(creds.client_cert_pem), ec);
      if (ec) {
        return InvalidError(fmt::format("{}: client-certificate: {}", config.source, ec.message()));
      }
      fresh->use_private_key(asio::buffer(creds.client_key_pem), ssl::context::pem, ec);
      if (ec) {
        return InvalidError(fmt::format("{}: client-key: {}", config.source, ec.message()));
      }
    }
    ctx = std::move(fresh);
    ctx_cert = creds.client_cert_pem;
    ctx_key = creds.client_key_pem;
    idle.clear();
    return ctx;
  }

  Result<std::unique_ptr<Conn>> Connect(const std::shared_ptr<ssl::context>& tls_ctx) {
    auto c = std::make_unique<Conn>();
    const std::string where = fmt::format("{}:{}", host, port);
    tcp::resolver resolver(c->ioc);
    error_code ec;
    auto endpoints = resolver.resolve(host, port, ec);
    if (ec) return UnavailableError(fmt::format("dial tcp {}: {}", where, ec.message()));
    if (use_tls) {
      c->ctx = tls_ctx;
      c->tls.emplace(c->ioc, *tls_ctx);
    } else {
      c->plain.emplace(c->ioc);
    }
    c->tcp().expires_after(config.timeout);
    ec = c->Run([&](auto h) { c->tcp().async_connect(endpoints, h); });
    if (ec) return UnavailableError(fmt::format("dial tcp {}: {}", where, ec.message()));
    c->tcp().socket().set_option(tcp::no_delay(true), ec);
    if (use_tls) {
      SSL* s = c->tls->native_handle();
      if (!IsIpLiteral(verify_name)) SSL_set_tlsext_host_name(s, verify_name.c_str());
      if (!config.insecure_skip_tls_verify) {
        X509_VERIFY_PARAM* param = SSL_get0_param(s);
        if (IsIpLiteral(verify_name)) {
          X509_VERIFY_PARAM_set1_ip_asc(param, verify_name.c_str());
        } else {
          X509_VERIFY_PARAM_set1_host(param, verify_name.c_str(), verify_name.size());
        }
      }
      ec = c->Run([&](auto h) { c->tls->async_handshake(ssl::stream_base::client, h); });
      if (ec) {
        return UnavailableError(fmt::format("tls handshake with {}: {}", where,
                                            SslErrorString(ec, c->tls->native_handle())));
      }
    }
    ++connections_opened;
    return c;
  }

  // An idle connection if there is one (*reused = true), else a new one.
  Result<std::unique_ptr<Conn>> Acquire(const std::shared_ptr<ssl::context>& tls_ctx,
                                        bool allow_reuse, bool* reused) {
    if (allow_reuse) {
      std::lock_guard<std::mutex> l(mu_);
      if (!idle.empty() && (!use_tls || idle.back()->ctx == tls_ctx)) {
        *reused = true;
        auto c = std::move(idle.back());
        idle.pop_back();
        return c;
      }
    }
    *reused = false;
    return Connect(tls_ctx);
  }

  void Release(std::unique_ptr<Conn> c) {
    std::lock_guard<std::mutex> l(mu_);
    if (static_cast<int>(idle.size()) < max_idle && (!use_tls || c->ctx == ctx)) {
      idle.push_back(std::move(c));
    }
  }

  http::request<http::string_body> BuildRequest(const HttpRequest& in, const Credentials& creds) {
    http::request<http::string_body> req;
    const http::verb verb = http::string_to_verb(in.method);
    if (verb == http::verb::unknown) {
      req.method_string(in.method);
    } else {
      req.method(verb);
    }
    req.target(path_prefix + in.target);
    req.version(11);
    req.set(http::field::host, host_header);
    req.set(http::field::user_agent, config.user_agent);
    if (!creds.bearer_token.empty()) {
      req.set(http::field::authorization, "Bearer " + creds.bearer_token);
    }
    for (const auto& [k, v] : in.headers) req.set(k, v);
    req.body() = in.body;
    req.prepare_payload();
    return req;
  }

  static HttpResponse ToResponse(const http::response<http::string_body>& res) {
    HttpResponse out;
    out.status = static_cast<int>(res.result_int());
    for (const auto& f : res) {
      out.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
    }
    out.body = res.body();
    return out;
  }

  // Result of one attempt on one connection. `retryable` means the request may not have
  // reached the server (a reused connection failed before any response byte).
  struct Attempt {
    Status status;
    bool retryable = false;
  };

  // Sends `req` and reads the response headers into `parser`.
  Attempt SendAndReadHeader(Conn& c, http::request<http::string_body>& req,
                            http::response_parser<http::string_body>& parser, bool reused) {
    c.tcp().expires_after(config.timeout);
    error_code ec =
        c.WithStream([&](auto& s) { return c.Run([&](auto h) { http::async_write(s, req, h); }); });
    if (ec)
      return {UnavailableError(fmt::format("write to {}: {}", host_header, ec.message())), reused};
    ec = c.WithStream([&](auto& s) {
      return c.Run([&](auto h) { http::async_read_header(s, c.buffer, parser, h); });
    });
    if (ec == beast::error::timeout) {
      return {Status(Code::kTimeout,
                     fmt::format("read from {}: timeout awaiting response headers", host_header)),
              false};
    }
    if (ec) {
      return {UnavailableError(fmt::format("read from {}: {}", host_header, ec.message())),
              reused && !parser.got_some()};
    }
    return {Status::Ok(), false};
  }

  // One request with one set of credentials; retries once on a stale pooled connection.
  Result<HttpResponse> RoundTrip(const HttpRequest& in, const Credentials& creds,
                                 const LineHandler* on_line, const BytesHandler* on_bytes,
                                 CancelToken* cancel) {
    const bool streaming = on_line != nullptr || on_bytes != nullptr;
    auto tls_ctx = use_tls ? Context(creds) : Result<std::shared_ptr<ssl::context>>(nullptr);
    if (!tls_ctx.ok()) return tls_ctx.status();
    auto req = BuildRequest(in, creds);
    for (int attempt = 0;; ++attempt) {
      bool reused = false;
      auto conn = Acquire(*tls_ctx, attempt == 0, &reused);
      // After a failed attempt on a stale connection the request may have reached the server.
      if (!conn.ok()) return attempt == 0 ? NotSent(conn.status()) : conn.status();
      Conn& c = **conn;
      http::response_parser<http::string_body> parser;
      parser.body_limit(streaming ? std::numeric_limits<uint64_t>::max() : kMaxBodyBytes);
      parser.header_limit(kMaxHeaderBytes);
      Attempt a = SendAndReadHeader(c, req, parser, reused);
      if (!a.status.ok()) {
        if (a.retryable && attempt == 0) continue;
        return a.status;
      }
      const int code = parser.get().result_int();
      if (streaming && code >= 200 && code < 300) {
        if (on_bytes != nullptr) {
          auto res = ReadBytes(c, parser, *on_bytes, *cancel);
          // A body read to its end (a list streamed for decoding) leaves the connection clean.
          if (res.ok() && parser.is_done() && parser.get().keep_alive() && !cancel->cancelled()) {
            c.tcp().expires_never();
            Release(std::move(*conn));
          }
          return res;
        }
        return ReadStream(c, parser, *on_line, *cancel);
      }
      c.tcp().expires_after(config.timeout);
      error_code ec = c.WithStream([&](auto& s) {
        return c.Run([&](auto h) { http::async_read(s, c.buffer, parser, h); });
      });
      if (ec == beast::error::timeout) {
        return Status(Code::kTimeout, fmt::format("read from {}: timeout", host_header));
      }
      if (ec) return UnavailableError(fmt::format("read from {}: {}", host_header, ec.message()));
      HttpResponse out = ToResponse(parser.get());
      if (parser.get().keep_alive()) Release(std::move(*conn));
      return out;
    }
  }

  // Delivers body lines as they arrive. The connection is not reused afterwards.
  Result<HttpResponse> ReadStream(Conn& c, http::response_parser<http::string_body>& parser,
                                  const LineHandler& on_line, CancelToken& cancel) {
    c.tcp().expires_never();
    // Cancel from another thread: hop onto this connection's io_context, where the read runs.
    auto registration = cancel.OnCancel([&c] {
      asio::post(c.ioc, [&c] { c.tcp().cancel(); });
      c.ioc.stop();
    });
    HttpResponse out = ToResponse(parser.get());
    std::string& body = parser.get().body();
    size_t scanned = 0;
    auto deliver = [&](bool flush) {
      size_t start = 0;
      while (true) {
        const size_t nl = body.find('\n', scanned);
        if (nl == std::string::npos) break;
        std::string_view line(body.data() + start, nl - start);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        scanned = start = nl + 1;
        if (!line.empty() && !on_line(line)) return false;
      }
      if (flush && start < body.size() && !on_line(std::string_view(body).substr(start))) {
        return false;
      }
      // The parser appends at body.size(), so dropping delivered bytes is safe between reads.
      body.erase(0, flush ? body.size() : start);
      scanned = body.size();
      return true;
    };
    if (!deliver(parser.is_done())) return out;
    while (!parser.is_done() && !cancel.cancelled()) {
      error_code ec = c.WithStream([&](auto& s) {
        return c.Run([&](auto h) { http::async_read_some(s, c.buffer, parser, h); });
      });
      if (!deliver(parser.is_done())) return out;
      if (cancel.cancelled()) break;
      if (ec) {
        return UnavailableError(
            fmt::format("watch stream from {} ended: {}", host_header, ec.message()));
      }
    }
    return out;
  }

  // Delivers body bytes as they arrive (protobuf watch frames, list bodies split as they come).
  // Reads block on the socket instead of running the io_context per read: a 100,000-Pod list is
  // ~25,000 TLS records, and the scheduler round per record (lock, epoll, handler, executor
  // copies) cost about as much as decrypting it. Cancel from another thread shuts the socket
  // down, which wakes a blocked read; the connection is then not reused.
  Result<HttpResponse> ReadBytes(Conn& c, http::response_parser<http::string_body>& parser,
                                 const BytesHandler& on_bytes, CancelToken& cancel) {
    c.tcp().expires_never();
    const int fd = c.tcp().socket().native_handle();
    auto registration = cancel.OnCancel([fd] { ::shutdown(fd, SHUT_RDWR); });
    HttpResponse out = ToResponse(parser.get());
    out.body.clear();
    std::string& body = parser.get().body();
    auto deliver = [&] {
      if (body.empty()) return true;
      const bool more = on_bytes(out, body);
      // The parser appends at body.size(), so dropping delivered bytes is safe between reads.
      body.clear();
      return more;
    };
    if (!deliver()) return out;
    while (!parser.is_done() && !cancel.cancelled()) {
      error_code ec;
      c.WithStream([&](auto& s) { return http::read_some(s, c.buffer, parser, ec); });
      if (!deliver()) return out;
      if (cancel.cancelled()) break;
      if (ec) {
        return UnavailableError(
            fmt::format("watch stream from {} ended: {}", host_header, ec.message()));
      }
    }
    return out;
  }

  Result<HttpResponse> Execute(const HttpRequest& in, const LineHandler* on_line,
                               const BytesHandler* on_bytes, CancelToken* cancel) {
    if (limiter) limiter->Wait();
    for (int auth_attempt = 0;; ++auth_attempt) {
      auto creds = credentials->Get();
      if (!creds.ok()) return creds.status();
      auto res = RoundTrip(in, *creds, on_line, on_bytes, cancel);
      if (res.ok() && res->status == 401 && auth_attempt == 0 && credentials->OnUnauthorized()) {
        continue;
      }
      return res;
    }
  }
};

std::shared_ptr<TokenBucket> NewRateLimiter(const RestConfig& config, const Clock& clock) {
  // client-go: QPS 0 means the defaults 5/10; a negative QPS turns the limiter off.
  double qps = config.qps;
  int burst = config.burst;
  if (qps == 0) qps = 5;
  if (burst <= 0) burst = 10;
  if (qps < 0) return nullptr;
  return std::make_shared<TokenBucket>(qps, burst, clock);
}

Result<std::unique_ptr<HttpsTransport>> HttpsTransport::Create(const RestConfig& config,
                                                               Options options) {
  auto impl = std::make_unique<Impl>();
  impl->config = config;
  if (impl->config.source.empty()) impl->config.source = "rest config";
  if (impl->config.timeout <= Duration::zero()) impl->config.timeout = std::chrono::hours(24);
  impl->clock = options.clock ? options.clock : &RealClock::Get();
  impl->max_idle = options.max_idle_per_host;
  SVC_RETURN_IF_ERROR(impl->ParseHost());
  impl->credentials = NewCredentialSource(impl->config, *impl->clock);
  impl->limiter =
      options.limiter ? std::move(options.limiter) : NewRateLimiter(config, *impl->clock);
  if (impl->use_tls) {
    // Build the context now so a broken CA or static client cert fails at construction.
    Credentials static_creds{"", config.exec ? "" : config.client_cert_pem,
                             config.exec ? "" : config.client_key_pem};
    auto ctx = impl->Context(static_creds);
    if (!ctx.ok()) return ctx.status();
  }
  return std::unique_ptr<HttpsTransport>(new HttpsTransport(std::move(impl)));
}

HttpsTransport::HttpsTransport(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpsTransport::~HttpsTransport() = default;

Result<HttpResponse> HttpsTransport::Do(const HttpRequest& request) {
  return impl_->Execute(request, nullptr, nullptr, nullptr);
}

Result<HttpResponse> HttpsTransport::Stream(const HttpRequest& request, const LineHandler& on_line,
                                            CancelToken& cancel) {
  return impl_->Execute(request, &on_line, nullptr, &cancel);
}

Result<HttpResponse> HttpsTransport::StreamBytes(const HttpRequest& request,
                                                 const BytesHandler& on_bytes,
                                                 CancelToken& cancel) {
  return impl_->Execute(request, nullptr, &on_bytes, &cancel);
}

int HttpsTransport::ConnectionsOpened() const { return impl_->connections_opened.load(); }

}  // namespace svcplane::client::transport
