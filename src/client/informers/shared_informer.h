#pragma once

// client-go's sharedIndexInformer: one Reflector thread keeps a ThreadSafeStore current and
// queues notifications; one delivery thread hands them to every handler in order.
//
// Ordering: the reflector applies an event to the cache and queues its notification under one
// lock, so handlers see events in cache order, and a handler added late gets the cache's
// content (as on_add, in_initial_list = true) followed by exactly the events after it.
// The cache may be ahead of the handlers (as with client-go's listener buffers).
//
// A relist (after 410 Gone or an error) diffs against the cache: new objects are on_add,
// objects whose resourceVersion changed are on_update, and objects gone from the list are
// on_delete with final_state_unknown (client-go's DeletedFinalStateUnknown tombstone).
// Unchanged objects are not reported (client-go reports them as updates; nothing changed, so
// handlers have nothing to do).

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/thread_name.h"
#include "client/informers/interface.h"
#include "client/informers/reflector.h"
#include "client/informers/store.h"

namespace svcplane::client::informers {

template <typename T>
class SharedIndexInformer final : public SharedInformer<T> {
 public:
  SharedIndexInformer(ResourceClient<T>& client, const InformerOptions& options,
                      ReflectorOptions reflector_options = {})
      : client_(client),
        resync_(options.resync),
        clock_(reflector_options.clock ? *reflector_options.clock : RealClock::Get()) {
    reflector_options.label_selector = options.label_selector;
    reflector_options.field_selector = options.field_selector;
    reflector_options.namespace_ = options.namespace_;
    reflector_options_ = std::move(reflector_options);
  }

  ~SharedIndexInformer() override { Shutdown(); }

  std::shared_ptr<HandlerRegistration> AddEventHandler(ResourceEventHandler<T> handler) override {
    auto listener = std::make_shared<Listener>(std::move(handler));
    std::lock_guard lock(mu_);
    size_t index;
    {
      std::lock_guard hlock(handlers_mu_);
      index = handlers_.size();
      handlers_.push_back(listener);
    }
    if (synced_) {
      Notification n;
      n.kind = Kind::kReplay;
      n.target = index;
      n.replay = store_.List();
      Push(std::move(n));
    }
    // Otherwise the initial list has not arrived: its adds and the synced marker will cover
    // this handler (handlers are counted when each notification is queued).
    return listener;
  }

  Status AddIndexer(std::string name, IndexFunc<T> fn) override {
    std::lock_guard lock(mu_);
    if (started_) return BadRequestError("informer has already started");
    if (store_.HasIndexer(name)) {
      return Status(Code::kAlreadyExists, "indexer \"" + name + "\" already exists");
    }
    store_.AddIndexer(std::move(name), std::move(fn));
    return Status::Ok();
  }

  Status SetTransform(std::function<ObjectPtr<T>(ObjectPtr<T>)> fn) override {
    std::lock_guard lock(mu_);
    if (started_) return BadRequestError("informer has already started");
    transform_ = std::move(fn);
    return Status::Ok();
  }

  const Lister<T>& lister() const override { return store_; }
  const ThreadSafeStore<T>& store() const { return store_; }

  bool HasSynced() const override {
    std::lock_guard lock(mu_);
    return synced_;
  }

  std::string LastSyncResourceVersion() const override {
    std::lock_guard lock(mu_);
    return last_rv_;
  }

  // Starts the reflector and delivery threads; later calls do nothing.
  void Start() {
    std::lock_guard lock(mu_);
    if (started_ || stopping_) return;
    started_ = true;
    ReflectorSink<T> sink;
    sink.replace = [this](std::vector<ObjectPtr<T>> items, const std::string& rv) {
      Replace(std::move(items), rv);
    };
    sink.apply = [this](WatchEventType type, ObjectPtr<T> obj, bool more_ready) {
      Apply(type, std::move(obj), /*wake=*/!more_ready);
    };
    sink.watch_ended = [this] { WakeDelivery(); };
    sink.progress = [this](const std::string& rv) {
      std::lock_guard lock(mu_);
      last_rv_ = rv;
    };
    reflector_ = std::make_unique<Reflector<T>>(client_, std::move(sink), reflector_options_);
    reflector_thread_ = std::thread([this] {
      NameThisThread("inf-reflector");
      reflector_->Run();
    });
    delivery_thread_ = std::thread([this] {
      NameThisThread("inf-delivery");
      DeliveryLoop();
    });
  }

