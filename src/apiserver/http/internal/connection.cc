#include "apiserver/http/internal/connection.h"

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/url/parse.hpp>
#include <exception>
#include <utility>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "apiserver/http/health.h"
#include "apiserver/http/internal/client_cert.h"
#include "apiserver/http/request_timeout.h"
#include "apiserver/http/status_response.h"
#include "base/check.h"
#include "base/uuid.h"

namespace svcplane::apiserver::http::internal {
namespace {

namespace beast = boost::beast;
namespace net = boost::asio;
namespace bhttp = boost::beast::http;

// A closing connection sends close_notify and waits this long for the peer's.
constexpr auto kCloseTimeout = std::chrono::seconds(1);
constexpr auto kHandshakeTimeout = std::chrono::seconds(10);
// After a 413, how much of the refused body we read and drop before closing, and for how long.
constexpr std::size_t kMaxDrainBytes = 16 << 20;
constexpr auto kDrainTimeout = std::chrono::seconds(2);

// Everything but the body, so that authentication happens before the body is read.
Result<Request> RequestFromHead(const bhttp::request_header<>& head) {
  Request req;
  req.method = std::string(head.method_string());
  req.target = std::string(head.target());
  auto url = boost::urls::parse_origin_form(req.target);
  if (!url) {
    return BadRequestError(
        fmt::format("invalid request target \"{}\": {}", req.target, url.error().message()));
  }
  req.path = url->path();
  req.raw_query = std::string(url->encoded_query());
  for (auto param : url->params()) {
    req.query.emplace_back(param.key, param.has_value ? param.value : std::string());
  }
  for (const auto& field : head) {
    req.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  return req;
}

// "/livez", "/readyz", "/healthz" and their single-check forms ("/readyz/etcd").
bool IsHealthPath(std::string_view p) {
  for (std::string_view base : {"/livez", "/readyz", "/healthz"}) {
    if (p == base || (p.starts_with(base) && p.size() > base.size() + 1 && p[base.size()] == '/')) {
      return true;
    }
  }
  return false;
}

Reply RunHandler(const Handler& handler, const Request& req) {
  // The adapter edge: a handler's exception becomes a 500 rather than crossing into Asio.
  try {
    return handler(req);
  } catch (const boost::context::detail::forced_unwind&) {
    throw;  // a suspended RequestFiber destroyed at teardown unwinds its stack: let it
  } catch (const std::exception& e) {
    return StatusResponse(500, "InternalError",
                          fmt::format("Internal error occurred: {}", e.what()));
  } catch (...) {
    return StatusResponse(500, "InternalError", "Internal error occurred: unknown exception");
  }
}

unsigned ValidStatus(int status) {
  return status >= 100 && status <= 599 ? static_cast<unsigned>(status) : 500u;
}

// Beast throws on a field it cannot hold (a value over 64 KiB); an exception must not escape
// into Asio, so such a handler-supplied header is dropped and logged.
void CopyHeaders(const Headers& headers, bhttp::fields& out) {
  for (const auto& [name, value] : headers) {
    try {
      out.insert(name, value);
    } catch (const std::exception& e) {
      SPDLOG_ERROR("http: dropping response header {}: {}", name, e.what());
    }
  }
}

bool IsHttpParseError(beast::error_code ec) {
  return ec.category() == bhttp::make_error_code(bhttp::error::bad_method).category() &&
         ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message;
}

}  // namespace

Connection::Connection(Socket socket, std::shared_ptr<ServerState> state)
    : state_(std::move(state)),
      stream_(std::move(socket), state_->ssl),
      watchdog_(stream_.get_executor()) {
  beast::error_code ec;
  auto ep = tcp().socket().remote_endpoint(ec);
  if (!ec) remote_ = fmt::format("{}:{}", ep.address().to_string(), ep.port());
}

Connection::~Connection() {
  // The I/O context can go away with a stream still open (a forced shutdown); the producer
  // still learns that its stream ended.
  if (writer_ && !stream_done_) writer_->Finish(StreamEnd::kShutdown);
  state_->Unregister(this);
}

void Connection::Start() {
  net::dispatch(stream_.get_executor(), [self = shared_from_this()] {
    if (self->state_->shutting_down) {
      self->closing_ = true;
      self->tcp().close();
      return;
    }
    self->SetDeadline(kHandshakeTimeout);
    self->stream_.async_handshake(net::ssl::stream_base::server,
                                  beast::bind_front_handler(&Connection::OnHandshake, self));
  });
}

void Connection::BeginShutdown() {
  net::post(stream_.get_executor(), [self = shared_from_this()] {
    self->shutting_down_ = true;
    switch (self->phase_) {
      case Phase::kHandshake:
      case Phase::kIdle:
        // Nothing in flight: abort the pending read; its handler closes the connection.
        self->tcp().cancel();
        break;
      case Phase::kStreaming:
        if (!self->stream_done_) {
          self->writer_->RequestEnd(StreamEnd::kShutdown);
          self->PumpStream();
        }
        break;
      default:
        // A request is being read, handled or answered; OnWritten closes after it.
        break;
    }
  });
}

void Connection::ForceClose() {
  net::post(stream_.get_executor(), [self = shared_from_this()] {
    if (self->writer_ && !self->stream_done_) {
      self->AbortStream(StreamEnd::kShutdown);
      return;
    }
    self->closing_ = true;
    self->phase_ = Phase::kClosing;
    self->tcp().close();
  });
}

void Connection::OnHandshake(beast::error_code ec) {
  if (ec) {
    SPDLOG_DEBUG("tls handshake from {} failed: {}", remote_, ec.message());
    closing_ = true;
    phase_ = Phase::kClosing;
    tcp().close();
    return;
  }
  handshake_done_ = true;
  peer_ = ExaminePeer(stream_.native_handle());
  ReadRequest();
}

void Connection::ReadRequest() {
  if (shutting_down_ || !keep_alive_) return Close();
  audit_id_.clear();
  auth_warnings_.clear();
  phase_ = Phase::kIdle;
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(state_->options.header_limit));
  parser_->body_limit(state_->options.body_limit);
  close_after_reply_ = false;
  handler_abandoned_ = false;
  // A new connection's first head must arrive within the read-header timeout (Go's
  // ReadHeaderTimeout, which a slowloris opening fresh connections meets); a keep-alive
  // connection may then idle, but its next head must be complete within the idle timeout.
  if (served_any_) {
    SetDeadline(state_->options.idle_timeout);
  } else {
    SetDeadline(state_->options.read_header_timeout, /*strict=*/true);
  }
  bhttp::async_read_header(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->OnHeader(ec); });
}

