#pragma once

// A scripted ResourceClient<T> for reflector and informer tests: List and Watch answers come from
// test-provided functions, and every call's options are recorded. Writes are unimplemented.

#include <chrono>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "client/typed/interface.h"

namespace svcplane::client::informers::testing {

template <typename T>
class FakeResourceClient final : public ResourceClient<T> {
 public:
  using ListFn = std::function<Result<ObjectList<T>>(const ListOptions&)>;
  // Runs one watch; the default (when the script is empty) blocks until cancelled.
  using WatchFn =
      std::function<Status(const ListOptions&, const WatchEventHandler<T>&, CancelToken&)>;

  void AddList(ListFn fn) {
    std::lock_guard lock(mu_);
    lists_.push_back(std::move(fn));
  }
  void AddWatch(WatchFn fn) {
    std::lock_guard lock(mu_);
    watches_.push_back(std::move(fn));
  }
  std::vector<ListOptions> list_calls() const {
    std::lock_guard lock(mu_);
    return list_calls_;
  }
  std::vector<ListOptions> watch_calls() const {
    std::lock_guard lock(mu_);
    return watch_calls_;
  }

  Result<ObjectList<T>> List(std::string_view, const ListOptions& options) override {
    ListFn fn;
    {
      std::lock_guard lock(mu_);
      list_calls_.push_back(options);
      if (lists_.empty()) return UnavailableError("no scripted list");
      fn = std::move(lists_.front());
      lists_.pop_front();
    }
    return fn(options);
  }

  Status Watch(std::string_view, const ListOptions& options, const WatchEventHandler<T>& handler,
               CancelToken& cancel) override {
    WatchFn fn;
    {
      std::lock_guard lock(mu_);
      watch_calls_.push_back(options);
      if (!watches_.empty()) {
        fn = std::move(watches_.front());
        watches_.pop_front();
      }
    }
    if (fn) return fn(options, handler, cancel);
    while (!cancel.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return Status::Ok();
  }

  Result<ObjectPtr<T>> Get(std::string_view, std::string_view, const GetOptions&) override {
    return Unimplemented();
  }
  Result<ObjectPtr<T>> Create(const T&, const WriteOptions&) override { return Unimplemented(); }
  Result<ObjectPtr<T>> Update(const T&, const WriteOptions&) override { return Unimplemented(); }
  Result<ObjectPtr<T>> UpdateStatus(const T&, const WriteOptions&) override {
    return Unimplemented();
  }
  Result<ObjectPtr<T>> Patch(std::string_view, std::string_view, PatchType, std::string_view,
                             const WriteOptions&, std::string_view) override {
    return Unimplemented();
  }
  Status Delete(std::string_view, std::string_view, const DeleteOptions&) override {
    return Unimplemented();
  }

 private:
  static Status Unimplemented() { return Status(Code::kMethodNotAllowed, "fake: not scripted"); }

  mutable std::mutex mu_;
  std::deque<ListFn> lists_;
  std::deque<WatchFn> watches_;
  std::vector<ListOptions> list_calls_;
  std::vector<ListOptions> watch_calls_;
};

// A Pod with namespace/name/resourceVersion (and optional label app=...).
inline ObjectPtr<api::core::v1::Pod> TestPod(std::string name, std::string rv,
                                             std::string ns = "default", std::string app = "") {
  auto p = std::make_shared<api::core::v1::Pod>();
  p->metadata.name = std::move(name);
  p->metadata.namespace_ = std::move(ns);
  p->metadata.resource_version = std::move(rv);
  if (!app.empty()) p->metadata.labels["app"] = std::move(app);
  return p;
}

template <typename T>
ObjectList<T> MakeList(std::vector<ObjectPtr<T>> items, std::string rv, std::string next = "") {
  ObjectList<T> l;
  l.items = std::move(items);
  l.resource_version = std::move(rv);
  l.continue_token = std::move(next);
  return l;
}

}  // namespace svcplane::client::informers::testing
