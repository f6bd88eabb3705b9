#pragma once

#include <functional>
#include <memory>

#include "api/authentication/v1/self_subject_review.h"
#include "api/authorization/v1/reviews.h"
#include "apiserver/http/handler.h"
#include "apiserver/rest/resource_handler.h"
#include "base/result.h"
#include "base/status.h"

// The "review" kinds: POST-only, never stored, answered from the requesting user (spec authn
// §2.9, §3.9). Each takes a JSON or protobuf body and answers 201 in the client's preferred
// encoding.
namespace svcplane::apiserver::rest {

// POST /apis/authentication.k8s.io/{v1,v1beta1}/selfsubjectreviews: the requesting user
// (Request::identity; impersonation, once done, replaces it before this runs) as
// status.userInfo. The body only has to decode.
std::unique_ptr<Endpoint> SelfSubjectReviewEndpoint();

// Answers a decoded SelfSubjectAccessReview for `user`: the authorizer chain's decision on the
// spec's attributes. Implemented by the authorizer (authorization::Authorizer): Allow →
// allowed; Deny → denied; reason and evaluationError as the chain reported them. Called
// concurrently from request workers.
using AccessReviewFn = std::function<Result<api::authorization::v1::SubjectAccessReviewStatus>(
    const api::authorization::v1::SelfSubjectAccessReview& review, const http::Identity& user)>;
// Answers a SelfSubjectRulesReview for `user` in `ns` (never empty: the endpoint answers 400
// first): every rule of the user's ClusterRoleBindings, then of the RoleBindings in `ns`, plus
// incomplete/evaluationError when an authorizer cannot list rules (the Node authorizer).
using RulesReviewFn = std::function<Result<api::authorization::v1::SubjectRulesReviewStatus>(
    std::string_view ns, const http::Identity& user)>;

// The answers of upstream's AlwaysAllow authorizer: allowed, and the rules `*` on `*.*` plus
// non-resource `*`. What a server without an authorizer honestly reports; the RBAC chain
// replaces them.
Result<api::authorization::v1::SubjectAccessReviewStatus> AlwaysAllowAccessReview(
    const api::authorization::v1::SelfSubjectAccessReview& review, const http::Identity& user);
Result<api::authorization::v1::SubjectRulesReviewStatus> AlwaysAllowRulesReview(
    std::string_view ns, const http::Identity& user);

// POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews: validates (422 on kind
// SelfSubjectAccessReview: exactly one of resourceAttributes / nonResourceAttributes, empty
// metadata), asks `review`, and answers the request echoed with that status.
std::unique_ptr<Endpoint> SelfSubjectAccessReviewEndpoint(AccessReviewFn review);
// POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews: 400 `no namespace on request`
// without spec.namespace, else a fresh object (spec {}) with `rules`' status.
std::unique_ptr<Endpoint> SelfSubjectRulesReviewEndpoint(RulesReviewFn rules);

// The 422 of an invalid SelfSubjectAccessReview, or Ok (pure; for tests and the endpoint).
Status ValidateSelfSubjectAccessReview(const api::authorization::v1::SelfSubjectAccessReview& r);

}  // namespace svcplane::apiserver::rest
