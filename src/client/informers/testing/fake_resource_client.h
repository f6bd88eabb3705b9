#pragma once

// Reflector and informer tests script List and Watch answers (AddList/AddWatch) on the shared
// fake of client/testing and read back every call's options (list_calls/watch_calls).

#include <memory>
#include <string>
#include <vector>

#include "client/testing/fake_clientset.h"
#include "client/typed/interface.h"

namespace svcplane::client::informers::testing {

using ::svcplane::client::testing::FakeResourceClient;

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
