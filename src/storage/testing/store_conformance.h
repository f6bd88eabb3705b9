#pragma once

// The conformance suite every Store backend passes. A backend test instantiates it with a
// factory type:
//
//   struct MyFactory {
//     static constexpr bool kPersistent = true;  // Open() after Open() sees the same data
//     std::unique_ptr<Store> Open(const ConformanceOptions& options);
//   };
//   INSTANTIATE_TYPED_TEST_SUITE_P(My, StoreConformance, MyFactory);
//
// One factory object lives for one test; Open() may be called again after the previous store
// was destroyed, to test restarts.
//
// Capabilities a factory may declare as `static constexpr bool` members, each true when left
// out (they are traits of the backend, like kPersistent, not options a test could ask for):
//   kTrimsHistoryByCount  the store forgets history by itself once more than
//                         ConformanceOptions::history_max_events events are held. etcd does
//                         not: its history lives until someone compacts it (kube-apiserver's
//                         compactor, every 5 min), so HistoryIsBoundedByCount skips there.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "storage/store.h"

namespace svcplane::storage::testing {

struct ConformanceOptions {
  size_t history_max_events = 100'000;
  std::chrono::milliseconds future_wait{200};
};

inline std::string ValueOf(const KeyValue& kv) { return kv.value ? *kv.value : "<null>"; }

template <typename Factory>
constexpr bool TrimsHistoryByCount() {
  if constexpr (requires { Factory::kTrimsHistoryByCount; }) {
    return Factory::kTrimsHistoryByCount;
  } else {
    return true;
  }
}

// Reads events until `n` arrived or 5 s passed; stops at the terminal error.
inline std::vector<EventPtr> Collect(WatchStream& watch, size_t n, Status* terminal = nullptr) {
  std::vector<EventPtr> out;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (out.size() < n && std::chrono::steady_clock::now() < deadline) {
    auto e = watch.WaitNext(deadline);
    if (!e.ok()) {
      if (terminal) *terminal = e.status();
      break;
    }
    if (*e) out.push_back(*e);
  }
  return out;
}

// True if nothing arrives within `wait`.
inline bool StaysQuiet(WatchStream& watch, std::chrono::milliseconds wait) {
  auto e = watch.WaitNext(std::chrono::steady_clock::now() + wait);
  return e.ok() && *e == nullptr;
}

template <typename Factory>
class StoreConformance : public ::testing::Test {
 protected:
  Store& Open(ConformanceOptions options = {}) {
    store_.reset();
    store_ = factory_.Open(options);
    EXPECT_NE(store_, nullptr);
    return *store_;
  }
  void Close() { store_.reset(); }
  Store& store() { return *store_; }

  KeyValue MustCreate(const std::string& key, const std::string& value) {
    auto r = store_->Create(key, MakeValue(value));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : KeyValue{};
  }

