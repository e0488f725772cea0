// Tests of the device printf formatter over a fake, read-only device memory.
#include "functional/device_printf.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace warpsim::functional {
namespace {

// Sparse memory: regions keyed by base address. A read is valid only if it
// lies entirely inside one region, so reads past a buffer's end fail.
class FakeMemory {
 public:
  void put(uint64_t base, std::vector<uint8_t> bytes) { regions_[base] = std::move(bytes); }

  // Stores s with its NUL terminator.
  void put_string(uint64_t base, std::string_view s) {
    std::vector<uint8_t> bytes(s.begin(), s.end());
    bytes.push_back(0);
    put(base, std::move(bytes));
  }

  DeviceReader reader() {
    return [this](uint64_t address, void* dst, size_t size) {
      reads.emplace_back(address, size);
      auto it = regions_.upper_bound(address);
      if (it == regions_.begin()) return false;
      --it;
      const uint64_t offset = address - it->first;
      if (offset > it->second.size() || size > it->second.size() - offset) return false;
      std::memcpy(dst, it->second.data() + offset, size);
      return true;
    };
  }

  std::vector<std::pair<uint64_t, size_t>> reads;

 private:
  std::map<uint64_t, std::vector<uint8_t>> regions_;
};

// Packs arguments the way the device ABI does: each at the next offset
// aligned to its size.
class Args {
 public:
  Args& i32(int32_t v) { return put(&v, 4); }
  Args& u32(uint32_t v) { return put(&v, 4); }
  Args& i64(int64_t v) { return put(&v, 8); }
  Args& u64(uint64_t v) { return put(&v, 8); }
  Args& f64(double v) { return put(&v, 8); }
  std::vector<uint8_t> bytes;

