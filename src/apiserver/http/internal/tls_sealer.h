#pragma once

#include <openssl/ssl.h>

#include <string>
#include <string_view>

namespace svcplane::apiserver::http::internal {

// Encrypts a whole response, or a whole piece of a large body, into TLS records in memory, so
// it goes to the socket in one raw write. Through Asio's TLS stream every 16 KB record is
// copied twice more (into OpenSSL's BIO pair, then out of it) and costs a round of the event
// loop and a sendmsg of its own: for a 260 MB LIST, some 16,000 of each on the I/O thread; for
// a small response, Asio's composed TLS write cost more than the copy into one string does.
//
// Seal lends a sink BIO (its records are appended to a string) to the connection's SSL object
// as its write side for one SSL_write and gives the stream's own BIO back before returning, so the
// Asio stream sees the SSL object as it left it. The caller must not run any other operation of
// that stream until the sealed bytes are written: they continue the record sequence the stream's
// next write will follow. Not thread-safe; one per connection.
class TlsSealer {
 public:
  TlsSealer();
  ~TlsSealer();
  TlsSealer(const TlsSealer&) = delete;
  TlsSealer& operator=(const TlsSealer&) = delete;

  // Appends the records of `plain` to sealed(). False if OpenSSL refused (the connection's TLS
  // state is then unusable: close it).
  bool Seal(SSL* ssl, std::string_view plain);
  std::string_view sealed() const;
  // Forgets the sealed bytes, keeping the buffer for the next piece.
  void Clear();

 private:
  // OpenSSL's memory BIO zeroes the space of every write before copying into it and its whole
  // buffer on each reset: two memsets per 256 KB LIST piece, ~4% of an I/O thread during a
  // 100k-Pod LIST. This BIO only appends to `sealed_`.
  std::string sealed_;
  BIO* bio_;
};

}  // namespace svcplane::apiserver::http::internal
