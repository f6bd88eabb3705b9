#include "apiserver/server/default_service_accounts.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "storage/memory/memory_store.h"

namespace svcplane::apiserver::server {
namespace {

using api::core::v1::Namespace;
using api::core::v1::ServiceAccount;

class DefaultServiceAccountsTest : public ::testing::Test {
 protected:
  registry::RegistryContext Ctx() {
    registry::RegistryContext ctx;
    ctx.store = &store_;
    ctx.now_micros = [] { return int64_t{1714557600'000000}; };
    ctx.check_namespace = [](std::string_view) { return Status::Ok(); };
    return ctx;
  }

  Status CreateNamespace(const std::string& name) {
    Namespace ns;
    ns.metadata.name = name;
    return namespaces_.Create("", std::move(ns), {}).status();
  }

  // The uid of ns's default account once it exists, or "" after 5 s.
  std::string WaitForDefault(const std::string& ns) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < deadline) {
      auto got = accounts_.Get(ns, "default");
      if (got.ok()) return got->obj->metadata.uid;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return "";
  }

  storage::memory::MemoryStore store_;
  registry::Registry<Namespace> namespaces_{Ctx()};
  registry::Registry<ServiceAccount> accounts_{Ctx()};
};

// Namespaces there at the start and created later get one; a deleted one comes back.
TEST_F(DefaultServiceAccountsTest, CreatesAndRecreates) {
  ASSERT_TRUE(CreateNamespace("before").ok());
  DefaultServiceAccounts controller(&namespaces_, &accounts_);
  controller.Start();
  const std::string first = WaitForDefault("before");
  EXPECT_FALSE(first.empty());
  ASSERT_TRUE(CreateNamespace("after").ok());
  EXPECT_FALSE(WaitForDefault("after").empty());

  ASSERT_TRUE(accounts_.Delete("before", "default", {}).ok());
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  std::string again;
  while (std::chrono::steady_clock::now() < deadline) {
    again = WaitForDefault("before");
    if (!again.empty() && again != first) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_FALSE(again.empty());
  EXPECT_NE(again, first);
  controller.Stop();
}

// Ensure is idempotent and leaves missing and terminating namespaces alone.
TEST_F(DefaultServiceAccountsTest, EnsureSkipsMissingAndTerminatingNamespaces) {
  DefaultServiceAccounts controller(&namespaces_, &accounts_);  // not started
  EXPECT_TRUE(controller.Ensure("nowhere").ok());
  EXPECT_FALSE(accounts_.Get("nowhere", "default").ok());

  ASSERT_TRUE(CreateNamespace("live").ok());
  EXPECT_TRUE(controller.Ensure("live").ok());
  EXPECT_TRUE(controller.Ensure("live").ok());  // already there
  EXPECT_TRUE(accounts_.Get("live", "default").ok());

  // Deleting a namespace leaves it Terminating until its finalizer is removed.
  ASSERT_TRUE(CreateNamespace("ending").ok());
  ASSERT_TRUE(namespaces_.Delete("", "ending", {}).ok());
  auto got = namespaces_.Get("", "ending");
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_TRUE(static_cast<bool>(got->obj->metadata.deletion_timestamp));
  EXPECT_TRUE(controller.Ensure("ending").ok());
  EXPECT_FALSE(accounts_.Get("ending", "default").ok());
}

}  // namespace
}  // namespace svcplane::apiserver::server
