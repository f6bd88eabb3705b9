// Kills a writer process at random points and checks that every write it acknowledged is in
// the reopened store, with its value, and that no revision was ever handed out twice.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "storage/rocks/rocks_store.h"
#include "storage/testing/temp_dir.h"

extern char** environ;

namespace svcplane::storage::rocks {
namespace {

struct Ack {
  std::string value;
  Revision revision;
};

// Runs the writer for `run_for`, SIGKILLs it and returns everything it printed.
std::string RunAndKill(const std::string& path, int round, std::chrono::milliseconds run_for) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  std::string round_arg = std::to_string(round);
  std::string bin = STORE_CRASH_WRITER;
  char* argv[] = {bin.data(), const_cast<char*>(path.c_str()), round_arg.data(),
                  const_cast<char*>("4"), nullptr};
  pid_t pid = 0;
  EXPECT_EQ(posix_spawn(&pid, bin.c_str(), &actions, nullptr, argv, environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);

  std::string out;
  std::thread reader([&] {
    char buf[1 << 16];
    ssize_t n;
    while ((n = ::read(fds[0], buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  });
  std::this_thread::sleep_for(run_for);
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  reader.join();
  ::close(fds[0]);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "writer exited by itself (status " << status << "); see its stderr";
  return out;
}

TEST(CrashTest, KillNineNeverLosesAcknowledgedWrites) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/db";
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> delay_ms(40, 400);
  std::map<std::string, Ack> latest;  // per key, the acknowledged write with the top revision
  std::set<Revision> revisions;       // every acknowledged revision, across all rounds
  Revision max_acked = 0;
  size_t total_acks = 0;

  constexpr int kRounds = 24;
  for (int round = 1; round <= kRounds; ++round) {
    const auto run_for = std::chrono::milliseconds(delay_ms(rng));
    std::string out = RunAndKill(path, round, run_for);
    std::istringstream lines(out);
    std::string line;
    size_t acks = 0;
    while (std::getline(lines, line)) {
      if (lines.eof()) break;  // no newline: the writer died mid-line, not acknowledged
      std::istringstream fields(line);
      std::string key, value;
      Revision rev = 0;
      ASSERT_TRUE(fields >> key >> value >> rev) << "bad line: " << line;
      ASSERT_TRUE(revisions.insert(rev).second) << "revision " << rev << " acknowledged twice";
      ASSERT_GT(rev, 0);
      auto& slot = latest[key];
      if (rev > slot.revision) slot = Ack{value, rev};
      max_acked = std::max(max_acked, rev);
      ++acks;
    }
    total_acks += acks;

    RocksStoreOptions options;
    options.path = path;
    auto store = RocksStore::Open(options);
    ASSERT_TRUE(store.ok()) << "round " << round << ": " << store.status().ToString();
    ASSERT_GE((*store)->CurrentRevision(), max_acked) << "round " << round;
    for (const auto& [key, ack] : latest) {
      auto kv = (*store)->Get(key);
      ASSERT_TRUE(kv.ok()) << "round " << round << ": lost " << key << " (rev " << ack.revision
                           << "): " << kv.status().ToString();
      if (kv->mod_revision == ack.revision) {
        ASSERT_EQ(*kv->value, ack.value) << key;
      } else {
        // Only a later write that was synced but not yet acknowledged may have replaced it.
        ASSERT_GT(kv->mod_revision, ack.revision) << key << " went back in time";
      }
    }
    std::cerr << "round " << round << ": killed after " << run_for.count() << " ms, " << acks
              << " acks, store at revision " << (*store)->CurrentRevision() << "\n";
  }
  EXPECT_GT(total_acks, 1000u) << "the writer barely wrote; the test proves little";
}

}  // namespace
}  // namespace svcplane::storage::rocks
