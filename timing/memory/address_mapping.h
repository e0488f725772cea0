#pragma once
// Address mapping: which memory partition, sub-partition (L2 slice), DRAM
// bank, row and column a physical address belongs to.
//
// The partition comes either from `D` bits of the mapping string (when the
// partition count is a power of two and the string has log2(count) D bits)
// or, without D bits, from interleaving: partition = (address /
// interleave_bytes) % partitions, for any count. An optional hash then
// spreads strided patterns: `xor` folds the address bits above the
// partition field into the index, `ipoly` takes the line address modulo an
// irreducible polynomial over GF(2) (power-of-two counts of 2 to 64).
//
// The rest of the address (the partition bits removed, the higher bits
// shifted down) is the partition-local address; the mapping string names
// the role of each of its bits, most significant first, like GPGPU-Sim's
// -gpgpu_mem_addr_mapping: R row, B bank, C column, D partition (only in
// the D-bit form, where they are removed first), '0' or 'S' unused (byte
// offset within a burst), '.' a separator that is ignored. Bits above the
// string's length belong to the row, and so do leading '0'/'S' characters
// (padding before the first R, B or C). The sub-partition is bank %
// sub_partitions, as in GPGPU-Sim.
#include <array>
#include <cstdint>
#include <string>


namespace warpsim::timing {

enum class PartitionHash : uint8_t { None, Xor, Ipoly };

struct AddressMappingConfig {
  uint32_t partitions = 8;        // memory partitions (= DRAM channels)
  uint32_t sub_partitions = 2;    // L2 slices per partition
  uint32_t interleave_bytes = 256;  // partition interleave without D bits
  PartitionHash hash = PartitionHash::None;
  // Partition-local address bits, most significant first (see above).
  std::string mapping = "RRRRRRRR.RRRRRRRR.BBBBCCCC.CCCSSSSS";
};

struct DecodedAddress {
  uint32_t partition = 0;      // 0 .. partitions-1
  uint32_t sub_partition = 0;  // global: partition * sub_partitions + local slice
  uint32_t bank = 0;
  uint32_t row = 0;
  uint32_t column = 0;
  uint64_t local = 0;          // partition-local address
};

class AddressMapping {
 public:
  // `config` is valid (validate_address_mapping returned "").
  explicit AddressMapping(const AddressMappingConfig& config);
  DecodedAddress decode(uint64_t address) const;
  uint32_t banks() const;  // 2^(B bits)
  uint32_t row_bytes() const;  // 2^(C + non-padding S/0 bits): bytes in one bank row
  const AddressMappingConfig& config() const { return config_; }

 private:
  // The bits of one field as runs of adjacent bits, precomputed so that
  // gather() (a software PEXT: the field's bits packed in order, most
  // significant first) is one shift, mask and shift per run.
  struct BitRun {
    uint64_t mask = 0;  // the run's width, as low ones
    uint8_t from = 0;   // lowest bit of the run in the input
    uint8_t to = 0;     // where that bit lands in the output
  };
  struct Field {
    std::array<BitRun, 32> runs{};  // a 64-bit mask has at most 32 runs
    uint32_t count = 0;             // runs in use
    uint32_t bits = 0;              // bits in the field
    void assign(uint64_t mask);
    uint64_t gather(uint64_t x) const;
  };

  uint32_t hash_of(uint64_t upper) const;

  AddressMappingConfig config_;
  // Precomputed bit positions: decode is a few shifts and masks.
  bool d_form_ = false;         // the partition is the D bits
  bool pow2_partitions_ = false;
  uint32_t partition_shift_ = 0;   // log2(partitions) when a power of two
  uint32_t interleave_shift_ = 0;  // log2(interleave_bytes)
  uint32_t above_d_shift_ = 0;     // 1 + the highest D bit (D form)
  uint32_t local_bits_ = 0;        // string bits of the local address (D bits removed)
  Field d_, squeeze_;              // D form: partition bits, and the rest of the address
  Field b_, c_, s_, r_;            // of the local address: bank, column, byte offset, row
  // Hash: bit j of the hash of `upper` is the parity of upper & hash_masks_[j].
  uint32_t hash_bits_ = 0;
  std::array<uint64_t, 32> hash_masks_{};
};

// "" when `c` is consistent (mapping characters, D bits vs partitions,
// ipoly limits, the sub-partitions dividing the banks), else the error.
// (The [timing.partition] table, memory_system_config.cpp, runs it.)
std::string validate_address_mapping(const AddressMappingConfig& c);

}  // namespace warpsim::timing
