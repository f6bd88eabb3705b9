#include "client/testing/fake_clientset.h"

#include <gtest/gtest.h>

namespace svcplane::client::testing {
namespace {

using api::coordination::v1::Lease;
using api::core::v1::Pod;

Lease MakeLease(std::string name) {
  Lease l;
  l.metadata.namespace_ = "kube-system";
  l.metadata.name = std::move(name);
  return l;
}

TEST(FakeResourceClientTest, TracksObjectsAndChecksResourceVersions) {
  FakeResourceClient<Lease> leases;
  auto created = leases.Create(MakeLease("a"));
  ASSERT_TRUE(created.ok());
  EXPECT_FALSE((*created)->metadata.uid.empty());
  EXPECT_EQ(leases.Create(MakeLease("a")).status().code(), Code::kAlreadyExists);
  Lease stale = **created;
  Lease fresh = **created;
  fresh.spec.holder_identity = "me";
  ASSERT_TRUE(leases.Update(fresh).ok());
  EXPECT_EQ(leases.Update(stale).status().code(), Code::kConflict);
  auto got = leases.Get("kube-system", "a");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)->spec.holder_identity, "me");
  EXPECT_EQ(leases.List("").value().items.size(), 1u);
  ASSERT_TRUE(leases.Delete("kube-system", "a").ok());
  EXPECT_EQ(leases.Get("kube-system", "a").status().code(), Code::kNotFound);
  std::vector<std::string> verbs;
  for (const auto& a : leases.Actions()) verbs.push_back(a.verb);
  EXPECT_EQ(verbs, (std::vector<std::string>{"create", "create", "update", "update", "get", "list",
                                             "delete", "get"}));
}

TEST(FakeResourceClientTest, MergePatchesAndReactorsFailCalls) {
  FakeResourceClient<Lease> leases;
  ASSERT_TRUE(leases.Create(MakeLease("a")).ok());
  auto patched =
      leases.Patch("kube-system", "a", PatchType::kMerge, R"({"spec":{"holderIdentity":"p"}})");
  ASSERT_TRUE(patched.ok()) << patched.status().ToString();
  EXPECT_EQ((*patched)->spec.holder_identity, "p");
  leases.SetReactor([](const Action& a) -> std::optional<Status> {
    if (a.verb == "get") return UnavailableError("down");
    return std::nullopt;
  });
  EXPECT_EQ(leases.Get("kube-system", "a").status().code(), Code::kUnavailable);
  EXPECT_TRUE(leases.List("").ok());
}

TEST(FakeResourceClientTest, UnscriptedWatchIsRefused) {
  FakeResourceClient<Pod> pods;
  CancelToken cancel;
  EXPECT_EQ(pods.Watch(
                    "", {}, [](WatchEvent<Pod>) { return true; }, cancel)
                .code(),
            Code::kMethodNotAllowed);
}

TEST(FakeResourceClientTest, ScriptedListAndWatchAnswerInOrderThenRunOut) {
  FakeResourceClient<Pod> pods;
  ASSERT_TRUE(pods.Create([] {
                    Pod p;
                    p.metadata.namespace_ = "default";
                    p.metadata.name = "stored";
                    return p;
                  }())
                  .ok());
  pods.AddList([](const ListOptions&) -> Result<ObjectList<Pod>> {
    ObjectList<Pod> l;
    l.resource_version = "7";
    return l;
  });
  pods.AddWatch([](const ListOptions& o, const WatchEventHandler<Pod>&, CancelToken&) {
    return GoneError("too old: " + o.resource_version);
  });
  ListOptions opts;
  opts.resource_version = "7";
  auto list = pods.List("", opts);
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->resource_version, "7");
  EXPECT_TRUE(list->items.empty());  // the script, not the stored Pod
  EXPECT_EQ(pods.List("").status().code(), Code::kUnavailable);
  CancelToken cancel;
  auto handler = [](WatchEvent<Pod>) { return true; };
  EXPECT_EQ(pods.Watch("", opts, handler, cancel).message(), "too old: 7");
  cancel.Cancel();
  EXPECT_TRUE(pods.Watch("", opts, handler, cancel).ok());  // quiet until cancelled
  EXPECT_EQ(pods.list_calls().size(), 2u);
  EXPECT_EQ(pods.watch_calls().size(), 2u);
  EXPECT_EQ(pods.watch_calls()[0].resource_version, "7");
}

TEST(FakeClientsetTest, ForReturnsThePerKindFake) {
  FakeClientset cs;
  ASSERT_TRUE(cs.For<Lease>().Create(MakeLease("x")).ok());
  EXPECT_NE(cs.Leases().Peek("kube-system", "x"), nullptr);
  api::rbac::v1::ClusterRole cr;
  cr.metadata.name = "view";
  ASSERT_TRUE(cs.For<api::rbac::v1::ClusterRole>().Create(cr).ok());
  EXPECT_NE(cs.ClusterRoles().Peek("", "view"), nullptr);
}

// A Clientset that does not override the RBAC accessors answers as a server without them.
class CoreOnlyClientset final : public Clientset {
 public:
  ResourceClient<api::core::v1::Namespace>& Namespaces() override { return f_.Namespaces(); }
  ResourceClient<api::core::v1::Service>& Services() override { return f_.Services(); }
  ResourceClient<Pod>& Pods() override { return f_.Pods(); }
  ResourceClient<api::core::v1::Node>& Nodes() override { return f_.Nodes(); }
  ResourceClient<api::core::v1::Endpoints>& Endpoints() override { return f_.Endpoints(); }
  ResourceClient<api::core::v1::Event>& Events() override { return f_.Events(); }
  ResourceClient<api::discovery::v1::EndpointSlice>& EndpointSlices() override {
    return f_.EndpointSlices();
  }
  ResourceClient<Lease>& Leases() override { return f_.Leases(); }

 private:
  FakeClientset f_;
};

TEST(FakeClientsetTest, UnservedKindsAnswerNotFound) {
  CoreOnlyClientset cs;
  auto list = cs.ClusterRoles().List("");
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.status().code(), Code::kNotFound);
  EXPECT_EQ(list.status().message(), "the server could not find the requested resource");
  EXPECT_EQ(cs.Roles().Delete("demo", "r").code(), Code::kNotFound);
}

}  // namespace
}  // namespace svcplane::client::testing
