#include "apiserver/authorization/impersonation.h"

#include <gtest/gtest.h>

#include "apiserver/authorization/forbidden.h"
#include "apiserver/authorization/rbac_authorizer.h"
#include "apiserver/authorization/testing_util.h"

namespace svcplane::apiserver::authorization {
namespace {

using namespace testing;

TEST(ParseImpersonationHeaders, ItemsInOrder) {
  http::Headers h = {{"impersonate-user", "bob"},
                     {"Impersonate-Group", "dev"},
                     {"Impersonate-Group", "ops"},
                     {"Impersonate-Uid", "u9"},
                     {"Impersonate-Extra-Scopes", "a"},
                     {"Impersonate-Extra-example.com%2Fteam", "x"},
                     {"Accept", "*/*"}};
  ImpersonationRequest r = ParseImpersonationHeaders(h);
  ASSERT_EQ(r.items.size(), 6u);
  EXPECT_EQ(r.items[0].kind, ImpersonationItem::Kind::kUser);
  EXPECT_EQ(r.items[0].name, "bob");
  EXPECT_EQ(r.items[1].name, "dev");
  EXPECT_EQ(r.items[2].name, "ops");
  EXPECT_EQ(r.items[3].kind, ImpersonationItem::Kind::kUserExtra);
  EXPECT_EQ(r.items[3].extra_key, "scopes");
  EXPECT_EQ(r.items[4].extra_key, "example.com/team");
  EXPECT_EQ(r.items[5].kind, ImpersonationItem::Kind::kUid);
  EXPECT_TRUE(r.error.empty());
  // A malformed escape keeps the key as it is.
  EXPECT_EQ(ParseImpersonationHeaders({{"Impersonate-User", "b"}, {"Impersonate-Extra-a%zz", "v"}})
                .items[1]
                .extra_key,
            "a%zz");
}

TEST(ParseImpersonationHeaders, ServiceAccountUsers) {
  auto sa = ParseImpersonationHeaders({{"Impersonate-User", "system:serviceaccount:demo:sa"}});
  ASSERT_EQ(sa.items.size(), 1u);
  EXPECT_EQ(sa.items[0].kind, ImpersonationItem::Kind::kServiceAccount);
  EXPECT_EQ(sa.items[0].ns, "demo");
  EXPECT_EQ(sa.items[0].name, "sa");
  // Not a valid SA username: a plain user.
  for (std::string u : {"system:serviceaccount:demo", "system:serviceaccount:a:b:c",
                        "system:serviceaccount:Demo:sa", "system:serviceaccount::sa"}) {
    auto r = ParseImpersonationHeaders({{"Impersonate-User", u}});
    EXPECT_EQ(r.items[0].kind, ImpersonationItem::Kind::kUser) << u;
  }
}

TEST(ParseImpersonationHeaders, GroupsWithoutUserAreAnError) {
  auto r = ParseImpersonationHeaders({{"Impersonate-Group", "system:masters"}});
  EXPECT_TRUE(r.items.empty());
  EXPECT_EQ(r.error, "requested [{Group  system:masters    }] without impersonating a user");
  auto uid = ParseImpersonationHeaders({{"Impersonate-Uid", "u"}});
  EXPECT_EQ(uid.error,
            "requested [{UID  u  authentication.k8s.io/v1  }] without impersonating a user");
  EXPECT_TRUE(ParseImpersonationHeaders({{"Accept", "x"}}).items.empty());
  EXPECT_TRUE(ParseImpersonationHeaders({{"Accept", "x"}}).error.empty());
}

TEST(ImpersonationAttributes, Table) {
  http::Identity jane{"jane", {}, "", {}};
  auto user = ImpersonationAttributes(jane, {ImpersonationItem::Kind::kUser, "", "bob", ""});
  EXPECT_EQ(user.verb, "impersonate");
  EXPECT_EQ(user.resource, "users");
  EXPECT_EQ(user.api_group, "");
  EXPECT_EQ(user.name, "bob");
  EXPECT_TRUE(user.resource_request);
  auto sa =
      ImpersonationAttributes(jane, {ImpersonationItem::Kind::kServiceAccount, "demo", "sa", ""});
  EXPECT_EQ(sa.resource, "serviceaccounts");
  EXPECT_EQ(sa.ns, "demo");
  EXPECT_EQ(sa.name, "sa");
  auto group = ImpersonationAttributes(jane, {ImpersonationItem::Kind::kGroup, "", "g", ""});
  EXPECT_EQ(group.resource, "groups");
  auto uid = ImpersonationAttributes(jane, {ImpersonationItem::Kind::kUid, "", "u", ""});
  EXPECT_EQ(uid.resource, "uids");
  EXPECT_EQ(uid.api_group, "authentication.k8s.io");
  auto extra = ImpersonationAttributes(jane, {ImpersonationItem::Kind::kUserExtra, "", "v", "k"});
  EXPECT_EQ(extra.resource, "userextras");
  EXPECT_EQ(extra.subresource, "k");
  EXPECT_EQ(extra.api_group, "authentication.k8s.io");
  EXPECT_EQ(extra.name, "v");
}

class ImpersonateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rbac.UpsertClusterRole(MakeClusterRole("cluster-admin", {Rule({"*"}, {"*"}, {"*"})}));
    rbac.UpsertClusterRoleBinding(
        MakeClusterRoleBinding("cluster-admin", "cluster-admin", {UserSubject("admin")}));
  }
  RbacAuthorizer rbac;
  http::Identity admin{"admin", {"system:authenticated"}, "", {}};
  http::Identity jane{"jane", {"dev", "system:authenticated"}, "", {}};
};

