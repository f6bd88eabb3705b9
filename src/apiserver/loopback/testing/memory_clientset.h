#pragma once

// A whole in-process API (every registry over a storage::memory::MemoryStore, with real
// patching and namespace checks) behind the loopback Clientset: for tests of client code
// (informers, controllers) that want real API semantics without a server or files.

#include <memory>

#include "apiserver/loopback/loopback_clientset.h"
#include "storage/memory/memory_store.h"

namespace svcplane::apiserver::loopback::testing {

class MemoryClientset {
 public:
  // `history_events` > 0 shrinks the store's watch history (to force 410 Gone in tests).
  explicit MemoryClientset(size_t history_events = 0, LoopbackOptions options = {});
  ~MemoryClientset();

  client::Clientset& clients() { return *clients_; }
  storage::memory::MemoryStore& store() { return *store_; }
  // Creates namespace `name` (creates in other namespaces fail with NotFound, as in a server).
  void CreateNamespace(const std::string& name);

 private:
  struct Registries;
  std::unique_ptr<storage::memory::MemoryStore> store_;
  std::unique_ptr<Registries> regs_;
  std::unique_ptr<client::Clientset> clients_;
};

}  // namespace svcplane::apiserver::loopback::testing
