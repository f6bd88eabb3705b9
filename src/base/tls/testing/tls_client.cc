#include "base/tls/testing/tls_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>

#include "base/tls/x509.h"

namespace svcplane::base::tls::testing {
namespace {

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};
struct SslCtxFree {
  void operator()(SSL_CTX* p) const { SSL_CTX_free(p); }
};
struct SslFree {
  void operator()(SSL* p) const { SSL_free(p); }
};

Status AddCa(SSL_CTX* ctx, std::string_view ca_pem) {
  BioPtr bio(BIO_new_mem_buf(ca_pem.data(), static_cast<int>(ca_pem.size())));
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  int added = 0;
  while (X509* ca = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    added += X509_STORE_add_cert(store, ca);
    X509_free(ca);
  }
  ERR_clear_error();
  if (added == 0) return InvalidError("no CA certificate in ca_pem");
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  X509_VERIFY_PARAM_set1_ip_asc(SSL_CTX_get0_param(ctx), "127.0.0.1");
  return Status::Ok();
}

}  // namespace

Result<TlsExchangeResult> TlsExchange(uint16_t port, std::string_view request,
                                      std::string_view ca_pem) {
  std::unique_ptr<SSL_CTX, SslCtxFree> ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx) return InternalError("SSL_CTX_new: " + TakeOpenSslError());
  if (!ca_pem.empty()) SVC_RETURN_IF_ERROR(AddCa(ctx.get(), ca_pem));
  Fd sock{::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)};
  timeval timeout{10, 0};
  ::setsockopt(sock.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  ::setsockopt(sock.fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  if (::connect(sock.fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    return UnavailableError("connect failed");
  }
  std::unique_ptr<SSL, SslFree> ssl(SSL_new(ctx.get()));
  SSL_set_fd(ssl.get(), sock.fd);
  if (SSL_connect(ssl.get()) != 1) {
    long verify = SSL_get_verify_result(ssl.get());
    std::string err = TakeOpenSslError();
    if (verify != X509_V_OK) {
      return Status(Code::kUnauthorized,
                    std::string("verify: ") + X509_verify_cert_error_string(verify));
    }
    return UnavailableError("handshake: " + err);
  }
  TlsExchangeResult out;
  if (X509* peer = SSL_get1_peer_certificate(ssl.get())) {
    char line[512];
    X509_NAME_oneline(X509_get_subject_name(peer), line, sizeof(line));
    out.peer_subject = line;
    X509_free(peer);
  }
  size_t written = 0;
  if (!request.empty() && SSL_write_ex(ssl.get(), request.data(), request.size(), &written) != 1) {
    return UnavailableError("write: " + TakeOpenSslError());
  }
  char buf[4096];
  size_t n = 0;
  while (SSL_read_ex(ssl.get(), buf, sizeof(buf), &n) == 1) out.response.append(buf, n);
  ERR_clear_error();
  return out;
}

}  // namespace svcplane::base::tls::testing
