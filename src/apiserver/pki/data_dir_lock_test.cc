#include "apiserver/pki/data_dir_lock.h"

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>

namespace svcplane::apiserver::pki {
namespace {

std::string TestDir() {
  return (std::filesystem::temp_directory_path() /
          ("svcplane-lock-test-" + std::to_string(::getpid())))
      .string();
}

TEST(DataDirLockTest, SecondHolderFailsWithPidUntilFirstReleases) {
  std::string dir = TestDir() + "/nested";
  {
    auto first = DataDirLock::Acquire(dir);
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    auto second = DataDirLock::Acquire(dir);
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.status().code(), Code::kUnavailable);
    EXPECT_EQ(second.status().message(), "svcplane: data dir " + dir +
                                             " is in use by another svcplane (pid " +
                                             std::to_string(::getpid()) + ")");
  }
  auto again = DataDirLock::Acquire(dir);
  EXPECT_TRUE(again.ok());
  std::filesystem::remove_all(TestDir());
}

TEST(DataDirLockTest, AnotherProcessIsRefused) {
  std::string dir = TestDir() + "/proc";
  auto held = DataDirLock::Acquire(dir);
  ASSERT_TRUE(held.ok());
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto other = DataDirLock::Acquire(dir);
    ::_exit(!other.ok() && other.status().message().find("pid " + std::to_string(::getppid())) !=
                               std::string::npos
                ? 0
                : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::filesystem::remove_all(TestDir());
}

}  // namespace
}  // namespace svcplane::apiserver::pki
