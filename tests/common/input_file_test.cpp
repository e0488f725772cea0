// read_input_file: whole files, the size limit, endless streams.
#include "common/input_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

namespace warpsim {
namespace {

std::string temp_path(const char* name) {
  return ::testing::TempDir() + name + std::to_string(getpid());
}

TEST(InputFile, ReadsAFileUpToTheLimit) {
  const std::string path = temp_path("input_file_ok");
  std::ofstream(path, std::ios::binary) << std::string(1000, 'x');
  std::string text;
  EXPECT_EQ(read_input_file(path, text, 1000), "");
  EXPECT_EQ(text, std::string(1000, 'x'));
  std::remove(path.c_str());
}

TEST(InputFile, RefusesAFileOneByteOverTheLimit) {
  const std::string path = temp_path("input_file_big");
  std::ofstream(path, std::ios::binary) << std::string(1001, 'x');
  std::string text = "untouched";
  EXPECT_EQ(read_input_file(path, text, 1000), "file is larger than 1000 B (the input size limit)");
  EXPECT_EQ(text, "untouched");
  std::remove(path.c_str());
}

TEST(InputFile, RefusesAnEndlessStreamAfterTheLimit) {
  std::string text = "untouched";
  EXPECT_EQ(read_input_file("/dev/zero", text, 1 << 20),
            "file is larger than 1 MiB (the input size limit)");
  EXPECT_EQ(text, "untouched");
}

TEST(InputFile, RefusesAnOversizedPipe) {
  // A FIFO fed twice the limit: the reader stops one byte past the limit
  // and closes its end, which ends the writer (EPIPE, SIGPIPE ignored).
  std::signal(SIGPIPE, SIG_IGN);
  const std::string path = temp_path("input_file_fifo");
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  std::thread writer([&] {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    const std::string chunk(4096, 'y');
    for (int i = 0; f && i < 512; ++i)
      if (std::fwrite(chunk.data(), 1, chunk.size(), f) != chunk.size()) break;
    if (f) std::fclose(f);
  });
  std::string text;
  EXPECT_EQ(read_input_file(path, text, 1 << 20), "file is larger than 1 MiB (the input size limit)");
  writer.join();
  std::remove(path.c_str());
}

TEST(InputFile, MissingFileCannotBeRead) {
  std::string text;
  EXPECT_EQ(read_input_file("/nonexistent/warpsim/input", text), "cannot read file");
}

TEST(InputFile, TheDefaultLimitIs256MiB) { EXPECT_EQ(kMaxInputBytes, uint64_t{256} << 20); }

}  // namespace
}  // namespace warpsim