 private:
  Args& put(const void* p, size_t n) {
    bytes.resize((bytes.size() + n - 1) / n * n);
    const auto* b = static_cast<const uint8_t*>(p);
    bytes.insert(bytes.end(), b, b + n);
    return *this;
  }
};

template <typename T>
void store(std::vector<uint8_t>& buffer, size_t offset, T value) {
  ASSERT_LE(offset + sizeof(T), buffer.size());
  std::memcpy(buffer.data() + offset, &value, sizeof(T));
}

constexpr uint64_t kFormat = 0x1000;
constexpr uint64_t kArgs = 0x2000;

PrintfResult run(FakeMemory& mem, std::string_view format, const Args& args = {}) {
  mem.put_string(kFormat, format);
  if (!args.bytes.empty()) mem.put(kArgs, args.bytes);
  return format_device_printf(kFormat, args.bytes.empty() ? 0 : kArgs, mem.reader());
}

std::string text(std::string_view format, const Args& args = {}) {
  FakeMemory mem;
  const PrintfResult r = run(mem, format, args);
  EXPECT_TRUE(r.ok) << format << ": " << r.error;
  return r.text;
}

TEST(DevicePrintf, LiteralTextAndPercentWithoutArguments) {
  EXPECT_EQ(text("100%%\n"), "100%\n");
  EXPECT_EQ(text(""), "");
  EXPECT_EQ(text("plain"), "plain");
  EXPECT_EQ(text("[%5%]"), "[%]");  // glibc ignores flags on %%
}

TEST(DevicePrintf, IntegersOfEveryLengthAndSign) {
  EXPECT_EQ(text("%d %i %u", Args().i32(-7).i32(42).u32(4294967295u)), "-7 42 4294967295");
  EXPECT_EQ(text("%ld %lld %llu", Args().i64(-1234567890123).i64(INT64_MIN).u64(UINT64_MAX)),
            "-1234567890123 -9223372036854775808 18446744073709551615");
  // h/hh arguments arrive promoted to 4-byte ints; printf narrows them.
  EXPECT_EQ(text("%hd %hhd %hu %hhu", Args().i32(70000).i32(200).i32(70000).i32(300)),
            "4464 -56 4464 44");
  EXPECT_EQ(text("%zu %jd %td %Ld", Args().u64(1ull << 40).i64(-5).i64(-6).i64(7)),
            "1099511627776 -5 -6 7");
  EXPECT_EQ(text("%d", Args().i32(INT32_MIN)), "-2147483648");
}

TEST(DevicePrintf, HexAndOctalWithAlternateForm) {
  EXPECT_EQ(text("%x %X %#x %#X %o %#o %#x %#llx %lX",
                 Args().u32(255).u32(255).u32(255).u32(255).u32(8).u32(8).u32(0)
                     .u64(0xdeadbeefcafe).u64(0xABCDEF0123ull)),
            "ff FF 0xff 0XFF 10 010 0 0xdeadbeefcafe ABCDEF0123");
  EXPECT_EQ(text("%x", Args().i32(-1)), "ffffffff");
}

TEST(DevicePrintf, IntegerFlagsWidthPrecision) {
  EXPECT_EQ(text("[%+d][% d][%-5d][%05d][%.3d][%8.3d][%-+6d][%.0d]",
                 Args().i32(5).i32(5).i32(5).i32(-5).i32(7).i32(7).i32(3).i32(0)),
            "[+5][ 5][5    ][-0005][007][     007][+3    ][]");
}

TEST(DevicePrintf, FloatsInEveryStyle) {
  EXPECT_EQ(text("%f %e %E %g %G %a %A %F",
                 Args().f64(1.5).f64(12345.678).f64(12345.678).f64(0.0001).f64(1e-10).f64(1.0)
                     .f64(1.0).f64(2.5)),
            "1.500000 1.234568e+04 1.234568E+04 0.0001 1E-10 0x1p+0 0X1P+0 2.500000");
  // A float argument is promoted to double by the caller.
  EXPECT_EQ(text("%.9f", Args().f64(static_cast<double>(1.1f))), "1.100000024");
  EXPECT_EQ(text("[%10.3f][%-10.2e][%+.1f][%#.0f][%#g]",
                 Args().f64(3.14159).f64(-2.5).f64(2.0).f64(3.0).f64(1.0)),
            "[     3.142][-2.50e+00 ][+2.0][3.][1.00000]");
  // Length modifiers do not change the 8-byte double slot.
  EXPECT_EQ(text("%lf %Lf %hf", Args().f64(1.0).f64(2.0).f64(3.0)), "1.000000 2.000000 3.000000");
}

TEST(DevicePrintf, InfinityAndNanUseGlibcSpelling) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(text("%f|%F|%e|%g|%G|%a|%f|%8.2f",
                 Args().f64(inf).f64(inf).f64(-inf).f64(nan).f64(nan).f64(-inf)
                     .f64(std::copysign(nan, -1.0)).f64(inf)),
            "inf|INF|-inf|nan|NAN|-inf|-nan|     inf");
}

TEST(DevicePrintf, StarWidthAndPrecisionConsumeIntArguments) {
  const Args args = Args().i32(6).i32(42).i32(6).i32(42).i32(-6).i32(42).i32(2).f64(3.14159)
                        .i32(-1).f64(3.14159).i32(12).i32(3).f64(1234.5);
  // Layout check of the packer itself: the double after a lone int sits at 32.
  ASSERT_EQ(args.bytes.size(), 72u);
  EXPECT_EQ(text("[%*d][%-*d][%*d][%.*f][%.*f][%*.*e]", args),
            "[    42][42    ][42    ][3.14][3.141590][   1.234e+03]");
}

TEST(DevicePrintf, CharIsAPromotedInt) {
  EXPECT_EQ(text("%c%c|%3c|%-3c|", Args().i32('A').i32('Z').i32('x').i32('y')), "AZ|  x|y  |");
  EXPECT_EQ(text("%c", Args().i32(0x141)), "A");  // converted to unsigned char
}

TEST(DevicePrintf, Strings) {
  FakeMemory mem;
  mem.put_string(0x5000, "hello");
  PrintfResult r = run(mem, "[%s][%10s][%-7s][%.3s]",
                       Args().u64(0x5000).u64(0x5000).u64(0x5000).u64(0x5000));
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text, "[hello][     hello][hello  ][hel]");

  // Longer than one read chunk, crossing chunk boundaries.
  const std::string long_string(1000, 'q');
  mem.put_string(0x10010, long_string);
  r = run(mem, "%s!", Args().u64(0x10010));
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text, long_string + "!");
}