  // Waits (real time) until synced; false on timeout or shutdown.
  bool WaitForCacheSync(TimePoint deadline) {
    std::unique_lock lock(mu_);
    synced_cv_.wait_until(lock, deadline, [this] { return synced_ || stopping_; });
    return synced_ && !stopping_;
  }

  // Cancels the watch and joins both threads; no handler runs after it returns. Must not be
  // called from a handler.
  void Shutdown() {
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;
      stopping_ = true;
      synced_cv_.notify_all();
    }
    {
      std::lock_guard qlock(queue_mu_);
      queue_cv_.notify_all();
    }
    if (reflector_) reflector_->Stop();
    if (reflector_thread_.joinable()) reflector_thread_.join();
    if (delivery_thread_.joinable()) delivery_thread_.join();
  }

  const Reflector<T>* reflector() const { return reflector_.get(); }

 private:
  enum class Kind { kAdd, kUpdate, kDelete, kReplay, kSynced };
  struct Notification {
    Kind kind = Kind::kAdd;
    ObjectPtr<T> old_obj;
    ObjectPtr<T> obj;
    bool flag = false;    // in_initial_list (add) or final_state_unknown (delete)
    size_t handlers = 0;  // handlers [0, handlers) receive it
    size_t target = 0;    // kReplay: the one handler
    std::vector<ObjectPtr<T>> replay;
  };

  class Listener final : public HandlerRegistration {
   public:
    explicit Listener(ResourceEventHandler<T> h) : handler(std::move(h)) {}
    bool HasSynced() const override { return synced.load(); }
    const ResourceEventHandler<T> handler;
    std::atomic<bool> synced{false};
  };

  ObjectPtr<T> Transform(ObjectPtr<T> obj) const {
    return transform_ ? transform_(std::move(obj)) : std::move(obj);
  }

  // With mu_ held. Skipped while nobody listens: replay covers handlers added later.
  // `wake` false leaves the delivery thread asleep: the reflector applies a batch and wakes it
  // once, at the batch's last event (or the watch's end), instead of once per event.
  void Notify(Kind kind, ObjectPtr<T> old_obj, ObjectPtr<T> obj, bool flag, bool wake = true) {
    size_t handlers;
    {
      std::lock_guard hlock(handlers_mu_);
      handlers = handlers_.size();
    }
    if (handlers == 0) {
      if (wake) WakeDelivery();
      return;
    }
    Notification n;
    n.kind = kind;
    n.old_obj = std::move(old_obj);
    n.obj = std::move(obj);
    n.flag = flag;
    Push(std::move(n), wake);
  }

  // With mu_ held.
  void Push(Notification n, bool wake = true) {
    if (n.kind != Kind::kReplay) {
      std::lock_guard hlock(handlers_mu_);
      n.handlers = handlers_.size();
    }
    std::lock_guard qlock(queue_mu_);
    queue_.push_back(std::move(n));
    if (wake) queue_cv_.notify_one();
  }

  void WakeDelivery() {
    std::lock_guard qlock(queue_mu_);
    if (!queue_.empty()) queue_cv_.notify_one();
  }

  void Replace(std::vector<ObjectPtr<T>> items, const std::string& rv) {
    if (transform_) {
      for (auto& obj : items) obj = Transform(std::move(obj));
    }
    std::lock_guard lock(mu_);
    const bool initial = !synced_;
    store_.Replace(std::move(items), [&](const ObjectPtr<T>& old, const ObjectPtr<T>& cur) {
      if (!old) {
        Notify(Kind::kAdd, nullptr, cur, initial);
      } else if (!cur) {
        Notify(Kind::kDelete, nullptr, old, true);
      } else if (old->metadata.resource_version != cur->metadata.resource_version) {
        Notify(Kind::kUpdate, old, cur, false);
      }
    });
    last_rv_ = rv;
    if (initial) {
      synced_ = true;
      Notification n;
      n.kind = Kind::kSynced;
      Push(std::move(n));
      synced_cv_.notify_all();
    }
  }

