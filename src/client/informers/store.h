#pragma once

// The informer's cache: client-go's threadSafeMap + indexers. Objects are shared immutable
// values keyed "namespace/name" (or "name" for cluster-scoped kinds), with the namespace index
// always present and any number of custom indexes. Index buckets hold views of the map's keys
// (unordered_map nodes never move), so an index costs one pointer-sized entry per value.

#include <map>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "client/informers/interface.h"

namespace svcplane::client::informers {

template <typename T>
std::string ObjectKey(const T& obj) {
  if (obj.metadata.namespace_.empty()) return obj.metadata.name;
  std::string key;
  key.reserve(obj.metadata.namespace_.size() + 1 + obj.metadata.name.size());
  key += obj.metadata.namespace_;
  key += '/';
  key += obj.metadata.name;
  return key;
}

inline std::string ObjectKey(std::string_view ns, std::string_view name) {
  if (ns.empty()) return std::string(name);
  std::string key(ns);
  key += '/';
  key += name;
  return key;
}

// Readers (Lister methods) from any thread; writers serialised by the caller (the informer).
template <typename T>
class ThreadSafeStore final : public Lister<T> {
 public:
  ThreadSafeStore() {
    AddIndexer(kNamespaceIndex, [](const T& obj) {
      if (obj.metadata.namespace_.empty()) return std::vector<std::string>{};
      return std::vector<std::string>{obj.metadata.namespace_};
    });
  }

  // Before the first write.
  void AddIndexer(std::string name, IndexFunc<T> fn) {
    std::unique_lock lock(mu_);
    indexes_[std::move(name)].fn = std::move(fn);
  }
  bool HasIndexer(std::string_view name) const {
    std::shared_lock lock(mu_);
    return indexes_.find(name) != indexes_.end();
  }

  // Inserts or replaces; returns the previous object (null if none).
  ObjectPtr<T> Upsert(ObjectPtr<T> obj) {
    std::unique_lock lock(mu_);
    std::string key = ObjectKey(*obj);
    auto it = items_.find(key);
    if (it == items_.end()) {
      it = items_.emplace(std::move(key), std::move(obj)).first;
      IndexLocked(it->first, *it->second);
      return nullptr;
    }
    UnindexLocked(it->first, *it->second);
    ObjectPtr<T> old = std::exchange(it->second, std::move(obj));
    IndexLocked(it->first, *it->second);
    return old;
  }

  // Removes `key`; returns the removed object (null if absent).
  ObjectPtr<T> Remove(const std::string& key) {
    std::unique_lock lock(mu_);
    auto it = items_.find(key);
    if (it == items_.end()) return nullptr;
    UnindexLocked(it->first, *it->second);
    ObjectPtr<T> old = std::move(it->second);
    items_.erase(it);
    return old;
  }

  // Replaces the whole content with `items` (a relist). Reports, in this order, each new key
  // (old null), each changed or unchanged key (both set) and each key that disappeared (new
  // null).
  template <typename Fn>
  void Replace(std::vector<ObjectPtr<T>> items, Fn&& on_change) {
    std::unordered_map<std::string, ObjectPtr<T>> next;
    next.reserve(items.size());
    for (auto& obj : items) {
      std::string key = ObjectKey(*obj);
      next.insert_or_assign(std::move(key), std::move(obj));
    }
    std::unique_lock lock(mu_);
    for (const auto& [key, obj] : next) {
      auto it = items_.find(key);
      on_change(it == items_.end() ? nullptr : it->second, obj);
    }
    for (const auto& [key, obj] : items_) {
      if (!next.contains(key)) on_change(obj, nullptr);
    }
    items_ = std::move(next);
    for (auto& [name, index] : indexes_) index.values.clear();
    for (const auto& [key, obj] : items_) IndexLocked(key, *obj);
  }

  ObjectPtr<T> Get(std::string_view ns, std::string_view name) const override {
    return GetByKey(ObjectKey(ns, name));
  }

  ObjectPtr<T> GetByKey(const std::string& key) const {
    std::shared_lock lock(mu_);
    auto it = items_.find(key);
    return it == items_.end() ? nullptr : it->second;
  }

  std::vector<ObjectPtr<T>> List(std::string_view ns = "",
                                 const api::selectors::LabelSelector& selector =
                                     api::selectors::LabelSelector()) const override {
    std::vector<ObjectPtr<T>> out;
    auto take = [&](const ObjectPtr<T>& obj) {
      if (selector.Empty() || selector.Matches(obj->metadata.labels)) out.push_back(obj);
    };
    std::shared_lock lock(mu_);
    if (ns.empty()) {
      out.reserve(items_.size());
      for (const auto& [key, obj] : items_) take(obj);
      return out;
    }
    const Index& index = indexes_.find(std::string_view(kNamespaceIndex))->second;
    auto bucket = index.values.find(std::string(ns));
    if (bucket == index.values.end()) return out;
    out.reserve(bucket->second.size());
    for (std::string_view key : bucket->second) take(items_.find(std::string(key))->second);
    return out;
  }

  std::vector<ObjectPtr<T>> ByIndex(std::string_view index_name,
                                    std::string_view value) const override {
    std::vector<ObjectPtr<T>> out;
    std::shared_lock lock(mu_);
    auto index = indexes_.find(index_name);
    if (index == indexes_.end()) return out;
    auto bucket = index->second.values.find(std::string(value));
    if (bucket == index->second.values.end()) return out;
    out.reserve(bucket->second.size());
    for (std::string_view key : bucket->second)
      out.push_back(items_.find(std::string(key))->second);
    return out;
  }

  std::vector<std::string> Keys() const {
    std::shared_lock lock(mu_);
    std::vector<std::string> out;
    out.reserve(items_.size());
    for (const auto& [key, obj] : items_) out.push_back(key);
    return out;
  }

  size_t size() const {
    std::shared_lock lock(mu_);
    return items_.size();
  }

 private:
  struct Index {
    IndexFunc<T> fn;
    // value -> keys (views of items_' keys)
    std::unordered_map<std::string, std::unordered_set<std::string_view>> values;
  };

  void IndexLocked(const std::string& key, const T& obj) {
    for (auto& [name, index] : indexes_) {
      for (auto& v : index.fn(obj)) index.values[std::move(v)].insert(key);
    }
  }

  void UnindexLocked(const std::string& key, const T& obj) {
    for (auto& [name, index] : indexes_) {
      for (const auto& v : index.fn(obj)) {
        auto bucket = index.values.find(v);
        if (bucket == index.values.end()) continue;
        bucket->second.erase(key);
        if (bucket->second.empty()) index.values.erase(bucket);
      }
    }
  }

  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, ObjectPtr<T>> items_;
  std::map<std::string, Index, std::less<>> indexes_;
};

}  // namespace svcplane::client::informers
