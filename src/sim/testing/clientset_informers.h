#pragma once

// A minimal InformerFactory over any Clientset (list, then watch from the list's
// resourceVersion; relist on 410), so the simulator runs against a real server before the
// informer branch's shared informers land. No resync, no DeltaFIFO: handlers run on the
// informer's own thread right after the cache changes.
// TODO(sim): replace with client/informers' factory once it is on main #7

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "client/informers/interface.h"

namespace svcplane::sim::testing {

template <typename T>
class ListWatchInformer final : public client::informers::SharedInformer<T>,
                                private client::informers::Lister<T> {
 public:
  using Ptr = client::ObjectPtr<T>;

  ListWatchInformer(client::ResourceClient<T>& client, client::informers::InformerOptions opts)
      : client_(client), opts_(std::move(opts)) {
    indexers_[client::informers::kNamespaceIndex] = [](const T& o) {
      return std::vector<std::string>{o.metadata.namespace_};
    };
  }
  ~ListWatchInformer() override { Stop(); }

  std::shared_ptr<client::informers::HandlerRegistration> AddEventHandler(
      client::informers::ResourceEventHandler<T> handler) override {
    std::lock_guard<std::mutex> d(deliver_mu_);
    if (handler.on_add) {
      for (const Ptr& obj : List()) handler.on_add(obj, false);
    }
    handlers_.push_back(std::move(handler));
    return std::make_shared<Registration>(this);
  }
  Status AddIndexer(std::string name, client::informers::IndexFunc<T> fn) override {
    if (started_) return BadRequestError("informer already started");
    indexers_[std::move(name)] = std::move(fn);
    return Status::Ok();
  }
  Status SetTransform(std::function<Ptr(Ptr)> fn) override {
    if (started_) return BadRequestError("informer already started");
    transform_ = std::move(fn);
    return Status::Ok();
  }
  const client::informers::Lister<T>& lister() const override { return *this; }
  bool HasSynced() const override { return synced_; }
  std::string LastSyncResourceVersion() const override {
    std::shared_lock<std::shared_mutex> l(cache_mu_);
    return rv_;
  }

  void Start() {
    if (started_.exchange(true)) return;
    thread_ = std::thread([this] { Run(); });
  }
  void Stop() {
    {
      std::lock_guard<std::mutex> l(stop_mu_);
      stopping_ = true;
    }
    stop_cv_.notify_all();
    cancel_.Cancel();
    if (thread_.joinable()) thread_.join();
  }

  // Lister.
  Ptr Get(std::string_view ns, std::string_view name) const override {
    std::shared_lock<std::shared_mutex> l(cache_mu_);
    auto it = items_.find(Key(ns, name));
    return it == items_.end() ? nullptr : it->second;
  }
  std::vector<Ptr> List(std::string_view ns = "",
                        const api::selectors::LabelSelector& selector =
                            api::selectors::LabelSelector()) const override {
    std::shared_lock<std::shared_mutex> l(cache_mu_);
    std::vector<Ptr> out;
    out.reserve(items_.size());
    for (const auto& [key, obj] : items_) {
      if (!ns.empty() && obj->metadata.namespace_ != ns) continue;
      if (!selector.Empty() && !selector.Matches(obj->metadata.labels)) continue;
      out.push_back(obj);
    }
    return out;
  }
  std::vector<Ptr> ByIndex(std::string_view index_name, std::string_view value) const override {
    std::shared_lock<std::shared_mutex> l(cache_mu_);
    std::vector<Ptr> out;
    auto idx = indices_.find(std::string(index_name));
    if (idx == indices_.end()) return out;
    auto keys = idx->second.find(std::string(value));
    if (keys == idx->second.end()) return out;
    for (const std::string& key : keys->second) out.push_back(items_.at(key));
    return out;
  }

 private:
  struct Registration final : client::informers::HandlerRegistration {
    explicit Registration(const ListWatchInformer* inf) : inf_(inf) {}
    bool HasSynced() const override { return inf_->HasSynced(); }
    const ListWatchInformer* inf_;
  };

  static std::string Key(std::string_view ns, std::string_view name) {
    return ns.empty() ? std::string(name) : std::string(ns) + "/" + std::string(name);
  }
  static std::string KeyOf(const T& o) { return Key(o.metadata.namespace_, o.metadata.name); }

  bool SleepInterrupted(std::chrono::milliseconds d) {
    std::unique_lock<std::mutex> l(stop_mu_);
    return stop_cv_.wait_for(l, d, [&] { return stopping_; });
  }

  void Run() {
    while (!cancel_.cancelled()) {
      client::ListOptions lo;
      lo.label_selector = opts_.label_selector;
      lo.field_selector = opts_.field_selector;
      auto list = client_.List(opts_.namespace_, lo);
      if (!list.ok()) {
        if (SleepInterrupted(std::chrono::seconds(1))) return;
        continue;
      }
      Replace(list->items, list->resource_version);
      synced_ = true;
      while (!cancel_.cancelled()) {
        client::ListOptions wo = lo;
        wo.watch = true;
        wo.allow_watch_bookmarks = true;
        wo.resource_version = LastSyncResourceVersion();
        wo.timeout_seconds = 300;
        Status st = client_.Watch(
            opts_.namespace_, wo,
            [this](client::WatchEvent<T> ev) {
              Apply(ev);
              return true;
            },
            cancel_);
        if (st.code() == Code::kGone) break;  // relist
        if (!st.ok() && SleepInterrupted(std::chrono::seconds(1))) return;
      }
    }
  }

  Ptr Transformed(Ptr obj) { return transform_ ? transform_(std::move(obj)) : obj; }

  // Cache writes; the caller holds cache_mu_ exclusively.
  void IndexLocked(const std::string& key, const T& obj, bool add) {
    for (const auto& [name, fn] : indexers_) {
      for (const std::string& v : fn(obj)) {
        auto& set = indices_[name][v];
        if (add) {
          set.insert(key);
        } else {
          set.erase(key);
          if (set.empty()) indices_[name].erase(v);
        }
      }
    }
  }
  Ptr PutLocked(const std::string& key, Ptr obj) {
    Ptr old;
    if (auto it = items_.find(key); it != items_.end()) {
      old = it->second;
      IndexLocked(key, *old, false);
    }
    IndexLocked(key, *obj, true);
    items_[key] = std::move(obj);
    return old;
  }
  Ptr RemoveLocked(const std::string& key) {
    auto it = items_.find(key);
    if (it == items_.end()) return nullptr;
    Ptr old = it->second;
    IndexLocked(key, *old, false);
    items_.erase(it);
    return old;
  }

  void Replace(const std::vector<Ptr>& items, const std::string& rv) {
    std::lock_guard<std::mutex> d(deliver_mu_);
    std::vector<std::pair<Ptr, Ptr>> changes;  // (old, new); new null for deletes
    {
      std::unique_lock<std::shared_mutex> l(cache_mu_);
      std::unordered_set<std::string> seen;
      for (const Ptr& raw : items) {
        Ptr obj = Transformed(raw);
        std::string key = KeyOf(*obj);
        seen.insert(key);
        changes.emplace_back(PutLocked(key, obj), obj);
      }
      std::vector<std::string> gone;
      for (const auto& [key, obj] : items_) {
        if (!seen.count(key)) gone.push_back(key);
      }
      for (const std::string& key : gone) changes.emplace_back(RemoveLocked(key), nullptr);
      rv_ = rv;
    }
    const bool initial = !synced_;
    for (const auto& [old_obj, new_obj] : changes) {
      for (const auto& h : handlers_) {
        if (!new_obj) {
          if (h.on_delete) h.on_delete(old_obj, true);
        } else if (!old_obj) {
          if (h.on_add) h.on_add(new_obj, initial);
        } else if (h.on_update) {
          h.on_update(old_obj, new_obj);
        }
      }
    }
  }

  void Apply(const client::WatchEvent<T>& ev) {
    std::lock_guard<std::mutex> d(deliver_mu_);
    Ptr old_obj, new_obj;
    {
      std::unique_lock<std::shared_mutex> l(cache_mu_);
      rv_ = ev.object->metadata.resource_version;
      if (ev.type == client::WatchEventType::kBookmark) return;
      const std::string key = KeyOf(*ev.object);
      if (ev.type == client::WatchEventType::kDeleted) {
        old_obj = RemoveLocked(key);
        if (!old_obj) return;
      } else {
        new_obj = Transformed(ev.object);
        old_obj = PutLocked(key, new_obj);
      }
    }
    for (const auto& h : handlers_) {
      if (!new_obj) {
        if (h.on_delete) h.on_delete(old_obj, false);
      } else if (!old_obj) {
        if (h.on_add) h.on_add(new_obj, false);
      } else if (h.on_update) {
        h.on_update(old_obj, new_obj);
      }
    }
  }

  // Constant after Start.
  client::ResourceClient<T>& client_;
  const client::informers::InformerOptions opts_;
  std::unordered_map<std::string, client::informers::IndexFunc<T>> indexers_;
  std::function<Ptr(Ptr)> transform_;

  std::atomic<bool> started_{false};
  std::atomic<bool> synced_{false};
  std::thread thread_;
  client::CancelToken cancel_;
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;  // guarded by stop_mu_

  // Handlers are called one at a time under deliver_mu_ (taken before cache_mu_).
  std::mutex deliver_mu_;
  std::vector<client::informers::ResourceEventHandler<T>> handlers_;

  mutable std::shared_mutex cache_mu_;
  std::unordered_map<std::string, Ptr> items_;
  std::unordered_map<std::string, std::unordered_map<std::string, std::unordered_set<std::string>>>
      indices_;
  std::string rv_;
};

// One ListWatchInformer per kind, created on first use; Start starts those requested so far
// (later ones start when requested).
class ClientsetInformerFactory final : public client::informers::InformerFactory {
 public:
  explicit ClientsetInformerFactory(client::Clientset& cs) : cs_(cs) {}
  ~ClientsetInformerFactory() override { Shutdown(); }

