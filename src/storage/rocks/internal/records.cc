#include "storage/rocks/internal/records.h"

#include <cstring>
#include <memory>
#include <unordered_map>
#include <utility>

namespace svcplane::storage::rocks::internal {

namespace {

using storage::internal::HistoryEntry;

void PutU64(std::string& out, uint64_t v) {
  char buf[8];
  for (int i = 0; i < 8; ++i) buf[i] = static_cast<char>(v >> (8 * i));
  out.append(buf, 8);
}

void PutU32(std::string& out, uint32_t v) {
  char buf[4];
  for (int i = 0; i < 4; ++i) buf[i] = static_cast<char>(v >> (8 * i));
  out.append(buf, 4);
}

void PutBytes(std::string& out, std::string_view bytes) {
  PutU32(out, static_cast<uint32_t>(bytes.size()));
  out.append(bytes);
}

// Reads fields front to back; any overrun marks the record corrupt.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  uint64_t U64() { return Fixed(8); }
  uint32_t U32() { return static_cast<uint32_t>(Fixed(4)); }
  uint8_t U8() { return static_cast<uint8_t>(Fixed(1)); }
  std::string_view Bytes() {
    uint32_t n = U32();
    if (!ok_ || in_.size() < n) {
      ok_ = false;
      return {};
    }
    auto out = in_.substr(0, n);
    in_.remove_prefix(n);
    return out;
  }
  std::string_view Rest() {
    auto out = in_;
    in_ = {};
    return out;
  }
  bool ok() const { return ok_; }
  bool done() const { return in_.empty(); }

 private:
  uint64_t Fixed(size_t n) {
    if (in_.size() < n) {
      ok_ = false;
      return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t{static_cast<unsigned char>(in_[i])} << (8 * i);
    in_.remove_prefix(n);
    return v;
  }

  std::string_view in_;
  bool ok_ = true;
};

Status Corrupt(std::string_view what, std::string_view db_key) {
  return InternalError("corrupt " + std::string(what) + " record at \"" + std::string(db_key) +
                       "\"");
}

}  // namespace

std::string EncodeRevision(Revision revision) {
  std::string out;
  PutU64(out, static_cast<uint64_t>(revision));
  return out;
}

Result<Revision> DecodeRevision(std::string_view bytes) {
  Reader r(bytes);
  auto v = static_cast<Revision>(r.U64());
  if (!r.ok() || !r.done() || v < 0) return Corrupt("revision", bytes);
  return v;
}

std::string LiveKey(std::string_view key) {
  std::string out(kLivePrefix);
  out.append(key);
  return out;
}

std::string HistoryKey(Revision revision) {
  std::string out(kHistoryPrefix);
  for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>(uint64_t(revision) >> (8 * i)));
  return out;
}

std::string EncodeLive(const KeyValue& kv) {
  std::string out;
  out.reserve(16 + (kv.value ? kv.value->size() : 0));
  PutU64(out, static_cast<uint64_t>(kv.create_revision));
  PutU64(out, static_cast<uint64_t>(kv.mod_revision));
  if (kv.value) out.append(*kv.value);
  return out;
}

Result<KeyValue> DecodeLive(std::string_view db_key, std::string_view bytes) {
  Reader r(bytes);
  KeyValue kv;
  kv.key = std::string(db_key.substr(kLivePrefix.size()));
  kv.create_revision = static_cast<Revision>(r.U64());
  kv.mod_revision = static_cast<Revision>(r.U64());
  if (!r.ok() || kv.create_revision <= 0 || kv.mod_revision < kv.create_revision) {
    return Corrupt("key", db_key);
  }
  kv.value = std::make_shared<const std::string>(r.Rest());
  return kv;
}