  Factory factory_;
  std::unique_ptr<Store> store_;
};

TYPED_TEST_SUITE_P(StoreConformance);

TYPED_TEST_P(StoreConformance, RevisionsComeFromOneIncreasingCounter) {
  Store& s = this->Open();
  Revision start = s.CurrentRevision();
  KeyValue a = this->MustCreate("/r/a", "1");
  KeyValue b = this->MustCreate("/r/b", "1");
  auto a2 = s.Update("/r/a", MakeValue("2"), a.mod_revision);
  ASSERT_TRUE(a2.ok()) << a2.status().ToString();
  EXPECT_GT(a.mod_revision, start);
  EXPECT_GT(b.mod_revision, a.mod_revision);
  EXPECT_GT(a2->mod_revision, b.mod_revision);
  EXPECT_EQ(a2->create_revision, a.create_revision);
  EXPECT_EQ(s.CurrentRevision(), a2->mod_revision);
  auto got = s.Get("/r/a");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(ValueOf(*got), "2");
  EXPECT_EQ(got->mod_revision, a2->mod_revision);
  EXPECT_EQ(got->create_revision, a.mod_revision);
}

TYPED_TEST_P(StoreConformance, ErrorsAreTyped) {
  Store& s = this->Open();
  KeyValue a = this->MustCreate("/e/a", "1");
  EXPECT_EQ(s.Create("/e/a", MakeValue("x")).status().code(), Code::kAlreadyExists);
  EXPECT_EQ(s.Get("/e/missing").status().code(), Code::kNotFound);
  EXPECT_EQ(s.Update("/e/missing", MakeValue("x"), 1).status().code(), Code::kNotFound);
  EXPECT_EQ(s.Delete("/e/missing", 1).status().code(), Code::kNotFound);
  EXPECT_EQ(s.Update("/e/a", MakeValue("x"), a.mod_revision + 100).status().code(),
            Code::kConflict);
  EXPECT_EQ(s.Delete("/e/a", a.mod_revision - 1).status().code(), Code::kConflict);
  EXPECT_EQ(s.Compact(s.CurrentRevision() + 10).code(), Code::kBadRequest);
  // Rejected writes consumed no revision and changed nothing.
  EXPECT_EQ(s.CurrentRevision(), a.mod_revision);
  EXPECT_EQ(ValueOf(*s.Get("/e/a")), "1");
}

TYPED_TEST_P(StoreConformance, DeleteReturnsLastValueAtDeletionRevision) {
  Store& s = this->Open();
  KeyValue a = this->MustCreate("/d/a", "last");
  auto del = s.Delete("/d/a", a.mod_revision);
  ASSERT_TRUE(del.ok()) << del.status().ToString();
  EXPECT_GT(del->mod_revision, a.mod_revision);
  EXPECT_EQ(ValueOf(*del), "last");
  EXPECT_EQ(s.Get("/d/a").status().code(), Code::kNotFound);
  // Re-creating starts a new life with a new create revision.
  KeyValue again = this->MustCreate("/d/a", "new");
  EXPECT_EQ(again.create_revision, again.mod_revision);
  EXPECT_GT(again.create_revision, del->mod_revision);
}

TYPED_TEST_P(StoreConformance, ConcurrentCasLetsExactlyOneWin) {
  Store& s = this->Open();
  KeyValue a = this->MustCreate("/cas/a", "0");
  std::atomic<int> ok{0}, conflict{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      auto r = s.Update("/cas/a", MakeValue(std::to_string(i)), a.mod_revision);
      if (r.ok()) ++ok;
      if (r.status().code() == Code::kConflict) ++conflict;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 1);
  EXPECT_EQ(conflict.load(), 7);
  EXPECT_EQ(s.CurrentRevision(), a.mod_revision + 1);
}

TYPED_TEST_P(StoreConformance, ListIsSortedPrefixScopedAndCarriesRevision) {
  Store& s = this->Open();
  auto empty = s.List({.prefix = "/l/"});
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->items.empty());
  EXPECT_EQ(empty->revision, s.CurrentRevision());
  this->MustCreate("/l/c", "c");
  this->MustCreate("/l/a", "a");
  this->MustCreate("/lx", "outside");
  this->MustCreate("/l/b", "b");
  auto all = s.List({.prefix = "/l/"});
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->items.size(), 3u);
  EXPECT_EQ(all->items[0].key, "/l/a");
  EXPECT_EQ(all->items[1].key, "/l/b");
  EXPECT_EQ(all->items[2].key, "/l/c");
  EXPECT_EQ(all->revision, s.CurrentRevision());
  EXPECT_TRUE(all->continue_key.empty());
  EXPECT_EQ(all->remaining, 0);
  auto empty2 = s.List({.prefix = "/nothing/"});
  ASSERT_TRUE(empty2.ok());
  EXPECT_EQ(empty2->revision, s.CurrentRevision());
}

TYPED_TEST_P(StoreConformance, ListAtExactRevisionShowsThatSnapshot) {
  Store& s = this->Open();
  KeyValue a = this->MustCreate("/x/a", "a1");
  KeyValue b = this->MustCreate("/x/b", "b1");
  const Revision snap = s.CurrentRevision();
  ASSERT_TRUE(s.Update("/x/a", MakeValue("a2"), a.mod_revision).ok());
  ASSERT_TRUE(s.Delete("/x/b", b.mod_revision).ok());
  this->MustCreate("/x/c", "c1");
  auto old = s.List({.prefix = "/x/", .revision = snap, .match = RevisionMatch::kExact});
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(old->revision, snap);
  ASSERT_EQ(old->items.size(), 2u);
  EXPECT_EQ(ValueOf(old->items[0]), "a1");
  EXPECT_EQ(old->items[0].mod_revision, a.mod_revision);
  EXPECT_EQ(old->items[1].key, "/x/b");
  auto now = s.List({.prefix = "/x/", .revision = snap, .match = RevisionMatch::kNotOlderThan});
  ASSERT_TRUE(now.ok());
  EXPECT_GE(now->revision, s.CurrentRevision());
  ASSERT_EQ(now->items.size(), 2u);
  EXPECT_EQ(ValueOf(now->items[0]), "a2");
  EXPECT_EQ(now->items[1].key, "/x/c");
}