void Connection::OnHeader(beast::error_code ec) {
  const ServerOptions& opts = state_->options;
  if (ec == bhttp::error::header_limit) {
    // Read and drop what the client is still sending (as after a 413), so that it reads the
    // 431 rather than a reset.
    drain_before_close_ = true;
    return Respond(StatusResponse(431, "BadRequest",
                                  fmt::format("Request header fields too large: limit is {}",
                                              opts.header_limit)),
                   true);
  }
  if (ec == bhttp::error::body_limit) {
    // Beast checks Content-Length against the limit while parsing the head, so this refuses
    // the body before reading it, and a client waiting on Expect: 100-continue never sends it.
    return RespondTooLarge();
  }
  if (ec && IsHttpParseError(ec)) {
    return Respond(StatusResponse(400, "BadRequest", "malformed HTTP request: " + ec.message()),
                   true);
  }
  if (ec) return Close();  // end of stream, idle timeout, reset, or shutdown
  served_any_ = true;
  phase_ = Phase::kReadingBody;
  if (!AcceptHead()) return;
  if (parser_->is_done()) return Dispatch();
  if (beast::iequals(parser_->get()[bhttp::field::expect], "100-continue")) {
    auto cont = std::make_shared<bhttp::response<bhttp::empty_body>>(bhttp::status::continue_,
                                                                     parser_->get().version());
    SetDeadline(opts.io_timeout);
    bhttp::async_write(stream_, *cont,
                       [self = shared_from_this(), cont](beast::error_code ec, std::size_t) {
                         if (ec) return self->Close();
                         self->ReadBody();
                       });
    return;
  }
  ReadBody();
}

