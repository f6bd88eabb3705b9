#include "api/codec/encoded_size_memo.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace svcplane::api::codec {
namespace {

struct Meta {
  std::string uid;
  std::string resource_version;
};
struct Obj {
  Meta metadata;
};

Obj Make(std::string uid, std::string rv) { return Obj{Meta{std::move(uid), std::move(rv)}}; }

TEST(EncodedSizeMemoTest, RemembersTheSizeOfOneObjectVersion) {
  EncodedSizeMemo memo(100);
  Obj a = Make("uid-a", "7");
  EXPECT_FALSE(memo.Find(a).has_value());
  memo.Remember(a, 1234);
  EXPECT_EQ(memo.Find(a), 1234u);
  // The same address holding another version, or another object, is not a match.
  a.metadata.resource_version = "8";
  EXPECT_FALSE(memo.Find(a).has_value());
  a = Make("uid-b", "7");
  EXPECT_FALSE(memo.Find(a).has_value());
}

TEST(EncodedSizeMemoTest, ObjectsNeverStoredAreNotRemembered) {
  EncodedSizeMemo memo(100);
  Obj no_rv = Make("uid", "");
  Obj no_uid = Make("", "5");
  memo.Remember(no_rv, 10);
  memo.Remember(no_uid, 10);
  EXPECT_FALSE(memo.Find(no_rv).has_value());
  EXPECT_FALSE(memo.Find(no_uid).has_value());
  EXPECT_EQ(memo.entries(), 0u);
}

// Bounded by two generations; what is looked up survives, what is not is dropped.
TEST(EncodedSizeMemoTest, GenerationsBoundItAndKeepWhatIsInUse) {
  EncodedSizeMemo memo(10);
  std::vector<Obj> objs;
  objs.reserve(100);
  for (int i = 0; i < 100; ++i) objs.push_back(Make("uid-" + std::to_string(i), "1"));
  memo.Remember(objs[0], 42);
  for (int i = 1; i < 100; ++i) {
    memo.Remember(objs[i], i);
    EXPECT_EQ(memo.Find(objs[0]), 42u) << i;  // in use: kept across every rotation
    EXPECT_LE(memo.entries(), 21u);
  }
  EXPECT_FALSE(memo.Find(objs[1]).has_value());  // not looked up for two generations
  EXPECT_EQ(memo.Find(objs[99]), 99u);
}

}  // namespace
}  // namespace svcplane::api::codec