TEST(DevicePrintf, NullStringPrintsLikeGlibc) {
  EXPECT_EQ(text("[%s][%8s][%-8s][%.3s][%.6s]", Args().u64(0).u64(0).u64(0).u64(0).u64(0)),
            "[(null)][  (null)][(null)  ][][(null)]");
}

TEST(DevicePrintf, UnreadableStringGivesMarkerAndError) {
  FakeMemory mem;
  const PrintfResult r = run(mem, "a=%s b=%d", Args().u64(0xdead0000).i32(5));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.text, "a=<unreadable string at 0xdead0000> b=5");
  EXPECT_NE(r.error.find("unreadable"), std::string::npos) << r.error;
}

TEST(DevicePrintf, PrecisionBoundsTheStringRead) {
  FakeMemory mem;
  mem.put(0x6000, {'a', 'b', 'c', 'd', 'e', 'f'});  // no NUL
  PrintfResult r = run(mem, "%.4s|%.6s", Args().u64(0x6000).u64(0x6000));
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text, "abcd|abcdef");
  r = run(mem, "%s", Args().u64(0x6000));  // runs off the region looking for the NUL
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.text, "<unreadable string at 0x6000>");
}

TEST(DevicePrintf, Pointers) {
  EXPECT_EQ(text("%p %p %20p", Args().u64(0x7f0012345678).u64(0).u64(0x10)),
            "0x7f0012345678 (nil)                 0x10");
}

TEST(DevicePrintf, MixedAlignment) {
  // int @0, double @8, int @16, long @24: each value aligned to its size.
  std::vector<uint8_t> buffer(32, 0xcc);
  store<int32_t>(buffer, 0, 11);
  store<double>(buffer, 8, 0.5);
  store<int32_t>(buffer, 16, -3);
  store<int64_t>(buffer, 24, 1ll << 33);
  FakeMemory mem;
  mem.put_string(kFormat, "%d %f %d %ld");
  mem.put(kArgs, buffer);
  PrintfResult r = format_device_printf(kFormat, kArgs, mem.reader());
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text, "11 0.500000 -3 8589934592");

  // char @0, long long @8, hh @16, string @24, unsigned @32 (40 bytes).
  mem.put_string(0x5000, "str");
  const Args args = Args().i32('c').i64(-9).i32(300).u64(0x5000).u32(7);
  ASSERT_EQ(args.bytes.size(), 36u);
  r = run(mem, "%c %lld %hhd %s %u", args);
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text, "c -9 44 str 7");
}

TEST(DevicePrintf, ThirtyTwoArgumentLimit) {
  Args args;
  std::string format, expected;
  for (int i = 0; i < 33; ++i) {
    args.i32(i);
    format += "%d,";
    expected += i < 32 ? std::to_string(i) + "," : "%d,";
  }
  FakeMemory mem;
  PrintfResult r = run(mem, format, args);
  EXPECT_EQ(r.text, expected);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("32"), std::string::npos) << r.error;
  for (const auto& [address, size] : mem.reads) {
    if (address >= kArgs && address < kArgs + 0x1000) {
      EXPECT_LE(address + size, kArgs + 32 * 4);
    }
  }

  // Once the limit is hit, later conversions are printed as written too,
  // even ones that would fit: their arguments are past the 32nd.
  Args args2;
  std::string format2;
  for (int i = 0; i < 34; ++i) args2.i32(1);
  for (int i = 0; i < 31; ++i) format2 += "%d";
  r = run(mem, format2 + "[%*d][%d]", args2);
  EXPECT_EQ(r.text, std::string(31, '1') + "[%*d][%d]");
  EXPECT_FALSE(r.ok);
}

