// Crash-test helper: writes to a RocksStore from several threads as fast as it can and prints
// one line per acknowledged write, `<key> <value> <revision>`, flushed before the next write,
// until it is killed. The crash test kill -9s it and checks that every printed write survived.
//   store_crash_writer <data folder> <round> <threads>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "storage/rocks/rocks_store.h"

namespace {

using svcplane::storage::MakeValue;
using svcplane::storage::Revision;
using svcplane::storage::Store;

std::mutex out_mu;

void Ack(const std::string& key, const std::string& value, Revision revision) {
  std::string line = key + " " + value + " " + std::to_string(revision) + "\n";
  std::lock_guard lock(out_mu);
  // One write(2) per line: the reader never sees half of an acknowledged line unless the
  // process died inside this call, and then the line is dropped as incomplete.
  if (::write(STDOUT_FILENO, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
    std::_Exit(3);
  }
}

void Writer(Store& store, const std::string& round, int thread) {
  const std::string counter = "/crash/counter/" + std::to_string(thread);
  Revision counter_rev = 0;
  if (auto kv = store.Get(counter); kv.ok()) {
    counter_rev = kv->mod_revision;
  } else if (auto created = store.Create(counter, MakeValue("start")); created.ok()) {
    counter_rev = created->mod_revision;
    Ack(counter, "start", counter_rev);
  }
  unsigned seed = static_cast<unsigned>(thread * 7919 + std::stoi(round));
  for (int i = 0;; ++i) {
    const std::string key =
        "/crash/r" + round + "/t" + std::to_string(thread) + "/" + std::to_string(i);
    std::string value = "v" + round + "." + std::to_string(thread) + "." + std::to_string(i) + "-";
    value.append(64 + rand_r(&seed) % 900, static_cast<char>('a' + i % 26));
    auto kv = store.Create(key, MakeValue(value));
    if (!kv.ok()) {
      std::fprintf(stderr, "create %s: %s\n", key.c_str(), kv.status().ToString().c_str());
      std::_Exit(2);
    }
    Ack(key, value, kv->mod_revision);
    if (i % 4 == 0) {
      std::string cv = "c" + round + "." + std::to_string(i);
      auto up = store.Update(counter, MakeValue(cv), counter_rev);
      if (!up.ok()) {
        std::fprintf(stderr, "update %s: %s\n", counter.c_str(), up.status().ToString().c_str());
        std::_Exit(2);
      }
      counter_rev = up->mod_revision;
      Ack(counter, cv, counter_rev);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <data folder> <round> <threads>\n", argv[0]);
    return 1;
  }
  // stdout carries only acknowledgements; diagnostics (RocksDB recovery notes) go to stderr.
  spdlog::set_default_logger(spdlog::stderr_logger_mt("stderr"));
  svcplane::storage::rocks::RocksStoreOptions options;
  options.path = argv[1];
  // Small memtables switch to a new WAL every few hundred writes, so kills land in WALs made
  // from pre-written spares (whose crash images end in zeros) and while spares are written.
  options.memtable_bytes = 256 << 10;
  auto store = svcplane::storage::rocks::RocksStore::Open(options);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().ToString().c_str());
    return 1;
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < std::atoi(argv[3]); ++t) {
    threads.emplace_back([&, t] { Writer(**store, argv[2], t); });
  }
  for (auto& t : threads) t.join();
  return 0;
}
