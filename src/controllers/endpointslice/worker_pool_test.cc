#include "controllers/endpointslice/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>

namespace svcplane::controllers::endpointslice {
namespace {

std::unique_ptr<KeyQueue> FastQueue() {
  return std::make_unique<KeyQueue>(client::NewControllerRateLimiter<std::string>(
      RealClock::Get(), std::chrono::microseconds(100), std::chrono::milliseconds(2)));
}

TEST(KeyWorkerPoolTest, RetriesThenDropsAfterMaxRetries) {
  auto queue = FastQueue();
  std::atomic<int> calls{0};
  KeyWorkerPool pool(
      "test", *queue,
      [&](const std::string&) {
        ++calls;
        return InternalError("boom");
      },
      /*max_retries=*/3);
  queue->Add("ns/a");
  // Initial attempt plus three retries, then the key is dropped and forgotten.
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(pool.ProcessNextItem());
  EXPECT_EQ(calls.load(), 4);
  EXPECT_EQ(pool.DroppedForTest(), 1);
  EXPECT_EQ(queue->NumRequeues("ns/a"), 0);
  EXPECT_EQ(queue->Len(), 0);
  EXPECT_EQ(queue->WaitingLen(), 0);
}

TEST(KeyWorkerPoolTest, SuccessForgetsBackoff) {
  auto queue = FastQueue();
  int calls = 0;
  KeyWorkerPool pool(
      "test", *queue,
      [&](const std::string&) {
        return ++calls == 1 ? InternalError("first fails") : Status::Ok();
      },
      15);
  queue->Add("ns/a");
  ASSERT_TRUE(pool.ProcessNextItem());
  EXPECT_EQ(queue->NumRequeues("ns/a"), 1);
  ASSERT_TRUE(pool.ProcessNextItem());  // the retry, after its backoff
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(queue->NumRequeues("ns/a"), 0);
  EXPECT_EQ(pool.DroppedForTest(), 0);
}

TEST(KeyWorkerPoolTest, WorkersWaitForCachesThenRunOnReadyOnce) {
  auto queue = FastQueue();
  std::mutex mu;
  std::map<std::string, int> synced;
  std::atomic<bool> ready{false};
  std::atomic<int> on_ready_calls{0};
  KeyWorkerPool pool(
      "test", *queue,
      [&](const std::string& key) {
        std::lock_guard<std::mutex> l(mu);
        ++synced[key];
        return Status::Ok();
      },
      15);
  pool.Start(
      3, [&] { return ready.load(); },
      [&] {
        ++on_ready_calls;
        queue->Add("ns/from-on-ready");
      });
  queue->Add("ns/a");
  queue->Add("ns/b");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(pool.SyncsForTest(), 0);  // caches not synced yet
  ready = true;
  for (int i = 0; i < 500 && pool.SyncsForTest() < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pool.Shutdown();
  EXPECT_EQ(on_ready_calls.load(), 1);
  std::lock_guard<std::mutex> l(mu);
  EXPECT_EQ(synced,
            (std::map<std::string, int>{{"ns/a", 1}, {"ns/b", 1}, {"ns/from-on-ready", 1}}));
}

TEST(KeyWorkerPoolTest, ShutdownWhileWaitingForCaches) {
  auto queue = FastQueue();
  KeyWorkerPool pool(
      "test", *queue, [](const std::string&) { return Status::Ok(); }, 15);
  pool.Start(2, [] { return false; });
  pool.Shutdown();  // must not hang
  EXPECT_EQ(pool.SyncsForTest(), 0);
}

}  // namespace
}  // namespace svcplane::controllers::endpointslice