std::string EncodeEvent(const HistoryEntry& entry) {
  const WatchEvent& e = *entry.event;
  std::string out;
  out.push_back(e.type == WatchEvent::Type::kPut ? 'p' : 'd');
  PutU64(out, static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                        entry.time.time_since_epoch())
                                        .count()));
  PutU64(out, static_cast<uint64_t>(e.kv.create_revision));
  PutBytes(out, e.kv.key);
  out.push_back(e.prev ? 1 : 0);
  if (e.prev) {
    PutU64(out, static_cast<uint64_t>(e.prev->create_revision));
    PutU64(out, static_cast<uint64_t>(e.prev->mod_revision));
    PutBytes(out, e.prev->value ? *e.prev->value : "");
  }
  return out;
}

Result<HistoryEntry> DecodeEvent(std::string_view db_key, std::string_view bytes) {
  if (db_key.size() != kHistoryPrefix.size() + 8) return Corrupt("history key", db_key);
  uint64_t rev = 0;
  for (size_t i = kHistoryPrefix.size(); i < db_key.size(); ++i) {
    rev = (rev << 8) | static_cast<unsigned char>(db_key[i]);
  }
  Reader r(bytes);
  auto event = std::make_shared<WatchEvent>();
  const uint8_t type = r.U8();
  const auto ms = static_cast<int64_t>(r.U64());
  event->kv.create_revision = static_cast<Revision>(r.U64());
  event->kv.key = std::string(r.Bytes());
  // The older format ('P', 'D') has a value field, empty for a delete; the current one ('p',
  // 'd') has none. A delete's value is its previous value.
  const bool old_format = type == 'P' || type == 'D';
  std::string_view value = old_format ? r.Bytes() : std::string_view();
  event->kv.mod_revision = static_cast<Revision>(rev);
  if (r.U8() == 1) {
    KeyValue prev;
    prev.key = event->kv.key;
    prev.create_revision = static_cast<Revision>(r.U64());
    prev.mod_revision = static_cast<Revision>(r.U64());
    prev.value = std::make_shared<const std::string>(r.Bytes());
    event->prev = std::move(prev);
  }
  const bool is_delete = type == 'D' || type == 'd';
  if (!r.ok() || !r.done() || (type != 'P' && type != 'p' && !is_delete) ||
      (is_delete && (!event->prev || !value.empty()))) {
    return Corrupt("history", db_key);
  }
  if (type == 'P') {
    event->type = WatchEvent::Type::kPut;
    event->kv.value = std::make_shared<const std::string>(value);
  } else if (type == 'p') {
    event->type = WatchEvent::Type::kPut;  // value: ResolveHistoryValues
  } else {
    event->type = WatchEvent::Type::kDelete;
    event->kv.value = event->prev->value;
  }
  return HistoryEntry{std::move(event),
                      std::chrono::system_clock::time_point(std::chrono::milliseconds(ms))};
}

Status ResolveHistoryValues(const std::vector<KeyValue>& live, std::vector<HistoryEntry>& history) {
  std::unordered_map<std::string_view, const KeyValue*> live_by_key;
  live_by_key.reserve(live.size());
  for (const auto& kv : live) live_by_key.emplace(kv.key, &kv);
  // Newest first: the value a put wrote is what the key's next event saw as previous.
  std::unordered_map<std::string_view, std::shared_ptr<const std::string>> next_prev;
  for (auto it = history.rbegin(); it != history.rend(); ++it) {
    // Decoded just now and not yet shared: safe to complete in place.
    auto& event = const_cast<WatchEvent&>(*it->event);
    const std::string_view key = event.kv.key;
    if (event.type == WatchEvent::Type::kPut && !event.kv.value) {
      if (auto next = next_prev.find(key); next != next_prev.end()) {
        event.kv.value = next->second;
      } else if (auto l = live_by_key.find(key);
                 l != live_by_key.end() && l->second->mod_revision == event.kv.mod_revision) {
        event.kv.value = l->second->value;
      }
      if (!event.kv.value) {
        return InternalError("store damaged: the value written at revision " +
                             std::to_string(event.kv.mod_revision) + " to " + std::string(key) +
                             " is not in the store");
      }
    }
    if (event.prev) {
      next_prev.insert_or_assign(key, event.prev->value);
    } else {
      next_prev.erase(key);  // a put without previous value: the key was created here
    }
  }
  return Status::Ok();
}

}  // namespace svcplane::storage::rocks::internal
