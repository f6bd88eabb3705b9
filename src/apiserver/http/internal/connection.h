#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "apiserver/http/handler.h"
#include "apiserver/http/inflight_limiter.h"
#include "apiserver/http/internal/piece_ahead.h"
#include "apiserver/http/internal/request_fiber.h"
#include "apiserver/http/internal/request_parser.h"
#include "apiserver/http/internal/server_state.h"
#include "apiserver/http/internal/tls_sealer.h"

namespace svcplane::apiserver::http::internal {

// One TLS connection: handshake, then requests one at a time (HTTP/1.1 keep-alive), each
// answered with a Response or turned into a chunked stream that lasts until it ends.
//
// Threading: every member runs on the connection's I/O thread, the only thread that runs its
// io_context (so its executor serializes like a strand, without a strand's per-handler lock
// and queue). The handler runs on the worker pool and posts its Reply back, or, for requests
// ServerOptions::run_on_io_thread picks, runs here as a RequestFiber; a StreamWriter wakes the
// connection by posting to its executor.
// Lifetime: owned by the shared_ptrs its pending operations hold; it unregisters from the
// ServerState when the last one lets go.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // The socket's executor is its I/O thread's io_context, by type: an any_io_executor would
  // copy and destroy a type-erased executor for every asynchronous operation.
  using Executor = boost::asio::io_context::executor_type;
  using Socket = boost::asio::basic_stream_socket<boost::asio::ip::tcp, Executor>;
  Connection(Socket socket, std::shared_ptr<ServerState> state);
  ~Connection();

  void Start();
  // Both post to the connection's executor, so they are safe from any thread.
  void BeginShutdown();
  void ForceClose();

 private:
  enum class Phase { kHandshake, kIdle, kReadingBody, kHandling, kWriting, kStreaming, kClosing };
  using Parser = RequestParser;
  using TcpStream = boost::beast::basic_stream<boost::asio::ip::tcp, Executor,
                                               boost::beast::unlimited_rate_policy>;
  using Stream = boost::beast::ssl_stream<TcpStream>;

  TcpStream& tcp() { return boost::beast::get_lowest_layer(stream_); }

  void OnHandshake(boost::beast::error_code ec);
  void ReadRequest();
  void OnHeader(boost::beast::error_code ec);
  void ReadBody();
  void OnBody(boost::beast::error_code ec);
  void RespondTooLarge();
  // Adds Audit-ID (a new one when the request head was never read) and authentication warnings.
  void AddRequestHeaders(boost::beast::http::fields& out);
  bool AcceptHead();  // parses and authenticates the head; false when already answered
  // Hardening (ServerOptions' limits), around authentication in AcceptHead; each answers the
  // request itself and returns false when it refuses it.
  bool ApplyRequestLimits(const Request& req, bool has_body);  // ?timeout=, Upgrade
  bool AdmitInFlight(const Request& req, bool has_body);       // max-in-flight (429)
  void OnHandlerTimeout();                                     // 504
  void Dispatch();
  void RunOnIoThread(Request req);  // see ServerOptions::run_on_io_thread
  void ResumeFiber();
  void OnReply(Reply reply);
  void Respond(Response response, bool close_after);
  void OnWritten(boost::beast::error_code ec, bool close_after);
  void RespondSourced(
      std::unique_ptr<boost::beast::http::response<boost::beast::http::empty_body>> head,
      BodySource source, std::optional<std::uint64_t> size, bool keep);
  void WriteBodyPiece();
  void FinishBody(boost::beast::error_code ec, bool broken);
  // `plain` as TLS records for a raw write on tcp(), valid until the next Seal or until
  // sealer_ is reset; nullopt if OpenSSL refused (close the connection).
  std::optional<std::string_view> Seal(std::string_view plain);
  void Close();
  void Drain(std::size_t drained);

