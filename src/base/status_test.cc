#include "base/status.h"

#include <gtest/gtest.h>

#include "base/result.h"

namespace svcplane {
namespace {

Result<int> ParsePositive(int v) {
  if (v <= 0) return InvalidError("must be positive");
  return v;
}

TEST(StatusTest, CodeNamesFollowKubernetesReasons) {
  EXPECT_EQ(CodeName(Code::kGone), "Expired");
  EXPECT_EQ(CodeName(Code::kUnavailable), "ServiceUnavailable");
  EXPECT_EQ(NotFoundError("x").ToString(), "NotFound: x");
}

TEST(ResultTest, CarriesValueOrError) {
  auto ok = ParsePositive(3);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 3);
  auto bad = ParsePositive(-1);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kInvalid);
}

TEST(ResultDeathTest, ValueOfErrorAborts) {
  auto bad = ParsePositive(-1);
  EXPECT_DEATH((void)bad.value(), "value\\(\\) on error Result");
}

}  // namespace
}  // namespace svcplane