TYPED_TEST_P(StoreConformance, ListAtFutureRevisionTimesOut) {
  Store& s = this->Open();
  this->MustCreate("/f/a", "a");
  auto r = s.List({.prefix = "/f/",
                   .revision = s.CurrentRevision() + 100,
                   .match = RevisionMatch::kNotOlderThan});
  EXPECT_EQ(r.status().code(), Code::kTimeout);
}

TYPED_TEST_P(StoreConformance, PaginationIsStableWhileWritesContinue) {
  Store& s = this->Open();
  std::vector<KeyValue> created;
  for (int i = 0; i < 10; ++i) created.push_back(this->MustCreate("/p/" + std::to_string(i), "v"));
  auto page = s.List({.prefix = "/p/", .limit = 4});
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->items.size(), 4u);
  EXPECT_EQ(page->remaining, 6);
  ASSERT_FALSE(page->continue_key.empty());
  const Revision snap = page->revision;
  std::vector<std::string> seen;
  for (auto& kv : page->items) seen.push_back(kv.key);
  // Writes between pages: delete a later key, add one, update one.
  ASSERT_TRUE(s.Delete("/p/9", created[9].mod_revision).ok());
  this->MustCreate("/p/55", "new");
  ASSERT_TRUE(s.Update("/p/6", MakeValue("changed"), created[6].mod_revision).ok());
  std::string next = page->continue_key;
  size_t listed = page->items.size();
  while (!next.empty()) {
    auto p = s.List({.prefix = "/p/",
                     .start_key = next,
                     .limit = 4,
                     .revision = snap,
                     .match = RevisionMatch::kExact});
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(p->revision, snap);
    // Counted at the snapshot: the later delete, create and update change nothing.
    listed += p->items.size();
    EXPECT_EQ(p->remaining, static_cast<int64_t>(10 - listed)) << "after " << listed;
    for (auto& kv : p->items) {
      seen.push_back(kv.key);
      EXPECT_EQ(ValueOf(kv), "v");
    }
    next = p->continue_key;
  }
  std::vector<std::string> want;
  for (int i = 0; i < 10; ++i) want.push_back("/p/" + std::to_string(i));
  std::sort(want.begin(), want.end());
  EXPECT_EQ(seen, want);
}

TYPED_TEST_P(StoreConformance, CompactedRevisionsAreGone) {
  Store& s = this->Open();
  KeyValue a = this->MustCreate("/c/a", "1");
  auto a2 = s.Update("/c/a", MakeValue("2"), a.mod_revision);
  ASSERT_TRUE(a2.ok());
  this->MustCreate("/c/b", "1");
  ASSERT_TRUE(s.Compact(a2->mod_revision).ok());
  EXPECT_GE(s.CompactedRevision(), a2->mod_revision);
  auto old = s.List({.prefix = "/c/", .revision = a.mod_revision, .match = RevisionMatch::kExact});
  EXPECT_EQ(old.status().code(), Code::kGone);
  EXPECT_EQ(s.Watch("/c/", a.mod_revision).status().code(), Code::kGone);
  // At the compaction revision itself reads and watches still work.
  auto at = s.List({.prefix = "/c/", .revision = a2->mod_revision, .match = RevisionMatch::kExact});
  ASSERT_TRUE(at.ok()) << at.status().ToString();
  EXPECT_EQ(at->items.size(), 1u);
  auto w = s.Watch("/c/", a2->mod_revision);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  auto events = Collect(**w, 1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]->kv.key, "/c/b");
  EXPECT_TRUE(s.Compact(a.mod_revision).ok()) << "compacting an older revision is a no-op";
}

