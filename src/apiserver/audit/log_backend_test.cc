#include "apiserver/audit/log_backend.h"

#include <sys/stat.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

namespace svcplane::apiserver::audit {
namespace {

namespace fs = std::filesystem;

class LogBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("audit-log-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<std::string> Files() {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_ / "logs")) {
      out.push_back(e.path().filename().string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  fs::path dir_;
};

std::string Read(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST_F(LogBackendTest, AppendsLinesToA0600FileInA0700Folder) {
  LogOptions o;
  o.path = (dir_ / "logs" / "audit.log").string();
  {
    auto b = LogBackend::Open(o);
    ASSERT_TRUE(b.ok()) << b.status().message();
    (*b)->Write("{\"a\":1}", true);
    (*b)->Write("{\"a\":2}", false);
  }
  {
    auto b = LogBackend::Open(o);  // appends
    ASSERT_TRUE(b.ok());
    (*b)->Write("{\"a\":3}", true);
  }
  EXPECT_EQ(Read(o.path), "{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n");
  struct stat st {};
  ASSERT_EQ(::stat(o.path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat((dir_ / "logs").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST_F(LogBackendTest, ConcurrentBlockingWritersAllLand) {
  LogOptions o;
  o.path = (dir_ / "logs" / "audit.log").string();
  auto b = LogBackend::Open(o);
  ASSERT_TRUE(b.ok());
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) (*b)->Write(std::to_string(t * 1000 + i), true);
    });
  }
  for (auto& th : threads) th.join();
  std::string text = Read(o.path);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 4000);
}

TEST_F(LogBackendTest, RotatesAtMaxSizeWithLumberjackNamesKeepsMaxBackupAndCompresses) {
  LogOptions o;
  o.path = (dir_ / "logs" / "audit.log").string();
  o.max_size_mb = 1;
  o.max_backups = 2;
  o.compress = true;
  auto b = LogBackend::Open(o);
  ASSERT_TRUE(b.ok());
  const std::string line(10 * 1024, 'x');
  for (int i = 0; i < 350; ++i) {  // ~3.5 MB: three rotations
    (*b)->Write(line, true);
    if (i % 100 == 99) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  (*b)->Flush();
  auto files = Files();
  ASSERT_EQ(files.size(), 3u) << ::testing::PrintToString(files);
  const std::regex backup(R"(audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log\.gz)");
  EXPECT_TRUE(std::regex_match(files[0], backup)) << files[0];
  EXPECT_TRUE(std::regex_match(files[1], backup)) << files[1];
  EXPECT_EQ(files[2], "audit.log");
  EXPECT_LE(fs::file_size(o.path), 1024u * 1024u);
}

TEST_F(LogBackendTest, UncompressedBackupsStayPlain) {
  LogOptions o;
  o.path = (dir_ / "logs" / "audit.log").string();
  o.max_size_mb = 1;
  auto b = LogBackend::Open(o);
  ASSERT_TRUE(b.ok());
  const std::string line(100 * 1024, 'y');
  for (int i = 0; i < 12; ++i) (*b)->Write(line, true);
  auto files = Files();
  ASSERT_EQ(files.size(), 2u);
  EXPECT_TRUE(std::regex_match(files[0], std::regex(R"(audit-.*\.log)")));
  EXPECT_EQ(fs::file_size(dir_ / "logs" / files[0]), 10u * (100 * 1024 + 1));
}

TEST(LogOptionsTest, NegativeValuesAndUnknownModesAreRefused) {
  LogOptions o;
  o.path = "/tmp/x";
  o.max_age_days = -1;
  EXPECT_EQ(ValidateLogOptions(o).message(), "--audit-log-maxage -1 can't be a negative number");
  o.max_age_days = 0;
  o.max_backups = -2;
  EXPECT_EQ(ValidateLogOptions(o).message(), "--audit-log-maxbackup -2 can't be a negative number");
  o.max_backups = 0;
  o.max_size_mb = -3;
  EXPECT_EQ(ValidateLogOptions(o).message(), "--audit-log-maxsize -3 can't be a negative number");
  o.max_size_mb = 0;
  o.mode = "strict";
  EXPECT_EQ(ValidateLogOptions(o).message(),
            "invalid audit log mode strict, allowed modes are \"blocking,batch\"");
  o.mode = "batch";
  o.format = "legacy";
  EXPECT_EQ(ValidateLogOptions(o).message(),
            "invalid audit log format legacy, allowed formats are \"json\"");
  o.format = "json";
  EXPECT_TRUE(ValidateLogOptions(o).ok());
}

TEST_F(LogBackendTest, BatchModeDropsWhenTheBufferIsFull) {
  LogOptions o;
  o.path = (dir_ / "logs" / "audit.log").string();
  o.mode = "batch";
  o.batch_buffer_size = 1;
  auto b = LogBackend::Open(o);
  ASSERT_TRUE(b.ok());
  for (int i = 0; i < 2000; ++i) (*b)->Write("{}", true);
  (*b)->Flush();
  std::string text = Read(o.path);
  EXPECT_EQ(
      static_cast<uint64_t>(std::count(text.begin(), text.end(), '\n')) + (*b)->DroppedForTest(),
      2000u);
}

}  // namespace
}  // namespace svcplane::apiserver::audit