  // Timeouts. The I/O under way must end within `timeout` of now, or the socket is closed and
  // that I/O fails (as Beast's basic_stream timeouts did). One watchdog timer per connection
  // instead of Beast's timer per read or write, which cost a timer wait, a cancel, a timerfd
  // update and the cancelled wait's handler for every operation. A deadline is enforced no
  // earlier than set and at most half its timeout late: the watchdog is re-armed only for a
  // deadline before that.
  // `strict`: the watchdog is re-armed unless it already fires by the deadline.
  void SetDeadline(std::chrono::steady_clock::duration timeout, bool strict = false);
  void ClearDeadline();  // no I/O under way (handling a request, a stream waiting for events)
  void ArmWatchdog();
  void OnWatchdog(std::uint64_t generation);

  void StartStream(std::shared_ptr<StreamWriter> writer);
  void OnStreamHead(boost::beast::error_code ec);
  void PumpStream();
  void OnChunkWritten(boost::beast::error_code ec);
  void StartDetectRead();
  void OnDetectRead(boost::beast::error_code ec);
  void AbortStream(StreamEnd why);

  const std::shared_ptr<ServerState> state_;
  Stream stream_;
  boost::beast::flat_buffer buffer_;
  std::optional<Parser> parser_;
  std::optional<Request> request_;  // the authenticated head while its body is read
  std::string remote_;
  std::optional<PeerCertificate> peer_;
  // For the request being answered: its audit ID and the Warning headers authentication added,
  // put on whatever response goes out (handler's, 401, stream head). Reset per request.
  std::string audit_id_;
  std::vector<std::string> auth_warnings_;
  Phase phase_ = Phase::kHandshake;
  bool handshake_done_ = false;
  bool shutting_down_ = false;
  bool closing_ = false;
  bool keep_alive_ = true;
  bool drain_before_close_ = false;
  std::vector<char> drain_buf_;
  int request_version_ = 11;
  std::unique_ptr<RequestFiber> fiber_;  // the handler running on this thread, if any

  // Limits on the request being read or handled (ServerOptions).
  bool served_any_ = false;         // a first request head gets read_header_timeout
  bool long_running_ = false;       // ServerOptions::is_long_running said so
  bool close_after_reply_ = false;  // an Upgrade request: the connection ends with its reply
  bool handler_abandoned_ = false;  // answered 504; the handler's reply is dropped when it comes
  std::chrono::milliseconds request_timeout_{0};        // 0: none
  std::optional<InflightLimiter::Slot> inflight_slot_;  // held until the handler returns

  // A Response::body_source being written: chunked, or raw up to body_size_ when that is known.
  BodySource body_source_;
  std::optional<std::uint64_t> body_size_;
  std::uint64_t body_sent_ = 0;
  std::unique_ptr<boost::beast::http::response<boost::beast::http::empty_body>> body_head_;
  std::unique_ptr<boost::beast::http::response_serializer<boost::beast::http::empty_body>>
      body_serializer_;
  std::string body_chunk_;
  bool body_keep_ = false;
  std::shared_ptr<PieceAhead> piece_ahead_;  // builds the next piece while one is sent
  std::unique_ptr<TlsSealer> sealer_;        // a response's or piece's TLS records (Seal)

  boost::asio::basic_waitable_timer<std::chrono::steady_clock,
                                    boost::asio::wait_traits<std::chrono::steady_clock>, Executor>
      watchdog_;
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
  bool watchdog_waiting_ = false;
  std::uint64_t watchdog_generation_ = 0;  // only the newest wait acts when it fires

  // Streaming state.
  std::shared_ptr<StreamWriter> writer_;
  std::unique_ptr<boost::beast::http::response<boost::beast::http::empty_body>> stream_head_;
  std::unique_ptr<boost::beast::http::response_serializer<boost::beast::http::empty_body>>
      stream_serializer_;
  std::string chunk_;
  bool chunk_in_flight_ = false;
  bool chunk_is_last_ = false;
  bool stream_done_ = false;
  bool detect_read_pending_ = false;
  std::array<char, 256> detect_buf_;
};

}  // namespace svcplane::apiserver::http::internal
