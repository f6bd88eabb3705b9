#include "apiserver/bootstrap/identity_lease.h"

#include <gtest/gtest.h>

#include "client/testing/fake_clientset.h"

namespace svcplane::apiserver::bootstrap {
namespace {

using api::coordination::v1::Lease;

TEST(IdentityLeaseNameTest, HashesTheLengthPrefixedHostnameAsUpstream) {
  // Expected values from an independent implementation of upstream's cryptobyte +
  // sha256 + base32 recipe (Python: struct.pack(">H") prefixes, hashlib, base64.b32encode).
  EXPECT_EQ(IdentityLeaseName("node-1"), "apiserver-lgabes5ywnaqeagh5dny4zlzs4");
  EXPECT_EQ(IdentityLeaseName("svcplane-1"), "apiserver-6cboticcnyd4bpwdgasvgymh6u");
  EXPECT_EQ(IdentityLeaseName("node-1").size(), std::string("apiserver-").size() + 26);
}

Lease IdentityLease(const std::string& name, std::optional<int64_t> renew_us,
                    std::optional<int32_t> duration) {
  Lease l;
  l.metadata.name = name;
  l.metadata.namespace_ = "kube-system";
  l.metadata.labels[std::string(kIdentityLabel)] = std::string(kIdentityLabelValue);
  if (renew_us) l.spec.renew_time = api::meta::MicroTime::FromUnixMicros(*renew_us);
  l.spec.lease_duration_seconds = duration;
  return l;
}

TEST(ApiServerIdentityTest, CollectsOnlyExpiredLeases) {
  client::testing::FakeClientset cs;
  FakeClock clock;
  const int64_t now_us =
      std::chrono::duration_cast<std::chrono::microseconds>(clock.WallNow().time_since_epoch())
          .count();
  ASSERT_TRUE(cs.Leases().Create(IdentityLease("fresh", now_us - 10'000'000, 3600)).ok());
  ASSERT_TRUE(cs.Leases().Create(IdentityLease("expired", now_us - 3601'000'000, 3600)).ok());
  ASSERT_TRUE(cs.Leases().Create(IdentityLease("no-renew-time", std::nullopt, 3600)).ok());
  ASSERT_TRUE(cs.Leases().Create(IdentityLease("no-duration", now_us, std::nullopt)).ok());
  ApiServerIdentity identity(cs.Leases(), {.hostname = "h", .clock = &clock});
  auto deleted = identity.CollectExpired();
  ASSERT_TRUE(deleted.ok()) << deleted.status().message();
  EXPECT_EQ(*deleted, 3);
  EXPECT_TRUE(cs.Leases().Get("kube-system", "fresh").ok());
  EXPECT_FALSE(cs.Leases().Get("kube-system", "expired").ok());
  EXPECT_FALSE(cs.Leases().Get("kube-system", "no-renew-time").ok());
  EXPECT_FALSE(cs.Leases().Get("kube-system", "no-duration").ok());
}

TEST(ApiServerIdentityTest, HeartbeatCreatesTheLabelledLease) {
  client::testing::FakeClientset cs;
  ApiServerIdentity identity(cs.Leases(), {.hostname = "node-1"});
  identity.Start();
  Result<client::ObjectPtr<Lease>> got = NotFoundError("not yet");
  for (int i = 0; i < 200 && !got.ok(); ++i) {
    got = cs.Leases().Get("kube-system", "apiserver-lgabes5ywnaqeagh5dny4zlzs4");
    if (!got.ok()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  identity.Stop();
  ASSERT_TRUE(got.ok()) << got.status().message();
  const Lease& l = **got;
  EXPECT_EQ(l.metadata.labels.at("apiserver.kubernetes.io/identity"), "kube-apiserver");
  EXPECT_EQ(l.metadata.labels.at("kubernetes.io/hostname"), "node-1");
  EXPECT_EQ(l.spec.lease_duration_seconds, 3600);
  ASSERT_TRUE(l.spec.holder_identity);
  EXPECT_TRUE(l.spec.holder_identity->starts_with("apiserver-lgabes5ywnaqeagh5dny4zlzs4_"));
}

}  // namespace
}  // namespace svcplane::apiserver::bootstrap