TEST(DevicePrintf, MalformedFormatsPrintLiterally) {
  EXPECT_EQ(text("abc%"), "abc%");
  EXPECT_EQ(text("x%-5"), "x%-5");
  EXPECT_EQ(text("x%.*"), "x%.*");
  EXPECT_EQ(text("x%ll"), "x%ll");
  // Unknown conversions consume no argument.
  EXPECT_EQ(text("%y%d", Args().i32(3)), "%y3");
  EXPECT_EQ(text("%5k|%.2q|%*w|%d", Args().i32(9)), "%5k|%.2q|%*w|9");
}

TEST(DevicePrintf, PercentNWritesNothingButKeepsItsSlot) {
  std::vector<uint8_t> buffer(24, 0);
  store<int32_t>(buffer, 0, 1);
  store<uint64_t>(buffer, 8, 0x5000);  // the int* for %n
  store<int32_t>(buffer, 16, 2);
  FakeMemory mem;
  mem.put(0x5000, {0xaa, 0xbb, 0xcc, 0xdd});
  mem.put_string(kFormat, "%d%n%d");
  mem.put(kArgs, buffer);
  const PrintfResult r = format_device_printf(kFormat, kArgs, mem.reader());
  EXPECT_EQ(r.text, "12");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("%n"), std::string::npos) << r.error;
  for (const auto& [address, size] : mem.reads) EXPECT_NE(address, 0x5000u);
}

TEST(DevicePrintf, BadFormatString) {
  FakeMemory mem;
  PrintfResult r = format_device_printf(0, 0, mem.reader());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.text, "");
  r = format_device_printf(0x9000, 0, mem.reader());
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("unreadable"), std::string::npos) << r.error;

  mem.put(0x9000, {'a', 'b', '%', 'd'});  // runs into unmapped memory
  r = format_device_printf(0x9000, 0, mem.reader());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.text, "");

  mem.put(0x100000, std::vector<uint8_t>(kMaxPrintfFormatBytes + 10, 'a'));
  r = format_device_printf(0x100000, 0, mem.reader());
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("no NUL"), std::string::npos) << r.error;
  for (const auto& [address, size] : mem.reads) {
    if (address >= 0x100000) {
      EXPECT_LE(address + size, 0x100000 + kMaxPrintfFormatBytes);
    }
  }
}

TEST(DevicePrintf, UnreadableArgumentsPrintTheSpecAsWritten) {
  FakeMemory mem;
  mem.put_string(kFormat, "a%db%5.1fc");
  const PrintfResult r = format_device_printf(kFormat, 0, mem.reader());
  EXPECT_EQ(r.text, "a%db%5.1fc");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("argument"), std::string::npos) << r.error;
}

TEST(DevicePrintf, HugeFieldWidthIsClamped) {
  FakeMemory mem;
  PrintfResult r = run(mem, "%100000d", Args().i32(1));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.text.size(), static_cast<size_t>(kMaxPrintfFieldWidth));
  r = run(mem, "%*d", Args().i32(INT32_MIN).i32(1));  // -INT_MIN must not overflow
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.text.size(), static_cast<size_t>(kMaxPrintfFieldWidth));
  EXPECT_EQ(r.text.front(), '1');  // negative width: left-justified
}

// The $str byte arrays of an nvcc-generated PTX file, by name, from lines like
//   .global .align 1 .b8 $str$1[30] = {105, 110, ...};
std::map<std::string, std::vector<uint8_t>> ptx_strings(const std::string& path) {
  std::ifstream in(path);
  std::map<std::string, std::vector<uint8_t>> out;
  const std::string prefix = ".global .align 1 .b8 $str";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) != 0) continue;
    const size_t open = line.find('['), close = line.find(']');
    const size_t lbrace = line.find('{'), rbrace = line.find('}');
    if (open == std::string::npos || close == std::string::npos || lbrace == std::string::npos ||
        rbrace == std::string::npos) {
      continue;
    }
    // Bytes past the listed initialisers are zero (the NUL terminator).
    std::vector<uint8_t> bytes(std::stoul(line.substr(open + 1, close - open - 1)), 0);
    std::stringstream values(line.substr(lbrace + 1, rbrace - lbrace - 1));
    std::string value;
    for (size_t i = 0; std::getline(values, value, ','); ++i) {
      bytes.at(i) = static_cast<uint8_t>(std::stoi(value));
    }
    out[line.substr(prefix.size() - 4, open - prefix.size() + 4)] = std::move(bytes);
  }
  return out;
}