void Connection::ReadBody() {
  SetDeadline(state_->options.io_timeout);
  bhttp::async_read(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->OnBody(ec); });
}

void Connection::OnBody(beast::error_code ec) {
  if (ec == bhttp::error::body_limit) return RespondTooLarge();  // a chunked body grew too big
  if (ec && IsHttpParseError(ec)) {
    return Respond(StatusResponse(400, "BadRequest", "malformed HTTP request: " + ec.message()),
                   true);
  }
  if (ec) return Close();
  Dispatch();
}

void Connection::RespondTooLarge() {
  drain_before_close_ = true;
  Respond(StatusResponse(
              413, "RequestEntityTooLarge",
              fmt::format("Request entity too large: limit is {}", state_->options.body_limit)),
          true);
}

bool Connection::AcceptHead() {
  const bool has_body = !parser_->is_done();
  keep_alive_ = parser_->get().keep_alive();
  auto req = RequestFromHead(parser_->get());
  if (!req.ok()) {
    drain_before_close_ = has_body;
    Respond(StatusResponse(req.status()), true);
    return false;
  }
  req->remote_address = remote_;
  req->peer_certificate = peer_;
  // Kept verbatim as upstream's AuditInit does; a new UUID when absent.
  req->received_at = std::chrono::system_clock::now();
  auto audit = req->Header("Audit-ID");
  req->audit_id = audit && !audit->empty() ? std::string(*audit) : NewUuid();
  audit_id_ = req->audit_id;
  if (!ApplyRequestLimits(*req, has_body)) return false;
  const ServerOptions& opts = state_->options;
  AuthResult auth = opts.authenticator(*req);
  auth_warnings_ = std::move(auth.warnings);
  if (auth.outcome == AuthResult::Outcome::kFailed) {
    SPDLOG_DEBUG("http: unauthorized request from {}: {}", remote_, auth.error);
  }
  // Health endpoints answer unauthenticated clients unless told otherwise (the anonymous user
  // would be let through there anyway); a credential that failed still gets its 401.
  const bool open_health = IsHealthPath(req->path) && !opts.health_requires_auth &&
                           auth.outcome == AuthResult::Outcome::kNoOpinion;
  if (!auth.authenticated() && !open_health) {
    // Refused before its body is read; a connection with an unread body cannot be reused.
    drain_before_close_ = has_body;
    Response unauthorized = opts.unauthorized_response
                                ? opts.unauthorized_response(*req)
                                : StatusResponse(401, "Unauthorized", "Unauthorized");
    if (opts.on_unauthenticated) opts.on_unauthenticated(*req, unauthorized);
    Respond(std::move(unauthorized), has_body);
    return false;
  }
  if (auth.authenticated()) req->identity = std::move(auth.identity);
  if (auth.consumed_authorization) {
    std::erase_if(req->headers,
                  [](const auto& h) { return beast::iequals(h.first, "Authorization"); });
  }
  if (!AdmitInFlight(*req, has_body)) return false;
  request_ = std::move(*req);
  return true;
}

bool Connection::ApplyRequestLimits(const Request& req, bool has_body) {
  const ServerOptions& opts = state_->options;
  // CVE-2018-1002105: nothing here upgrades a connection (never a 101), and after the answer
  // to an upgrade request no further bytes of this connection are read as another request.
  close_after_reply_ = req.Header("Upgrade").has_value();
  long_running_ = opts.is_long_running && opts.is_long_running(req);
  request_timeout_ = std::chrono::milliseconds::zero();
  if (long_running_ || opts.request_timeout <= std::chrono::milliseconds::zero()) return true;
  auto timeout = RequestTimeout(req, opts.request_timeout);
  if (!timeout.ok()) {
    drain_before_close_ = has_body;
    Respond(StatusResponse(timeout.status()), has_body);
    return false;
  }
  request_timeout_ = *timeout;
  return true;
}