  client::informers::SharedInformer<api::core::v1::Namespace>& Namespaces() override {
    return Get(namespaces_);
  }
  client::informers::SharedInformer<api::core::v1::Service>& Services() override {
    return Get(services_);
  }
  client::informers::SharedInformer<api::core::v1::Pod>& Pods() override { return Get(pods_); }
  client::informers::SharedInformer<api::core::v1::Node>& Nodes() override { return Get(nodes_); }
  client::informers::SharedInformer<api::core::v1::Endpoints>& Endpoints() override {
    return Get(endpoints_);
  }
  client::informers::SharedInformer<api::core::v1::Event>& Events() override {
    return Get(events_);
  }
  client::informers::SharedInformer<api::discovery::v1::EndpointSlice>& EndpointSlices() override {
    return Get(slices_);
  }
  client::informers::SharedInformer<api::coordination::v1::Lease>& Leases() override {
    return Get(leases_);
  }

  void Start() override {
    std::lock_guard<std::mutex> l(mu_);
    started_ = true;
    for (auto& start : starters_) start();
  }
  bool WaitForCacheSync(std::chrono::milliseconds timeout) override {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      bool all = true;
      {
        std::lock_guard<std::mutex> l(mu_);
        if (shutdown_) return false;
        for (auto& synced : synced_fns_) all = all && synced();
      }
      if (all) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  void Shutdown() override {
    std::vector<std::function<void()>> stops;
    {
      std::lock_guard<std::mutex> l(mu_);
      shutdown_ = true;
      stops = stoppers_;
    }
    for (auto& stop : stops) stop();
  }

 private:
  template <typename T>
  ListWatchInformer<T>& Get(std::unique_ptr<ListWatchInformer<T>>& slot) {
    std::lock_guard<std::mutex> l(mu_);
    if (!slot) {
      slot = std::make_unique<ListWatchInformer<T>>(cs_.For<T>(),
                                                    client::informers::InformerOptions{});
      ListWatchInformer<T>* inf = slot.get();
      starters_.push_back([inf] { inf->Start(); });
      stoppers_.push_back([inf] { inf->Stop(); });
      synced_fns_.push_back([inf] { return inf->HasSynced(); });
      if (started_ && !shutdown_) inf->Start();
    }
    return *slot;
  }

  client::Clientset& cs_;
  std::mutex mu_;
  bool started_ = false;
  bool shutdown_ = false;
  std::vector<std::function<void()>> starters_, stoppers_;
  std::vector<std::function<bool()>> synced_fns_;
  std::unique_ptr<ListWatchInformer<api::core::v1::Namespace>> namespaces_;
  std::unique_ptr<ListWatchInformer<api::core::v1::Service>> services_;
  std::unique_ptr<ListWatchInformer<api::core::v1::Pod>> pods_;
  std::unique_ptr<ListWatchInformer<api::core::v1::Node>> nodes_;
  std::unique_ptr<ListWatchInformer<api::core::v1::Endpoints>> endpoints_;
  std::unique_ptr<ListWatchInformer<api::core::v1::Event>> events_;
  std::unique_ptr<ListWatchInformer<api::discovery::v1::EndpointSlice>> slices_;
  std::unique_ptr<ListWatchInformer<api::coordination::v1::Lease>> leases_;
};

}  // namespace svcplane::sim::testing
