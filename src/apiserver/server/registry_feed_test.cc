#include "apiserver/server/registry_feed.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "api/coordination/v1/lease.h"
#include "storage/memory/memory_store.h"

namespace svcplane::apiserver::server {
namespace {

using api::coordination::v1::Lease;

// What a feed's callbacks built, by name.
struct View {
  std::mutex mu;
  std::map<std::string, std::string> holders;
  int replaces = 0;
};

RegistryFeed<Lease>::Callbacks Into(View& v) {
  return {.replace =
              [&v](std::vector<std::shared_ptr<const Lease>> all) {
                std::lock_guard lock(v.mu);
                v.holders.clear();
                for (auto& l : all) {
                  v.holders[l->metadata.name] = l->spec.holder_identity.value_or("");
                }
                ++v.replaces;
              },
          .upsert =
              [&v](std::shared_ptr<const Lease> l) {
                std::lock_guard lock(v.mu);
                v.holders[l->metadata.name] = l->spec.holder_identity.value_or("");
              },
          .remove =
              [&v](const Lease& l) {
                std::lock_guard lock(v.mu);
                v.holders.erase(l.metadata.name);
              }};
}

Lease MakeLease(std::string name, std::string holder) {
  Lease l;
  l.metadata.name = std::move(name);
  l.spec.holder_identity = std::move(holder);
  return l;
}

class RegistryFeedTest : public ::testing::Test {
 protected:
  registry::RegistryContext Ctx() {
    registry::RegistryContext ctx;
    ctx.store = &store_;
    ctx.now_micros = [] { return int64_t{1714557600'000000}; };
    ctx.check_namespace = [](std::string_view) { return Status::Ok(); };
    return ctx;
  }
  storage::memory::MemoryStore store_;
};

// The state before the start arrives as one replace; every write after it is applied in order,
// and WaitFor(revision of a write) returns only once that write is visible in the view.
TEST_F(RegistryFeedTest, ReplacesThenAppliesEachWriteAndWaitForSeesIt) {
  registry::Registry<Lease> leases(Ctx());
  ASSERT_TRUE(leases.Create("default", MakeLease("a", "x"), {}).ok());
  View view;
  RegistryFeed<Lease> feed(&leases, Into(view));
  feed.Start("test-feed");

  auto b = leases.Create("default", MakeLease("b", "y"), {});
  ASSERT_TRUE(b.ok());
  ASSERT_TRUE(feed.WaitFor(b->revision, std::chrono::seconds(5)));
  {
    std::lock_guard lock(view.mu);
    EXPECT_EQ(view.replaces, 1);
    EXPECT_EQ(view.holders, (std::map<std::string, std::string>{{"a", "x"}, {"b", "y"}}));
  }
  EXPECT_TRUE(feed.synced());

  Lease changed = *b->obj;
  changed.spec.holder_identity = "z";
  auto updated = leases.Update("default", "b", registry::Subresource::kNone, changed, {});
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  auto deleted = leases.Delete("default", "a", {});
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  ASSERT_TRUE(feed.WaitFor(store_.CurrentRevision(), std::chrono::seconds(5)));
  std::lock_guard lock(view.mu);
  EXPECT_EQ(view.holders, (std::map<std::string, std::string>{{"b", "z"}}));
}

TEST_F(RegistryFeedTest, EmptyCollectionIsSyncedAtOnce) {
  registry::Registry<Lease> leases(Ctx());
  View view;
  RegistryFeed<Lease> feed(&leases, Into(view));
  feed.Start("test-feed");
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!feed.synced() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_TRUE(feed.synced());
  std::lock_guard lock(view.mu);
  EXPECT_EQ(view.replaces, 1);
}

}  // namespace
}  // namespace svcplane::apiserver::server
