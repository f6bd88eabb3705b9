#include "apiserver/http/auth.h"

#include <gtest/gtest.h>

namespace svcplane::apiserver::http {
namespace {

using Outcome = AuthResult::Outcome;
using Strings = std::vector<std::string>;

Request WithAuth(std::string value) {
  Request r;
  r.headers.emplace_back("authorization", std::move(value));
  return r;
}

std::shared_ptr<const TokenFile> Tokens() {
  auto f = TokenFile::Parse("t.csv", "janetok,jane,u-jane,dev\nbobtok,bob,u-bob\n");
  EXPECT_TRUE(f.ok());
  return std::make_shared<const TokenFile>(std::move(*f));
}

// The chain kube-apiserver builds (spec authn §2.1), with the admin token as fast path.
Authenticator Chain(bool anonymous) {
  Authenticator inner = WithAuthenticatedGroup(
      Union({X509Authenticator(),
             BearerTokenAuthenticator(BearerTokens{"s3cret", AdminIdentity(), Tokens()})}));
  return anonymous ? WithAnonymous(std::move(inner)) : inner;
}

PeerCertificate Cert(std::string cn, Strings orgs, bool verified = true) {
  PeerCertificate c;
  c.verified = verified;
  if (!verified) c.verify_error = "certificate has expired";
  c.common_name = std::move(cn);
  c.organizations = std::move(orgs);
  c.sha256_hex = "abcd";
  c.serial = "12";
  return c;
}

TEST(BearerHeaderTest, ParsesAsUpstream) {
  using K = BearerHeader::Kind;
  EXPECT_EQ(ParseBearerHeader("Bearer abc").kind, K::kToken);
  EXPECT_EQ(ParseBearerHeader("Bearer abc").token, "abc");
  EXPECT_EQ(ParseBearerHeader("bearer abc").token, "abc");
  EXPECT_EQ(ParseBearerHeader("BEARER abc").token, "abc");
  EXPECT_EQ(ParseBearerHeader("  Bearer abc  ").token, "abc");
  EXPECT_EQ(ParseBearerHeader("Bearer abc def").token, "abc");
  EXPECT_EQ(ParseBearerHeader("Bearer  abc").kind, K::kExtraSpace);
  EXPECT_EQ(ParseBearerHeader("Bearer   abc").kind, K::kExtraSpace);
  EXPECT_EQ(ParseBearerHeader("Bearer ").kind, K::kNone);  // trimmed to "Bearer"
  EXPECT_EQ(ParseBearerHeader("Bearer").kind, K::kNone);
  EXPECT_EQ(ParseBearerHeader("Bearer\tabc").kind, K::kNone);  // split on ' ' only
  EXPECT_EQ(ParseBearerHeader("Basic amFuZTp4").kind, K::kNone);
  EXPECT_EQ(ParseBearerHeader("Bearerx abc").kind, K::kNone);
  EXPECT_EQ(ParseBearerHeader("").kind, K::kNone);
  std::string nul("Bearer a\0b", 10);
  EXPECT_EQ(ParseBearerHeader(nul).token, std::string_view("a\0b", 3));
}

TEST(AuthTest, SingleBearerTokenMustMatchExactly) {
  auto auth = BearerTokenAuthenticator("s3cret", AdminIdentity());
  AuthResult ok = auth(WithAuth("Bearer s3cret"));
  ASSERT_TRUE(ok.authenticated());
  EXPECT_EQ(ok.identity.user, "kubernetes-admin");
  EXPECT_TRUE(ok.consumed_authorization);
  EXPECT_TRUE(auth(WithAuth("bearer s3cret ")).authenticated());
  EXPECT_EQ(auth(WithAuth("Bearer s3cre")).outcome, Outcome::kFailed);
  EXPECT_EQ(auth(WithAuth("Bearer s3creT")).outcome, Outcome::kFailed);
  EXPECT_EQ(auth(WithAuth("Bearer S3CRET")).outcome, Outcome::kFailed);  // case-sensitive
  EXPECT_EQ(auth(WithAuth("Basic s3cret")).outcome, Outcome::kNoOpinion);
  EXPECT_EQ(auth(WithAuth("Bearer ")).outcome, Outcome::kNoOpinion);
  EXPECT_EQ(auth(Request{}).outcome, Outcome::kNoOpinion);
}

TEST(AuthTest, AnEmptyConfiguredTokenAcceptsNothing) {
  auto auth = BearerTokenAuthenticator("", AdminIdentity());
  EXPECT_FALSE(auth(WithAuth("Bearer ")).authenticated());
  EXPECT_EQ(auth(WithAuth("Bearer x")).outcome, Outcome::kFailed);
}

TEST(AuthChainTest, TokenFileUsersGetSystemAuthenticated) {
  AuthResult r = Chain(true)(WithAuth("Bearer janetok"));
  ASSERT_TRUE(r.authenticated());
  EXPECT_EQ(r.identity, (Identity{"jane", {"dev", "system:authenticated"}, "u-jane", {}}));
  EXPECT_TRUE(r.consumed_authorization);
  // The admin is in the group its revocable binding names, system:authenticated only once.
  AuthResult admin = Chain(true)(WithAuth("Bearer s3cret"));
  EXPECT_EQ(admin.identity.user, "kubernetes-admin");
  EXPECT_EQ(admin.identity.groups, (Strings{"svcplane:cluster-admins", "system:authenticated"}));
}

TEST(AuthTest, BreakGlassTokenIsSystemMastersAndMustMatchExactly) {
  auto auth = BearerTokenAuthenticator(BearerTokens{.fast_token = "s3cret",
                                                    .fast_identity = AdminIdentity(),
                                                    .tokens = nullptr,
                                                    .break_glass_token = "glass",
                                                    .break_glass_identity = SuperAdminIdentity()});
  AuthResult r = auth(WithAuth("Bearer glass"));
  ASSERT_TRUE(r.authenticated());
  EXPECT_EQ(r.identity.user, "kubernetes-super-admin");
  EXPECT_EQ(r.identity.groups, (Strings{"system:masters", "system:authenticated"}));
  EXPECT_TRUE(r.consumed_authorization);
  EXPECT_EQ(auth(WithAuth("Bearer glas")).outcome, Outcome::kFailed);
  EXPECT_EQ(auth(WithAuth("Bearer s3cret")).identity.user, "kubernetes-admin");
  // Without one configured, nothing opens it.
  auto none = BearerTokenAuthenticator(BearerTokens{.fast_token = "s3cret"});
  EXPECT_EQ(none(WithAuth("Bearer ")).outcome, Outcome::kNoOpinion);
  EXPECT_EQ(none(WithAuth("Bearer x")).outcome, Outcome::kFailed);
}

TEST(AuthChainTest, UnknownBearerTokenIs401EvenWithAnonymous) {
  AuthResult r = Chain(true)(WithAuth("Bearer nope"));
  EXPECT_EQ(r.outcome, Outcome::kFailed);
  EXPECT_EQ(r.error, "invalid bearer token");
  EXPECT_FALSE(r.consumed_authorization);
  // A 1 MiB token is just an unknown token.
  EXPECT_EQ(Chain(true)(WithAuth("Bearer " + std::string(1 << 20, 'x'))).outcome, Outcome::kFailed);
}

TEST(AuthChainTest, NoCredentialIsAnonymousOrUnauthenticated) {
  for (std::string h : {"", "Basic amFuZTp4", "Bearer ", "Bearer\tjanetok"}) {
    Request req = h.empty() ? Request{} : WithAuth(h);
    AuthResult anon = Chain(true)(req);
    ASSERT_TRUE(anon.authenticated()) << h;
    EXPECT_EQ(anon.identity, (Identity{"system:anonymous", {"system:unauthenticated"}, "", {}}));
    EXPECT_TRUE(anon.warnings.empty());
    EXPECT_FALSE(anon.consumed_authorization);
    EXPECT_EQ(Chain(false)(req).outcome, Outcome::kNoOpinion) << h;
  }
}

TEST(AuthChainTest, TwoSpacesIsAnonymousWithTheWarning) {
  AuthResult r = Chain(true)(WithAuth("Bearer  janetok"));
  ASSERT_TRUE(r.authenticated());
  EXPECT_EQ(r.identity.user, "system:anonymous");
  ASSERT_EQ(r.warnings, (Strings{std::string(kExtraSpaceWarning)}));
  EXPECT_EQ(r.warnings[0],
            "299 - \"the provided Authorization header contains extra space before the bearer "
            "token, and is ignored\"");
  EXPECT_EQ(Chain(false)(WithAuth("Bearer  janetok")).warnings.size(), 1u);
}

TEST(AuthChainTest, VerifiedCertificateIdentity) {
  Request r;
  r.peer_certificate = Cert("jane", {"dev", "ops"});
  r.peer_certificate->uids = {"u-1"};
  AuthResult a = Chain(true)(r);
  ASSERT_TRUE(a.authenticated());
  EXPECT_EQ(a.identity.user, "jane");
  EXPECT_EQ(a.identity.uid, "u-1");
  EXPECT_EQ(a.identity.groups, (Strings{"dev", "ops", "system:authenticated"}));
  ASSERT_EQ(a.identity.extra.size(), 1u);
  EXPECT_EQ(a.identity.extra.at("authentication.kubernetes.io/credential-id"),
            (Strings{"X509SHA256=abcd"}));
  EXPECT_FALSE(a.consumed_authorization);
}

TEST(AuthChainTest, CertificateComesBeforeTheToken) {
  Request r = WithAuth("Bearer bobtok");
  r.peer_certificate = Cert("jane", {});
  EXPECT_EQ(Chain(true)(r).identity.user, "jane");
}

TEST(AuthChainTest, FailedCertificateIs401UnlessATokenWorks) {
  Request r;
  r.peer_certificate = Cert("jane", {}, /*verified=*/false);
  AuthResult alone = Chain(true)(r);
  EXPECT_EQ(alone.outcome, Outcome::kFailed);  // not anonymous
  EXPECT_NE(alone.error.find("certificate has expired"), std::string::npos);
  r.headers.emplace_back("Authorization", "Bearer janetok");
  EXPECT_EQ(Chain(true)(r).identity.user, "jane");
  // Both failing: the errors of both.
  r.headers.back().second = "Bearer nope";
  AuthResult both = Chain(true)(r);
  EXPECT_EQ(both.outcome, Outcome::kFailed);
  EXPECT_NE(both.error.find("invalid bearer token"), std::string::npos);
}

TEST(AuthChainTest, CertificateWithoutCommonNameHasNoOpinion) {
  Request r;
  r.peer_certificate = Cert("", {"system:masters"});
  EXPECT_EQ(Chain(true)(r).identity.user, "system:anonymous");
  r.headers.emplace_back("Authorization", "Bearer bobtok");
  EXPECT_EQ(Chain(true)(r).identity.user, "bob");
  // Unverified and without CN: verification comes first.
  Request bad;
  bad.peer_certificate = Cert("", {}, false);
  EXPECT_EQ(Chain(true)(bad).outcome, Outcome::kFailed);
}

TEST(AuthChainTest, CertificateUidRules) {
  Request r;
  r.peer_certificate = Cert("jane", {});
  r.peer_certificate->uids = {"a", "b"};
  EXPECT_EQ(Chain(true)(r).outcome, Outcome::kFailed);
  r.peer_certificate->uids = {""};
  EXPECT_EQ(Chain(true)(r).outcome, Outcome::kFailed);
  r.peer_certificate->uids = {};
  EXPECT_EQ(Chain(true)(r).identity.uid, "");
}

TEST(AuthenticatedGroupTest, AddedOnceAndNeverToAnonymous) {
  Identity a{"u", {"g"}, "", {}};
  AddAuthenticatedGroup(&a);
  EXPECT_EQ(a.groups, (Strings{"g", "system:authenticated"}));
  AddAuthenticatedGroup(&a);
  EXPECT_EQ(a.groups, (Strings{"g", "system:authenticated"}));
  Identity anon{"system:anonymous", {}, "", {}};
  AddAuthenticatedGroup(&anon);
  EXPECT_TRUE(anon.groups.empty());
  Identity unauth{"x", {"system:unauthenticated"}, "", {}};
  AddAuthenticatedGroup(&unauth);
  EXPECT_EQ(unauth.groups, (Strings{"system:unauthenticated"}));
}

TEST(UnionTest, FirstSuccessWinsAndErrorsAreDropped) {
  Authenticator fail = [](const Request&) { return AuthResult::Failed("boom"); };
  Authenticator none = [](const Request&) { return AuthResult::NoOpinion(); };
  Authenticator ok = [](const Request&) { return AuthResult::Authenticated({"u", {}, "", {}}); };
  EXPECT_TRUE(Union({fail, ok})(Request{}).authenticated());
  EXPECT_EQ(Union({none, none})(Request{}).outcome, Outcome::kNoOpinion);
  EXPECT_EQ(Union({none, fail})(Request{}).outcome, Outcome::kFailed);
  EXPECT_EQ(Union({})(Request{}).outcome, Outcome::kNoOpinion);
}

}  // namespace
}  // namespace svcplane::apiserver::http