// Replays the vprintf calls of tests/ptx/gen/printf.sm80.ptx with the argument
// buffers laid out exactly as its st.local instructions write them.
TEST(DevicePrintf, NvccLayoutOfPrintfCu) {
  auto strings = ptx_strings(WARPSIM_SOURCE_DIR "/tests/ptx/gen/printf.sm80.ptx");
  ASSERT_EQ(strings.size(), 8u);
  FakeMemory mem;
  std::map<std::string, uint64_t> address;
  uint64_t next = 0x10000;
  for (auto& [name, bytes] : strings) {
    address[name] = next;
    mem.put(next, bytes);
    next += 0x100;
  }
  ASSERT_EQ(address.at("$str"), 0x10000u);
  const int32_t i = -7, tid = 1, ctaid = 0;
  const uint32_t u = 42;
  const int64_t l = -1234567890123;
  const float f = 1.5f;
  const double d = 2.25;
  auto call = [&](const std::string& format, size_t depot, auto&& fill) {
    std::vector<uint8_t> depot_bytes(depot, 0xee);  // __local_depot: 24 or 8 bytes
    fill(depot_bytes);
    mem.put(0x40000, depot_bytes);
    const PrintfResult r = format_device_printf(address.at(format), 0x40000, mem.reader());
    EXPECT_TRUE(r.ok) << r.error;
    return r.text;
  };
  // callseq 0: st.local.v2.u32 [%rd1], {%r4, %r5}; st.local.u64 [%rd1+8], %rd2
  EXPECT_EQ(call("$str$1", 24, [&](auto& b) {
              store(b, 0, i), store(b, 4, u), store(b, 8, l);
            }),
            "int=-7 unsigned=42 long=-1234567890123\n");
  // callseq 1: cvt.f64.f32 then st.local.f64 at +0, +8, +16
  EXPECT_EQ(call("$str$2", 24, [&](auto& b) {
              store(b, 0, static_cast<double>(f)), store(b, 8, d), store(b, 16, d);
            }),
            "float=1.500000 double=2.250000 sci=2.250000e+00\n");
  // callseq 2: st.local.u64 [%rd1] (cvta.global $str); v2.u32 [+8] {90, %r5}; u32 [+16]
  EXPECT_EQ(call("$str$3", 24, [&](auto& b) {
              store(b, 0, address.at("$str")), store(b, 8, int32_t{90}), store(b, 12, u),
                  store(b, 16, u);
            }),
            "str=hello char=Z hex=2a HEX=2A\n");
  // callseq 3: st.local.u64 [%rd1], %rd10 (the string's generic address)
  EXPECT_EQ(call("$str$4", 24, [&](auto& b) { store(b, 0, address.at("$str")); }),
            "ptr=0x10000\n");  // glibc's %p of the address $str was placed at
  // callseq 4: st.local.v2.u32 [%rd1], {%r2 (tid.x), %r1 (ctaid.x)}
  EXPECT_EQ(call("$str$5", 24, [&](auto& b) { store(b, 0, tid), store(b, 4, ctaid); }),
            "tid=1 block=0\n");
  // callseq 5: no arguments, so param1 is the literal 0.
  const PrintfResult done = format_device_printf(address.at("$str$6"), 0, mem.reader());
  EXPECT_TRUE(done.ok) << done.error;
  EXPECT_EQ(done.text, "100%\n");
  // print_loop, callseq 6: st.local.u32 [%rd1], %r28 into an 8-byte depot
  EXPECT_EQ(call("$str$7", 8, [&](auto& b) { store(b, 0, int32_t{3}); }), "i=3\n");
}

