#include "base/atomic_file.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace svcplane {
namespace {

namespace fs = std::filesystem;

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "svcplane-atomic-XXXXXX").string();
    dir_ = ::mkdtemp(tmpl.data());
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  size_t Entries() { return std::distance(fs::directory_iterator(dir_), {}); }

  std::string dir_;
};

TEST_F(AtomicFileTest, CommitReplacesThePathWhole) {
  const std::string path = dir_ + "/f";
  std::ofstream(path) << "old";
  auto f = AtomicFile::Create(path);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  ASSERT_TRUE(f->Append("new ").ok());
  ASSERT_TRUE(f->Append("bytes").ok());
  EXPECT_EQ(Read(path), "old");  // nothing shows before Commit
  ASSERT_TRUE(f->Sync().ok());
  EXPECT_EQ(Read(f->temp_path()), "new bytes");
  ASSERT_TRUE(f->Commit().ok());
  EXPECT_EQ(Read(path), "new bytes");
  EXPECT_EQ(Entries(), 1u);
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
}

TEST_F(AtomicFileTest, DroppedWithoutCommitLeavesNothing) {
  const std::string path = dir_ + "/f";
  {
    auto f = AtomicFile::Create(path);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE(f->Append("half").ok());
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(Entries(), 0u);
}

TEST_F(AtomicFileTest, MissingFolderIsAnError) {
  auto f = AtomicFile::Create(dir_ + "/no/such/f");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("no/such/f.partial"), std::string::npos)
      << f.status().message();
}

}  // namespace
}  // namespace svcplane
