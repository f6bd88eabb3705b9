#include "apiserver/http/stream_writer.h"

#include <gtest/gtest.h>

#include <thread>

namespace svcplane::apiserver::http {
namespace {

TEST(StreamWriterTest, BuffersUpToTheLimitThenReportsOverflow) {
  auto w = StreamWriter::Create(StreamHead{.max_buffered_bytes = 10});
  EXPECT_EQ(w->Write("12345678"), WriteResult::kOk);
  EXPECT_EQ(w->Write("abc"), WriteResult::kOverflow);
  EXPECT_EQ(w->buffered_bytes(), 8u);  // the refused write left nothing behind
  EXPECT_EQ(w->Write("ab"), WriteResult::kOk);
  EXPECT_EQ(w->buffered_bytes(), 10u);
}

TEST(StreamWriterTest, CloseRefusesLaterWrites) {
  auto w = StreamWriter::Create();
  EXPECT_EQ(w->Write("x"), WriteResult::kOk);
  w->Close();
  w->Close();
  EXPECT_EQ(w->Write("y"), WriteResult::kEnded);
  EXPECT_FALSE(w->ended());  // ended only once the server has written the terminating chunk
}

TEST(StreamWriterTest, ConcurrentWritersLoseNothing) {
  auto w = StreamWriter::Create(StreamHead{.max_buffered_bytes = 1 << 20});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) ASSERT_EQ(w->Write("abcd"), WriteResult::kOk);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(w->buffered_bytes(), 4u * 4 * 1000);
}

}  // namespace
}  // namespace svcplane::apiserver::http
