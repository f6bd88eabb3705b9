#include "storage/etcd/etcd_store.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "storage/etcd/internal/etcd_client.h"
#include "storage/etcd/internal/etcd_watcher.h"
#include "storage/etcd/internal/lease_manager.h"
#include "storage/etcd/testing/etcd_process.h"
#include "storage/testing/store_conformance.h"

namespace svcplane::storage::etcd {
namespace {

using namespace ::svcplane::storage::testing;  // NOLINT: the typed suite's names
using testing::EtcdProcess;
namespace pb = internal::pb;

// Stores "enc:" + the value and refuses to decode anything else: visible in etcd, and
// reversible for any bytes, so a store that applies it must behave as one that does not.
class TaggingCodec final : public ValueCodec {
 public:
  static constexpr std::string_view kTag = "enc:";
  Result<std::shared_ptr<const std::string>> Encode(
      std::string_view, const std::shared_ptr<const std::string>& value) const override {
    return MakeValue(std::string(kTag) + (value ? *value : ""));
  }
  Result<std::shared_ptr<const std::string>> Decode(
      std::string_view key, const std::shared_ptr<const std::string>& stored) const override {
    if (!stored || !stored->starts_with(kTag)) {
      return InternalError("stored object " + std::string(key) + " is not tagged");
    }
    return MakeValue(stored->substr(kTag.size()));
  }
};

// One etcd per test (ctest runs each case as its own process); the store reconnects to the
// same etcd on re-Open, so the backend counts as persistent.
struct EtcdFactory {
  static constexpr bool kPersistent = true;
  static constexpr bool kTrimsHistoryByCount = false;
  std::unique_ptr<Store> Open(const ConformanceOptions& options) {
    if (!etcd) {
      auto started = EtcdProcess::Start();
      EXPECT_TRUE(started.ok()) << started.status().ToString();
      if (!started.ok()) return nullptr;
      etcd = std::move(*started);
    }
    EtcdStoreOptions o;
    o.client.endpoints = etcd->endpoint();
    o.future_wait = options.future_wait;
    o.codec = codec;
    auto s = EtcdStore::Open(std::move(o));
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(*s) : nullptr;
  }
  std::unique_ptr<EtcdProcess> etcd;  // outlives the store: members die after the fixture's
  std::shared_ptr<const ValueCodec> codec;
};

INSTANTIATE_TYPED_TEST_SUITE_P(Etcd, StoreConformance, EtcdFactory);

// The whole contract again with every value going through a codec: what the API server's
// protobuf codec relies on (writes encoded, reads, lists, watch events and deletes decoded).
struct EtcdWithCodecFactory : EtcdFactory {
  EtcdWithCodecFactory() { codec = std::make_shared<TaggingCodec>(); }
};

INSTANTIATE_TYPED_TEST_SUITE_P(EtcdWithCodec, StoreConformance, EtcdWithCodecFactory);

class EtcdStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto started = EtcdProcess::Start();
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    etcd_ = std::move(*started);
    store_ = OpenStore();
    ASSERT_NE(store_, nullptr);
  }

  std::unique_ptr<EtcdStore> OpenStore(std::string endpoints = "") {
    EtcdStoreOptions o;
    o.client.endpoints = endpoints.empty() ? etcd_->endpoint() : endpoints;
    o.future_wait = std::chrono::milliseconds(200);
    auto s = EtcdStore::Open(std::move(o));
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(*s) : nullptr;
  }

  // What etcd holds under `key`, read around the store.
  std::optional<::mvccpb::KeyValue> Raw(const std::string& key) {
    pb::RangeRequest r;
    r.set_key(key);
    auto response = store_->client().Range(r, store_->client().ReadDeadline());
    EXPECT_TRUE(response.ok()) << response.status().ToString();
    if (!response.ok() || response->kvs_size() == 0) return std::nullopt;
    return response->kvs(0);
  }

  std::unique_ptr<EtcdProcess> etcd_;
  std::unique_ptr<EtcdStore> store_;
};

