#include "apiserver/http/internal/piece_ahead.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>

namespace svcplane::apiserver::http::internal {
namespace {

// `count` appends of "<i>;" each, then the end.
BodySource Counting(int count, std::shared_ptr<int> keepalive = nullptr) {
  return [count, i = 0, keepalive](std::string* out) mutable {
    if (i == count) return false;
    *out += std::to_string(i++) + ";";
    return true;
  };
}

TEST(PieceAheadTest, PiecesComeInOrderWithTheirPrefixUntilTheBodyEnds) {
  PieceAhead ahead(Counting(7), 2, 4);  // pieces of at least 4 bytes after 2 placeholder bytes
  std::string all;
  std::string piece;
  for (bool more = true; more;) {
    ahead.Build();
    auto taken = ahead.Take(&piece, [] { FAIL() << "the piece was built already"; });
    ASSERT_TRUE(taken.has_value());
    more = *taken;
    ASSERT_GE(piece.size(), 2u);
    EXPECT_EQ(piece.substr(0, 2), "00");
    all += piece.substr(2);
  }
  EXPECT_EQ(all, "0;1;2;3;4;5;6;");
}

TEST(PieceAheadTest, TakeBeforeTheBuildEndsWaitsAndIsCalledBackOnce) {
  PieceAhead ahead(Counting(100), 0, 1 << 20);
  std::string piece;
  int called = 0;
  EXPECT_FALSE(ahead.Take(&piece, [&] { ++called; }).has_value());
  std::thread worker([&] { ahead.Build(); });
  worker.join();
  EXPECT_EQ(called, 1);
  auto taken = ahead.Take(&piece, [] { FAIL() << "the piece was built already"; });
  ASSERT_TRUE(taken.has_value());
  EXPECT_FALSE(*taken);  // the whole body fit in the one piece
  EXPECT_EQ(piece.substr(0, 6), "0;1;2;");
  // The waiter ran once only: building again (nothing left) calls nobody.
  ahead.Build();
  EXPECT_EQ(called, 1);
}

TEST(PieceAheadTest, TheSourceIsReleasedWhenTheBodyEndsAndBuffersAreReused) {
  auto held = std::make_shared<int>(0);
  PieceAhead ahead(Counting(1000, held), 0, 64);
  std::string piece;
  ahead.Build();
  ASSERT_TRUE(ahead.Take(&piece, nullptr).value());
  EXPECT_GT(held.use_count(), 1);
  // The next build fills the buffer the last Take handed back.
  piece.reserve(4096);
  const char* handed_back = piece.data();
  ahead.Build();
  ASSERT_TRUE(ahead.Take(&piece, nullptr).value());
  ahead.Build();
  std::string third;
  ASSERT_TRUE(ahead.Take(&third, nullptr).value());
  EXPECT_EQ(third.data(), handed_back);
  while (true) {
    ahead.Build();
    if (!ahead.Take(&piece, nullptr).value()) break;
  }
  EXPECT_EQ(held.use_count(), 1);  // what the source captured is gone with it
}

}  // namespace
}  // namespace svcplane::apiserver::http::internal
