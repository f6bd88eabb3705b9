#include "client/typed/list_decoder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace svcplane::client::typed {
namespace {

// An "item" is a decimal number; "bad" fails to decode.
Result<int> DecodeNumber(std::string_view item) {
  if (item == "bad") return BadRequestError("not a number");
  return std::stoi(std::string(item));
}

std::vector<int> Values(const std::vector<std::shared_ptr<const int>>& items) {
  std::vector<int> out;
  for (const auto& p : items) out.push_back(*p);
  return out;
}

TEST(ListItemDecoderTest, SmallListDecodesOnTheCallingThread) {
  ListItemDecoder<int> d(&DecodeNumber);
  d.Add("1");
  d.Add("22");
  d.Add("333");
  std::vector<std::shared_ptr<const int>> out;
  ASSERT_TRUE(d.Finish(&out).ok());
  EXPECT_EQ(Values(out), (std::vector<int>{1, 22, 333}));
  EXPECT_EQ(d.decoded_elsewhere(), 0u);
}

TEST(ListItemDecoderTest, EmptyList) {
  ListItemDecoder<int> d(&DecodeNumber);
  std::vector<std::shared_ptr<const int>> out;
  ASSERT_TRUE(d.Finish(&out).ok());
  EXPECT_TRUE(out.empty());
}

// Batches of a few bytes: many batches, the queue overflows, both threads decode; the items
// still come back in order.
TEST(ListItemDecoderTest, ManyBatchesKeepTheirOrder) {
  ListItemDecoder<int> d(&DecodeNumber, /*batch_bytes=*/16);
  std::vector<int> want;
  for (int i = 0; i < 20000; ++i) {
    d.Add(std::to_string(i));
    want.push_back(i);
  }
  std::vector<std::shared_ptr<const int>> out;
  ASSERT_TRUE(d.Finish(&out).ok());
  EXPECT_EQ(Values(out), want);
  // (How many batches the decode thread took depends on the scheduler: nothing to assert.)
}

TEST(ListItemDecoderTest, AnUndecodableItemFailsTheList) {
  for (int bad_at : {0, 5, 9999}) {
    ListItemDecoder<int> d(&DecodeNumber, /*batch_bytes=*/32);
    for (int i = 0; i < 10000; ++i) d.Add(i == bad_at ? "bad" : std::to_string(i));
    std::vector<std::shared_ptr<const int>> out;
    Status st = d.Finish(&out);
    EXPECT_EQ(st.code(), Code::kBadRequest) << bad_at;
    EXPECT_EQ(st.message(), "not a number");
    EXPECT_TRUE(out.empty());
  }
}

// Destroyed without Finish (the caller gave up on the list): the decode thread's jobs for it
// find nothing left to do.
TEST(ListItemDecoderTest, DestroyedWithoutFinish) {
  auto d = std::make_unique<ListItemDecoder<int>>(&DecodeNumber, /*batch_bytes=*/8);
  for (int i = 0; i < 1000; ++i) d->Add(std::to_string(i));
  d.reset();
  ListItemDecoder<int> after(&DecodeNumber, /*batch_bytes=*/8);
  for (int i = 0; i < 1000; ++i) after.Add(std::to_string(i));
  std::vector<std::shared_ptr<const int>> out;
  ASSERT_TRUE(after.Finish(&out).ok());
  EXPECT_EQ(out.size(), 1000u);
}

}  // namespace
}  // namespace svcplane::client::typed
