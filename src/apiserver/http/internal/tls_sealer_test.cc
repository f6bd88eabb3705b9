#include "apiserver/http/internal/tls_sealer.h"

#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "apiserver/pki/pki.h"

namespace svcplane::apiserver::http::internal {
namespace {

// A server and a client SSL object, each on its own BIO pair as Asio's TLS stream sets it up,
// with the network sides pumped into each other in memory.
class TlsPair {
 public:
  explicit TlsPair(const pki::Pki& pki) {
    server_ctx_ = SSL_CTX_new(TLS_server_method());
    client_ctx_ = SSL_CTX_new(TLS_client_method());
    BIO* cert = BIO_new_mem_buf(pki.serving_cert_pem.data(), -1);
    BIO* key = BIO_new_mem_buf(pki.serving_key_pem.data(), -1);
    X509* x = PEM_read_bio_X509(cert, nullptr, nullptr, nullptr);
    EVP_PKEY* k = PEM_read_bio_PrivateKey(key, nullptr, nullptr, nullptr);
    SSL_CTX_use_certificate(server_ctx_, x);
    SSL_CTX_use_PrivateKey(server_ctx_, k);
    X509_free(x);
    EVP_PKEY_free(k);
    BIO_free(cert);
    BIO_free(key);
    server_ = Attach(SSL_new(server_ctx_), &server_net_);
    client_ = Attach(SSL_new(client_ctx_), &client_net_);
    SSL_set_accept_state(server_);
    SSL_set_connect_state(client_);
    // Asio's stream writes in partial mode; the sealer must cope with it.
    SSL_set_mode(server_, SSL_MODE_ENABLE_PARTIAL_WRITE);
  }
  ~TlsPair() {
    SSL_free(server_);
    SSL_free(client_);
    BIO_free(server_net_);
    BIO_free(client_net_);
    SSL_CTX_free(server_ctx_);
    SSL_CTX_free(client_ctx_);
  }

  bool Handshake() {
    for (int i = 0; i < 100; ++i) {
      const int s = SSL_do_handshake(server_);
      const int c = SSL_do_handshake(client_);
      Pump();
      if (s == 1 && c == 1) return true;
    }
    return false;
  }

  // Moves what each side's SSL wrote to the other side's network input.
  void Pump() {
    Move(server_net_, client_net_);
    Move(client_net_, server_net_);
  }

  // Bytes that went to the server's socket another way (the sealer's raw write).
  void DeliverToClient(std::string_view bytes) {
    ASSERT_EQ(BIO_write(client_net_, bytes.data(), static_cast<int>(bytes.size())),
              static_cast<int>(bytes.size()));
  }

  // Everything the client can decrypt now.
  std::string ClientReads() {
    std::string out;
    char buf[16384];
    int n;
    while ((n = SSL_read(client_, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
    return out;
  }

  SSL* server() { return server_; }

 private:
  static SSL* Attach(SSL* ssl, BIO** net) {
    BIO* inner = nullptr;
    BIO_new_bio_pair(&inner, 1 << 20, net, 1 << 20);
    SSL_set_bio(ssl, inner, inner);
    return ssl;
  }
  static void Move(BIO* from, BIO* to) {
    char buf[16384];
    int n;
    while ((n = BIO_read(from, buf, sizeof(buf))) > 0) BIO_write(to, buf, n);
  }

  SSL_CTX* server_ctx_ = nullptr;
  SSL_CTX* client_ctx_ = nullptr;
  SSL* server_ = nullptr;
  SSL* client_ = nullptr;
  BIO* server_net_ = nullptr;
  BIO* client_net_ = nullptr;
};

pki::Pki TestPki() {
  pki::PkiOptions opts;
  opts.dir = (std::filesystem::temp_directory_path() /
              ("svcplane-sealer-test-" + std::to_string(::getpid())))
                 .string();
  std::filesystem::remove_all(opts.dir);
  auto p = pki::LoadOrCreatePki(opts);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  std::filesystem::remove_all(opts.dir);
  return p.ok() ? *p : pki::Pki{};
}

// Records sealed in memory continue the stream's record sequence: the client decrypts them in
// order between what the stream itself wrote before and after, several pieces in a row.
TEST(TlsSealerTest, SealedPiecesInterleaveWithTheStreamsOwnWrites) {
  TlsPair tls(TestPki());
  ASSERT_TRUE(tls.Handshake());

  ASSERT_EQ(SSL_write(tls.server(), "head;", 5), 5);
  tls.Pump();
  EXPECT_EQ(tls.ClientReads(), "head;");

  TlsSealer sealer;
  std::string expected;
  for (int piece = 0; piece < 3; ++piece) {
    // 100 KB: seven records, more than the stream's BIO pair could hold at once.
    std::string plain(100 * 1024, static_cast<char>('a' + piece));
    sealer.Clear();
    ASSERT_TRUE(sealer.Seal(tls.server(), plain));
    EXPECT_GT(sealer.sealed().size(), plain.size());  // record headers and tags
    tls.DeliverToClient(sealer.sealed());
    EXPECT_EQ(tls.ClientReads(), plain);
  }

  // The stream's own BIO is back: its next write follows the sealed records.
  ASSERT_EQ(SSL_write(tls.server(), "tail", 4), 4);
  tls.Pump();
  EXPECT_EQ(tls.ClientReads(), "tail");
}

TEST(TlsSealerTest, EmptyPieceSealsToNothing) {
  TlsPair tls(TestPki());
  ASSERT_TRUE(tls.Handshake());
  TlsSealer sealer;
  EXPECT_TRUE(sealer.Seal(tls.server(), ""));
  EXPECT_TRUE(sealer.sealed().empty());
}

}  // namespace
}  // namespace svcplane::apiserver::http::internal