// CUDA's printf returns the number of arguments it parsed, -1 for a null format.
TEST(DevicePrintf, ReturnsTheNumberOfArgumentsParsed) {
  FakeMemory mem;
  EXPECT_EQ(run(mem, "plain\n").returned, 0);
  EXPECT_EQ(run(mem, "%d %s\n", Args().i32(1).u64(0)).returned, 2);
  EXPECT_EQ(run(mem, "%*.*f|%%\n", Args().i32(8).i32(2).f64(1.5)).returned, 3);  // stars count
  EXPECT_EQ(format_device_printf(0, 0, mem.reader()).returned, -1);
}

// FIFO record = 16-byte header + the argument buffer up to its last argument
// + each %s string with its NUL, every part rounded up to 8 bytes, the whole
// rounded up to 256 bytes (what an H100 showed: device_printf.h).
TEST(DevicePrintf, RecordSizeInTheFifo) {
  FakeMemory mem;
  EXPECT_EQ(kPrintfRecordGranule, 256u);
  EXPECT_EQ(run(mem, "plain\n").record_bytes, 256u);
  EXPECT_EQ(run(mem, "%d %d %d %d %d %d %d %d\n",
                Args().i32(1).i32(2).i32(3).i32(4).i32(5).i32(6).i32(7).i32(8))
                .record_bytes,
            256u);
  std::string long_text(300, 'x');
  mem.put_string(0x5000, long_text.c_str());  // 301 bytes with the NUL -> 304
  EXPECT_EQ(run(mem, "%s\n", Args().u64(0x5000)).record_bytes, 512u);  // 16 + 8 + 304
  EXPECT_EQ(run(mem, "%s|%s\n", Args().u64(0x5000).u64(0x5000)).record_bytes, 768u);
  EXPECT_EQ(run(mem, "%s\n", Args().u64(0)).record_bytes, 256u);  // "(null)" copies nothing
}

TEST(PrintfFifo, KeepsTheNewestRecordsUntilRead) {
  PrintfFifo fifo;
  EXPECT_EQ(fifo.capacity(), kDefaultPrintfFifoBytes);
  ASSERT_TRUE(fifo.set_capacity(512));
  fifo.push("a\n", 256);
  fifo.push("b\n", 256);  // exactly full
  uint64_t overwritten = 9;
  EXPECT_EQ(fifo.take(&overwritten), "a\nb\n");
  EXPECT_EQ(overwritten, 0u);
  fifo.push("c\n", 256);
  fifo.push("d\n", 256);
  fifo.push("e\n", 256);  // overwrites c
  EXPECT_EQ(fifo.take(&overwritten), "d\ne\n");
  EXPECT_EQ(overwritten, 1u);
  EXPECT_EQ(fifo.take(&overwritten), "");  // read: empty
  EXPECT_EQ(overwritten, 0u);
  // Fixed once a kernel that calls printf is launched.
  fifo.fix_capacity();
  EXPECT_TRUE(fifo.capacity_fixed());
  EXPECT_FALSE(fifo.set_capacity(128));
  EXPECT_EQ(fifo.capacity(), 512u);
}

TEST(PrintfFifo, ARecordLargerThanTheFifoIsLost) {
  PrintfFifo fifo;
  ASSERT_TRUE(fifo.set_capacity(256));
  fifo.push("big\n", 512);
  uint64_t overwritten = 0;
  EXPECT_EQ(fifo.take(&overwritten), "");
  EXPECT_EQ(overwritten, 1u);
}

TEST(PrintedRecords, KeepRecordBoundaries) {
  PrintedRecords a, b;
  a.add("one\n", 256);
  b.add("two\n", 512);
  b.add("three\n", 256);
  a.append(b);
  std::vector<std::pair<std::string, uint64_t>> seen;
  a.for_each([&](std::string_view t, uint64_t bytes) { seen.emplace_back(std::string(t), bytes); });
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, uint64_t>>{
                      {"one\n", 256}, {"two\n", 512}, {"three\n", 256}}));
  a.clear();
  EXPECT_TRUE(a.empty());
}

}  // namespace
}  // namespace warpsim::functional