bool Connection::AdmitInFlight(const Request& req, bool has_body) {
  if (long_running_ || IsHealthPath(req.path)) return true;
  auto slot = state_->inflight.TryAcquire(InflightLimiter::KindOf(req.method), req.identity);
  if (!slot) {
    drain_before_close_ = has_body;
    Respond(TooManyRequestsResponse(), has_body);
    return false;
  }
  inflight_slot_ = std::move(*slot);
  return true;
}

// The handler cannot be interrupted: it runs on and its reply is dropped (OnReply). A write it
// was making may still commit after the client got the 504, as with upstream, whose timeout
// filter answers while the handler's goroutine finishes its storage call. The connection is
// closed after the 504, so that no later reply can be paired with another request.
void Connection::OnHandlerTimeout() {
  SPDLOG_DEBUG("http: request from {} not answered within {} ms; 504", remote_,
               request_timeout_.count());
  handler_abandoned_ = true;
  Respond(RequestTimeoutResponse(), /*close_after=*/true);
}

void Connection::Dispatch() {
  auto msg = parser_->release();
  keep_alive_ = msg.keep_alive();
  request_version_ = static_cast<int>(msg.version());
  Request req = std::move(*request_);
  request_.reset();
  req.body = std::move(msg.body());

  if (IsHealthPath(req.path)) {
    std::string_view path = std::string_view(req.path).substr(1);
    std::string_view endpoint = path.substr(0, path.find('/'));
    std::string_view single = endpoint.size() < path.size() ? path.substr(endpoint.size() + 1) : "";
    std::vector<HealthCheck> checks = {{"ping", true}};
    if (endpoint == "readyz") {
      checks.push_back({"poststarthook/svcplane-ready", state_->ready.load()});
      checks.push_back(
          {"shutdown", !state_->shutting_down.load() && !state_->draining.load(), "shutting down"});
    }
    if (state_->options.health_checks && endpoint != "healthz") {
      for (auto& c : state_->options.health_checks(endpoint)) checks.push_back(std::move(c));
    }
    if (!single.empty()) {
      for (const auto& c : checks) {
        if (c.name == single) return Respond(SingleCheckResponse(c), false);
      }
      return Respond(
          StatusResponse(404, "NotFound", "the server could not find the requested resource"),
          false);
    }
    return Respond(HealthResponse(endpoint, checks, req.Query("verbose").has_value()), false);
  }

  phase_ = Phase::kHandling;
  if (request_timeout_ > std::chrono::milliseconds::zero()) {
    SetDeadline(request_timeout_, /*strict=*/true);  // OnWatchdog answers 504
  } else {
    ClearDeadline();  // a long-running handler is not an I/O timeout
  }
  if (state_->options.run_on_io_thread && state_->options.run_on_io_thread(req)) {
    return RunOnIoThread(std::move(req));
  }
  net::post(*state_->workers, [self = shared_from_this(), req = std::move(req)]() mutable {
    Reply reply = RunHandler(self->state_->handler, req);
    net::post(self->stream_.get_executor(),
              [self, reply = std::move(reply)]() mutable { self->OnReply(std::move(reply)); });
  });
}

void Connection::RunOnIoThread(Request req) {
  auto self = shared_from_this();
  // The handler holds the connection until it finished (the fiber holds the handler). The
  // resumer only refers to it: a copy kept after the wait (a store's queue entry) must not
  // keep a finished connection open.
  fiber_ = std::make_unique<RequestFiber>(
      [self, req = std::move(req)] { return RunHandler(self->state_->handler, req); },
      [weak = weak_from_this()] {
        if (auto conn = weak.lock()) {
          net::post(conn->stream_.get_executor(), [conn] { conn->ResumeFiber(); });
        }
      });
  ResumeFiber();
}

void Connection::ResumeFiber() {
  if (!fiber_->Resume()) return;  // suspended; its Resumer posts the next ResumeFiber
  auto done = std::move(fiber_);
  OnReply(done->TakeReply());
}

