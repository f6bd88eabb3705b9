#include "apiserver/registry/object_memo.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "api/core/v1/pod.h"

namespace svcplane::apiserver::registry {
namespace {

using api::core::v1::Pod;

storage::KeyValue PodAt(storage::Revision revision, std::string_view name) {
  return storage::KeyValue{"/registry/pods/default/a",
                           std::make_shared<const std::string>(
                               R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":")" +
                               std::string(name) + R"(","namespace":"default"}})"),
                           3, revision};
}

// Every reader of one revision must get the same shared object (informers and clients rely on
// it), also when several threads decode that revision at once, e.g. a write's response and the
// watch event of the same write.
TEST(ObjectMemoTest, ConcurrentDecodesOfOneRevisionShareOneObject) {
  for (int round = 0; round < 50; ++round) {
    ObjectMemo<Pod> memo;
    const storage::KeyValue kv = PodAt(10 + round, "a");
    std::vector<const Pod*> got(8);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < got.size(); ++i) {
      threads.emplace_back([&, i] {
        auto obj = memo.Materialize(kv);
        ASSERT_TRUE(obj.ok());
        got[i] = obj->obj.get();
      });
    }
    for (auto& t : threads) t.join();
    auto later = memo.Materialize(kv);
    ASSERT_TRUE(later.ok());
    for (const Pod* p : got) EXPECT_EQ(p, later->obj.get()) << "round " << round;
  }
}

TEST(ObjectMemoTest, AnOlderRevisionDoesNotReplaceANewerOne) {
  ObjectMemo<Pod> memo;
  auto newer = memo.Materialize(PodAt(20, "a"));
  ASSERT_TRUE(newer.ok());
  auto older = memo.Materialize(PodAt(10, "a"));  // e.g. a watch replaying history
  ASSERT_TRUE(older.ok());
  EXPECT_EQ(older->revision, 10);
  auto again = memo.Materialize(PodAt(20, "a"));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->obj.get(), newer->obj.get());
}

// A write hands the memo the object it has just encoded: materializing those very bytes (its
// answer or its watch event) takes that object instead of decoding. The bytes here do not
// decode at all, so only the expected object can be the answer.
TEST(ObjectMemoTest, ExpectedObjectIsTakenInsteadOfDecodingItsBytes) {
  ObjectMemo<Pod> memo;
  auto bytes = std::make_shared<const std::string>("not json");
  Pod pod;
  pod.metadata.name = "written";
  pod.metadata.resource_version = "4";  // what the writer had: replaced by the revision
  memo.Expect(bytes, pod);
  const storage::KeyValue kv{"/registry/pods/default/written", bytes, 9, 9};
  auto obj = memo.Materialize(kv);
  ASSERT_TRUE(obj.ok()) << obj.status().ToString();
  EXPECT_EQ(obj->obj->metadata.name, "written");
  EXPECT_EQ(obj->obj->metadata.resource_version, "9");
  EXPECT_FALSE(memo.Unexpect(bytes.get()).has_value());  // taken
  // Later readers of the revision share the object.
  auto again = memo.Materialize(kv);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->obj.get(), obj->obj.get());
}

TEST(ObjectMemoTest, UnexpectHandsBackAnObjectNobodyTook) {
  ObjectMemo<Pod> memo;
  auto bytes = std::make_shared<const std::string>("{}");
  Pod pod;
  pod.metadata.name = "failed-write";
  memo.Expect(bytes, pod);
  // Other bytes (equal or not) do not take it: only the very value the writer stored.
  const storage::KeyValue other = PodAt(5, "other");
  auto obj = memo.Materialize(other);
  ASSERT_TRUE(obj.ok());
  EXPECT_EQ(obj->obj->metadata.name, "other");
  auto back = memo.Unexpect(bytes.get());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->metadata.name, "failed-write");
  EXPECT_FALSE(memo.Unexpect(bytes.get()).has_value());
}

// Entries live in shards by key: each of many keys is still found again (the same shared
// object), and forgetting one key drops only that key's entry.
TEST(ObjectMemoTest, ManyKeysAreEachRememberedAndForgottenAlone) {
  ObjectMemo<Pod> memo;
  std::vector<storage::KeyValue> kvs;
  std::vector<const Pod*> first;
  for (int i = 0; i < 1000; ++i) {
    const std::string name = "p" + std::to_string(i);
    kvs.push_back(storage::KeyValue{"/registry/pods/default/" + name,
                                    std::make_shared<const std::string>(
                                        R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":")" +
                                        name + R"(","namespace":"default"}})"),
                                    5, 5});
    auto obj = memo.Materialize(kvs.back());
    ASSERT_TRUE(obj.ok());
    first.push_back(obj->obj.get());
  }
  std::vector<std::shared_ptr<const Pod>> held;  // keeps forgotten objects' addresses unique
  for (int i = 0; i < 1000; i += 2) {
    auto obj = memo.Materialize(kvs[i]);
    held.push_back(obj->obj);
    memo.Forget(kvs[i].key);
  }
  for (int i = 0; i < 1000; ++i) {
    auto obj = memo.Materialize(kvs[i]);
    ASSERT_TRUE(obj.ok());
    EXPECT_EQ(obj->obj->metadata.name, "p" + std::to_string(i));
    if (i % 2 == 0) {
      EXPECT_NE(obj->obj.get(), first[i]) << "forgotten key " << i << " was still remembered";
    } else {
      EXPECT_EQ(obj->obj.get(), first[i]) << "key " << i << " was decoded again";
    }
  }
}

}  // namespace
}  // namespace svcplane::apiserver::registry
