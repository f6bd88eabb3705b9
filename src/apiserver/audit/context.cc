#include "apiserver/audit/context.h"

namespace svcplane::apiserver::audit {

void RequestContext::AddAnnotation(std::string_view key, std::string_view value) {
  std::lock_guard lock(mu_);
  event_.annotations.emplace(std::string(key), std::string(value));
}

void RequestContext::SetImpersonatedUser(const http::Identity& user) {
  std::lock_guard lock(mu_);
  event_.impersonated_user = user;
}

void RequestContext::LogRequestObject(const DecodedObjectMeta& meta, std::string object_json) {
  std::lock_guard lock(mu_);
  if (request_object_logged_) return;
  request_object_logged_ = true;
  if (event_.object_ref) {
    ObjectRef& ref = *event_.object_ref;
    if (ref.ns.empty()) ref.ns = meta.ns;
    if (ref.name.empty()) ref.name = meta.name;
    if (ref.uid.empty()) ref.uid = meta.uid;
    if (ref.resource_version.empty()) ref.resource_version = meta.resource_version;
  }
  if (rule_.level >= Level::kRequest) event_.request_object_json = std::move(object_json);
}

bool RequestContext::HasRequestObject() const {
  std::lock_guard lock(mu_);
  return request_object_logged_;
}

void RequestContext::SetResponse(ResponseStatus status, std::string response_object_json) {
  std::lock_guard lock(mu_);
  event_.response_status = std::move(status);
  if (rule_.level >= Level::kRequestResponse) {
    event_.response_object_json = std::move(response_object_json);
  }
}

void RequestContext::EncodeAt(Stage stage, Timestamp now, std::string* out) const {
  std::lock_guard lock(mu_);
  // The fixed fields take well under 1 KiB; the bodies go in verbatim.
  out->reserve(out->size() + 1024 + event_.request_object_json.size() +
               event_.response_object_json.size());
  EncodeEventAt(event_, stage, now, out);
}

void AddAnnotation(const http::Request& req, std::string_view key, std::string_view value) {
  if (RequestContext* c = ContextOf(req)) c->AddAnnotation(key, value);
}

void SetAuthorizationDecision(const http::Request& req, bool allowed, std::string_view reason) {
  if (RequestContext* c = ContextOf(req)) {
    c->AddAnnotation(kDecisionAnnotation, allowed ? "allow" : "forbid");
    c->AddAnnotation(kReasonAnnotation, reason);
  }
}

void SetImpersonatedUser(const http::Request& req, const http::Identity& user) {
  if (RequestContext* c = ContextOf(req)) c->SetImpersonatedUser(user);
}

void LogRequestObject(const http::Request& req, const DecodedObjectMeta& meta,
                      std::string object_json) {
  if (RequestContext* c = ContextOf(req)) c->LogRequestObject(meta, std::move(object_json));
}

}  // namespace svcplane::apiserver::audit