TYPED_TEST_P(StoreConformance, WatchReplaysHistoryThenLiveWithPrevValues) {
  Store& s = this->Open();
  const Revision start = s.CurrentRevision();
  KeyValue a = this->MustCreate("/w/a", "1");
  auto a2 = s.Update("/w/a", MakeValue("2"), a.mod_revision);
  ASSERT_TRUE(a2.ok());
  this->MustCreate("/other/x", "ignored");
  auto w = s.Watch("/w/", start);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  auto del = s.Delete("/w/a", a2->mod_revision);
  ASSERT_TRUE(del.ok());
  auto events = Collect(**w, 3);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0]->type, WatchEvent::Type::kPut);
  EXPECT_FALSE(events[0]->prev.has_value());
  EXPECT_EQ(events[0]->revision(), a.mod_revision);
  EXPECT_EQ(events[1]->type, WatchEvent::Type::kPut);
  ASSERT_TRUE(events[1]->prev.has_value());
  EXPECT_EQ(ValueOf(*events[1]->prev), "1");
  EXPECT_EQ(ValueOf(events[1]->kv), "2");
  EXPECT_EQ(events[2]->type, WatchEvent::Type::kDelete);
  EXPECT_EQ(events[2]->revision(), del->mod_revision);
  EXPECT_EQ(ValueOf(events[2]->kv), "2");
  ASSERT_TRUE(events[2]->prev.has_value());
  EXPECT_EQ(events[2]->prev->mod_revision, a2->mod_revision);
  EXPECT_TRUE(StaysQuiet(**w, std::chrono::milliseconds(50)));
}

TYPED_TEST_P(StoreConformance, WatchFromCurrentSeesOnlyNewEvents) {
  Store& s = this->Open();
  this->MustCreate("/n/old", "1");
  std::atomic<int> notified{0};
  WatchOptions options;
  options.notify = [&] { ++notified; };
  auto w = s.Watch("/n/", s.CurrentRevision(), options);
  ASSERT_TRUE(w.ok());
  EXPECT_TRUE(StaysQuiet(**w, std::chrono::milliseconds(50)));
  KeyValue fresh = this->MustCreate("/n/new", "2");
  auto events = Collect(**w, 1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]->kv.key, "/n/new");
  EXPECT_EQ(events[0]->revision(), fresh.mod_revision);
  // The callback runs on the dispatcher thread right after the push; allow for that hop.
  for (int i = 0; i < 500 && notified.load() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_GE(notified.load(), 1);
  (*w)->Stop();
  auto after = (*w)->TryNext();
  EXPECT_EQ(after.status().code(), Code::kUnavailable);
}

// What a BOOKMARK may carry: with nothing queued, the progress revision moves past writes to
// keys the watch does not cover, and never past an event still queued.
TYPED_TEST_P(StoreConformance, WatchProgressCoversUnrelatedWrites) {
  Store& s = this->Open();
  auto w = s.Watch("/bm/", s.CurrentRevision());
  ASSERT_TRUE(w.ok());
  KeyValue mine = this->MustCreate("/bm/a", "x");
  KeyValue other = this->MustCreate("/elsewhere", "x");
  Revision progress = -1;
  auto first =
      (*w)->WaitNext(std::chrono::steady_clock::now() + std::chrono::seconds(5), &progress);
  ASSERT_TRUE(first.ok() && *first);
  EXPECT_EQ((*first)->revision(), mine.mod_revision);
  for (int i = 0; i < 500 && progress < other.mod_revision; ++i) {
    auto e = (*w)->TryNext(&progress);
    ASSERT_TRUE(e.ok());
    ASSERT_EQ(*e, nullptr) << "no other event may arrive";
    if (progress < other.mod_revision) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_GE(progress, other.mod_revision);
  EXPECT_LE(progress, s.CurrentRevision());
}

TYPED_TEST_P(StoreConformance, WatchFromFutureRevisionSkipsEarlierEvents) {
  Store& s = this->Open();
  const Revision future = s.CurrentRevision() + 2;
  auto w = s.Watch("/fu/", future);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  this->MustCreate("/fu/1", "x");
  this->MustCreate("/fu/2", "x");
  KeyValue third = this->MustCreate("/fu/3", "x");
  auto events = Collect(**w, 1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]->revision(), third.mod_revision);
}

