#include "client/transport/testing/tls_test_server.h"

#include <fmt/format.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace svcplane::client::transport::testing {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace ssl = boost::asio::ssl;
using tcp = asio::ip::tcp;

namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void Run(const std::string& cmd) {
  const std::string full = cmd + " >/dev/null 2>&1";
  if (std::system(full.c_str()) != 0) throw std::runtime_error("command failed: " + cmd);
}

TestCerts Generate() {
  TestCerts c;
  c.dir = MakeTempDir();
  const std::string d = c.dir;
  const std::string ec = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
  Run(
      fmt::format("openssl req -x509 {} -keyout {}/ca.key -out {}/ca.crt -days 2 -subj "
                  "/CN=svcplane-test-ca",
                  ec, d, d));
  Run(
      fmt::format("openssl req -x509 {} -keyout {}/other.key -out {}/other.crt -days 2 -subj "
                  "/CN=other-ca",
                  ec, d, d));
  Run(
      fmt::format("openssl req -new {} -keyout {}/server.key -out {}/server.csr -subj "
                  "/CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1",
                  ec, d, d));
  Run(
      fmt::format("openssl x509 -req -in {0}/server.csr -CA {0}/ca.crt -CAkey {0}/ca.key "
                  "-CAcreateserial -days 2 -copy_extensions copy -out {0}/server.crt",
                  d));
  Run(
      fmt::format("openssl req -new {} -keyout {}/client.key -out {}/client.csr -subj "
                  "/O=devs/CN=alice",
                  ec, d, d));
  Run(
      fmt::format("openssl x509 -req -in {0}/client.csr -CA {0}/ca.crt -CAkey {0}/ca.key "
                  "-CAcreateserial -days 2 -out {0}/client.crt",
                  d));
  c.ca_file = d + "/ca.crt";
  c.ca_pem = Slurp(c.ca_file);
  c.other_ca_pem = Slurp(d + "/other.crt");
  c.server_cert_file = d + "/server.crt";
  c.server_key_file = d + "/server.key";
  c.client_cert_file = d + "/client.crt";
  c.client_key_file = d + "/client.key";
  c.client_cert_pem = Slurp(c.client_cert_file);
  c.client_key_pem = Slurp(c.client_key_file);
  return c;
}

std::string PeerCommonName(SSL* ssl) {
  X509* cert = SSL_get1_peer_certificate(ssl);
  if (cert == nullptr) return "";
  char cn[256] = {0};
  X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, cn, sizeof(cn));
  X509_free(cert);
  return cn;
}

}  // namespace

const TestCerts& TestCerts::Get() {
  static const TestCerts* certs = new TestCerts(Generate());
  return *certs;
}

void WriteFile(const std::string& path, const std::string& content, int mode) {
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
  }
  chmod(path.c_str(), mode);
}

namespace {

// Temp dirs made by this process, removed when it exits. Each gtest case runs
// in its own process (gtest_discover_tests), so without this every case left a
// certificate folder behind in /tmp. Children forked by a test (exec plugins)
// share the list but must not remove the parent's folders, hence the pid.
struct TempDirsRemovedAtExit {
  std::mutex mu;
  std::vector<std::string> dirs;
  pid_t owner = getpid();

  static TempDirsRemovedAtExit& Get() {
    static auto* registry = [] {
      auto* r = new TempDirsRemovedAtExit;
      std::atexit([] { Get().RemoveAll(); });
      return r;
    }();
    return *registry;
  }

  void Add(std::string dir) {
    std::lock_guard<std::mutex> lock(mu);
    dirs.push_back(std::move(dir));
  }

