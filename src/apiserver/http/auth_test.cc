#include "apiserver/http/auth.h"

#include <gtest/gtest.h>

namespace svcplane::apiserver::http {
namespace {

Request WithAuth(std::string value) {
  Request r;
  r.headers.emplace_back("authorization", std::move(value));
  return r;
}

TEST(AuthTest, BearerTokenMustMatchExactly) {
  auto auth = BearerTokenAuthenticator("s3cret", AdminIdentity());
  auto ok = auth(WithAuth("Bearer s3cret"));
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->user, "admin");
  EXPECT_TRUE(auth(WithAuth("bearer   s3cret ")).has_value());
  EXPECT_FALSE(auth(WithAuth("Bearer s3cre")).has_value());
  EXPECT_FALSE(auth(WithAuth("Bearer s3cret2")).has_value());
  EXPECT_FALSE(auth(WithAuth("Bearer s3creT")).has_value());  // same length, one byte differs
  EXPECT_FALSE(auth(WithAuth("Bearer S3CRET")).has_value());  // tokens are case-sensitive
  EXPECT_FALSE(auth(WithAuth("Basic s3cret")).has_value());
  EXPECT_FALSE(auth(WithAuth("Bearer ")).has_value());
  EXPECT_FALSE(auth(Request{}).has_value());
}

TEST(AuthTest, AnEmptyConfiguredTokenAcceptsNothing) {
  auto auth = BearerTokenAuthenticator("", AdminIdentity());
  EXPECT_FALSE(auth(WithAuth("Bearer ")).has_value());
  EXPECT_FALSE(auth(WithAuth("Bearer x")).has_value());
}

TEST(AuthTest, ClientCertificateIdentity) {
  auto auth = ClientCertAuthenticator();
  Request r;
  EXPECT_FALSE(auth(r).has_value());
  r.peer_certificate = PeerCertificate{"admin", {"system:masters"}};
  auto id = auth(r);
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(id->user, "admin");
  EXPECT_EQ(id->groups, (std::vector<std::string>{"system:masters", "system:authenticated"}));
}

TEST(AuthTest, FirstOfTriesInOrder) {
  auto auth = FirstOf(
      {BearerTokenAuthenticator("t", Identity{"token-user", {}}), ClientCertAuthenticator()});
  Request r = WithAuth("Bearer t");
  r.peer_certificate = PeerCertificate{"cert-user", {}};
  EXPECT_EQ(auth(r)->user, "token-user");
  r.headers.clear();
  EXPECT_EQ(auth(r)->user, "cert-user");
  r.peer_certificate.reset();
  EXPECT_FALSE(auth(r).has_value());
}

}  // namespace
}  // namespace svcplane::apiserver::http
