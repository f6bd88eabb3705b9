#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace svcplane::client::transport::testing {

// Test certificates made with the openssl CLI in a temporary directory: a CA, a server cert for
// localhost/127.0.0.1 signed by it, a client cert (CN=alice, O=devs) signed by it, and an
// unrelated CA. Generated once per process; the files stay until the process exits.
struct TestCerts {
  std::string dir;
  std::string ca_pem, ca_file;
  std::string server_cert_file, server_key_file;
  std::string client_cert_pem, client_key_pem, client_cert_file, client_key_file;
  std::string other_ca_pem;

  static const TestCerts& Get();
};

struct TestRequest {
  std::string method;
  std::string target;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  std::string client_cn;  // common name of the verified client certificate, if any
  int connection_id = 0;  // which accepted connection carried it
};

// Writes one chunk of a chunked body; returns false once the client has gone away.
using ChunkWriter = std::function<bool(const std::string& data)>;

struct TestResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // If set, the body is sent chunked by this function instead (a watch).
  std::function<void(const ChunkWriter&)> stream;
  // Close the connection after this response without saying so (a server dropping idle
  // keep-alive connections).
  bool close_after = false;
  // Close the connection without finishing the response: no response at all, or a stream
  // without its last chunk (a server killed with the request in flight).
  bool drop = false;
};

using TestHandler = std::function<TestResponse(const TestRequest&)>;

// A small HTTPS/1.1 server on 127.0.0.1:<free port>, thread per connection, for transport
// tests. Records every request. Destruction stops it and joins all threads.
class TlsTestServer {
 public:
  enum class ClientCerts { kIgnore, kVerifyIfGiven, kRequire };
  TlsTestServer(TestHandler handler, ClientCerts client_certs = ClientCerts::kVerifyIfGiven);
  ~TlsTestServer();

  int port() const { return port_; }
  std::string url() const { return "https://127.0.0.1:" + std::to_string(port_); }
  int connections_accepted() const { return accepted_.load(); }
  std::vector<TestRequest> requests() const;
  // True once Stop began; streaming handlers poll it to end.
  bool stopping() const { return stopping_.load(); }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
  std::atomic<int> accepted_{0};
  std::atomic<bool> stopping_{false};
};

// Writes `content` to `path` with mode `mode` (e.g. 0755 for scripts).
void WriteFile(const std::string& path, const std::string& content, int mode = 0644);
// A fresh empty directory under the system temp dir, removed with its
// contents when this process exits.
std::string MakeTempDir();

}  // namespace svcplane::client::transport::testing
