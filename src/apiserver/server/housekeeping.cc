#include "apiserver/server/housekeeping.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <set>

namespace svcplane::apiserver::server {
namespace {

bool Has(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

struct Ref {
  Collection* collection;
  std::string ns, name;
  api::meta::ObjectMeta meta;
};

}  // namespace

Housekeeping::Housekeeping(std::vector<Collection*> collections, Collection* namespaces,
                           std::function<Status(std::string_view)> finalize_namespace,
                           std::chrono::milliseconds period)
    : collections_(std::move(collections)),
      namespaces_(namespaces),
      finalize_namespace_(std::move(finalize_namespace)),
      period_(period) {
  thread_ = std::thread([this] { Loop(); });
}

Housekeeping::~Housekeeping() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Housekeeping::Kick() {
  {
    std::lock_guard lock(mu_);
    kicked_ = true;
  }
  cv_.notify_all();
}

void Housekeeping::Loop() {
  while (true) {
    {
      std::unique_lock lock(mu_);
      cv_.wait_for(lock, period_, [&] { return stopping_ || kicked_; });
      if (stopping_) return;
      kicked_ = false;
    }
    RunOnce();
  }
}

void Housekeeping::RunOnce() {
  Namespaces();
  CollectGarbage();
}

void Housekeeping::Namespaces() {
  std::vector<std::string> terminating;
  Status st = namespaces_->ForEach("", [&](const api::meta::ObjectMeta& m) {
    if (m.deletion_timestamp) terminating.push_back(m.name);
  });
  if (!st.ok()) return;
  for (const auto& ns : terminating) {
    size_t remaining = 0;
    for (Collection* c : collections_) {
      if (!c->info().namespaced) continue;
      std::vector<std::string> names;
      (void)c->ForEach(ns, [&](const api::meta::ObjectMeta& m) { names.push_back(m.name); });
      registry::DeleteOptions now;
      now.grace_period_seconds = 0;  // the namespace is going away; pods do not linger
      for (const auto& name : names) {
        Status d = c->Delete(ns, name, now);
        if (!d.ok())
          spdlog::warn("namespace {}: deleting {} {}: {}", ns, c->info().resource, name,
                       d.message());
      }
      (void)c->ForEach(ns, [&](const api::meta::ObjectMeta&) { ++remaining; });
    }
    if (remaining == 0) {
      Status f = finalize_namespace_(ns);
      if (!f.ok()) spdlog::warn("namespace {}: finalize: {}", ns, f.message());
    }
  }
}

void Housekeeping::CollectGarbage() {
  // Every live object by UID, and every object that has owners.
  std::map<std::string, Ref> by_uid;
  std::vector<Ref> dependents;
  for (Collection* c : collections_) {
    (void)c->ForEach("", [&](const api::meta::ObjectMeta& m) {
      Ref ref{c, m.namespace_, m.name, m};
      if (!m.owner_references.empty()) dependents.push_back(ref);
      by_uid.emplace(m.uid, std::move(ref));
    });
  }
  std::set<std::string> served_kinds;
  for (Collection* c : collections_) {
    served_kinds.insert(c->info().GroupVersion() + "/" + std::string(c->info().kind));
  }
  auto owner_state = [&](const api::meta::OwnerReference& o) -> const Ref* {
    auto it = by_uid.find(o.uid);
    return it == by_uid.end() ? nullptr : &it->second;
  };
  std::map<std::string, size_t> live_dependents;  // owner uid -> dependents still present
  for (const auto& d : dependents) {
    bool any_alive = false;
    bool any_known_gone = false;
    for (const auto& o : d.meta.owner_references) {
      const bool served = served_kinds.count(o.api_version + "/" + o.kind) > 0;
      const Ref* owner = owner_state(o);
      if (owner == nullptr) {
        if (served) {
          any_known_gone = true;
        } else {
          any_alive = true;  // an owner kind we do not serve: we cannot tell, keep the object
        }
        continue;
      }
      const auto& om = owner->meta;
      if (om.deletion_timestamp && Has(om.finalizers, "orphan")) {
        (void)d.collection->RemoveOwner(d.ns, d.name, o.uid);
        continue;
      }
      if (om.deletion_timestamp && Has(om.finalizers, "foregroundDeletion")) {
        ++live_dependents[o.uid];
        registry::DeleteOptions fg;
        fg.propagation_policy = "Foreground";
        (void)d.collection->Delete(d.ns, d.name, fg);
        continue;
      }
      any_alive = true;
    }
    if (any_known_gone && !any_alive) {
      registry::DeleteOptions bg;
      bg.propagation_policy = "Background";
      Status st = d.collection->Delete(d.ns, d.name, bg);
      if (!st.ok())
        spdlog::warn("gc: deleting {} {}/{}: {}", d.collection->info().resource, d.ns, d.name,
                     st.message());
    }
  }
  // Owners whose special finalizers have done their work.
  for (const auto& [uid, ref] : by_uid) {
    const auto& m = ref.meta;
    if (!m.deletion_timestamp) continue;
    if (Has(m.finalizers, "orphan"))
      (void)ref.collection->RemoveFinalizer(ref.ns, ref.name, "orphan");
    if (Has(m.finalizers, "foregroundDeletion") && live_dependents[uid] == 0) {
      (void)ref.collection->RemoveFinalizer(ref.ns, ref.name, "foregroundDeletion");
    }
  }
}

}  // namespace svcplane::apiserver::server
