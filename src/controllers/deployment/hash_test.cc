#include "controllers/deployment/hash.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>

namespace svcplane::controllers::deployment {
namespace {

api::core::v1::PodTemplateSpec Template(std::string image) {
  api::core::v1::PodTemplateSpec t;
  t.metadata.labels = {{"app", "web"}};
  api::core::v1::Container c;
  c.name = "nginx";
  c.image = std::move(image);
  t.spec.containers.push_back(c);
  return t;
}

// Real label values and the FNV sums behind them (workloads.md §3.3).
TEST(SafeEncodeStringTest, MatchesUpstreamLabelValues) {
  EXPECT_EQ(SafeEncodeString("3123191453"), "75675f5897");
  EXPECT_EQ(SafeEncodeString("3410994433"), "7854ff8877");
  EXPECT_EQ(SafeEncodeString("445189747"), "8895dfc8c");
  EXPECT_EQ(SafeEncodeString("0123456789"), "456789bcdf");
}

TEST(Fnv1a32Test, KnownVectors) {
  EXPECT_EQ(Fnv1a32(""), 0x811c9dc5u);
  EXPECT_EQ(Fnv1a32("a"), 0xe40c292cu);
  EXPECT_EQ(Fnv1a32("foobar"), 0xbf9cf968u);
  // Continuing a hash equals hashing the concatenation.
  EXPECT_EQ(Fnv1a32("bar", Fnv1a32("foo")), Fnv1a32("foobar"));
}

TEST(ComputePodTemplateHashTest, DeterministicAndWellFormed) {
  const std::regex shape("^[4-9bcdf]{1,10}$");
  const std::string h = ComputePodTemplateHash(Template("nginx"), std::nullopt);
  EXPECT_TRUE(std::regex_match(h, shape)) << h;
  EXPECT_EQ(h, ComputePodTemplateHash(Template("nginx"), std::nullopt));
}

TEST(ComputePodTemplateHashTest, TemplateAndCollisionCountChangeIt) {
  const std::string h = ComputePodTemplateHash(Template("nginx"), std::nullopt);
  EXPECT_NE(h, ComputePodTemplateHash(Template("nginx:1.27"), std::nullopt));
  const std::string h0 = ComputePodTemplateHash(Template("nginx"), 0);
  const std::string h1 = ComputePodTemplateHash(Template("nginx"), 1);
  // A collision count of 0 is still 8 more bytes hashed (upstream writes it when set).
  EXPECT_NE(h, h0);
  EXPECT_NE(h0, h1);
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) seen.insert(ComputePodTemplateHash(Template("nginx"), i));
  EXPECT_EQ(seen.size(), 200u);
}

TEST(ComputePodTemplateHashTest, IgnoresItsOwnLabel) {
  auto t = Template("nginx");
  const std::string h = ComputePodTemplateHash(t, std::nullopt);
  t.metadata.labels[kPodTemplateHashLabel] = h;
  EXPECT_EQ(ComputePodTemplateHash(t, std::nullopt), h);
}

// What kubectl 1.33 (protobuf) stores and what kubectl's JSON patch of `rollout undo` stores
// differ only in explicit zeros of fields our types keep raw; Go sees the same template.
TEST(CanonicalTemplateTest, ExplicitZerosAndMemberOrderDoNotCount) {
  auto json_client = Template("nginx");
  json_client.spec.containers[0].unknown.items.push_back({"command", R"(["sh"])"});
  auto proto_client = Template("nginx");
  proto_client.spec.unknown.items.push_back({"hostIPC", "false"});
  proto_client.spec.containers[0].unknown.items.push_back({"tty", "false"});
  proto_client.spec.containers[0].unknown.items.push_back({"stdin", " false "});
  proto_client.spec.containers[0].unknown.items.push_back({"args", "[]"});
  proto_client.spec.containers[0].unknown.items.push_back({"command", R"(["sh"])"});
  proto_client.spec.containers[0].unknown.items.push_back({"workingDir", R"("")"});
  EXPECT_FALSE(json_client == proto_client);
  EXPECT_EQ(CanonicalTemplate(json_client), CanonicalTemplate(proto_client));
  EXPECT_EQ(ComputePodTemplateHash(json_client, std::nullopt),
            ComputePodTemplateHash(proto_client, std::nullopt));
  // A value that is not a zero still counts.
  proto_client.spec.containers[0].unknown.items.push_back({"tty", "true"});
  EXPECT_FALSE(CanonicalTemplate(json_client) == CanonicalTemplate(proto_client));
  // Order of raw members does not.
  auto a = Template("nginx");
  a.spec.unknown.items.push_back({"hostIPC", "true"});
  a.spec.unknown.items.push_back({"hostPID", "true"});
  auto b = Template("nginx");
  b.spec.unknown.items.push_back({"hostPID", "true"});
  b.spec.unknown.items.push_back({"hostIPC", "true"});
  EXPECT_EQ(CanonicalTemplate(a), CanonicalTemplate(b));
}

}  // namespace
}  // namespace svcplane::controllers::deployment
