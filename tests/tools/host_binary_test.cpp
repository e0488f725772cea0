// The host-ELF reader `warpsim run` and `warpsim ptx extract` use: sections,
// DT_NEEDED, defined symbols, libcudart names; and that no truncation or
// corruption of a real executable makes it crash or read out of bounds.
#include "tools/host_binary.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <random>

namespace warpsim::tools {
namespace {

std::vector<std::byte> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> c((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> b(c.size());
  std::transform(c.begin(), c.end(), b.begin(), [](char x) { return std::byte(x); });
  return b;
}

TEST(HostBinary, ReadsThisTestProgram) {
  std::string error;
  auto bin = HostBinary::open("/proc/self/exe", error);
  ASSERT_TRUE(bin) << error;
  EXPECT_NE(bin->section(".text"), nullptr);
  EXPECT_NE(bin->section(".dynamic"), nullptr);
  EXPECT_EQ(bin->section(".no-such-section"), nullptr);
  const auto& needed = bin->needed();
  EXPECT_TRUE(std::find(needed.begin(), needed.end(), "libc.so.6") != needed.end());
  EXPECT_TRUE(bin->defines("main"));
  EXPECT_FALSE(bin->defines("__cudaRegisterFatBinary"));
  EXPECT_FALSE(bin->has_device_code());
  EXPECT_FALSE(find_cudart(needed));
}

TEST(HostBinary, RejectsWhatIsNotAnX86ElfFile) {
  std::string error;
  EXPECT_FALSE(HostBinary::open("/no/such/file", error));
  EXPECT_NE(error.find("cannot open"), std::string::npos);
  std::vector<std::byte> text(64, std::byte{'#'});
  EXPECT_FALSE(HostBinary::parse(text, error));
  EXPECT_EQ(error, "not an ELF file");
  EXPECT_FALSE(HostBinary::parse({}, error));
}

TEST(HostBinary, CudartNames) {
  EXPECT_EQ(cudart_major("libcudart.so.13"), 13);
  EXPECT_EQ(cudart_major("libcudart.so.12"), 12);
  EXPECT_EQ(cudart_major("libcudart.so.11.0"), 11);
  EXPECT_EQ(cudart_major("libcudart.so.10.1"), 0);
  EXPECT_EQ(cudart_major("libcudart.so"), 0);
  EXPECT_EQ(cudart_major("libcuda.so.1"), 0);
  EXPECT_EQ(find_cudart({"libm.so.6", "libcudart.so.12", "libc.so.6"}), "libcudart.so.12");
}
// `warpsim run --cudart N` on a program linked against another major: the
// program's own runtime is loaded too, which the user must hear about.
TEST(HostBinary, CudartMismatchWarning) {
  const std::string program = WARPSIM_LINKED_CUDA13_PROGRAM;
  std::string error;
  auto bin = HostBinary::open(program, error);
  ASSERT_TRUE(bin) << error;
  ASSERT_EQ(find_cudart(bin->needed()), "libcudart.so.13");
  const std::string w = cudart_mismatch_warning(program, 11);
  EXPECT_NE(w.find(program + " is linked against libcudart.so.13 (CUDA 13) but --cudart 11 was given"),
            std::string::npos)
      << w;
  EXPECT_NE(w.find("give --cudart 13"), std::string::npos) << w;
  EXPECT_NE(cudart_mismatch_warning(program, 12), "");
  // The same major, detection, no libcudart at all, an unreadable file: nothing to say.
  EXPECT_EQ(cudart_mismatch_warning(program, 13), "");
  EXPECT_EQ(cudart_mismatch_warning(program, 0), "");
  EXPECT_EQ(cudart_mismatch_warning("/proc/self/exe", 11), "");
  EXPECT_EQ(cudart_mismatch_warning("/no/such/program", 11), "");
}


// Prefixes and corruptions of a real executable: errors or partial results,
// never a crash (run under ASan in CI).
TEST(HostBinary, TruncatedAndCorruptFilesAreHandled) {
  const std::vector<std::byte> exe = read_bytes("/proc/self/exe");
  ASSERT_GT(exe.size(), 4096u);
  std::string error;
  for (size_t n : {size_t{0}, size_t{4}, size_t{63}, size_t{64}, size_t{1000}, exe.size() / 2,
                   exe.size() - 1}) {
    std::vector<std::byte> prefix(exe.begin(), exe.begin() + static_cast<std::ptrdiff_t>(n));
    auto b = HostBinary::parse(prefix, error);  // must not crash
    if (b) (void)b->defines("main");
  }
  std::mt19937 rng(4242);
  // The headers and section table carry every offset: corrupt them hardest.
  for (int round = 0; round < 300; ++round) {
    std::vector<std::byte> bad = exe;
    for (int k = 0; k < 4; ++k) {
      const size_t pos = round % 2 ? rng() % 4096 : rng() % bad.size();
      bad[pos] = std::byte(static_cast<uint8_t>(rng()));
    }
    auto b = HostBinary::parse(bad, error);
    if (b) {
      for (const ElfSection& s : b->sections()) (void)b->contents(s);
      (void)b->needed();
    }
  }
}

}  // namespace
}  // namespace warpsim::tools
