#include "client/transport/idle_watchdog.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace svcplane::client::transport {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

constexpr Duration kIdle = 10s;

// Waits in real time for `pred`, which the watchdog thread makes true.
bool Eventually(const std::function<bool()>& pred) {
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(1ms);
  }
  return pred();
}

// The answers of two servers to pings, as a hung or healthy API server would give them.
struct Servers {
  std::atomic<bool> answers[2] = {true, true};
  std::atomic<int> pinged[2] = {0, 0};
  IdleWatchdog::Ping ping() {
    return [this](size_t server) {
      ++pinged[server];
      return answers[server] ? Status::Ok() : Status(Code::kTimeout, "read from s: timeout");
    };
  }
};

TEST(IdleWatchdogTest, QuietStreamOnAnAnsweringServerLivesAndIsPingedEveryReadIdle) {
  FakeClock clock;
  Servers servers;
  IdleWatchdog dog(servers.ping(), kIdle, clock);
  CancelToken cancel;
  auto stream = dog.Track(0, cancel);
  clock.BlockUntilWaiters(1);
  clock.Advance(kIdle);
  ASSERT_TRUE(Eventually([&] { return servers.pinged[0] == 1; }));
  clock.Advance(kIdle);
  ASSERT_TRUE(Eventually([&] { return servers.pinged[0] == 2; }));
  EXPECT_FALSE(stream->dead());
  EXPECT_FALSE(cancel.cancelled());
}

TEST(IdleWatchdogTest, QuietStreamOnASilentServerIsCancelledWithTheReason) {
  FakeClock clock;
  Servers servers;
  servers.answers[0] = false;
  IdleWatchdog dog(servers.ping(), kIdle, clock);
  CancelToken cancel;
  auto stream = dog.Track(0, cancel);
  clock.BlockUntilWaiters(1);
  clock.Advance(kIdle - 1ms);
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(servers.pinged[0], 0) << "pinged before read_idle passed";
  clock.Advance(1ms);
  ASSERT_TRUE(Eventually([&] { return cancel.cancelled(); }));
  EXPECT_TRUE(stream->dead());
  EXPECT_EQ(stream->dead_reason(),
            "no bytes for 10s and the server did not answer a ping: read from s: timeout");
  // Dead streams are not pinged for again while their caller winds down.
  clock.Advance(3 * kIdle);
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(servers.pinged[0], 1);
}

TEST(IdleWatchdogTest, BytesPostponeThePing) {
  FakeClock clock;
  Servers servers;
  servers.answers[0] = false;
  IdleWatchdog dog(servers.ping(), kIdle, clock);
  CancelToken cancel;
  auto stream = dog.Track(0, cancel);
  clock.BlockUntilWaiters(1);
  for (int i = 0; i < 5; ++i) {
    clock.Advance(kIdle / 2);
    stream->Touch();
  }
  clock.Advance(kIdle / 2);
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(servers.pinged[0], 0);
  EXPECT_FALSE(cancel.cancelled());
  clock.Advance(kIdle / 2);  // read_idle after the last byte
  ASSERT_TRUE(Eventually([&] { return cancel.cancelled(); }));
}

TEST(IdleWatchdogTest, OneServerFailingKillsOnlyItsStreamsAndOnePingPerServer) {
  FakeClock clock;
  Servers servers;
  servers.answers[1] = false;
  IdleWatchdog dog(servers.ping(), kIdle, clock);
  CancelToken a1, a2, b1, b2;
  auto sa1 = dog.Track(0, a1);
  auto sa2 = dog.Track(0, a2);
  auto sb1 = dog.Track(1, b1);
  auto sb2 = dog.Track(1, b2);
  clock.BlockUntilWaiters(1);
  clock.Advance(kIdle);
  ASSERT_TRUE(Eventually([&] { return b1.cancelled() && b2.cancelled(); }));
  ASSERT_TRUE(Eventually([&] { return servers.pinged[0] == 1; }));
  EXPECT_EQ(servers.pinged[1], 1);
  EXPECT_EQ(dog.pings(), 2);
  EXPECT_FALSE(a1.cancelled());
  EXPECT_FALSE(a2.cancelled());
  EXPECT_THAT(sb2->dead_reason(), HasSubstr("did not answer a ping"));
}

TEST(IdleWatchdogTest, UntrackedStreamsAreForgotten) {
  FakeClock clock;
  Servers servers;
  servers.answers[0] = false;
  IdleWatchdog dog(servers.ping(), kIdle, clock);
  CancelToken cancel;
  dog.Track(0, cancel).reset();
  clock.BlockUntilWaiters(1);
  clock.Advance(2 * kIdle);
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(servers.pinged[0], 0);
  EXPECT_FALSE(cancel.cancelled());
}

}  // namespace
}  // namespace svcplane::client::transport
