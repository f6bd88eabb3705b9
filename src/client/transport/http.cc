#include "client/transport/http.h"

#include <strings.h>

namespace svcplane::client::transport {

Status NotSent(Status status) {
  std::vector<StatusCause> causes = status.causes();
  causes.push_back({kNotSentCauseType, "", ""});
  status.WithCauses(std::move(causes));
  return status;
}

bool IsNotSent(const Status& status) {
  for (const StatusCause& c : status.causes()) {
    if (c.type == kNotSentCauseType) return true;
  }
  return false;
}

std::string HttpResponse::Header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (k.size() == name.size() && strncasecmp(k.data(), name.data(), k.size()) == 0) return v;
  }
  return "";
}

Result<HttpResponse> HttpTransport::StreamBytes(const HttpRequest&, const BytesHandler&,
                                                CancelToken&) {
  return Status(Code::kMethodNotAllowed, "this transport cannot stream raw bytes");
}

void CancelToken::Cancel() {
  std::lock_guard<std::mutex> l(mu_);
  if (cancelled_) return;
  cancelled_ = true;
  if (on_cancel_) on_cancel_();
}

bool CancelToken::cancelled() const {
  std::lock_guard<std::mutex> l(mu_);
  return cancelled_;
}

CancelToken::Registration CancelToken::OnCancel(std::function<void()> on_cancel) {
  std::lock_guard<std::mutex> l(mu_);
  if (cancelled_) {
    on_cancel();
  } else {
    on_cancel_ = std::move(on_cancel);
  }
  return Registration(this);
}

CancelToken::Registration::~Registration() {
  std::lock_guard<std::mutex> l(token_->mu_);
  token_->on_cancel_ = nullptr;
}

}  // namespace svcplane::client::transport
