#include "apiserver/http/server.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <future>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "apiserver/http/internal/connection.h"
#include "apiserver/http/internal/server_state.h"
#include "base/thread_name.h"

namespace svcplane::apiserver::http {
namespace internal {
namespace {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;

// Names every client CA in the CertificateRequest, so clients holding several certificates
// pick the right one.
Status AddClientCaNames(ssl::context& ctx, const std::string& ca_pem) {
  BIO* bio = BIO_new_mem_buf(ca_pem.data(), static_cast<int>(ca_pem.size()));
  int added = 0;
  while (X509* ca = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    int ok = SSL_CTX_add_client_CA(ctx.native_handle(), ca);
    X509_free(ca);
    if (ok != 1) {
      BIO_free(bio);
      return InvalidError("client CA: cannot add to the TLS context");
    }
    ++added;
  }
  BIO_free(bio);
  ERR_clear_error();  // the loop ends on a "no start line" error
  if (added == 0) return InvalidError("client CA: not a PEM certificate");
  return Status::Ok();
}

// Accepts whatever certificate the client sent: the x509 authenticator verifies it afterwards
// (internal/client_cert.h) and answers 401 rather than a TLS alert, as Go's RequestClientCert.
// Proof of possession (CertificateVerify) is still checked by TLS.
int AcceptAnyClientCertificate(int /*preverify_ok*/, X509_STORE_CTX* /*ctx*/) { return 1; }

Result<ssl::context> MakeTlsContext(const ServerOptions& o) {
  ssl::context ctx(ssl::context::tls_server);
  ctx.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                  ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                  ssl::context::single_dh_use);
  SSL_CTX* native = ctx.native_handle();
  const int min_version =
      o.tls_min_version == base::tls::TlsVersion::kTls13 ? TLS1_3_VERSION : TLS1_2_VERSION;
  if (SSL_CTX_set_min_proto_version(native, min_version) != 1) {
    return InvalidError("--tls-min-version: OpenSSL refused the minimum version");
  }
  // Renegotiation (TLS 1.2) lets a client make the server redo handshakes at will, and was
  // the vector of CVE-2009-3555; compression, of CRIME. Go's server allows neither.
  SSL_CTX_set_options(native, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
  auto cipher_list = base::tls::OpenSslCipherList(o.tls_cipher_suites);
  if (!cipher_list.ok()) return cipher_list.status();
  if (SSL_CTX_set_cipher_list(native, cipher_list->c_str()) != 1) {
    ERR_clear_error();
    return InvalidError(
        fmt::format("--tls-cipher-suites: this OpenSSL supports none of \"{}\"", *cipher_list));
  }
  // Go's order for TLS 1.3 on CPUs with AES instructions, chosen by the server as Go does:
  // AES-128-GCM costs about a sixth less per byte than the AES-256-GCM OpenSSL would let the
  // client pick, and a 100k-Pod LIST is 260 MB of it.
  SSL_CTX_set_ciphersuites(ctx.native_handle(),
                           "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:"
                           "TLS_CHACHA20_POLY1305_SHA256");
  SSL_CTX_set_options(ctx.native_handle(), SSL_OP_CIPHER_SERVER_PREFERENCE);
  boost::system::error_code ec;
  ctx.use_certificate_chain(net::buffer(o.cert_pem), ec);
  if (ec) return InvalidError("serving certificate: " + ec.message());
  ctx.use_private_key(net::buffer(o.key_pem), ssl::context::pem, ec);
  if (ec) return InvalidError("serving key: " + ec.message());
  if (!o.client_ca_pem.empty()) {
    ctx.add_certificate_authority(net::buffer(o.client_ca_pem), ec);
    if (ec) return InvalidError("client CA: " + ec.message());
    SVC_RETURN_IF_ERROR(AddClientCaNames(ctx, o.client_ca_pem));
    // Ask for a certificate but do not require one: bearer-token clients have none.
    SSL_CTX_set_verify(ctx.native_handle(), SSL_VERIFY_PEER, AcceptAnyClientCertificate);
    // OpenSSL refuses resumed sessions under verify_peer without a session id context.
    static constexpr unsigned char kSessionContext[] = "svcplane";
    SSL_CTX_set_session_id_context(ctx.native_handle(), kSessionContext,
                                   sizeof(kSessionContext) - 1);
  }
  return ctx;
}

}  // namespace

class ServerImpl {
 public:
  ServerImpl(std::shared_ptr<ServerState> state, int io_threads, int worker_threads)
      : state_(std::move(state)),
        iocs_(MakeContexts(io_threads)),
        acceptor_(net::make_strand(*iocs_.front())),
        retry_timer_(acceptor_.get_executor()),
        workers_(static_cast<std::size_t>(worker_threads)) {
    for (auto& ioc : iocs_) guards_.push_back(net::make_work_guard(*ioc));
    state_->workers = &workers_;
  }

