#include "apiserver/rest/review_endpoints.h"

#include <gtest/gtest.h>

#include <variant>

#include "api/codec/json.h"
#include "api/codec/protobuf.h"
#include "apiserver/rest/request_info.h"

namespace svcplane::apiserver::rest {
namespace {

namespace authn = api::authentication::v1;
namespace authz = api::authorization::v1;

http::Response Post(Endpoint& e, const std::string& path, std::string body,
                    std::string content_type = "application/json", std::string accept = "") {
  http::Request req;
  req.method = "POST";
  req.path = path;
  req.body = std::move(body);
  req.headers.emplace_back("Content-Type", std::move(content_type));
  if (!accept.empty()) req.headers.emplace_back("Accept", std::move(accept));
  req.identity = {"jane",
                  {"dev", "system:authenticated"},
                  "u-jane",
                  {{"authentication.kubernetes.io/credential-id", {"X509SHA256=ab"}}}};
  auto info = ParseResourcePath(path);
  EXPECT_TRUE(info.ok()) << path;
  http::Reply reply = e.Handle(req, *info);
  return std::get<http::Response>(std::move(reply));
}

constexpr char kSsrV1[] = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
constexpr char kSsrV1beta1[] = "/apis/authentication.k8s.io/v1beta1/selfsubjectreviews";
constexpr char kSsar[] = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
constexpr char kSsrr[] = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews";

TEST(SelfSubjectReviewTest, AnswersTheRequestingUserInJson) {
  auto e = SelfSubjectReviewEndpoint();
  for (const char* path : {kSsrV1, kSsrV1beta1}) {
    http::Response r = Post(*e, path,
                            R"({"kind":"SelfSubjectReview","apiVersion":"authentication.k8s.io/)"
                            R"(v1beta1","metadata":{"creationTimestamp":null},)"
                            R"("status":{"userInfo":{}}})");
    ASSERT_EQ(r.status, 201) << r.body;
    auto doc = api::codec::DecodeJson<authn::SelfSubjectReview>(r.body);
    ASSERT_TRUE(doc.ok());
    EXPECT_EQ(doc->api_version, std::string(path).find("v1beta1") != std::string::npos
                                    ? "authentication.k8s.io/v1beta1"
                                    : "authentication.k8s.io/v1");
    EXPECT_TRUE(doc->metadata.creation_timestamp.set);
    EXPECT_EQ(doc->status.user_info.username, "jane");
    EXPECT_NE(r.body.find(R"("userInfo":{"username":"jane","uid":"u-jane",)"
                          R"("groups":["dev","system:authenticated"],)"
                          R"("extra":{"authentication.kubernetes.io/credential-id":)"
                          R"(["X509SHA256=ab"]}})"),
              std::string::npos)
        << r.body;
  }
}

TEST(SelfSubjectReviewTest, EmptyFieldsAreOmitted) {
  authn::SelfSubjectReview r;
  r.kind = "SelfSubjectReview";
  r.api_version = "authentication.k8s.io/v1";
  r.status.user_info.username = "system:anonymous";
  EXPECT_EQ(api::codec::EncodeJson(r),
            R"({"kind":"SelfSubjectReview","apiVersion":"authentication.k8s.io/v1",)"
            R"("metadata":{"creationTimestamp":null},)"
            R"("status":{"userInfo":{"username":"system:anonymous"}}})");
}

TEST(SelfSubjectReviewTest, ProtobufExtraValuesAreItemsMessages) {
  authn::SelfSubjectReview r;
  r.status.user_info.username = "u";
  r.status.user_info.extra["k"] = {"a", "b"};
  std::string message;
  api::codec::EncodeProtobufMessage(r, &message);
  // status(2){userInfo(1){username(1)="u", uid(2)="" (Go writes empty strings),
  // extra(4){key(1)="k", value(2){items(1)="a","b"}}}}
  const std::string user_info("\x0a\x01u\x12\x00\x22\x0b\x0a\x01k\x12\x06\x0a\x01\x61\x0a\x01\x62",
                              18);
  EXPECT_NE(message.find(user_info), std::string::npos);
  auto back = api::codec::DecodeProtobufMessage<authn::SelfSubjectReview>(message);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->status.user_info, r.status.user_info);
}

TEST(SelfSubjectReviewTest, AnswersInProtobufWhenPreferred) {
  auto e = SelfSubjectReviewEndpoint();
  authn::SelfSubjectReview req;
  std::string body =
      api::codec::EncodeProtobuf(req, "authentication.k8s.io/v1", "SelfSubjectReview");
  http::Response r = Post(*e, kSsrV1, body, std::string(api::codec::kProtobufContentType),
                          "application/vnd.kubernetes.protobuf, application/json");
  ASSERT_EQ(r.status, 201);
  EXPECT_EQ(r.content_type, api::codec::kProtobufContentType);
  auto doc = api::codec::DecodeProtobuf<authn::SelfSubjectReview>(r.body);
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(doc->kind, "SelfSubjectReview");
  EXPECT_EQ(doc->status.user_info.groups,
            (std::vector<std::string>{"dev", "system:authenticated"}));
}