  void Apply(WatchEventType type, ObjectPtr<T> obj, bool wake) {
    obj = Transform(std::move(obj));
    std::lock_guard lock(mu_);
    if (type == WatchEventType::kDeleted) {
      ObjectPtr<T> old = store_.Remove(ObjectKey(*obj));
      if (old) {
        Notify(Kind::kDelete, nullptr, std::move(obj), false, wake);
      } else if (wake) {
        WakeDelivery();  // earlier events of the batch may be waiting
      }
      return;
    }
    ObjectPtr<T> old = store_.Upsert(obj);
    if (old) {
      Notify(Kind::kUpdate, std::move(old), std::move(obj), false, wake);
    } else {
      Notify(Kind::kAdd, nullptr, std::move(obj), false, wake);
    }
  }

  // Queues on_update(obj, obj) for every cached object (periodic resync).
  void Resync() {
    std::lock_guard lock(mu_);
    if (!synced_) return;
    for (auto& obj : store_.List()) Notify(Kind::kUpdate, obj, obj, false);
  }

  void DeliveryLoop() {
    TimePoint next_resync = clock_.Now() + resync_;
    while (true) {
      std::deque<Notification> batch;
      bool resync_due = false;
      {
        std::unique_lock qlock(queue_mu_);
        auto ready = [this] { return !queue_.empty() || Stopping(); };
        if (resync_.count() > 0) {
          resync_due = !clock_.WaitUntil(qlock, queue_cv_, next_resync, ready);
        } else {
          queue_cv_.wait(qlock, ready);
        }
        if (Stopping()) return;
        batch.swap(queue_);
      }
      if (resync_due) {
        next_resync = clock_.Now() + resync_;
        Resync();
        continue;
      }
      for (auto& n : batch) {
        if (Stopping()) return;
        Deliver(n);
      }
    }
  }

  // Lock-free: the delivery loop asks while holding queue_mu_, which nests inside mu_.
  bool Stopping() const { return stopping_.load(); }

  std::shared_ptr<Listener> HandlerAt(size_t i) {
    std::lock_guard hlock(handlers_mu_);
    return handlers_[i];
  }

  void Deliver(const Notification& n) {
    if (n.kind == Kind::kReplay) {
      auto l = HandlerAt(n.target);
      if (l->handler.on_add) {
        for (const auto& obj : n.replay) {
          if (Stopping()) return;
          l->handler.on_add(obj, true);
        }
      }
      l->synced = true;
      return;
    }
    for (size_t i = 0; i < n.handlers; ++i) {
      auto l = HandlerAt(i);
      const auto& h = l->handler;
      switch (n.kind) {
        case Kind::kAdd:
          if (h.on_add) h.on_add(n.obj, n.flag);
          break;
        case Kind::kUpdate:
          if (h.on_update) h.on_update(n.old_obj, n.obj);
          break;
        case Kind::kDelete:
          if (h.on_delete) h.on_delete(n.obj, n.flag);
          break;
        case Kind::kSynced:
          l->synced = true;
          break;
        case Kind::kReplay:
          break;
      }
    }
  }

  ResourceClient<T>& client_;
  const std::chrono::milliseconds resync_;
  const Clock& clock_;
  ReflectorOptions reflector_options_;

  // Serialises cache writes with notification queueing and handler registration.
  mutable std::mutex mu_;
  std::condition_variable synced_cv_;
  bool started_ = false;                                 // guarded by mu_
  std::atomic<bool> stopping_{false};                    // written under mu_; read anywhere
  bool synced_ = false;                                  // guarded by mu_
  std::string last_rv_;                                  // guarded by mu_
  std::function<ObjectPtr<T>(ObjectPtr<T>)> transform_;  // set before start
  ThreadSafeStore<T> store_;

  std::mutex handlers_mu_;  // taken after mu_ when both are held
  std::vector<std::shared_ptr<Listener>> handlers_;

  std::mutex queue_mu_;  // taken after mu_ / handlers_mu_
  std::condition_variable queue_cv_;
  std::deque<Notification> queue_;

  std::unique_ptr<Reflector<T>> reflector_;
  std::thread reflector_thread_;
  std::thread delivery_thread_;
};

}  // namespace svcplane::client::informers
