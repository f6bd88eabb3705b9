#include "base/tls/server.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include <fmt/format.h>

#include "base/tls/x509.h"

namespace svcplane::base::tls {
namespace {

struct SslCtxFree {
  void operator()(SSL_CTX* p) const { SSL_CTX_free(p); }
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxFree>;

Result<SslCtxPtr> NewServerCtx() {
  SslCtxPtr ctx(SSL_CTX_new(TLS_server_method()));
  if (!ctx) return InternalError("SSL_CTX_new: " + TakeOpenSslError());
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  // Probes and scrapers open one connection per request: resumption buys nothing.
  SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_OFF);
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_AUTO_RETRY);
  return ctx;
}

// Unavailable with OpenSSL's words for a failed SSL_* call on a connection.
Status IoError(SSL* ssl, int ret, std::string_view what) {
  int err = SSL_get_error(ssl, ret);
  std::string detail =
      err == SSL_ERROR_SYSCALL || err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE
          ? "connection closed or timed out"
          : TakeOpenSslError();
  ERR_clear_error();
  return UnavailableError(fmt::format("tls {}: {}", what, detail));
}

}  // namespace

Result<std::shared_ptr<const ServerContext>> ServerContext::FromPem(std::string_view cert_pem,
                                                                    std::string_view key_pem) {
  auto ctx = NewServerCtx();
  if (!ctx.ok()) return ctx.status();
  BioPtr bio(BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size())));
  X509Ptr leaf(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!leaf || SSL_CTX_use_certificate(ctx->get(), leaf.get()) != 1) {
    return InvalidError("tls certificate: " + TakeOpenSslError());
  }
  // The rest of the PEM is the chain the server sends after its own certificate.
  while (X509* extra = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    if (SSL_CTX_add0_chain_cert(ctx->get(), extra) != 1) {
      X509_free(extra);
      return InvalidError("tls certificate chain: " + TakeOpenSslError());
    }
  }
  ERR_clear_error();  // the loop ends on a "no start line" error
  auto key = KeyFromPem(key_pem);
  if (!key.ok()) return InvalidError("tls key: " + key.status().message());
  if (SSL_CTX_use_PrivateKey(ctx->get(), key->get()) != 1) {
    return InvalidError("tls key: " + TakeOpenSslError());
  }
  if (SSL_CTX_check_private_key(ctx->get()) != 1) {
    return InvalidError("tls key does not match the certificate: " + TakeOpenSslError());
  }
  return std::shared_ptr<const ServerContext>(new ServerContext(ctx->release()));
}

Result<std::shared_ptr<const ServerContext>> ServerContext::FromFiles(const std::string& cert_file,
                                                                      const std::string& key_file) {
  auto ctx = NewServerCtx();
  if (!ctx.ok()) return ctx.status();
  if (SSL_CTX_use_certificate_chain_file(ctx->get(), cert_file.c_str()) != 1) {
    return InvalidError(fmt::format("--tls-cert-file {}: {}", cert_file, TakeOpenSslError()));
  }
  if (SSL_CTX_use_PrivateKey_file(ctx->get(), key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    return InvalidError(fmt::format("--tls-private-key-file {}: {}", key_file, TakeOpenSslError()));
  }
  if (SSL_CTX_check_private_key(ctx->get()) != 1) {
    return InvalidError(fmt::format("--tls-private-key-file {} does not match --tls-cert-file {}",
                                    key_file, cert_file));
  }
  return std::shared_ptr<const ServerContext>(new ServerContext(ctx->release()));
}

ServerContext::~ServerContext() { SSL_CTX_free(ctx_); }

Result<std::unique_ptr<ServerConnection>> ServerConnection::Accept(const ServerContext& ctx,
                                                                   int fd) {
  SSL* ssl = SSL_new(ctx.ctx_);
  if (ssl == nullptr) return InternalError("SSL_new: " + TakeOpenSslError());
  std::unique_ptr<ServerConnection> conn(new ServerConnection(ssl));
  if (SSL_set_fd(ssl, fd) != 1) return InternalError("SSL_set_fd: " + TakeOpenSslError());
  int ret = SSL_accept(ssl);
  if (ret != 1) return IoError(ssl, ret, "handshake");
  return conn;
}

ServerConnection::~ServerConnection() {
  // Only after a finished handshake, and without waiting for the peer's close_notify.
  if (SSL_is_init_finished(ssl_)) SSL_shutdown(ssl_);
  ERR_clear_error();
  SSL_free(ssl_);
}

Result<size_t> ServerConnection::Read(char* buf, size_t size) {
  size_t n = 0;
  int ret = SSL_read_ex(ssl_, buf, size, &n);
  if (ret == 1) return n;
  int err = SSL_get_error(ssl_, ret);
  if (err == SSL_ERROR_ZERO_RETURN) return size_t{0};
  return IoError(ssl_, ret, "read");
}

Status ServerConnection::WriteAll(std::string_view data) {
  while (!data.empty()) {
    size_t n = 0;
    int ret = SSL_write_ex(ssl_, data.data(), data.size(), &n);
    if (ret != 1) return IoError(ssl_, ret, "write");
    data.remove_prefix(n);
  }
  return Status::Ok();
}

}  // namespace svcplane::base::tls