void Connection::OnReply(Reply reply) {
  inflight_slot_.reset();
  if (handler_abandoned_) {
    // Answered 504 already (OnHandlerTimeout); a stream nobody will read ends here.
    if (auto* writer = std::get_if<std::shared_ptr<StreamWriter>>(&reply); writer && *writer) {
      (*writer)->Finish(StreamEnd::kClientGone);
    }
    return;
  }
  if (auto* response = std::get_if<Response>(&reply)) return Respond(std::move(*response), false);
  auto writer = std::get<std::shared_ptr<StreamWriter>>(std::move(reply));
  if (!writer) {
    return Respond(StatusResponse(500, "InternalError", "Internal error occurred: empty reply"),
                   false);
  }
  StartStream(std::move(writer));
}

void Connection::AddRequestHeaders(bhttp::fields& out) {
  if (audit_id_.empty()) audit_id_ = NewUuid();  // refused before its head was accepted
  // A handler that sets its own Audit-ID (none does) keeps it.
  if (out.find("Audit-ID") == out.end()) CopyHeaders({{"Audit-ID", audit_id_}}, out);
  for (const auto& w : auth_warnings_) CopyHeaders({{"Warning", w}}, out);
}

// Responses sealed into more TLS bytes than this drop the sealer's buffer once written.
constexpr std::size_t kKeptSealerBytes = 64 * 1024;

void Connection::Respond(Response r, bool close_after) {
  phase_ = Phase::kWriting;
  const bool keep = keep_alive_ && !close_after && !shutting_down_ && !close_after_reply_;
  auto res = std::make_shared<bhttp::response<bhttp::string_body>>();
  res->version(11);
  res->result(ValidStatus(r.status));
  res->set(bhttp::field::content_type, r.content_type);
  CopyHeaders(r.headers, *res);
  AddRequestHeaders(*res);
  const unsigned code = res->result_int();
  const bool no_body = code < 200 || code == 204 || code == 304;  // these carry no body
  if (r.body_source && !no_body && request_version_ >= 11) {
    auto head = std::make_unique<bhttp::response<bhttp::empty_body>>(std::move(res->base()));
    return RespondSourced(std::move(head), std::move(r.body_source), r.body_source_size, keep);
  }
  if (r.body_source) DrainBody(r);  // HTTP/1.0 has no chunked encoding; a rare client
  if (no_body) r.body.clear();
  res->body() = std::move(r.body);
  res->keep_alive(keep);
  res->prepare_payload();
  // Head and body in one string, sealed into TLS records and written raw, as body pieces are
  // (tls_sealer.h): Asio's TLS write costs more CPU than the whole response is worth.
  std::string wire;
  wire.reserve(res->body().size() + 512);
  bhttp::response_serializer<bhttp::string_body> sr(*res);
  beast::error_code ec;
  do {
    sr.next(ec, [&](beast::error_code&, const auto& buffers) {
      for (auto b : beast::buffers_range_ref(buffers)) {
        wire.append(static_cast<const char*>(b.data()), b.size());
      }
      sr.consume(beast::buffer_bytes(buffers));
    });
  } while (!ec && !sr.is_done());
  std::optional<std::string_view> sealed;
  if (!ec) sealed = Seal(wire);
  if (!sealed) {
    SPDLOG_ERROR("http: response for {} could not be serialized or sealed; closing", remote_);
    return OnWritten(ec ? ec : net::error::make_error_code(net::error::fault), true);
  }
  // The sealer keeps its buffer for the connection's next small response, but not the buffer
  // of a large one (an OpenAPI document), which an idle connection would hold.
  const bool large = sealed->size() > kKeptSealerBytes;
  SetDeadline(state_->options.io_timeout);
  net::async_write(tcp(), net::buffer(sealed->data(), sealed->size()),
                   [self = shared_from_this(), keep, large](beast::error_code ec, std::size_t) {
                     if (large) self->sealer_.reset();
                     self->OnWritten(ec, !keep);
                   });
}

// A sourced body goes out in pieces of about this size. Chunked, each piece is
// "<size>\r\n<data>\r\n" built in one string so it goes out in one write: the size line is a
// fixed-width hex number (leading zeros are valid chunk-size syntax) written into room left at
// the front once the data is there.
constexpr std::size_t kPieceTarget = 256 * 1024;
constexpr std::size_t kChunkSizeDigits = 8;  // up to 4 GiB per chunk
constexpr std::size_t kChunkPrefix = kChunkSizeDigits + 2;