TYPED_TEST_P(StoreConformance, ConcurrentWritersProduceOrderedGaplessWatch) {
  Store& s = this->Open();
  const Revision start = s.CurrentRevision();
  auto w = s.Watch("/o/", start, {.queue_capacity = 100'000});
  ASSERT_TRUE(w.ok());
  constexpr int kThreads = 4, kPerThread = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        auto r = s.Create("/o/" + std::to_string(t) + "/" + std::to_string(i), MakeValue("v"));
        EXPECT_TRUE(r.ok());
      }
    });
  }
  for (auto& t : threads) t.join();
  auto events = Collect(**w, kThreads * kPerThread);
  ASSERT_EQ(events.size(), static_cast<size_t>(kThreads * kPerThread));
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i]->revision(), start + 1 + static_cast<Revision>(i)) << "gap or reorder";
  }
}

// The informer pattern (list at L, then watch from L) rebuilds exactly the store's state while
// writers keep creating, updating and deleting.
TYPED_TEST_P(StoreConformance, ListThenWatchConvergesUnderConcurrentWrites) {
  Store& s = this->Open();
  std::atomic<bool> stop{false};
  std::vector<std::thread> writers;
  for (int t = 0; t < 3; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; !stop; ++i) {
        const std::string key = "/inf/" + std::to_string(t) + "/" + std::to_string(i % 20);
        auto cur = s.Get(key);
        if (!cur.ok()) {
          s.Create(key, MakeValue(std::to_string(i))).status().IgnoreError();
        } else if (i % 3 == 0) {
          s.Delete(key, cur->mod_revision).status().IgnoreError();
        } else {
          s.Update(key, MakeValue(std::to_string(i)), cur->mod_revision).status().IgnoreError();
        }
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  auto list = s.List({.prefix = "/inf/"});
  ASSERT_TRUE(list.ok());
  std::map<std::string, std::pair<std::string, Revision>> state;
  for (auto& kv : list->items) state[kv.key] = {ValueOf(kv), kv.mod_revision};
  auto w = s.Watch("/inf/", list->revision, {.queue_capacity = 1'000'000});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  // The writers run on until they have written enough after the list to prove something, at
  // most 10 s: a fixed 100 ms left etcd under ASan on a loaded machine 4 writes past the list.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (s.CurrentRevision() - list->revision <= 20 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  stop = true;
  for (auto& t : writers) t.join();
  const Revision end = s.CurrentRevision();
  Revision last = list->revision;
  while (last < end) {
    auto e = (*w)->WaitNext(std::chrono::steady_clock::now() + std::chrono::seconds(5));
    ASSERT_TRUE(e.ok() && *e) << "watch ended or stalled at " << last << " of " << end;
    ASSERT_GT((*e)->revision(), last);
    last = (*e)->revision();
    if ((*e)->type == WatchEvent::Type::kPut) {
      state[(*e)->kv.key] = {ValueOf((*e)->kv), last};
    } else {
      ASSERT_EQ(state.erase((*e)->kv.key), 1u) << "delete of a key the informer never saw";
    }
  }
  auto final_list = s.List({.prefix = "/inf/"});
  ASSERT_TRUE(final_list.ok());
  std::map<std::string, std::pair<std::string, Revision>> want;
  for (auto& kv : final_list->items) want[kv.key] = {ValueOf(kv), kv.mod_revision};
  EXPECT_EQ(state, want);
  EXPECT_GT(end - list->revision, 10) << "writers made too little progress to prove much";
}

TYPED_TEST_P(StoreConformance, SlowWatcherIsDroppedWithoutLosingOrder) {
  Store& s = this->Open();
  auto slow = s.Watch("/s/", s.CurrentRevision(), {.queue_capacity = 5});
  auto fast = s.Watch("/s/", s.CurrentRevision(), {.queue_capacity = 1000});
  ASSERT_TRUE(slow.ok() && fast.ok());
  for (int i = 0; i < 20; ++i) this->MustCreate("/s/" + std::to_string(i), "v");
  EXPECT_EQ(Collect(**fast, 20).size(), 20u);
  Status terminal;
  auto got = Collect(**slow, 100, &terminal);
  EXPECT_TRUE(IsWatchDropped(terminal)) << terminal.ToString();
  EXPECT_LE(got.size(), 6u);
  for (size_t i = 1; i < got.size(); ++i) {
    EXPECT_EQ(got[i]->revision(), got[i - 1]->revision() + 1);
  }
}

TYPED_TEST_P(StoreConformance, HistoryIsBoundedByCount) {
  if (!TrimsHistoryByCount<TypeParam>()) {
    GTEST_SKIP() << "backend keeps history until it is compacted explicitly";
  }
  Store& s = this->Open({.history_max_events = 10});
  const Revision start = s.CurrentRevision();
  for (int i = 0; i < 30; ++i) this->MustCreate("/h/" + std::to_string(i), "v");
  EXPECT_GT(s.CompactedRevision(), start);
  EXPECT_EQ(s.Watch("/h/", start).status().code(), Code::kGone);
  auto recent = s.Watch("/h/", s.CurrentRevision() - 5);
  ASSERT_TRUE(recent.ok()) << recent.status().ToString();
  EXPECT_EQ(Collect(**recent, 5).size(), 5u);
}

TYPED_TEST_P(StoreConformance, RestartKeepsDataAndRevisionsMonotonic) {
  if (!TypeParam::kPersistent) GTEST_SKIP() << "backend is not persistent";
  Store& s = this->Open();
  KeyValue a = this->MustCreate("/rs/a", "1");
  auto a2 = s.Update("/rs/a", MakeValue("2"), a.mod_revision);
  ASSERT_TRUE(a2.ok());
  KeyValue b = this->MustCreate("/rs/b", "1");
  ASSERT_TRUE(s.Delete("/rs/b", b.mod_revision).ok());
  const Revision before = s.CurrentRevision();
  this->Close();

  Store& r = this->Open();
  EXPECT_EQ(r.CurrentRevision(), before);
  auto got = r.Get("/rs/a");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(ValueOf(*got), "2");
  EXPECT_EQ(got->mod_revision, a2->mod_revision);
  EXPECT_EQ(got->create_revision, a.create_revision);
  EXPECT_EQ(r.Get("/rs/b").status().code(), Code::kNotFound);
  KeyValue c = this->MustCreate("/rs/c", "1");
  EXPECT_GT(c.mod_revision, before);
  // A watch from before the restart either replays exactly what happened, or is Gone.
  auto w = r.Watch("/rs/", a.mod_revision);
  if (w.ok()) {
    auto events = Collect(**w, 4);
    ASSERT_EQ(events.size(), 4u);
    EXPECT_EQ(events[0]->revision(), a2->mod_revision);
    EXPECT_EQ(ValueOf(*events[0]->prev), "1");
    EXPECT_EQ(events[1]->kv.key, "/rs/b");
    EXPECT_EQ(events[2]->type, WatchEvent::Type::kDelete);
    EXPECT_EQ(events[3]->revision(), c.mod_revision);
  } else {
    EXPECT_EQ(w.status().code(), Code::kGone);
  }
}

REGISTER_TYPED_TEST_SUITE_P(
    StoreConformance, RevisionsComeFromOneIncreasingCounter, ErrorsAreTyped,
    DeleteReturnsLastValueAtDeletionRevision, ConcurrentCasLetsExactlyOneWin,
    ListIsSortedPrefixScopedAndCarriesRevision, ListAtExactRevisionShowsThatSnapshot,
    ListAtFutureRevisionTimesOut, PaginationIsStableWhileWritesContinue, CompactedRevisionsAreGone,
    WatchReplaysHistoryThenLiveWithPrevValues, WatchFromCurrentSeesOnlyNewEvents,
    WatchFromFutureRevisionSkipsEarlierEvents, WatchProgressCoversUnrelatedWrites,
    ConcurrentWritersProduceOrderedGaplessWatch, ListThenWatchConvergesUnderConcurrentWrites,
    SlowWatcherIsDroppedWithoutLosingOrder, HistoryIsBoundedByCount,
    RestartKeepsDataAndRevisionsMonotonic);

}  // namespace svcplane::storage::testing