  void RemoveAll() {
    if (getpid() != owner) return;
    std::lock_guard<std::mutex> lock(mu);
    for (const std::string& dir : dirs) {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
    dirs.clear();
  }
};

}  // namespace

std::string MakeTempDir() {
  std::string templ = (std::filesystem::temp_directory_path() / "svcplane-test-XXXXXX").string();
  if (mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  TempDirsRemovedAtExit::Get().Add(templ);
  return templ;
}

struct TlsTestServer::Impl {
  TestHandler handler;
  asio::io_context ioc;
  ssl::context ctx{ssl::context::tls_server};
  tcp::acceptor acceptor{ioc};
  std::thread accept_thread;

  std::mutex mu;
  std::vector<TestRequest> requests;
  std::vector<std::thread> conn_threads;
  std::set<int> open_fds;

  void Serve(TlsTestServer* server, tcp::socket socket, int id) {
    const int fd = socket.native_handle();
    {
      std::lock_guard<std::mutex> l(mu);
      open_fds.insert(fd);
    }
    try {
      beast::ssl_stream<tcp::socket> stream(std::move(socket), ctx);
      stream.handshake(ssl::stream_base::server);
      const std::string cn = PeerCommonName(stream.native_handle());
      beast::flat_buffer buffer;
      while (!server->stopping()) {
        http::request<http::string_body> req;
        http::read(stream, buffer, req);
        TestRequest tr;
        tr.method = std::string(req.method_string());
        tr.target = std::string(req.target());
        for (const auto& f : req) {
          std::string name(f.name_string());
          for (char& ch : name) ch = static_cast<char>(std::tolower(ch));
          tr.headers[name] = std::string(f.value());
        }
        tr.body = req.body();
        tr.client_cn = cn;
        tr.connection_id = id;
        {
          std::lock_guard<std::mutex> l(mu);
          requests.push_back(tr);
        }
        TestResponse resp = handler(tr);
        if (resp.stream) {
          std::string head =
              fmt::format("HTTP/1.1 {} OK\r\nTransfer-Encoding: chunked\r\n", resp.status);
          for (const auto& [k, v] : resp.headers) head += k + ": " + v + "\r\n";
          head += "\r\n";
          asio::write(stream, asio::buffer(head));
          ChunkWriter write = [&](const std::string& data) {
            boost::system::error_code ec;
            const std::string chunk = fmt::format("{:x}\r\n{}\r\n", data.size(), data);
            asio::write(stream, asio::buffer(chunk), ec);
            return !ec;
          };
          resp.stream(write);
          if (resp.drop) break;
          boost::system::error_code ec;
          asio::write(stream, asio::buffer(std::string("0\r\n\r\n")), ec);
          if (ec) break;
          continue;
        }
        if (resp.drop) break;
        http::response<http::string_body> res{static_cast<http::status>(resp.status), 11};
        for (const auto& [k, v] : resp.headers) res.set(k, v);
        res.body() = resp.body;
        res.keep_alive(req.keep_alive());
        res.prepare_payload();
        http::write(stream, res);
        if (resp.close_after || !req.keep_alive()) break;
      }
    } catch (const std::exception&) {
      // The client went away or the server is stopping.
    }
    std::lock_guard<std::mutex> l(mu);
    if (open_fds.erase(fd)) ::shutdown(fd, SHUT_RDWR);
  }
};

TlsTestServer::TlsTestServer(TestHandler handler, ClientCerts client_certs)
    : impl_(std::make_unique<Impl>()) {
  const TestCerts& certs = TestCerts::Get();
  impl_->handler = std::move(handler);
  impl_->ctx.use_certificate_chain_file(certs.server_cert_file);
  impl_->ctx.use_private_key_file(certs.server_key_file, ssl::context::pem);
  impl_->ctx.load_verify_file(certs.ca_file);
  switch (client_certs) {
    case ClientCerts::kIgnore:
      impl_->ctx.set_verify_mode(ssl::verify_none);
      break;
    case ClientCerts::kVerifyIfGiven:
      impl_->ctx.set_verify_mode(ssl::verify_peer);
      break;
    case ClientCerts::kRequire:
      impl_->ctx.set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
      break;
  }
  tcp::endpoint ep(asio::ip::make_address("127.0.0.1"), 0);
  impl_->acceptor.open(ep.protocol());
  impl_->acceptor.set_option(tcp::acceptor::reuse_address(true));
  impl_->acceptor.bind(ep);
  impl_->acceptor.listen();
  port_ = impl_->acceptor.local_endpoint().port();
  impl_->accept_thread = std::thread([this] {
    while (!stopping_) {
      boost::system::error_code ec;
      tcp::socket socket(impl_->ioc);
      impl_->acceptor.accept(socket, ec);
      if (ec || stopping_) break;
      const int id = ++accepted_;
      std::lock_guard<std::mutex> l(impl_->mu);
      impl_->conn_threads.emplace_back(
          [this, s = std::move(socket), id]() mutable { impl_->Serve(this, std::move(s), id); });
    }
  });
}

TlsTestServer::~TlsTestServer() {
  stopping_ = true;
  ::shutdown(impl_->acceptor.native_handle(), SHUT_RDWR);
  impl_->accept_thread.join();
  boost::system::error_code ec;
  impl_->acceptor.close(ec);
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> l(impl_->mu);
    for (int fd : impl_->open_fds) ::shutdown(fd, SHUT_RDWR);
    impl_->open_fds.clear();
    threads = std::move(impl_->conn_threads);
  }
  for (auto& t : threads) t.join();
}

std::vector<TestRequest> TlsTestServer::requests() const {
  std::lock_guard<std::mutex> l(impl_->mu);
  return impl_->requests;
}

}  // namespace svcplane::client::transport::testing