void Connection::RespondSourced(std::unique_ptr<bhttp::response<bhttp::empty_body>> head,
                                BodySource source, std::optional<std::uint64_t> size, bool keep) {
  body_head_ = std::move(head);
  if (size) {
    body_head_->content_length(*size);
  } else {
    body_head_->chunked(true);
  }
  body_head_->keep_alive(keep);
  body_source_ = std::move(source);
  body_size_ = size;
  body_sent_ = 0;
  body_keep_ = keep;
  body_serializer_ = std::make_unique<bhttp::response_serializer<bhttp::empty_body>>(*body_head_);
  SetDeadline(state_->options.io_timeout);
  bhttp::async_write_header(stream_, *body_serializer_,
                            [self = shared_from_this()](beast::error_code ec, std::size_t) {
                              if (ec) return self->OnWritten(ec, true);
                              self->WriteBodyPiece();
                            });
}

void Connection::WriteBodyPiece() {
  const bool chunked = !body_size_.has_value();
  const std::size_t prefix = chunked ? kChunkPrefix : 0;
  bool more = true;
  if (piece_ahead_) {
    // A worker built this piece while the previous one was sent; if it is not done yet, it
    // calls back here when it is. The worker's task holds the connection alive meanwhile.
    auto taken = piece_ahead_->Take(&body_chunk_, [weak = weak_from_this()] {
      if (auto self = weak.lock()) {
        net::post(self->stream_.get_executor(), [self] { self->WriteBodyPiece(); });
      }
    });
    if (!taken) return;
    more = *taken;
  } else {
    body_chunk_.assign(prefix, '0');
    while (more && body_chunk_.size() - prefix < kPieceTarget) more = body_source_(&body_chunk_);
    if (more && state_->options.build_pieces_ahead && state_->workers != nullptr) {
      // More than one piece: the rest is built one piece ahead on the workers.
      piece_ahead_ = std::make_shared<PieceAhead>(std::move(body_source_), prefix, kPieceTarget);
      body_source_ = nullptr;
    }
  }
  if (more && piece_ahead_) {
    net::post(*state_->workers,
              [self = shared_from_this(), ahead = piece_ahead_] { ahead->Build(); });
  }
  const std::size_t data = body_chunk_.size() - prefix;
  body_sent_ += data;
  bool broken = false;
  if (!chunked) {
    // The promised Content-Length is the framing: a source that disagrees leaves the client
    // unable to find the end, so the connection is closed after what was promised.
    if (body_sent_ > *body_size_ || (!more && body_sent_ != *body_size_)) {
      SPDLOG_ERROR("http: body source for {} produced {}+ bytes, not the {} announced", remote_,
                   body_sent_, *body_size_);
      if (body_sent_ > *body_size_) body_chunk_.resize(data - (body_sent_ - *body_size_));
      broken = true;
      more = false;
    }
  } else if (data == 0) {
    body_chunk_.clear();
  } else {
    SVC_CHECK(data <= 0xffffffffu) << "a body source appended more than 4 GiB at once";
    body_chunk_.replace(0, kChunkPrefix, fmt::format("{:0{}x}\r\n", data, kChunkSizeDigits));
    body_chunk_ += "\r\n";
  }
  if (!more) {
    if (chunked) body_chunk_ += "0\r\n\r\n";
    body_source_ = nullptr;  // releases what it holds (a LIST's items) before the next request
    piece_ahead_.reset();
  }
  // The piece goes out as TLS records sealed in memory, in one raw write (tls_sealer.h): no
  // other operation of the stream runs until it is written.
  const std::optional<std::string_view> sealed = Seal(body_chunk_);
  if (!sealed) {
    SPDLOG_ERROR("http: TLS refused a body piece for {}; closing", remote_);
    return FinishBody(net::error::make_error_code(net::error::fault), true);
  }
  SetDeadline(state_->options.io_timeout);
  net::async_write(tcp(), net::buffer(sealed->data(), sealed->size()),
                   [self = shared_from_this(), more, broken](beast::error_code ec, std::size_t) {
                     if (ec || !more) return self->FinishBody(ec, broken);
                     self->WriteBodyPiece();
                   });
}