TEST_F(ImpersonateTest, NoHeadersNoImpersonation) {
  EXPECT_EQ(Impersonate(jane, {{"Accept", "x"}}, rbac).kind, ImpersonationOutcome::Kind::kNone);
}

// Scenario 27.
TEST_F(ImpersonateTest, DeniedUser) {
  auto out = Impersonate(jane, {{"Impersonate-User", "bob"}}, rbac);
  ASSERT_EQ(out.kind, ImpersonationOutcome::Kind::kForbidden);
  EXPECT_EQ(ForbiddenStatus(out.denied, out.reason).message,
            "users \"bob\" is forbidden: User \"jane\" cannot impersonate resource \"users\" in "
            "API group \"\" at the cluster scope");
  auto sa = Impersonate(jane, {{"Impersonate-User", "system:serviceaccount:demo:sa"}}, rbac);
  EXPECT_EQ(ForbiddenStatus(sa.denied, sa.reason).message,
            "serviceaccounts \"sa\" is forbidden: User \"jane\" cannot impersonate resource "
            "\"serviceaccounts\" in API group \"\" in the namespace \"demo\"");
}

// Scenario 28.
TEST_F(ImpersonateTest, UserGroupUid) {
  auto out = Impersonate(
      admin, {{"Impersonate-User", "bob"}, {"Impersonate-Group", "dev"}, {"Impersonate-Uid", "u9"}},
      rbac);
  ASSERT_EQ(out.kind, ImpersonationOutcome::Kind::kImpersonated);
  EXPECT_EQ(out.identity.user, "bob");
  EXPECT_EQ(out.identity.uid, "u9");
  EXPECT_EQ(out.identity.groups, (std::vector<std::string>{"dev", "system:authenticated"}));
  EXPECT_TRUE(out.identity.extra.empty());
  auto extra = Impersonate(admin,
                           {{"Impersonate-User", "bob"},
                            {"Impersonate-Extra-Scope", "a"},
                            {"Impersonate-Extra-scope", "b"}},
                           rbac);
  EXPECT_EQ(extra.identity.extra.at("scope"), (std::vector<std::string>{"a", "b"}));
}

// Scenario 29 and the system:authenticated / system:unauthenticated rules.
TEST_F(ImpersonateTest, ResultingGroups) {
  auto sa = Impersonate(admin, {{"Impersonate-User", "system:serviceaccount:demo:sa"}}, rbac);
  EXPECT_EQ(sa.identity.user, "system:serviceaccount:demo:sa");
  EXPECT_EQ(sa.identity.groups,
            (std::vector<std::string>{"system:serviceaccounts", "system:serviceaccounts:demo",
                                      "system:authenticated"}));
  auto sa_groups = Impersonate(
      admin, {{"Impersonate-User", "system:serviceaccount:demo:sa"}, {"Impersonate-Group", "g"}},
      rbac);
  EXPECT_EQ(sa_groups.identity.groups, (std::vector<std::string>{"g", "system:authenticated"}));
  auto unauth = Impersonate(
      admin, {{"Impersonate-User", "x"}, {"Impersonate-Group", "system:unauthenticated"}}, rbac);
  EXPECT_EQ(unauth.identity.groups, (std::vector<std::string>{"system:unauthenticated"}));
  auto anon = Impersonate(admin, {{"Impersonate-User", "system:anonymous"}}, rbac);
  EXPECT_EQ(anon.identity.groups, (std::vector<std::string>{"system:unauthenticated"}));
}

// Scenario 30.
TEST_F(ImpersonateTest, GroupWithoutUserIsBadRequest) {
  auto out = Impersonate(admin, {{"Impersonate-Group", "system:masters"}}, rbac);
  EXPECT_EQ(out.kind, ImpersonationOutcome::Kind::kBadRequest);
  EXPECT_TRUE(out.message.ends_with("without impersonating a user"));
}

// Scenario 31.
TEST_F(ImpersonateTest, ScopedImpersonation) {
  rbac.UpsertClusterRole(
      MakeClusterRole("imp-bob", {Rule({"impersonate"}, {""}, {"users"}, {"bob"})}));
  rbac.UpsertClusterRoleBinding(
      MakeClusterRoleBinding("jane-imp", "imp-bob", {UserSubject("jane")}));
  EXPECT_EQ(Impersonate(jane, {{"Impersonate-User", "bob"}}, rbac).kind,
            ImpersonationOutcome::Kind::kImpersonated);
  EXPECT_EQ(Impersonate(jane, {{"Impersonate-User", "carol"}}, rbac).kind,
            ImpersonationOutcome::Kind::kForbidden);
  auto group = Impersonate(jane, {{"Impersonate-User", "bob"}, {"Impersonate-Group", "dev"}}, rbac);
  ASSERT_EQ(group.kind, ImpersonationOutcome::Kind::kForbidden);
  EXPECT_TRUE(ForbiddenStatus(group.denied, group.reason)
                  .message.starts_with("groups \"dev\" is forbidden: User \"jane\" cannot "
                                       "impersonate resource \"groups\""));
}

TEST(IsImpersonationHeader, Prefix) {
  EXPECT_TRUE(IsImpersonationHeader("impersonate-user"));
  EXPECT_TRUE(IsImpersonationHeader("Impersonate-Extra-x"));
  EXPECT_FALSE(IsImpersonationHeader("Authorization"));
}

}  // namespace
}  // namespace svcplane::apiserver::authorization
