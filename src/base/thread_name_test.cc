#include "base/thread_name.h"

#include <gtest/gtest.h>

#include <thread>

namespace svcplane {
namespace {

TEST(ThreadNameTest, NamesTheCallingThreadAndCutsLongNames) {
  std::string short_name, long_name;
  std::thread([&] {
    NameThisThread("svc-commit");
    short_name = ThisThreadName();
    NameThisThread("a-name-longer-than-fifteen-bytes");
    long_name = ThisThreadName();
  }).join();
  EXPECT_EQ(short_name, "svc-commit");
  EXPECT_EQ(long_name, "a-name-longer-t");
}

}  // namespace
}  // namespace svcplane
