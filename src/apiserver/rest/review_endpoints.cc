#include "apiserver/rest/review_endpoints.h"

#include <chrono>

#include <fmt/format.h>

#include "api/codec/json.h"
#include "api/codec/protobuf.h"
#include "api/validation/field_errors.h"
#include "apiserver/rest/status_body.h"

namespace svcplane::apiserver::rest {
namespace {

namespace authn = api::authentication::v1;
namespace authz = api::authorization::v1;
namespace validation = api::validation;

Status MethodNotAllowed() {
  return Status(Code::kMethodNotAllowed,
                "the server does not allow this method on the requested resource");
}

// The body as T, from protobuf or JSON/YAML (415 for anything else, 400 if it does not decode).
template <typename T>
Result<T> DecodeBody(const http::Request& req) {
  if (IsProtobufBody(req)) return api::codec::DecodeProtobuf<T>(req.body);
  auto json = RequestBodyJson(req);
  if (!json.ok()) return json.status();
  return api::codec::DecodeJson<T>(*json);
}

template <typename T>
http::Response Created(const http::Request& req, const T& obj) {
  if (AcceptsProtobuf(req.Header("Accept").value_or(""))) {
    return ProtobufResponse(201, api::codec::EncodeProtobuf(obj, obj.api_version, obj.kind));
  }
  return JsonResponse(201, api::codec::EncodeJson(obj));
}

http::Response Error(const http::Request& req, const Status& st, std::string_view resource,
                     std::string_view kind) {
  return ErrorResponse(
      st,
      StatusTarget{.group = kind == "SelfSubjectReview" ? authn::kGroupName : authz::kGroupName,
                   .resource = resource,
                   .kind = kind},
      AcceptsProtobuf(req.Header("Accept").value_or("")));
}

std::string GroupVersionOf(const RequestInfo& info) {
  return std::string(info.resource->group) + "/" + std::string(info.resource->version);
}

class SelfSubjectReviews final : public Endpoint {
 public:
  http::Reply Handle(const http::Request& req, const RequestInfo& info) override {
    constexpr std::string_view kKind = "SelfSubjectReview";
    if (req.method != "POST" || !info.name.empty()) {
      return Error(req, MethodNotAllowed(), "selfsubjectreviews", kKind);
    }
    // The content is ignored (upstream builds a fresh object), but it must be a body.
    auto body = DecodeBody<authn::SelfSubjectReview>(req);
    if (!body.ok()) return Error(req, body.status(), "selfsubjectreviews", kKind);
    authn::SelfSubjectReview out;
    out.kind = std::string(kKind);
    out.api_version = GroupVersionOf(info);
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    out.metadata.creation_timestamp =
        api::meta::Time::FromUnix(std::chrono::duration_cast<std::chrono::seconds>(now).count());
    auto& ui = out.status.user_info;
    ui.username = req.identity.user;
    ui.uid = req.identity.uid;
    ui.groups = req.identity.groups;
    for (const auto& [k, v] : req.identity.extra) ui.extra.emplace(k, v);
    return Created(req, out);
  }
};

class SelfSubjectAccessReviews final : public Endpoint {
 public:
  explicit SelfSubjectAccessReviews(AccessReviewFn review) : review_(std::move(review)) {}

  http::Reply Handle(const http::Request& req, const RequestInfo& info) override {
    constexpr std::string_view kKind = "SelfSubjectAccessReview";
    constexpr std::string_view kResource = "selfsubjectaccessreviews";
    if (req.method != "POST" || !info.name.empty()) {
      return Error(req, MethodNotAllowed(), kResource, kKind);
    }
    auto review = DecodeBody<authz::SelfSubjectAccessReview>(req);
    if (!review.ok()) return Error(req, review.status(), kResource, kKind);
    if (Status st = ValidateSelfSubjectAccessReview(*review); !st.ok()) {
      return Error(req, st, kResource, kKind);
    }
    auto status = review_(*review, req.identity);
    if (!status.ok()) return Error(req, status.status(), kResource, kKind);
    review->status = std::move(*status);
    review->kind = std::string(kKind);
    review->api_version = GroupVersionOf(info);
    return Created(req, *review);
  }

