#pragma once
// Reading user input files with a size limit: PTX, configuration files.
#include <cstdint>
#include <string>

namespace warpsim {

// The most bytes warpsim reads from one input file: a larger input is
// refused instead of exhausting memory, and line and column numbers (32-bit)
// stay exact below it.
inline constexpr uint64_t kMaxInputBytes = uint64_t{256} << 20;  // 256 MiB

// Reads a whole file of at most `max_bytes`, reading no more than
// max_bytes + 1 bytes, so endless streams (/dev/zero, pipes, FIFOs) are
// refused too. Returns an empty string on success; otherwise why not
// ("cannot read file", "file is larger than ...") and leaves `out` untouched.
std::string read_input_file(const std::string& path, std::string& out,
                            uint64_t max_bytes = kMaxInputBytes);

}  // namespace warpsim
