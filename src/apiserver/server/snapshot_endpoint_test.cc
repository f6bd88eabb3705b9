#include "apiserver/server/snapshot_endpoint.h"

#include <gtest/gtest.h>

#include <fstream>
#include <variant>

#include "apiserver/http/auth.h"
#include "storage/memory/memory_store.h"
#include "storage/snapshot/snapshot_file.h"
#include "storage/testing/temp_dir.h"

namespace svcplane::apiserver::server {
namespace {

class SnapshotEndpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* key : {"/registry/a", "/registry/b", "/registry/c", "/other/x"}) {
      ASSERT_TRUE(store_.Create(key, storage::MakeValue(R"({"k":1})")).ok());
    }
  }

  http::Response Get(http::Identity who, std::string limit = "", std::string method = "GET",
                     bool rbac_authorized = false) {
    http::Request req;
    req.method = std::move(method);
    req.path = std::string(kSnapshotPath);
    if (!limit.empty()) req.query.emplace_back("limit", limit);
    req.identity = std::move(who);
    auto reply = SnapshotReply(req, store_, rbac_authorized);
    EXPECT_TRUE(std::holds_alternative<http::Response>(reply));
    return std::get<http::Response>(std::move(reply));
  }

  storage::memory::MemoryStore store_;
  storage::testing::TempDir dir_;
};

TEST_F(SnapshotEndpointTest, AdminGetsEveryRegistryKeyAtOneRevision) {
  http::Response r = Get(http::SuperAdminIdentity(), "2");
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_TRUE(r.body_source);
  EXPECT_EQ(r.content_type, "application/vnd.svcplane.snapshot");
  ASSERT_EQ(r.headers.size(), 1u);
  EXPECT_EQ(r.headers[0], (std::pair<std::string, std::string>{"Svcplane-Snapshot-Revision", "4"}));

  const std::string path = dir_.path() + "/snap";
  std::ofstream(path, std::ios::binary) << http::DrainBody(r);
  auto reader = storage::snapshot::Reader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->header().revision, 4);
  EXPECT_EQ((*reader)->header().prefix, "/registry/");
  int n = 0;
  while (true) {
    auto next = (*reader)->Next();
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    if (!next->has_value()) break;
    ++n;
  }
  EXPECT_EQ(n, 3);
}

TEST_F(SnapshotEndpointTest, WithoutRbacOnlySystemMastersMaySnapshot) {
  http::Response r = Get(http::Identity{"alice", {"dev", "system:authenticated"}});
  EXPECT_EQ(r.status, 403);
  EXPECT_FALSE(r.body_source);
  EXPECT_NE(r.body.find(R"("reason":"Forbidden")"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find(R"(User \"alice\" cannot get path \"/svcplane/snapshot\")"),
            std::string::npos)
      << r.body;
}

TEST_F(SnapshotEndpointTest, WithRbacWhoeverTheAuthorizerLetThroughMaySnapshot) {
  // The revocable admin holds cluster-admin through a binding, not system:masters.
  EXPECT_EQ(Get(http::AdminIdentity()).status, 403);
  http::Response r = Get(http::AdminIdentity(), "", "GET", /*rbac_authorized=*/true);
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(r.body_source);
}

TEST_F(SnapshotEndpointTest, BadLimitAndOtherMethodsAreRefused) {
  for (const char* limit : {"0", "x", "10001", "5x"}) {
    http::Response r = Get(http::SuperAdminIdentity(), limit);
    EXPECT_EQ(r.status, 400) << limit;
    EXPECT_NE(r.body.find("limit must be a number of keys from 1 to 10000"), std::string::npos)
        << r.body;
  }
  EXPECT_EQ(Get(http::SuperAdminIdentity(), "", "POST").status, 405);
}

}  // namespace
}  // namespace svcplane::apiserver::server
