#include "apiserver/http/testing/tls_client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <optional>

#include <fmt/format.h>

namespace svcplane::apiserver::http::testing {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;

std::string ClientResponse::Header(const std::string& name) const {
  for (const auto& [k, v] : headers) {
    if (beast::iequals(k, name)) return v;
  }
  return "";
}

struct TlsClient::Impl {
  explicit Impl(const ClientOptions& o)
      : options(o), ctx(ssl::context::tls_client), stream(ioc, ctx) {}

  ClientOptions options;
  net::io_context ioc;
  ssl::context ctx;
  beast::ssl_stream<beast::tcp_stream> stream;
  beast::flat_buffer buffer;
  std::optional<bhttp::response_parser<bhttp::string_body>> stream_parser;

  beast::tcp_stream& tcp() { return beast::get_lowest_layer(stream); }

  bhttp::request<bhttp::string_body> MakeRequest(const std::string& method,
                                                 const std::string& target, std::string body) {
    bhttp::request<bhttp::string_body> req;
    req.method_string(method);
    req.target(target);
    req.version(11);
    req.set(bhttp::field::host, options.host);
    if (!options.token.empty()) {
      req.set(bhttp::field::authorization, "Bearer " + options.token);
    }
    req.keep_alive(true);
    if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
      req.body() = std::move(body);
      req.prepare_payload();
    }
    return req;
  }
};

static Status NetError(std::string_view what, const beast::error_code& ec) {
  return UnavailableError(fmt::format("{}: {}", what, ec.message()));
}

Result<std::unique_ptr<TlsClient>> TlsClient::Connect(const ClientOptions& options) {
  auto impl = std::make_unique<Impl>(options);
  beast::error_code ec;
  impl->ctx.add_certificate_authority(net::buffer(options.ca_pem), ec);
  if (ec) return NetError("ca", ec);
  impl->ctx.set_verify_mode(ssl::verify_peer, ec);
  if (!options.client_cert_pem.empty()) {
    impl->ctx.use_certificate_chain(net::buffer(options.client_cert_pem), ec);
    if (ec) return NetError("client cert", ec);
    impl->ctx.use_private_key(net::buffer(options.client_key_pem), ssl::context::pem, ec);
    if (ec) return NetError("client key", ec);
  }
  impl->stream.set_verify_callback(ssl::host_name_verification(options.host), ec);
  tcp::endpoint ep(net::ip::make_address(options.host, ec), options.port);
  if (ec) return NetError("address", ec);
  impl->tcp().expires_after(options.timeout);
  impl->tcp().connect(ep);
  impl->tcp().socket().set_option(tcp::no_delay(true), ec);
  impl->stream.handshake(ssl::stream_base::client, ec);
  if (ec) return NetError("handshake", ec);
  return std::unique_ptr<TlsClient>(new TlsClient(std::move(impl)));
}

TlsClient::TlsClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TlsClient::~TlsClient() = default;

Result<ClientResponse> TlsClient::Get(const std::string& target) { return Do("GET", target); }

Result<ClientResponse> TlsClient::Do(const std::string& method, const std::string& target,
                                     std::string body,
                                     std::vector<std::pair<std::string, std::string>> headers) {
  auto req = impl_->MakeRequest(method, target, std::move(body));
  for (auto& [k, v] : headers) req.set(k, v);
  beast::error_code ec;
  bhttp::write(impl_->stream, req, ec);
  if (ec) return NetError("write", ec);
  bhttp::response_parser<bhttp::string_body> parser;
  parser.body_limit(64 << 20);
  bhttp::read(impl_->stream, impl_->buffer, parser, ec);
  if (ec) return NetError("read", ec);
  auto& res = parser.get();
  ClientResponse out;
  out.status = static_cast<int>(res.result_int());
  for (const auto& f : res) out.headers.emplace_back(f.name_string(), f.value());
  out.body = std::move(res.body());
  out.keep_alive = res.keep_alive();
  return out;
}

Result<ClientResponse> TlsClient::StartStream(const std::string& target) {
  auto req = impl_->MakeRequest("GET", target, "");
  beast::error_code ec;
  bhttp::write(impl_->stream, req, ec);
  if (ec) return NetError("write", ec);
  impl_->stream_parser.emplace();
  impl_->stream_parser->body_limit(boost::none);
  impl_->tcp().expires_after(impl_->options.timeout);
  bhttp::read_header(impl_->stream, impl_->buffer, *impl_->stream_parser, ec);
  if (ec) return NetError("read header", ec);
  auto& res = impl_->stream_parser->get();
  ClientResponse out;
  out.status = static_cast<int>(res.result_int());
  for (const auto& f : res) out.headers.emplace_back(f.name_string(), f.value());
  return out;
}

Result<std::string> TlsClient::ReadStreamUntil(const std::string& needle) {
  auto& parser = *impl_->stream_parser;
  while (parser.get().body().find(needle) == std::string::npos && !parser.is_done()) {
    beast::error_code ec;
    impl_->tcp().expires_after(impl_->options.timeout);
    bhttp::read_some(impl_->stream, impl_->buffer, parser, ec);
    if (ec) return NetError("read", ec);
  }
  return parser.get().body();
}

bool TlsClient::StreamEnded() const {
  return impl_->stream_parser && impl_->stream_parser->is_done();
}

std::string TlsClient::Cipher() const {
  const char* name = SSL_get_cipher_name(impl_->stream.native_handle());
  return name == nullptr ? "" : name;
}

void TlsClient::Abort() {
  beast::error_code ec;
  impl_->tcp().socket().shutdown(tcp::socket::shutdown_both, ec);
  impl_->tcp().socket().close(ec);
}

}  // namespace svcplane::apiserver::http::testing