std::optional<std::string_view> Connection::Seal(std::string_view plain) {
  if (!sealer_) sealer_ = std::make_unique<TlsSealer>();
  sealer_->Clear();
  if (!sealer_->Seal(stream_.native_handle(), plain)) return std::nullopt;
  return sealer_->sealed();
}

void Connection::FinishBody(beast::error_code ec, bool broken) {
  body_chunk_ = std::string();  // a piece of memory back
  sealer_.reset();              // and its records
  body_source_ = nullptr;
  piece_ahead_.reset();  // a worker still building lets go after
  body_serializer_.reset();
  body_head_.reset();
  OnWritten(ec, broken || !body_keep_);
}

void Connection::OnWritten(beast::error_code ec, bool close_after) {
  if (!ec && drain_before_close_) return Drain(0);
  if (ec || close_after || shutting_down_) return Close();
  ReadRequest();
}

void Connection::Drain(std::size_t drained) {
  // Closing a socket with unread input makes the kernel send a reset, which can destroy the
  // 413 before a client still uploading has read it (Go's client reads the response only after
  // its write fails or ends). So read and drop the rest of the body first, within bounds.
  if (drained > kMaxDrainBytes) {
    closing_ = true;
    phase_ = Phase::kClosing;
    tcp().close();
    return;
  }
  phase_ = Phase::kClosing;
  if (drained == 0) {
    SetDeadline(kDrainTimeout);
    drain_buf_.resize(16 * 1024);  // one TLS record per read
  }
  stream_.async_read_some(net::buffer(drain_buf_), [self = shared_from_this(), drained](
                                                       beast::error_code ec, std::size_t n) {
    if (ec) {
      self->closing_ = true;
      self->tcp().close();
      return;
    }
    self->Drain(drained + n);
  });
}

void Connection::Close() {
  if (closing_) return;
  closing_ = true;
  phase_ = Phase::kClosing;
  if (!handshake_done_) {
    tcp().close();
    return;
  }
  SetDeadline(kCloseTimeout);
  stream_.async_shutdown([self = shared_from_this()](beast::error_code) { self->tcp().close(); });
}

void Connection::SetDeadline(std::chrono::steady_clock::duration timeout, bool strict) {
  deadline_ = std::chrono::steady_clock::now() + timeout;
  if (strict) {
    // Re-arming is rare even per request: a deadline set the same way earlier ends sooner.
    if (!watchdog_waiting_ || watchdog_.expiry() > deadline_) ArmWatchdog();
    return;
  }
  // A pending wait that fires by deadline_ + timeout/2 will do: it re-arms itself for
  // deadline_ if it fires early. Per request that is no timer work at all, since the idle
  // (90 s) and I/O (60 s) timeouts alternate within that slack.
  if (watchdog_waiting_ && watchdog_.expiry() <= deadline_ + timeout / 2) return;
  ArmWatchdog();
}

void Connection::ClearDeadline() { deadline_ = std::chrono::steady_clock::time_point::max(); }

void Connection::ArmWatchdog() {
  watchdog_.expires_at(deadline_);  // cancels a pending wait; its handler sees a stale generation
  watchdog_waiting_ = true;
  // Weak: a pending wait must not keep a closed connection (and server shutdown) waiting.
  watchdog_.async_wait(
      [weak = weak_from_this(), generation = ++watchdog_generation_](beast::error_code ec) {
        if (ec) return;  // cancelled by a newer wait, or the connection is going away
        if (auto self = weak.lock()) self->OnWatchdog(generation);
      });
}

void Connection::OnWatchdog(std::uint64_t generation) {
  if (generation != watchdog_generation_) return;  // fired as a newer wait was armed
  watchdog_waiting_ = false;
  if (deadline_ == std::chrono::steady_clock::time_point::max()) return;
  if (std::chrono::steady_clock::now() < deadline_) return ArmWatchdog();
  if (phase_ == Phase::kHandling) {
    ClearDeadline();
    return OnHandlerTimeout();
  }
  SPDLOG_DEBUG("http: connection from {} timed out in phase {}", remote_, static_cast<int>(phase_));
  // The I/O under way fails (operation_aborted) and its handler closes the connection.
  tcp().close();
}