TEST(SelfSubjectReviewTest, BadBodyIs400) {
  auto e = SelfSubjectReviewEndpoint();
  EXPECT_EQ(Post(*e, kSsrV1, "{").status, 400);
  EXPECT_EQ(Post(*e, kSsrV1, "x", "text/plain").status, 415);
}

TEST(SelfSubjectAccessReviewTest, ValidationTexts) {
  authz::SelfSubjectAccessReview r;
  r.spec.resource_attributes = authz::ResourceAttributes{.verb = "list", .resource = "pods"};
  r.spec.non_resource_attributes = authz::NonResourceAttributes{"/healthz", "get"};
  Status both = ValidateSelfSubjectAccessReview(r);
  EXPECT_EQ(both.code(), Code::kInvalid);
  EXPECT_EQ(both.message(),
            "SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: "
            "spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes"
            "{Path:\"/healthz\", Verb:\"get\"}: cannot be specified in combination with "
            "resourceAttributes");
  authz::SelfSubjectAccessReview neither;
  EXPECT_EQ(ValidateSelfSubjectAccessReview(neither).message(),
            "SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: "
            "spec.resourceAttributes: Invalid value: \"null\": exactly one of "
            "nonResourceAttributes or resourceAttributes must be specified");
  authz::SelfSubjectAccessReview named;
  named.spec.non_resource_attributes = authz::NonResourceAttributes{"/healthz", "get"};
  EXPECT_TRUE(ValidateSelfSubjectAccessReview(named).ok());
  named.metadata.name = "x";
  EXPECT_NE(ValidateSelfSubjectAccessReview(named).message().find("metadata: Invalid value: "),
            std::string::npos);
}

TEST(SelfSubjectAccessReviewTest, EchoesTheRequestWithTheHooksAnswer) {
  const http::Identity* seen = nullptr;
  auto e = SelfSubjectAccessReviewEndpoint(
      [&seen](const authz::SelfSubjectAccessReview& review,
              const http::Identity& user) -> Result<authz::SubjectAccessReviewStatus> {
        seen = &user;
        EXPECT_EQ(review.spec.resource_attributes->ns, "demo");
        return authz::SubjectAccessReviewStatus{.allowed = true, .reason = "RBAC: allowed"};
      });
  http::Response r =
      Post(*e, kSsar,
           R"({"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1",)"
           R"("metadata":{"creationTimestamp":null},"spec":{"resourceAttributes":)"
           R"({"namespace":"demo","verb":"list","resource":"pods"}},"status":{"allowed":false}})");
  ASSERT_EQ(r.status, 201) << r.body;
  ASSERT_NE(seen, nullptr);
  EXPECT_EQ(r.body, R"({"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1",)"
                    R"("metadata":{"creationTimestamp":null},"spec":{"resourceAttributes":)"
                    R"({"namespace":"demo","verb":"list","resource":"pods"}},)"
                    R"("status":{"allowed":true,"reason":"RBAC: allowed"}})");
  http::Response invalid = Post(*e, kSsar, R"({"spec":{}})");
  EXPECT_EQ(invalid.status, 422);
}

TEST(SelfSubjectRulesReviewTest, NeedsANamespaceAndAnswersAFreshObject) {
  auto e = SelfSubjectRulesReviewEndpoint(AlwaysAllowRulesReview);
  http::Response none = Post(*e, kSsrr, R"({"spec":{"namespace":""}})");
  EXPECT_EQ(none.status, 400);
  EXPECT_NE(none.body.find(R"("message":"no namespace on request","reason":"BadRequest")"),
            std::string::npos)
      << none.body;
  http::Response ok = Post(*e, kSsrr, R"({"spec":{"namespace":"demo"}})");
  ASSERT_EQ(ok.status, 201);
  EXPECT_EQ(ok.body,
            R"({"kind":"SelfSubjectRulesReview","apiVersion":"authorization.k8s.io/v1",)"
            R"("metadata":{"creationTimestamp":null},"spec":{},)"
            R"("status":{"resourceRules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}],)"
            R"("nonResourceRules":[{"verbs":["*"],"nonResourceURLs":["*"]}],"incomplete":false}})");
}

TEST(ReviewEndpointsTest, OnlyPost) {
  auto e = SelfSubjectReviewEndpoint();
  http::Request req;
  req.method = "GET";
  req.path = kSsrV1;
  auto info = ParseResourcePath(req.path);
  ASSERT_TRUE(info.ok());
  auto r = std::get<http::Response>(e->Handle(req, *info));
  EXPECT_EQ(r.status, 405);
}

}  // namespace
}  // namespace svcplane::apiserver::rest
