// The registry's admission hook (Registry::SetAdmission): when it runs, what it sees, and that
// a refusal stores nothing.

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "apiserver/registry/registry.h"
#include "storage/memory/memory_store.h"

namespace svcplane::apiserver::registry {
namespace {

using api::authentication::v1::UserInfo;
using api::core::v1::Pod;
using api::core::v1::Service;

// What one call of the hook saw, copied out.
template <typename T>
struct Seen {
  AdmissionOperation operation;
  std::string user;
  std::string ns;
  std::string name;
  std::string path_name;
  Subresource subresource;
  std::optional<T> object;
  std::optional<T> old;
};

template <typename T>
class Recorder {
 public:
  typename Registry<T>::Admit Hook() {
    return [this](const AdmissionRequest<T>& a) -> Status {
      Seen<T> s{a.operation,
                a.user.username,
                std::string(a.ns),
                std::string(a.name),
                std::string(a.path_name),
                a.subresource,
                std::nullopt,
                std::nullopt};
      if (a.object) s.object = *a.object;
      if (a.old) s.old = *a.old;
      seen.push_back(std::move(s));
      return refuse ? Status(Code::kForbidden, "refused") : Status::Ok();
    };
  }
  std::vector<Seen<T>> seen;
  bool refuse = false;
};

class AdmissionTest : public ::testing::Test {
 protected:
  RegistryContext Ctx() {
    RegistryContext ctx;
    ctx.store = &store_;
    ctx.now_micros = [] { return int64_t{1714557600'000000}; };
    // A "patch" here is the whole new document: enough to show the hook sees the result.
    ctx.apply_patch = [](std::string_view, std::string_view, std::string_view,
                         std::string_view body) -> Result<std::string> {
      return std::string(body);
    };
    return ctx;
  }

  static Pod MakePod(std::string name) {
    Pod p;
    p.metadata.name = std::move(name);
    p.metadata.labels["app"] = "web";
    p.spec.containers.push_back({.name = "c", .image = "nginx:1.25"});
    return p;
  }

  static Service MakeService(std::string name) {
    Service s;
    s.metadata.name = std::move(name);
    s.spec.ports.push_back({.name = "http", .port = 80});
    return s;
  }

  storage::memory::MemoryStore store_;
  UserInfo jane_{"jane", "u-jane", {"dev", "system:authenticated"}, {}};
};

TEST_F(AdmissionTest, CreateSeesTheDefaultedObjectAndARefusalStoresNothing) {
  Registry<Service> services(Ctx());
  Recorder<Service> rec;
  services.SetAdmission(rec.Hook());
  EXPECT_TRUE(services.admits());
  rec.refuse = true;
  auto created = services.Create("default", MakeService("web"), {.user = &jane_});
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.status().code(), Code::kForbidden);
  EXPECT_EQ(created.status().message(), "refused");
  EXPECT_EQ(services.Get("default", "web").status().code(), Code::kNotFound);
  ASSERT_EQ(rec.seen.size(), 1u);
  const auto& s = rec.seen[0];
  EXPECT_EQ(s.operation, AdmissionOperation::kCreate);
  EXPECT_EQ(s.user, "jane");
  EXPECT_EQ(s.ns, "default");
  EXPECT_EQ(s.name, "web");
  EXPECT_EQ(s.path_name, "");
  ASSERT_TRUE(s.object);
  EXPECT_FALSE(s.old);
  EXPECT_EQ(s.object->spec.type, "ClusterIP");  // defaulted before admission
  EXPECT_TRUE(s.object->metadata.uid.empty());  // not prepared yet

  rec.refuse = false;
  ASSERT_TRUE(services.Create("default", MakeService("web"), {.user = &jane_}).ok());
  EXPECT_TRUE(services.Get("default", "web").ok());
}

TEST_F(AdmissionTest, WritesWithoutAUserAreNotAdmitted) {
  Registry<Pod> pods(Ctx());
  Recorder<Pod> rec;
  rec.refuse = true;
  pods.SetAdmission(rec.Hook());
  auto created = pods.Create("default", MakePod("p"), {});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Pod changed = *created->obj;
  changed.metadata.labels["x"] = "y";
  ASSERT_TRUE(pods.Update("default", "p", Subresource::kNone, changed, {}).ok());
  ASSERT_TRUE(pods.Delete("default", "p", {}).ok());
  EXPECT_TRUE(rec.seen.empty());
}

TEST_F(AdmissionTest, RefusedUpdatePatchAndDeleteLeaveTheStoredObjectUnchanged) {
  Registry<Pod> pods(Ctx());
  Recorder<Pod> rec;
  pods.SetAdmission(rec.Hook());
  ASSERT_TRUE(pods.Create("default", MakePod("p"), {}).ok());
  auto before = pods.Get("default", "p");
  ASSERT_TRUE(before.ok());
  rec.refuse = true;

  Pod changed = *before->obj;
  changed.metadata.labels["app"] = "db";
  auto updated = pods.Update("default", "p", Subresource::kNone, changed, {.user = &jane_});
  EXPECT_EQ(updated.status().code(), Code::kForbidden);
  ASSERT_EQ(rec.seen.size(), 1u);
  EXPECT_EQ(rec.seen[0].operation, AdmissionOperation::kUpdate);
  EXPECT_EQ(rec.seen[0].subresource, Subresource::kNone);
  EXPECT_EQ(rec.seen[0].path_name, "p");
  ASSERT_TRUE(rec.seen[0].object && rec.seen[0].old);
  EXPECT_EQ(rec.seen[0].object->metadata.labels.at("app"), "db");
  EXPECT_EQ(rec.seen[0].old->metadata.labels.at("app"), "web");

  std::string doc = api::codec::EncodeJson(changed);
  auto patched = pods.Patch("default", "p", Subresource::kStatus, "application/merge-patch+json",
                            doc, {.user = &jane_});
  EXPECT_EQ(patched.status().code(), Code::kForbidden);
  ASSERT_EQ(rec.seen.size(), 2u);
  EXPECT_EQ(rec.seen[1].operation, AdmissionOperation::kUpdate);
  EXPECT_EQ(rec.seen[1].subresource, Subresource::kStatus);
  EXPECT_EQ(rec.seen[1].object->metadata.labels.at("app"), "db");  // the patched object

  auto deleted = pods.Delete("default", "p", {.user = &jane_});
  EXPECT_EQ(deleted.status().code(), Code::kForbidden);
  ASSERT_EQ(rec.seen.size(), 3u);
  EXPECT_EQ(rec.seen[2].operation, AdmissionOperation::kDelete);
  EXPECT_FALSE(rec.seen[2].object);
  ASSERT_TRUE(rec.seen[2].old);
  EXPECT_EQ(rec.seen[2].old->metadata.name, "p");

  auto after = pods.Get("default", "p");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->revision, before->revision);
  EXPECT_EQ(after->json.str(), before->json.str());

  rec.refuse = false;
  EXPECT_TRUE(pods.Update("default", "p", Subresource::kNone, changed, {.user = &jane_}).ok());
  EXPECT_TRUE(pods.Delete("default", "p", {.user = &jane_}).ok());
}

TEST_F(AdmissionTest, CreateOnUpdateIsAdmittedAsACreateWithThePathName) {
  Registry<Service> services(Ctx());
  Recorder<Service> rec;
  services.SetAdmission(rec.Hook());
  bool created = false;
  auto put = services.Update("default", "web", Subresource::kNone, MakeService("web"),
                             {.user = &jane_}, &created);
  ASSERT_TRUE(put.ok()) << put.status().ToString();
  EXPECT_TRUE(created);
  ASSERT_EQ(rec.seen.size(), 1u);
  EXPECT_EQ(rec.seen[0].operation, AdmissionOperation::kCreate);
  EXPECT_EQ(rec.seen[0].path_name, "web");
  EXPECT_FALSE(rec.seen[0].old);
}

}  // namespace
}  // namespace svcplane::apiserver::registry