void Connection::StartStream(std::shared_ptr<StreamWriter> writer) {
  phase_ = Phase::kStreaming;
  writer_ = std::move(writer);
  const StreamHead& head = writer_->head();
  stream_head_ = std::make_unique<bhttp::response<bhttp::empty_body>>();
  stream_head_->version(11);
  stream_head_->result(ValidStatus(head.status));
  stream_head_->set(bhttp::field::content_type, head.content_type);
  CopyHeaders(head.headers, *stream_head_);
  AddRequestHeaders(*stream_head_);
  stream_head_->chunked(true);
  // The connection ends with the stream: it keeps a read pending to notice the client leaving,
  // and that read may consume bytes of a next request.
  stream_head_->keep_alive(false);
  stream_serializer_ =
      std::make_unique<bhttp::response_serializer<bhttp::empty_body>>(*stream_head_);
  chunk_in_flight_ = true;  // the head; PumpStream waits for it
  SetDeadline(state_->options.io_timeout);
  bhttp::async_write_header(
      stream_, *stream_serializer_,
      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->OnStreamHead(ec); });
}

void Connection::OnStreamHead(beast::error_code ec) {
  chunk_in_flight_ = false;
  if (stream_done_) return;
  if (ec) return AbortStream(StreamEnd::kClientGone);
  ClearDeadline();
  std::weak_ptr<Connection> weak = weak_from_this();
  auto executor = stream_.get_executor();
  writer_->Attach([weak, executor] {
    net::post(executor, [weak] {
      if (auto self = weak.lock()) self->PumpStream();
    });
  });
  if (shutting_down_) writer_->RequestEnd(StreamEnd::kShutdown);
  StartDetectRead();
  PumpStream();
}

void Connection::PumpStream() {
  if (chunk_in_flight_ || stream_done_) return;
  StreamWriter::Batch batch = writer_->Take();
  if (batch.data.empty() && !batch.last) return;
  chunk_.clear();
  if (!batch.data.empty()) {
    chunk_ = fmt::format("{:x}\r\n", batch.data.size());
    chunk_ += batch.data;
    chunk_ += "\r\n";
  }
  if (batch.last) chunk_ += "0\r\n\r\n";
  chunk_in_flight_ = true;
  chunk_is_last_ = batch.last;
  SetDeadline(state_->options.io_timeout);
  net::async_write(
      stream_, net::buffer(chunk_),
      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->OnChunkWritten(ec); });
}

void Connection::OnChunkWritten(beast::error_code ec) {
  chunk_in_flight_ = false;
  if (stream_done_) return;
  if (ec) return AbortStream(StreamEnd::kClientGone);
  ClearDeadline();
  writer_->WriteDone();
  if (!chunk_is_last_) return PumpStream();
  stream_done_ = true;
  writer_->Finish(writer_->requested_end());
  // The TLS shutdown must not overlap the pending read; cancel it and close from its handler.
  if (detect_read_pending_) {
    tcp().cancel();
  } else {
    Close();
  }
}

void Connection::StartDetectRead() {
  detect_read_pending_ = true;
  stream_.async_read_some(
      net::buffer(detect_buf_),
      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->OnDetectRead(ec); });
}

void Connection::OnDetectRead(beast::error_code ec) {
  detect_read_pending_ = false;
  if (stream_done_) return Close();
  if (!ec) return StartDetectRead();  // the client sent bytes; a stream ignores them
  // A client that got the terminating chunk may hang up before our write completion runs;
  // that stream ended as asked, so let OnChunkWritten settle it.
  if (chunk_in_flight_ && chunk_is_last_) return;
  AbortStream(StreamEnd::kClientGone);
}

void Connection::AbortStream(StreamEnd why) {
  if (stream_done_) return;
  stream_done_ = true;
  writer_->Finish(why);
  closing_ = true;
  phase_ = Phase::kClosing;
  tcp().close();  // fails whatever read or write is pending; their handlers see stream_done_
}

}  // namespace svcplane::apiserver::http::internal
