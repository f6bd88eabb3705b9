#include "apiserver/http/internal/tls_sealer.h"

#include "base/check.h"

namespace svcplane::apiserver::http::internal {

TlsSealer::TlsSealer() : bio_(BIO_new(BIO_s_mem())) {
  SVC_CHECK(bio_ != nullptr) << "BIO_new(BIO_s_mem()) failed";
}

TlsSealer::~TlsSealer() { BIO_free(bio_); }

bool TlsSealer::Seal(SSL* ssl, std::string_view plain) {
  if (plain.empty()) return true;
  // SSL_set0_wbio takes one reference to the BIO it is given and releases one to the BIO it
  // replaces; both stay alive here through the references taken first.
  BIO* stream_bio = SSL_get_wbio(ssl);
  BIO_up_ref(stream_bio);
  BIO_up_ref(bio_);
  SSL_set0_wbio(ssl, bio_);
  // Asio sets SSL_MODE_ENABLE_PARTIAL_WRITE, under which SSL_write_ex returns after each
  // record; a memory BIO takes every record, so the loop only ends at the end or on an error.
  bool ok = true;
  size_t done = 0;
  while (ok && done < plain.size()) {
    size_t written = 0;
    ok = SSL_write_ex(ssl, plain.data() + done, plain.size() - done, &written) == 1;
    done += written;
  }
  SSL_set0_wbio(ssl, stream_bio);
  return ok;
}

std::string_view TlsSealer::sealed() const {
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio_, &data);
  return size > 0 ? std::string_view(data, static_cast<size_t>(size)) : std::string_view();
}

void TlsSealer::Clear() { (void)BIO_reset(bio_); }

}  // namespace svcplane::apiserver::http::internal
