#pragma once

#include <array>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "api/codec/json.h"
#include "apiserver/registry/object_json.h"
#include "apiserver/registry/types.h"
#include "storage/watch.h"

namespace svcplane::apiserver::registry {

// Decodes stored values into shared typed objects once per (key, revision, value), so that a
// list filtered by selectors, a thousand watchers of one event or a Table rendering do not
// decode the same bytes again. Entries are replaced when a key changes and dropped on delete.
// Safe from any thread.
template <typename T>
class ObjectMemo {
 public:
  Result<Object<T>> Materialize(const storage::KeyValue& kv) {
    Shard& shard = ShardFor(kv.key);
    {
      std::lock_guard lock(shard.mu);
      auto it = shard.entries.find(kv.key);
      if (it != shard.entries.end() && it->second.value == kv.value &&
          it->second.object.revision == kv.mod_revision) {
        return it->second.object;
      }
    }
    std::optional<T> known = Unexpect(kv.value.get());
    if (!known) {
      auto decoded = api::codec::DecodeJson<T>(*kv.value);
      if (!decoded.ok()) {
        return InternalError("stored object " + kv.key +
                             " does not decode: " + decoded.status().message());
      }
      known = std::move(*decoded);
    }
    known->metadata.resource_version = std::to_string(kv.mod_revision);
    Object<T> out{std::make_shared<const T>(std::move(*known)),
                  ObjectJson(kv.value, kv.mod_revision), kv.mod_revision};
    std::lock_guard lock(shard.mu);
    auto [it, inserted] = shard.entries.try_emplace(kv.key, Entry{kv.value, out});
    if (!inserted) {
      // Another thread may have decoded the same revision meanwhile (a write's response and the
      // watch event of that write, say): hand out the object already shared, so every reader
      // of one revision holds the same object. Never replace a newer revision with an older one.
      if (it->second.object.revision == kv.mod_revision) return it->second.object;
      if (it->second.object.revision <= kv.mod_revision) it->second = Entry{kv.value, out};
    }
    return out;
  }

  // A write is about to store `value`, the encoding of `obj`: the first Materialize of those
  // very bytes (the write's answer, or its watch event if that comes first) takes `obj`
  // instead of decoding them. The writer calls Unexpect afterwards whatever happened.
  void Expect(const std::shared_ptr<const std::string>& value, T obj) {
    std::lock_guard lock(expected_mu_);
    expected_.insert_or_assign(value.get(), std::move(obj));
  }

  // Takes back what Expect left for `value` if no Materialize took it (the write failed, or a
  // store that answers with its own copy of the bytes).
  std::optional<T> Unexpect(const std::string* value) {
    std::lock_guard lock(expected_mu_);
    auto it = expected_.find(value);
    if (it == expected_.end()) return std::nullopt;
    std::optional<T> out(std::move(it->second));
    expected_.erase(it);
    return out;
  }

  void Forget(std::string_view key) {
    Shard& shard = ShardFor(key);
    std::lock_guard lock(shard.mu);
    shard.entries.erase(std::string(key));
  }

 private:
  struct Entry {
    std::shared_ptr<const std::string> value;
    Object<T> object;
  };
  // Entries are split by key hash. One map of 100k Pods stalled every reader of the kind for
  // the whole of each rehash (relinking every node, cache miss after cache miss), holding the
  // one lock; perf found that rehash only in a create storm's slow windows. A shard rehashes
  // 1/64 of the entries and blocks only readers of its keys.
  static constexpr size_t kShards = 64;
  struct alignas(64) Shard {
    std::mutex mu;
    std::unordered_map<std::string, Entry> entries;  // guarded by mu
  };
  Shard& ShardFor(std::string_view key) {
    return shards_[std::hash<std::string_view>{}(key) % kShards];
  }

  std::array<Shard, kShards> shards_;
  std::mutex expected_mu_;
  // Keyed by the address of bytes a writer holds until it calls Unexpect, so never reused
  // while present.
  std::unordered_map<const std::string*, T> expected_;  // guarded by expected_mu_
};

}  // namespace svcplane::apiserver::registry
