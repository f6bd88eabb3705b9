#include "apiserver/http/internal/tls_sealer.h"

#include "base/check.h"

namespace svcplane::apiserver::http::internal {
namespace {

int SinkWrite(BIO* bio, const char* data, size_t size, size_t* written) {
  static_cast<std::string*>(BIO_get_data(bio))->append(data, size);
  *written = size;
  return 1;
}

long SinkCtrl(BIO*, int cmd, long, void*) {
  // SSL flushes its write BIO after each record; nothing is ever pending here.
  return cmd == BIO_CTRL_FLUSH ? 1 : 0;
}

int SinkCreate(BIO* bio) {
  BIO_set_init(bio, 1);
  return 1;
}

const BIO_METHOD* SinkMethod() {
  static const BIO_METHOD* method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "svcplane sealer");
    SVC_CHECK(m != nullptr && BIO_meth_set_write_ex(m, SinkWrite) == 1 &&
              BIO_meth_set_ctrl(m, SinkCtrl) == 1 && BIO_meth_set_create(m, SinkCreate) == 1)
        << "cannot define the sealer's BIO";
    return m;
  }();
  return method;
}

}  // namespace

TlsSealer::TlsSealer() : bio_(BIO_new(SinkMethod())) {
  SVC_CHECK(bio_ != nullptr) << "BIO_new for the sealer failed";
  BIO_set_data(bio_, &sealed_);
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
  // record; the sink takes every record, so the loop only ends at the end or on an error.
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

std::string_view TlsSealer::sealed() const { return sealed_; }

void TlsSealer::Clear() { sealed_.clear(); }

}  // namespace svcplane::apiserver::http::internal
