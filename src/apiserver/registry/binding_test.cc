// pods/binding against a memory store: what the Pod looks like after, and upstream's errors.
#include "apiserver/registry/binding.h"

#include <gtest/gtest.h>

#include "storage/memory/memory_store.h"

namespace svcplane::apiserver::registry {
namespace {

using api::core::v1::Binding;
using api::core::v1::Pod;

class BindingTest : public ::testing::Test {
 protected:
  BindingTest() : pods_(Ctx()) {}

  RegistryContext Ctx() {
    RegistryContext ctx;
    ctx.store = &store_;
    ctx.now_micros = [this] { return now_; };
    return ctx;
  }

  Object<Pod> CreatePod(std::string name) {
    Pod p;
    p.metadata.name = std::move(name);
    p.spec.containers.push_back({.name = "c", .image = "nginx:1.25"});
    auto created = pods_.Create("default", std::move(p), {});
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    return *created;
  }

  static Binding MakeBinding(std::string pod, std::string node) {
    Binding b;
    b.metadata.name = std::move(pod);
    b.target.kind = "Node";
    b.target.name = std::move(node);
    return b;
  }

  storage::memory::MemoryStore store_;
  int64_t now_ = 1714557600'000000;
  Registry<Pod> pods_;
};

TEST_F(BindingTest, SetsNodeNameAnnotationsAndPodScheduledInOneWrite) {
  auto before = CreatePod("p");
  now_ += 5'000000;
  auto b = MakeBinding("p", "node-1");
  b.metadata.annotations["scheduler.example/score"] = "7";
  auto bound = BindPod(pods_, "default", "p", b, {});
  ASSERT_TRUE(bound.ok()) << bound.status().ToString();
  const Pod& pod = *bound->obj;
  EXPECT_EQ(pod.spec.node_name, "node-1");
  EXPECT_EQ(pod.metadata.uid, before.obj->metadata.uid);  // the same Pod, not a new one
  EXPECT_EQ(pod.metadata.annotations.at("scheduler.example/score"), "7");
  ASSERT_EQ(pod.status.conditions.size(), 1u);
  EXPECT_EQ(pod.status.conditions[0].type, "PodScheduled");
  EXPECT_EQ(pod.status.conditions[0].status, "True");
  EXPECT_EQ(pod.status.conditions[0].last_transition_time.unix_seconds, 1714557605);
  EXPECT_EQ(bound->revision, before.revision + 1);

  auto got = pods_.Get("default", "p");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->obj->spec.node_name, "node-1");
  EXPECT_EQ(got->obj->metadata.resource_version, std::to_string(bound->revision));
}

TEST_F(BindingTest, ReplacesAnUnschedulableCondition) {
  api::core::v1::PodStatus status;
  status.conditions.push_back({.type = "PodScheduled",
                               .status = "False",
                               .last_transition_time = api::meta::Time::FromUnix(10)});
  status.conditions.back().rest->reason = "Unschedulable";
  status.conditions.back().rest->message = "0/3 nodes are available";
  status.conditions.push_back({.type = "Ready", .status = "False"});
  EXPECT_TRUE(SetPodScheduled(status, 20));
  ASSERT_EQ(status.conditions.size(), 2u);
  EXPECT_EQ(status.conditions[0].status, "True");
  EXPECT_EQ(status.conditions[0].rest->reason, "");
  EXPECT_EQ(status.conditions[0].rest->message, "");
  EXPECT_EQ(status.conditions[0].last_transition_time.unix_seconds, 20);
  // Already True: the transition time stays.
  EXPECT_FALSE(SetPodScheduled(status, 30));
  EXPECT_EQ(status.conditions[0].last_transition_time.unix_seconds, 20);
}

TEST_F(BindingTest, AlreadyAssignedIsAConflict) {
  CreatePod("p");
  ASSERT_TRUE(BindPod(pods_, "default", "p", MakeBinding("p", "node-1"), {}).ok());
  auto again = BindPod(pods_, "default", "p", MakeBinding("p", "node-2"), {});
  ASSERT_EQ(again.status().code(), Code::kConflict);
  EXPECT_EQ(again.status().message(),
            "Operation cannot be fulfilled on pods/binding \"p\": pod p is already assigned to "
            "node \"node-1\"");
  EXPECT_EQ(pods_.Get("default", "p")->obj->spec.node_name, "node-1");
}

TEST_F(BindingTest, MissingPodIsNotFound) {
  auto r = BindPod(pods_, "default", "nope", MakeBinding("nope", "node-1"), {});
  ASSERT_EQ(r.status().code(), Code::kNotFound);
  EXPECT_EQ(r.status().message(), "pods \"nope\" not found");
}

TEST_F(BindingTest, BadTargetsAndNames) {
  CreatePod("p");
  auto no_node = BindPod(pods_, "default", "p", MakeBinding("p", ""), {});
  ASSERT_EQ(no_node.status().code(), Code::kInvalid);
  EXPECT_NE(no_node.status().message().find("target.name: Required value"), std::string::npos)
      << no_node.status().message();

  auto b = MakeBinding("p", "node-1");
  b.target.kind = "Pod";
  auto wrong_kind = BindPod(pods_, "default", "p", b, {});
  ASSERT_EQ(wrong_kind.status().code(), Code::kInvalid);
  EXPECT_NE(wrong_kind.status().message().find("target.kind: Unsupported value: \"Pod\""),
            std::string::npos)
      << wrong_kind.status().message();

  b.target.kind.clear();  // an empty kind means Node
  auto other_name = BindPod(pods_, "default", "p", MakeBinding("q", "node-1"), {});
  ASSERT_EQ(other_name.status().code(), Code::kBadRequest);
  EXPECT_TRUE(pods_.Get("default", "p")->obj->spec.node_name.empty());
  EXPECT_TRUE(BindPod(pods_, "default", "p", b, {}).ok());
}

TEST_F(BindingTest, UidAndResourceVersionArePreconditions) {
  auto pod = CreatePod("p");
  auto b = MakeBinding("p", "node-1");
  b.metadata.uid = "not-the-uid";
  auto wrong_uid = BindPod(pods_, "default", "p", b, {});
  ASSERT_EQ(wrong_uid.status().code(), Code::kConflict);
  EXPECT_NE(wrong_uid.status().message().find("Precondition failed: UID in precondition: "
                                              "not-the-uid, UID in object meta: " +
                                              pod.obj->metadata.uid),
            std::string::npos)
      << wrong_uid.status().message();

  b.metadata.uid = pod.obj->metadata.uid;
  b.metadata.resource_version = "999999";
  auto wrong_rv = BindPod(pods_, "default", "p", b, {});
  ASSERT_EQ(wrong_rv.status().code(), Code::kConflict);
  EXPECT_NE(wrong_rv.status().message().find("ResourceVersion in precondition: 999999"),
            std::string::npos);

  b.metadata.resource_version = pod.obj->metadata.resource_version;
  EXPECT_TRUE(BindPod(pods_, "default", "p", b, {}).ok());
}

TEST_F(BindingTest, TerminatingPodIsNotBound) {
  CreatePod("p");
  // An unscheduled pod is deleted at once; a finalizer keeps it around, terminating.
  auto cur = pods_.Get("default", "p");
  Pod with_finalizer = *cur->obj;
  with_finalizer.metadata.finalizers.push_back("example.com/hold");
  ASSERT_TRUE(pods_.Update("default", "p", Subresource::kNone, std::move(with_finalizer), {}).ok());
  ASSERT_TRUE(pods_.Delete("default", "p", {}).ok());
  auto r = BindPod(pods_, "default", "p", MakeBinding("p", "node-1"), {});
  ASSERT_EQ(r.status().code(), Code::kConflict);
  EXPECT_NE(r.status().message().find("is being deleted"), std::string::npos);
}

TEST_F(BindingTest, DryRunWritesNothing) {
  auto pod = CreatePod("p");
  auto r = BindPod(pods_, "default", "p", MakeBinding("p", "node-1"), {.dry_run = true});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->obj->spec.node_name, "node-1");
  auto got = pods_.Get("default", "p");
  EXPECT_TRUE(got->obj->spec.node_name.empty());
  EXPECT_EQ(got->revision, pod.revision);
}

}  // namespace
}  // namespace svcplane::apiserver::registry