 private:
  const AccessReviewFn review_;
};

class SelfSubjectRulesReviews final : public Endpoint {
 public:
  explicit SelfSubjectRulesReviews(RulesReviewFn rules) : rules_(std::move(rules)) {}

  http::Reply Handle(const http::Request& req, const RequestInfo& info) override {
    constexpr std::string_view kKind = "SelfSubjectRulesReview";
    constexpr std::string_view kResource = "selfsubjectrulesreviews";
    if (req.method != "POST" || !info.name.empty()) {
      return Error(req, MethodNotAllowed(), kResource, kKind);
    }
    auto review = DecodeBody<authz::SelfSubjectRulesReview>(req);
    if (!review.ok()) return Error(req, review.status(), kResource, kKind);
    if (review->spec.ns.empty()) {
      return Error(req, BadRequestError("no namespace on request"), kResource, kKind);
    }
    auto status = rules_(review->spec.ns, req.identity);
    if (!status.ok()) return Error(req, status.status(), kResource, kKind);
    // A fresh object, as upstream's registry builds it: spec comes back {}.
    authz::SelfSubjectRulesReview out;
    out.kind = std::string(kKind);
    out.api_version = GroupVersionOf(info);
    out.status = std::move(*status);
    return Created(req, out);
  }

 private:
  const RulesReviewFn rules_;
};

// Go's %#v of the internal NonResourceAttributes, as field.Invalid renders it.
std::string RenderNonResource(const std::optional<authz::NonResourceAttributes>& a) {
  if (!a) return "\"null\"";
  return fmt::format("authorization.NonResourceAttributes{{Path:{}, Verb:{}}}",
                     validation::GoQuote(a->path), validation::GoQuote(a->verb));
}

}  // namespace

Status ValidateSelfSubjectAccessReview(const authz::SelfSubjectAccessReview& r) {
  validation::FieldErrorList errs;
  const auto spec = validation::FieldPath().Child("spec");
  if (r.spec.resource_attributes && r.spec.non_resource_attributes) {
    errs.push_back(validation::InvalidRendered(
        spec.Child("nonResourceAttributes"), RenderNonResource(r.spec.non_resource_attributes),
        "cannot be specified in combination with resourceAttributes"));
  }
  if (!r.spec.resource_attributes && !r.spec.non_resource_attributes) {
    errs.push_back(validation::InvalidRendered(
        spec.Child("resourceAttributes"), RenderNonResource(r.spec.non_resource_attributes),
        "exactly one of nonResourceAttributes or resourceAttributes must be specified"));
  }
  // Only creationTimestamp: null may be sent (kubectl does); anything else is metadata.
  api::meta::ObjectMeta empty;
  if (!(r.metadata == empty)) {
    errs.push_back(validation::InvalidRendered(validation::FieldPath().Child("metadata"),
                                               "v1.ObjectMeta{...}", "must be empty"));
  }
  if (errs.empty()) return Status::Ok();
  return validation::ToInvalidStatus("SelfSubjectAccessReview.authorization.k8s.io", "", errs);
}

Result<authz::SubjectAccessReviewStatus> AlwaysAllowAccessReview(
    const authz::SelfSubjectAccessReview&, const http::Identity&) {
  authz::SubjectAccessReviewStatus st;
  st.allowed = true;
  return st;
}

Result<authz::SubjectRulesReviewStatus> AlwaysAllowRulesReview(std::string_view,
                                                               const http::Identity&) {
  authz::SubjectRulesReviewStatus st;
  st.resource_rules.push_back({.verbs = {"*"}, .api_groups = {"*"}, .resources = {"*"}});
  st.non_resource_rules.push_back({.verbs = {"*"}, .non_resource_urls = {"*"}});
  return st;
}

std::unique_ptr<Endpoint> SelfSubjectReviewEndpoint() {
  return std::make_unique<SelfSubjectReviews>();
}

std::unique_ptr<Endpoint> SelfSubjectAccessReviewEndpoint(AccessReviewFn review) {
  return std::make_unique<SelfSubjectAccessReviews>(std::move(review));
}

std::unique_ptr<Endpoint> SelfSubjectRulesReviewEndpoint(RulesReviewFn rules) {
  return std::make_unique<SelfSubjectRulesReviews>(std::move(rules));
}

}  // namespace svcplane::apiserver::rest
