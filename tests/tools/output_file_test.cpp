// Outputs are checked before a run and replace only what the user named, and
// only once complete (tools/output_file.h). Every case works in a private
// temporary directory.
#include "tools/output_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace warpsim::tools {
namespace {

namespace fs = std::filesystem;

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "warpsim-output-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (fs::path(dir_) / name).string(); }
  static std::string read(const std::string& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  size_t entries() const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()));
  }
  std::string dir_;
};

TEST_F(OutputFileTest, WritesANewFileOnlyWhenCommitted) {
  std::string why;
  auto out = OutputFile::prepare(path("stats.json"), why);
  ASSERT_TRUE(out) << why;
  EXPECT_FALSE(fs::exists(path("stats.json")));  // nothing there before the content is complete
  EXPECT_EQ(fs::path(out->temp_path()).parent_path(), fs::path(dir_));
  ASSERT_TRUE(out->write("{}\n", why)) << why;
  EXPECT_EQ(read(path("stats.json")), "{}\n");
  EXPECT_EQ(entries(), 1u);  // no temporary file left
}

TEST_F(OutputFileTest, ADiscardedOutputLeavesTheOldFileAndNoTemporary) {
  std::ofstream(path("stats.json")) << "old";
  std::string why;
  {
    auto out = OutputFile::prepare(path("stats.json"), why);
    ASSERT_TRUE(out) << why;
    std::ofstream(out->temp_path()) << "half a fi";
  }  // never committed
  EXPECT_EQ(read(path("stats.json")), "old");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(OutputFileTest, ReplacesAnExistingRegularFileKeepingItsMode) {
  std::ofstream(path("out.csv")) << "old";
  ::chmod(path("out.csv").c_str(), 0640);
  std::string why;
  auto out = OutputFile::prepare(path("out.csv"), why);
  ASSERT_TRUE(out) << why;
  ASSERT_TRUE(out->write("new", why)) << why;
  EXPECT_EQ(read(path("out.csv")), "new");
  struct stat st {};
  ASSERT_EQ(::stat(path("out.csv").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST_F(OutputFileTest, RefusesADirectoryAndRemovesNothing) {
  fs::create_directory(path("empty"));
  std::string why;
  EXPECT_FALSE(OutputFile::prepare(path("empty"), why));
  EXPECT_NE(why.find("is a directory"), std::string::npos) << why;
  EXPECT_TRUE(fs::is_directory(path("empty")));
  fs::create_directory(path("full"));
  std::ofstream(path("full/x")) << "x";
  EXPECT_FALSE(OutputFile::prepare(path("full"), why));
  EXPECT_TRUE(fs::exists(path("full/x")));
  EXPECT_FALSE(OutputFile::prepare(path("full") + "/", why));
}

TEST_F(OutputFileTest, RefusesAFifoWithoutOpeningIt) {
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  std::string why;
  EXPECT_FALSE(OutputFile::prepare(path("fifo"), why));  // returns at once: a FIFO is never opened
  EXPECT_NE(why.find("not a regular file"), std::string::npos) << why;
  EXPECT_TRUE(fs::is_fifo(path("fifo")));
}

TEST_F(OutputFileTest, RefusesAProtectedFile) {
  std::ofstream(path("program")) << "\x7f" "ELF";
  std::string why;
  EXPECT_FALSE(OutputFile::prepare(path("program"), why, {path("program")}));
  EXPECT_NE(why.find("must not overwrite"), std::string::npos) << why;
  EXPECT_EQ(read(path("program")), "\x7f" "ELF");
}

TEST_F(OutputFileTest, RefusesAMissingDirectoryAndOptionLikeNames) {
  std::string why;
  EXPECT_FALSE(OutputFile::prepare(path("no/such/dir/stats.json"), why));
  EXPECT_NE(why.find("does not exist"), std::string::npos) << why;
  EXPECT_FALSE(OutputFile::prepare("--", why));
  EXPECT_NE(why.find("looks like an option"), std::string::npos) << why;
  EXPECT_FALSE(OutputFile::prepare("", why));
}

TEST_F(OutputFileTest, RefusesAnUnwritableDirectoryUpFront) {
  if (::geteuid() == 0) GTEST_SKIP() << "root may write anywhere";
  fs::create_directory(path("ro"));
  ::chmod(path("ro").c_str(), 0500);
  std::string why;
  EXPECT_FALSE(OutputFile::prepare(path("ro/stats.json"), why));
  ::chmod(path("ro").c_str(), 0700);
}

TEST_F(OutputFileTest, FollowsASymbolicLinkAndReplacesItsTarget) {
  std::ofstream(path("real.json")) << "old";
  fs::create_symlink(path("real.json"), path("link.json"));
  std::string why;
  auto out = OutputFile::prepare(path("link.json"), why);
  ASSERT_TRUE(out) << why;
  ASSERT_TRUE(out->write("new", why)) << why;
  EXPECT_TRUE(fs::is_symlink(path("link.json")));
  EXPECT_EQ(read(path("real.json")), "new");
}

TEST_F(OutputFileTest, RelativePathsResolveAgainstTheCurrentDirectory) {
  const fs::path before = fs::current_path();
  fs::current_path(dir_);
  std::string why;
  auto out = OutputFile::prepare("rel.json", why);
  fs::current_path(before);  // as the program being run may change its own
  ASSERT_TRUE(out) << why;
  ASSERT_TRUE(out->write("x", why)) << why;
  EXPECT_EQ(read(path("rel.json")), "x");
}

TEST_F(OutputFileTest, TemporaryFilesGoWithTheirOwner) {
  std::string why, p;
  {
    auto t = TemporaryFile::create(dir_, "warpsim-stats-", why);
    ASSERT_TRUE(t) << why;
    p = t->path();
    EXPECT_TRUE(fs::exists(p));
  }
  EXPECT_FALSE(fs::exists(p));
}

}  // namespace
}  // namespace warpsim::tools