  ~ServerImpl() { Shutdown(std::chrono::seconds(5)); }

  Status Listen() {
    const ServerOptions& o = state_->options;
    boost::system::error_code ec;
    std::string where = fmt::format("{}:{}", o.host, o.port);
    auto addr = net::ip::make_address(o.host, ec);
    if (ec) {
      // A name such as "localhost": listen on its first address.
      tcp::resolver resolver(*iocs_.front());
      auto results = resolver.resolve(o.host, "", ec);
      if (ec || results.empty()) {
        return InvalidError(fmt::format("listen host \"{}\" does not resolve", o.host));
      }
      addr = results.begin()->endpoint().address();
    }
    tcp::endpoint ep(addr, o.port);
    acceptor_.open(ep.protocol(), ec);
    if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(ep, ec);
    if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
    if (ec) return UnavailableError(fmt::format("listen on {}: {}", where, ec.message()));
    port_ = acceptor_.local_endpoint(ec).port();
    if (ec) return UnavailableError(fmt::format("listen on {}: {}", where, ec.message()));
    return Status::Ok();
  }

  void Run() {
    DoAccept();
    for (auto& ioc : iocs_) {
      threads_.emplace_back([ioc = ioc.get()] {
        NameThisThread("svc-http-io");
        ioc->run();
      });
    }
  }

