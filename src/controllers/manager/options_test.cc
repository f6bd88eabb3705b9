#include "controllers/manager/options.h"

#include <gtest/gtest.h>

namespace svcplane::controllers::manager {
namespace {

using namespace std::chrono_literals;

TEST(ParseGoDurationTest, AcceptsGoSyntax) {
  EXPECT_EQ(*ParseGoDuration("15s"), 15s);
  EXPECT_EQ(*ParseGoDuration("100ms"), 100ms);
  EXPECT_EQ(*ParseGoDuration("1m30s"), 90s);
  EXPECT_EQ(*ParseGoDuration("1.5h"), 90min);
  EXPECT_EQ(*ParseGoDuration("0"), 0s);
  EXPECT_EQ(*ParseGoDuration("2us"), 2us);
  EXPECT_EQ(*ParseGoDuration("-1s"), -1s);
}

TEST(ParseGoDurationTest, RejectsWhatGoRejects) {
  EXPECT_EQ(ParseGoDuration("15").status().message(), "time: missing unit in duration \"15\"");
  EXPECT_EQ(ParseGoDuration("3d").status().message(),
            "time: unknown unit \"d\" in duration \"3d\"");
  EXPECT_FALSE(ParseGoDuration("").ok());
  EXPECT_FALSE(ParseGoDuration("s").ok());
}

TEST(FormatGoDurationTest, RoundTrips) {
  EXPECT_EQ(FormatGoDuration(15s), "15s");
  EXPECT_EQ(FormatGoDuration(90s), "1m30s");
  EXPECT_EQ(FormatGoDuration(100ms), "100ms");
  EXPECT_EQ(FormatGoDuration(0s), "0s");
  EXPECT_EQ(FormatGoDuration(1500ms), "1.5s");
}

TEST(ValidateTest, DefaultsAreKubeControllerManagers) {
  ControllerManagerOptions o;
  EXPECT_TRUE(Validate(o).ok());
  EXPECT_TRUE(o.leader_election.leader_elect);
  EXPECT_EQ(o.leader_election.lease_duration, 15s);
  EXPECT_EQ(o.leader_election.renew_deadline, 10s);
  EXPECT_EQ(o.leader_election.retry_period, 2s);
  EXPECT_EQ(o.leader_election.resource_namespace, "kube-system");
  EXPECT_EQ(o.kube_api_qps, 20);
  EXPECT_EQ(o.kube_api_burst, 30);
  EXPECT_EQ(o.endpointslice.max_endpoints_per_slice, 100);
  EXPECT_EQ(o.mirroring.mirroring_max_endpoints_per_subset, 1000);
  EXPECT_EQ(o.controllers, std::vector<std::string>{"*"});
  EXPECT_EQ(o.secure_port, 10257);
  EXPECT_EQ(o.port, 0);  // the insecure port is off, as kcm has had it since 1.24
}

TEST(ValidateTest, ServingCertificateAndKeyComeTogether) {
  ControllerManagerOptions o;
  o.tls_cert_file = "tls.crt";
  EXPECT_EQ(Validate(o).code(), Code::kInvalid);
  o.tls_private_key_file = "tls.key";
  EXPECT_TRUE(Validate(o).ok());
  o.secure_port = 65536;
  EXPECT_EQ(Validate(o).code(), Code::kInvalid);
}

TEST(ValidateTest, RejectsUnworkableTimings) {
  ControllerManagerOptions o;
  o.leader_election.renew_deadline = 15s;
  EXPECT_FALSE(Validate(o).ok());
  o.leader_election.renew_deadline = 2s;
  EXPECT_FALSE(Validate(o).ok());
  o.leader_election.leader_elect = false;  // timings do not matter then
  EXPECT_TRUE(Validate(o).ok());
}

TEST(ValidateTest, RejectsOutOfRangeControllerFlags) {
  ControllerManagerOptions o;
  o.endpointslice.max_endpoints_per_slice = 1001;
  EXPECT_FALSE(Validate(o).ok());
  o = {};
  o.endpoint.concurrent_endpoint_syncs = 0;
  EXPECT_FALSE(Validate(o).ok());
  o = {};
  EXPECT_EQ(o.replicaset.concurrent_replicaset_syncs, 5);
  o.replicaset.concurrent_replicaset_syncs = 0;
  EXPECT_EQ(Validate(o).message(), "--concurrent-replicaset-syncs must be at least 1, got 0");
  o.replicaset.concurrent_replicaset_syncs = 5;
  EXPECT_EQ(o.deployment.concurrent_deployment_syncs, 5);
  o.deployment.concurrent_deployment_syncs = 0;
  EXPECT_EQ(Validate(o).message(), "--concurrent-deployment-syncs must be at least 1, got 0");
}

}  // namespace
}  // namespace svcplane::controllers::manager
