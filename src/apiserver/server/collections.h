#pragma once

// A kind-independent view of every registry, for the server's own housekeeping loops
// (namespace lifecycle, garbage collection), which must touch objects of all kinds.

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "apiserver/registry/registry.h"

namespace svcplane::apiserver::server {

class Collection {
 public:
  virtual ~Collection() = default;
  virtual const api::ResourceInfo& info() const = 0;
  // Calls fn for every object (all namespaces when `ns` is empty).
  virtual Status ForEach(std::string_view ns,
                         const std::function<void(const api::meta::ObjectMeta&)>& fn) = 0;
  virtual Status Delete(std::string_view ns, std::string_view name,
                        const registry::DeleteOptions& opts) = 0;
  // The object's metadata; null if there is no such object, an error if it cannot be read now.
  virtual Result<std::shared_ptr<const api::meta::ObjectMeta>> Meta(std::string_view ns,
                                                                    std::string_view name) = 0;
  // Removes the ownerReference with `owner_uid` from the object (orphaning it).
  virtual Status RemoveOwner(std::string_view ns, std::string_view name,
                             std::string_view owner_uid) = 0;
  // Removes `finalizer` from metadata.finalizers.
  virtual Status RemoveFinalizer(std::string_view ns, std::string_view name,
                                 std::string_view finalizer) = 0;
};

template <typename T>
class CollectionFor final : public Collection {
 public:
  explicit CollectionFor(registry::Registry<T>* reg) : reg_(reg) {}
  const api::ResourceInfo& info() const override { return reg_->info(); }

  Status ForEach(std::string_view ns,
                 const std::function<void(const api::meta::ObjectMeta&)>& fn) override {
    auto list = reg_->List(ns, {});
    if (!list.ok()) return list.status();
    for (const auto& o : list->items) fn(o.obj->metadata);
    return Status::Ok();
  }

  Result<std::shared_ptr<const api::meta::ObjectMeta>> Meta(std::string_view ns,
                                                            std::string_view name) override {
    auto cur = reg_->Get(ns, name);
    if (!cur.ok()) {
      if (cur.status().code() == Code::kNotFound) {
        return std::shared_ptr<const api::meta::ObjectMeta>();
      }
      return cur.status();
    }
    // Aliases the stored object: no copy.
    return std::shared_ptr<const api::meta::ObjectMeta>(cur->obj, &cur->obj->metadata);
  }

  Status Delete(std::string_view ns, std::string_view name,
                const registry::DeleteOptions& opts) override {
    auto r = reg_->Delete(ns, name, opts);
    return r.ok() || r.status().code() == Code::kNotFound ? Status::Ok() : r.status();
  }

  Status RemoveOwner(std::string_view ns, std::string_view name,
                     std::string_view owner_uid) override {
    return Edit(ns, name, [&](T& obj) {
      auto& refs = obj.metadata.owner_references;
      return std::erase_if(refs, [&](const auto& r) { return r.uid == owner_uid; }) > 0;
    });
  }

  Status RemoveFinalizer(std::string_view ns, std::string_view name,
                         std::string_view finalizer) override {
    return Edit(ns, name, [&](T& obj) {
      return std::erase(obj.metadata.finalizers, std::string(finalizer)) > 0;
    });
  }

 private:
  template <typename Fn>
  Status Edit(std::string_view ns, std::string_view name, Fn&& fn) {
    for (int attempt = 0; attempt < 8; ++attempt) {
      auto cur = reg_->Get(ns, name);
      if (!cur.ok()) return cur.status().code() == Code::kNotFound ? Status::Ok() : cur.status();
      T copy = *cur->obj;
      if (!fn(copy)) return Status::Ok();
      auto sub = registry::Subresource::kNone;
      auto r = reg_->Update(ns, name, sub, std::move(copy), {});
      if (r.ok() || r.status().code() == Code::kNotFound) return Status::Ok();
      if (r.status().code() != Code::kConflict) return r.status();
    }
    return ConflictError("too many conflicts editing " + std::string(name));
  }

  registry::Registry<T>* reg_;
};

}  // namespace svcplane::apiserver::server
