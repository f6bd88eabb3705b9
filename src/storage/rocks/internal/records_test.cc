#include "storage/rocks/internal/records.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace svcplane::storage::rocks::internal {
namespace {

using storage::internal::HistoryEntry;

std::shared_ptr<const std::string> V(const std::string& s) {
  return std::make_shared<const std::string>(s);
}

HistoryEntry Put(Revision rev, const std::string& key, const std::string& value, Revision created,
                 const std::string* prev = nullptr, Revision prev_rev = 0) {
  auto e = std::make_shared<WatchEvent>();
  e->type = WatchEvent::Type::kPut;
  e->kv = KeyValue{key, V(value), created, rev};
  if (prev) e->prev = KeyValue{key, V(*prev), created, prev_rev};
  return HistoryEntry{std::move(e), {}};
}

HistoryEntry Del(Revision rev, const std::string& key, const std::string& prev, Revision created,
                 Revision prev_rev) {
  auto e = std::make_shared<WatchEvent>();
  e->type = WatchEvent::Type::kDelete;
  e->kv = KeyValue{key, V(prev), created, rev};
  e->prev = KeyValue{key, V(prev), created, prev_rev};
  return HistoryEntry{std::move(e), {}};
}

std::vector<HistoryEntry> RoundTrip(const std::vector<HistoryEntry>& in) {
  std::vector<HistoryEntry> out;
  for (const auto& h : in) {
    auto e = DecodeEvent(HistoryKey(h.event->revision()), EncodeEvent(h));
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    if (e.ok()) out.push_back(std::move(*e));
  }
  return out;
}

// Create, update, delete, re-create and update of one key, around another key's create: each
// put's value comes back from the next event's previous value or from the live value.
TEST(HistoryRecordsTest, PutValuesComeBackFromTheNextEventOrTheLiveValue) {
  const std::string a1 = "a-1", a2 = "a-2", a3 = "a-3";
  std::vector<HistoryEntry> history = {
      Put(1, "/a", a1, 1),    Put(2, "/a", a2, 1, &a1, 1), Put(3, "/b", "b-1", 3),
      Del(4, "/a", a2, 1, 2), Put(5, "/a", "a-new", 5),    Put(6, "/a", a3, 5, &a1, 5),
  };
  history[5].event = [&] {  // the re-created key's update saw "a-new" before it
    auto e = std::make_shared<WatchEvent>(*history[5].event);
    e->prev->value = V("a-new");
    return e;
  }();
  std::vector<KeyValue> live = {{"/a", V(a3), 5, 6}, {"/b", V("b-1"), 3, 3}};
  auto decoded = RoundTrip(history);
  ASSERT_EQ(decoded.size(), history.size());
  for (const auto& h : decoded) {
    if (h.event->type == WatchEvent::Type::kPut) {
      EXPECT_EQ(h.event->kv.value, nullptr);
    }
  }
  ASSERT_TRUE(ResolveHistoryValues(live, decoded).ok());
  for (size_t i = 0; i < history.size(); ++i) {
    SCOPED_TRACE(i);
    const WatchEvent& want = *history[i].event;
    const WatchEvent& got = *decoded[i].event;
    EXPECT_EQ(got.type, want.type);
    EXPECT_EQ(got.kv.key, want.kv.key);
    EXPECT_EQ(got.kv.mod_revision, want.kv.mod_revision);
    EXPECT_EQ(got.kv.create_revision, want.kv.create_revision);
    ASSERT_NE(got.kv.value, nullptr);
    EXPECT_EQ(*got.kv.value, *want.kv.value);
    ASSERT_EQ(got.prev.has_value(), want.prev.has_value());
    if (want.prev) {
      EXPECT_EQ(*got.prev->value, *want.prev->value);
    }
  }
}

TEST(HistoryRecordsTest, AValueFoundNowhereIsCorruption) {
  auto decoded = RoundTrip({Put(1, "/a", "a-1", 1)});
  // The live value is of a later revision whose event is missing.
  std::vector<KeyValue> live = {{"/a", V("a-2"), 1, 2}};
  auto st = ResolveHistoryValues(live, decoded);
  EXPECT_EQ(st.code(), Code::kInternal);
  EXPECT_NE(st.message().find("revision 1"), std::string::npos) << st.message();
}

void PutU64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}
void PutBytes(std::string& out, const std::string& b) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(b.size() >> (8 * i)));
  out += b;
}

// Stores written before the current format keep working: their records carry the put's value
// and an empty value field for deletes.
TEST(HistoryRecordsTest, RecordsOfTheOlderFormatStillDecode) {
  std::string put = "P";
  PutU64(put, 1000);
  PutU64(put, 7);
  PutBytes(put, "/a");
  PutBytes(put, "a-1");
  put.push_back(0);
  auto p = DecodeEvent(HistoryKey(7), put);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->event->type, WatchEvent::Type::kPut);
  ASSERT_NE(p->event->kv.value, nullptr);
  EXPECT_EQ(*p->event->kv.value, "a-1");

  std::string del = "D";
  PutU64(del, 1000);
  PutU64(del, 7);
  PutBytes(del, "/a");
  PutBytes(del, "");
  del.push_back(1);
  PutU64(del, 7);
  PutU64(del, 7);
  PutBytes(del, "a-1");
  auto d = DecodeEvent(HistoryKey(8), del);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->event->type, WatchEvent::Type::kDelete);
  EXPECT_EQ(*d->event->kv.value, "a-1");

  std::vector<HistoryEntry> history = {std::move(*p), std::move(*d)};
  EXPECT_TRUE(ResolveHistoryValues({}, history).ok());
  EXPECT_EQ(*history[0].event->kv.value, "a-1");
}

TEST(HistoryRecordsTest, APutRecordNoLongerCarriesItsValue) {
  const std::string big(4096, 'x');
  const std::string prev(4096, 'y');
  EXPECT_LT(EncodeEvent(Put(1, "/a", big, 1)).size(), 64u);
  EXPECT_LT(EncodeEvent(Put(2, "/a", big, 1, &prev, 1)).size(), prev.size() + 64);
}

}  // namespace
}  // namespace svcplane::storage::rocks::internal
