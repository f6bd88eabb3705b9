// Service creates per second through the registry with ClusterIP/NodePort allocation, as the
// API server runs them (minus HTTP): each create is an allocation (a revision-checked write of
// the range record) plus the Service write. Memory store vs the server's RocksDB + cache.
//   build/bench/alloc_bench --benchmark_filter=Rocks
#include <benchmark/benchmark.h>

#include <atomic>
#include <memory>
#include <mutex>

#include "apiserver/allocator/service_allocator.h"
#include "apiserver/registry/registry.h"
#include "storage/cache/cached_store.h"
#include "storage/memory/memory_store.h"
#include "storage/rocks/rocks_store.h"
#include "storage/testing/temp_dir.h"

namespace {

using namespace svcplane;
using api::core::v1::Service;

struct World {
  std::unique_ptr<storage::testing::TempDir> dir;
  std::unique_ptr<storage::Store> store;
  std::unique_ptr<apiserver::allocator::ServiceAllocator> alloc;
  std::unique_ptr<apiserver::registry::Registry<Service>> services;
  std::atomic<int64_t> next{0};
};

std::unique_ptr<World> MakeWorld(bool rocks) {
  auto w = std::make_unique<World>();
  if (rocks) {
    w->dir = std::make_unique<storage::testing::TempDir>();
    storage::rocks::RocksStoreOptions ro;
    ro.path = w->dir->path() + "/store";
    auto r = storage::rocks::RocksStore::Open(ro);
    if (!r.ok()) abort();
    auto c = storage::cache::CachedStore::Open(std::move(*r), {});
    if (!c.ok()) abort();
    w->store = std::move(*c);
  } else {
    w->store = std::make_unique<storage::memory::MemoryStore>();
  }
  apiserver::allocator::ServiceAllocatorOptions o;
  o.cidrs = {*apiserver::allocator::CidrRange::Parse("10.96.0.0/12")};
  o.node_ports = *apiserver::allocator::PortRange::Parse("30000-32767");
  w->alloc = std::make_unique<apiserver::allocator::ServiceAllocator>(w->store.get(), o);
  apiserver::registry::RegistryContext ctx;
  ctx.store = w->store.get();
  ctx.now_micros = [] { return int64_t{1714557600'000000}; };
  w->services = std::make_unique<apiserver::registry::Registry<Service>>(ctx);
  apiserver::registry::WriteHooks<Service> hooks;
  auto* alloc = w->alloc.get();
  hooks.begin_write = [alloc](Service& s, const Service* old, bool dry) {
    return alloc->Begin(s, old, dry);
  };
  hooks.after_delete = [alloc](const Service& s) { alloc->ReleaseAll(s); };
  w->services->SetHooks(std::move(hooks));
  return w;
}

std::mutex world_mu;
std::unique_ptr<World> world;

void Creates(benchmark::State& state, bool rocks, bool node_port) {
  if (state.thread_index() == 0) {
    std::lock_guard<std::mutex> lock(world_mu);
    world = MakeWorld(rocks);
  }
  // Google Benchmark starts all threads' loops together, after thread 0's setup.
  for (auto _ : state) {
    Service s;
    s.metadata.name = "svc-" + std::to_string(world->next++);
    s.spec.type = node_port ? "NodePort" : "ClusterIP";
    s.spec.selector["app"] = "x";
    s.spec.ports.push_back({.name = "http", .port = 80});
    auto r = world->services->Create("default", std::move(s), {});
    if (!r.ok()) state.SkipWithError(r.status().message().c_str());
  }
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0) {
    state.counters["allocated_ips"] =
        static_cast<double>(world->alloc->primary().stored().Read()->map.Count());
    // Torn down here, not at exit: the RocksDB store's threads must stop before statics die.
    std::lock_guard<std::mutex> lock(world_mu);
    world.reset();
  }
}

void BM_CreateClusterIP_Memory(benchmark::State& s) { Creates(s, false, false); }
void BM_CreateClusterIP_Rocks(benchmark::State& s) { Creates(s, true, false); }
void BM_CreateNodePort_Rocks(benchmark::State& s) { Creates(s, true, true); }

BENCHMARK(BM_CreateClusterIP_Memory)->Threads(1)->Threads(4)->UseRealTime()->Iterations(2000);
BENCHMARK(BM_CreateClusterIP_Rocks)
    ->Threads(1)
    ->Threads(4)
    ->Threads(16)
    ->UseRealTime()
    ->Iterations(1000);
BENCHMARK(BM_CreateNodePort_Rocks)->Threads(4)->UseRealTime()->Iterations(500);

}  // namespace

BENCHMARK_MAIN();