  void Shutdown(std::chrono::milliseconds deadline) {
    if (stopped_.exchange(true)) return;
    const auto until = std::chrono::steady_clock::now() + deadline;
    state_->shutting_down = true;
    if (!threads_.empty()) {
      std::promise<void> closed;
      net::post(acceptor_.get_executor(), [this, &closed] {
        boost::system::error_code ec;
        acceptor_.close(ec);
        retry_timer_.cancel();
        closed.set_value();
      });
      closed.get_future().wait();
    }
    for (auto& c : Snapshot()) c->BeginShutdown();
    if (!WaitForConnections(until)) {
      SPDLOG_WARN("http: shutdown deadline passed; closing remaining connections");
      for (auto& c : Snapshot()) c->ForceClose();
      WaitForConnections(std::chrono::steady_clock::now() + std::chrono::seconds(1));
    }
    // In-flight handlers finish; what they post back to a closed connection is dropped.
    workers_.join();
    guards_.clear();
    for (auto& ioc : iocs_) ioc->stop();
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

  uint16_t port() const { return port_; }
  ServerState& state() { return *state_; }

 private:
  void DoAccept() {
    // Each connection stays on one I/O thread for its life (a RequestFiber must not change
    // thread); new ones go to the threads in turn. Its socket uses the io_context's own
    // executor, not a strand: one thread runs each context, which serializes the
    // connection's handlers already, and a strand's lock, queue and extra post per handler
    // cost 10-14% of small-GET throughput (http_bench).
    auto& ioc = *iocs_[next_ioc_++ % iocs_.size()];
    acceptor_.async_accept(ioc.get_executor(),
                           [this](boost::system::error_code ec, Connection::Socket socket) {
                             OnAccept(ec, std::move(socket));
                           });
  }

  void OnAccept(boost::system::error_code ec, Connection::Socket socket) {
    if (ec == net::error::operation_aborted || !acceptor_.is_open()) return;
    if (ec) {
      // Typically out of descriptors; back off instead of spinning.
      SPDLOG_WARN("http: accept failed: {}", ec.message());
      retry_timer_.expires_after(std::chrono::milliseconds(50));
      retry_timer_.async_wait([this](boost::system::error_code wait_ec) {
        if (!wait_ec && acceptor_.is_open()) DoAccept();
      });
      return;
    }
    boost::system::error_code opt_ec;
    socket.set_option(tcp::no_delay(true), opt_ec);  // small responses and chunks go out now
    state_->accepted++;
    auto conn = std::make_shared<Connection>(std::move(socket), state_);
    state_->Register(conn);
    conn->Start();
    DoAccept();
  }

  // Collected under the lock, released outside it: dropping the last reference runs the
  // destructor, which takes the lock to unregister.
  std::vector<std::shared_ptr<Connection>> Snapshot() {
    std::vector<std::shared_ptr<Connection>> out;
    std::lock_guard lock(state_->mu);
    for (auto& [ptr, weak] : state_->connections) {
      if (auto c = weak.lock()) out.push_back(std::move(c));
    }
    return out;
  }

  bool WaitForConnections(std::chrono::steady_clock::time_point until) {
    std::unique_lock lock(state_->mu);
    return state_->cv.wait_until(lock, until, [&] { return state_->connections.empty(); });
  }

  // Destroyed bottom-up: workers first (their queued tasks hold connections, which need the
  // I/O context), then the acceptor, then the I/O context (its queued handlers hold the rest).
  static std::vector<std::unique_ptr<net::io_context>> MakeContexts(int n) {
    std::vector<std::unique_ptr<net::io_context>> out;
    // One thread runs each context (the hint lets Asio skip waking other threads), and
    // connections rely on it: their handlers are serialized by that alone (see DoAccept).
    for (int i = 0; i < n; ++i) out.push_back(std::make_unique<net::io_context>(1));
    return out;
  }

  std::shared_ptr<ServerState> state_;
  std::vector<std::unique_ptr<net::io_context>> iocs_;  // one per I/O thread
  std::vector<net::executor_work_guard<net::io_context::executor_type>> guards_;
  tcp::acceptor acceptor_;
  net::steady_timer retry_timer_;
  net::thread_pool workers_;
  std::vector<std::thread> threads_;
  size_t next_ioc_ = 0;  // on the acceptor's strand
  uint16_t port_ = 0;
  std::atomic<bool> stopped_{false};
};

}  // namespace internal

Result<std::unique_ptr<Server>> Server::Start(ServerOptions options, Handler handler) {
  if (!options.authenticator) return InvalidError("http server: an authenticator is required");
  if (!handler) return InvalidError("http server: a handler is required");
  if (options.io_threads < 1 || options.worker_threads < 1) {
    return InvalidError("http server: io_threads and worker_threads must be at least 1");
  }
  auto ctx = internal::MakeTlsContext(options);
  if (!ctx.ok()) return ctx.status();
  const int io_threads = options.io_threads;
  const int worker_threads = options.worker_threads;
  auto state = std::make_shared<internal::ServerState>(std::move(options), std::move(handler),
                                                       std::move(*ctx));
  auto impl = std::make_unique<internal::ServerImpl>(state, io_threads, worker_threads);
  SVC_RETURN_IF_ERROR(impl->Listen());
  impl->Run();
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Server::Server(std::unique_ptr<internal::ServerImpl> impl) : impl_(std::move(impl)) {}

Server::~Server() { impl_->Shutdown(std::chrono::seconds(5)); }

uint16_t Server::port() const { return impl_->port(); }

void Server::SetReady(bool ready) { impl_->state().ready = ready; }

void Server::BeginShutdown() { impl_->state().draining = true; }

void Server::Shutdown(std::chrono::milliseconds deadline) { impl_->Shutdown(deadline); }

uint64_t Server::AcceptedConnectionsForTest() const { return impl_->state().accepted; }

}  // namespace svcplane::apiserver::http