TEST_F(EtcdStoreTest, CodecFormIsWhatEtcdHoldsAndUndecodableValuesAreErrors) {
  EtcdStoreOptions o;
  o.client.endpoints = etcd_->endpoint();
  o.codec = std::make_shared<TaggingCodec>();
  auto coded = EtcdStore::Open(std::move(o));
  ASSERT_TRUE(coded.ok());
  auto watch = (*coded)->Watch("/registry/leases/", store_->CurrentRevision(), {});
  ASSERT_TRUE(watch.ok()) << watch.status().ToString();

  auto created = (*coded)->Create("/registry/leases/ns/a", MakeValue("{\"a\":1}"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(*created->value, "{\"a\":1}");
  EXPECT_EQ(Raw("/registry/leases/ns/a")->value(), "enc:{\"a\":1}");
  EXPECT_EQ(*(*coded)->Get("/registry/leases/ns/a")->value, "{\"a\":1}");

  // Another writer's value that the codec refuses: reads fail with Internal, naming the key.
  ASSERT_TRUE(store_->Create("/registry/leases/ns/b", MakeValue("{\"b\":2}")).ok());
  auto get = (*coded)->Get("/registry/leases/ns/b");
  ASSERT_FALSE(get.ok());
  EXPECT_EQ(get.status().code(), Code::kInternal);
  EXPECT_NE(get.status().message().find("/registry/leases/ns/b"), std::string::npos);
  EXPECT_EQ((*coded)->List({.prefix = "/registry/leases/"}).status().code(), Code::kInternal);

  // The watch delivered the decoded create, then ends at the value it cannot decode.
  std::vector<EventPtr> events;
  Status ended = Status::Ok();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (ended.ok() && std::chrono::steady_clock::now() < deadline) {
    auto next = (*watch)->TryNext();
    if (!next.ok()) {
      ended = next.status();
    } else if (*next) {
      events.push_back(*next);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(*events[0]->kv.value, "{\"a\":1}");
  EXPECT_EQ(ended.code(), Code::kInternal) << ended.ToString();
}

TEST_F(EtcdStoreTest, TtlKeysAreAttachedToSharedLeasesAndExpireInEtcd) {
  EtcdStoreOptions o;
  o.client.endpoints = etcd_->endpoint();
  o.ttl_seconds = [](std::string_view key) -> int64_t {
    if (key.starts_with("/registry/events/")) return 2;  // etcd's minimum TTL
    if (key.starts_with("/registry/slow/")) return 100;  // reuse = 5 s
    return 0;
  };
  auto ttl = EtcdStore::Open(std::move(o));
  ASSERT_TRUE(ttl.ok());
  auto watch = (*ttl)->Watch("/registry/events/", store_->CurrentRevision(), {});
  ASSERT_TRUE(watch.ok());
  ASSERT_TRUE((*ttl)->Create("/registry/events/ns/a", MakeValue("a")).ok());
  auto b = (*ttl)->Create("/registry/events/ns/b", MakeValue("b"));
  ASSERT_TRUE(b.ok());
  ASSERT_TRUE((*ttl)->Create("/registry/pods/ns/p", MakeValue("p")).ok());
  ASSERT_TRUE((*ttl)->Create("/registry/slow/1", MakeValue("1")).ok());
  ASSERT_TRUE((*ttl)->Create("/registry/slow/2", MakeValue("2")).ok());
  EXPECT_NE(Raw("/registry/events/ns/a")->lease(), 0);
  EXPECT_EQ(Raw("/registry/pods/ns/p")->lease(), 0);
  // ttl 2 has no reuse window: each write gets its own lease. ttl 100 shares one.
  EXPECT_NE(Raw("/registry/events/ns/a")->lease(), Raw("/registry/events/ns/b")->lease());
  EXPECT_EQ(Raw("/registry/slow/1")->lease(), Raw("/registry/slow/2")->lease());
  // An update moves the key to a fresh lease, so its expiry counts from the last write.
  const int64_t before = Raw("/registry/events/ns/b")->lease();
  ASSERT_TRUE((*ttl)->Update("/registry/events/ns/b", MakeValue("b2"), b->mod_revision).ok());
  EXPECT_NE(Raw("/registry/events/ns/b")->lease(), before);

  // etcd deletes both events when their leases run out; watchers see the deletes.
  std::set<std::string> deleted;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (deleted.size() < 2 && std::chrono::steady_clock::now() < deadline) {
    auto next = (*watch)->TryNext();
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    if (*next && (*next)->type == WatchEvent::Type::kDelete) {
      deleted.insert((*next)->kv.key);
    } else if (!*next) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  EXPECT_EQ(deleted, (std::set<std::string>{"/registry/events/ns/a", "/registry/events/ns/b"}));
  EXPECT_EQ((*ttl)->Get("/registry/events/ns/a").status().code(), Code::kNotFound);
  EXPECT_TRUE((*ttl)->Get("/registry/pods/ns/p").ok());
}

TEST(EtcdLeaseManagerTest, GrantsTtlPlusUpstreamsReuseWindow) {
  EXPECT_EQ(internal::LeaseManager::GrantSeconds(15), 15);      // int(0.75) = 0
  EXPECT_EQ(internal::LeaseManager::GrantSeconds(3600), 3660);  // 180 capped at 60
  EXPECT_EQ(internal::LeaseManager::GrantSeconds(100), 105);
}

TEST_F(EtcdStoreTest, KeysAndValueBytesPassThroughUnchanged) {
  const std::string key = "/registry/services/specs/default/a";
  const std::string value("k8s\0\x01\xff\n", 7);
  auto created = store_->Create(key, MakeValue(value));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  auto raw = Raw(key);
  ASSERT_TRUE(raw.has_value());
  EXPECT_EQ(raw->value(), value);
  EXPECT_EQ(raw->mod_revision(), created->mod_revision);
  EXPECT_EQ(raw->create_revision(), created->create_revision);
  EXPECT_EQ(raw->version(), 1);
}

TEST_F(EtcdStoreTest, CreateOfAnExistingKeyIsAlreadyExistsAndWritesNothing) {
  auto first = store_->Create("/registry/pods/ns/p", MakeValue("1"));
  ASSERT_TRUE(first.ok());
  auto second = store_->Create("/registry/pods/ns/p", MakeValue("2"));
  EXPECT_EQ(second.status().code(), Code::kAlreadyExists);
  // The failed Txn (MOD==0) took no revision and left the value.
  EXPECT_EQ(store_->CurrentRevision(), first->mod_revision);
  EXPECT_EQ(Raw("/registry/pods/ns/p")->value(), "1");
}

TEST_F(EtcdStoreTest, LostCasIsConflictAndLeavesTheWinner) {
  auto a = store_->Create("/registry/leases/ns/l", MakeValue("a"));
  ASSERT_TRUE(a.ok());
  auto winner = store_->Update("/registry/leases/ns/l", MakeValue("b"), a->mod_revision);
  ASSERT_TRUE(winner.ok());
  EXPECT_EQ(
      store_->Update("/registry/leases/ns/l", MakeValue("c"), a->mod_revision).status().code(),
      Code::kConflict);
  EXPECT_EQ(store_->Delete("/registry/leases/ns/l", a->mod_revision).status().code(),
            Code::kConflict);
  auto raw = Raw("/registry/leases/ns/l");
  EXPECT_EQ(raw->value(), "b");
  EXPECT_EQ(raw->version(), 2);
  EXPECT_EQ(store_->CurrentRevision(), winner->mod_revision);
}

TEST_F(EtcdStoreTest, ListPageCountsTheRestAndContinuesAfterTheLastKey) {
  for (int i = 1; i <= 5; ++i) {
    ASSERT_TRUE(
        store_->Create("/registry/pods/default/p" + std::to_string(i), MakeValue("v")).ok());
  }
  auto page = store_->List({.prefix = "/registry/pods/default/", .limit = 2});
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->items.size(), 2u);
  EXPECT_EQ(page->remaining, 3);
  EXPECT_EQ(page->continue_key, std::string("/registry/pods/default/p2\0", 26));
  auto rest = store_->List({.prefix = "/registry/pods/default/",
                            .start_key = page->continue_key,
                            .revision = page->revision,
                            .match = RevisionMatch::kExact});
  ASSERT_TRUE(rest.ok());
  ASSERT_EQ(rest->items.size(), 3u);
  EXPECT_EQ(rest->items[0].key, "/registry/pods/default/p3");
  EXPECT_TRUE(rest->continue_key.empty());
}

// Compaction by someone else (another server, `etcdctl compact`) is found and honoured.
TEST_F(EtcdStoreTest, CompactionByAnotherClientMakesOldReadsAndWatchesGone) {
  auto a = store_->Create("/registry/x/a", MakeValue("1"));
  ASSERT_TRUE(a.ok());
  auto a2 = store_->Update("/registry/x/a", MakeValue("2"), a->mod_revision);
  ASSERT_TRUE(a2.ok());
  ASSERT_TRUE(store_->Create("/registry/x/b", MakeValue("1")).ok());
  auto other = OpenStore();
  ASSERT_TRUE(other->Compact(a2->mod_revision).ok());

  EXPECT_EQ(store_->CompactedRevision(), a2->mod_revision);
  EXPECT_EQ(store_
                ->List({.prefix = "/registry/x/",
                        .revision = a->mod_revision,
                        .match = RevisionMatch::kExact})
                .status()
                .code(),
            Code::kGone);
  EXPECT_EQ(store_->Watch("/registry/x/", a->mod_revision, {}).status().code(), Code::kGone);
  EXPECT_EQ(store_->Watch("/registry/x/", 0, {}).status().code(), Code::kGone);
  auto w = store_->Watch("/registry/x/", a2->mod_revision, {});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  auto events = Collect(**w, 1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]->kv.key, "/registry/x/b");
}

TEST_F(EtcdStoreTest, WatchDeliversManyWritesInOrderWithPrevValues) {
  const Revision start = store_->CurrentRevision();
  auto w = store_->Watch("/registry/m/", start, {.queue_capacity = 100'000});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  constexpr int kThreads = 4, kPerThread = 250;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::string key = "/registry/m/" + std::to_string(t);
      auto kv = store_->Create(key, MakeValue("0"));
      ASSERT_TRUE(kv.ok());
      for (int i = 1; i < kPerThread; ++i) {
        kv = store_->Update(key, MakeValue(std::to_string(i)), kv->mod_revision);
        ASSERT_TRUE(kv.ok()) << kv.status().ToString();
      }
    });
  }
  for (auto& t : threads) t.join();
  std::map<std::string, int> last;
  Revision rev = start;
  for (int n = 0; n < kThreads * kPerThread; ++n) {
    auto e = (*w)->WaitNext(std::chrono::steady_clock::now() + std::chrono::seconds(10));
    ASSERT_TRUE(e.ok() && *e) << "watch ended or stalled after " << n << " events";
    ASSERT_EQ((*e)->revision(), ++rev) << "gap or reorder";
    auto it = last.find((*e)->kv.key);
    if (it == last.end()) {
      EXPECT_FALSE((*e)->prev.has_value());
    } else {
      ASSERT_TRUE((*e)->prev.has_value());
      EXPECT_EQ(ValueOf(*(*e)->prev), std::to_string(it->second));
    }
    last[(*e)->kv.key] = std::stoi(ValueOf((*e)->kv));
  }
  for (const auto& [key, value] : last) EXPECT_EQ(value, kPerThread - 1) << key;
}

TEST_F(EtcdStoreTest, DeadEndpointInTheListIsSkipped) {
  // Nothing listens on the first endpoint (a port etcd's peer could not be, as it is ours).
  auto store = OpenStore("http://127.0.0.1:1," + etcd_->endpoint());
  ASSERT_NE(store, nullptr);
  for (int i = 0; i < 10; ++i) {
    auto kv = store->Create("/registry/d/" + std::to_string(i), MakeValue("v"));
    ASSERT_TRUE(kv.ok()) << kv.status().ToString();
    ASSERT_TRUE(store->Get("/registry/d/" + std::to_string(i)).ok());
  }
}

TEST_F(EtcdStoreTest, MalformedEndpointsAreRejected) {
  EtcdStoreOptions o;
  o.client.endpoints = "127.0.0.1:2379";
  EXPECT_EQ(EtcdStore::Open(o).status().code(), Code::kBadRequest);
  o.client.endpoints = " , ";
  EXPECT_EQ(EtcdStore::Open(o).status().code(), Code::kBadRequest);
  o.client.endpoints = "https://127.0.0.1:2379";
  o.client.ca_file = "/nonexistent/ca.pem";
  EXPECT_EQ(EtcdStore::Open(o).status().code(), Code::kNotFound);
}

// Events etcd can send but a healthy 3.4 watch should not: the conversion refuses them.
TEST(EtcdWatchEventTest, NonCreateEventWithoutPrevKvIsABrokenWatch) {
  ::mvccpb::Event create;
  create.set_type(::mvccpb::Event::PUT);
  create.mutable_kv()->set_key("/k");
  create.mutable_kv()->set_value("v");
  create.mutable_kv()->set_create_revision(5);
  create.mutable_kv()->set_mod_revision(5);
  create.mutable_kv()->set_version(1);
  auto ok = internal::ToWatchEvent(create);
  ASSERT_TRUE(ok.ok());
  EXPECT_FALSE((*ok)->prev.has_value());

  ::mvccpb::Event update = create;
  update.mutable_kv()->set_mod_revision(6);
  update.mutable_kv()->set_version(2);
  EXPECT_EQ(internal::ToWatchEvent(update).status().code(), Code::kInternal);

  ::mvccpb::Event del;
  del.set_type(::mvccpb::Event::DELETE);
  del.mutable_kv()->set_key("/k");
  del.mutable_kv()->set_mod_revision(7);
  EXPECT_EQ(internal::ToWatchEvent(del).status().code(), Code::kInternal);
  *del.mutable_prev_kv() = update.kv();
  auto deleted = internal::ToWatchEvent(del);
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ((*deleted)->type, WatchEvent::Type::kDelete);
  EXPECT_EQ((*deleted)->revision(), 7);
  EXPECT_EQ(ValueOf((*deleted)->kv), "v");
  EXPECT_EQ((*deleted)->kv.create_revision, 5);
}

}  // namespace
}  // namespace svcplane::storage::etcd
