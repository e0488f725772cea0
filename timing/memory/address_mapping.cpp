// Address mapping: physical address -> (partition, sub-partition, bank, row,
// column, partition-local address). The constructor turns the mapping string
// into masks, runs of adjacent bits and hash masks once; decode() is then a
// handful of shifts, masks and popcounts with no allocation, so the memory
// system can call it for every request.
//
// Two steps, in this order:
// 1. Partition and local address. In the D-bit form the D bits are the
//    partition index and the local address is the address with them
//    squeezed out (higher bits shift down). Otherwise the address is cut
//    into interleave_bytes-sized slots: slot = address / interleave_bytes,
//    index = slot % partitions, upper = slot / partitions, and
//    local = upper * interleave_bytes + address % interleave_bytes.
//    A hash then replaces the index by a function of the index and of
//    `upper` (the address bits above the partition field: in the D-bit form,
//    the bits above the highest D bit). The local address never depends on
//    the hash, and for a fixed `upper` the hash permutes the partitions, so
//    (partition, local) still identifies exactly one address.
//    - xor: index ^= fold(upper), the XOR of `upper`'s chunks of
//      ceil(log2(partitions)) bits. For a count that is not a power of two
//      (where XOR could leave the range) it is (index + fold) % partitions,
//      which also permutes the partitions for each `upper`.
//    - ipoly (power-of-two counts 2..64, k = log2(partitions)): the index is
//      the remainder of the line address (address / interleave_bytes, read
//      as a polynomial over GF(2)) modulo a primitive polynomial g of degree
//      k. Since slot = upper * x^k + index with deg(index) < k, that
//      remainder is index ^ (upper * x^k mod g): the same "index XOR a
//      linear function of upper" as xor, which is how the D-bit form
//      applies it too. Both hashes are linear over GF(2), so each output bit
//      is the parity of `upper` under a precomputed mask (an XOR tree, as in
//      hardware).
// 2. Bank, row, column from the local address and the string without its D
//    bits: bank = the B bits packed, most significant first; column = the C
//    bits packed, then the S/0 bits packed below them, so the column is the
//    byte offset within one row of one bank (row_bytes() = 2^(C + S/0 bits));
//    row = the R bits packed, with every local bit above the string on top.
//    A leading run of S/0 characters (before the first R, B or C, as in
//    GPGPU-Sim's strings padded to 64 characters) names address bits above
//    the fields; they join the row like the bits above the string, so that
//    (bank, row, column) stays one-to-one with the local address. The row is
//    returned modulo 2^32 (the default string keeps it exact up to 2^48).
// sub_partition = partition * sub_partitions + bank % sub_partitions.
#include "timing/memory/address_mapping.h"

#include <bit>
#include <string_view>

#include "common/invariant.h"

namespace warpsim::timing {

namespace {

// Primitive (hence irreducible) polynomials over GF(2) of degree 1..6, bit i
// the coefficient of x^i: x+1, x^2+x+1, x^3+x+1, x^4+x+1, x^5+x^2+1,
// x^6+x+1, the standard entries of the primitive-polynomial tables used for
// maximal-length LFSRs and cyclic codes (e.g. Peterson and Weldon, Error-
// Correcting Codes, 2nd ed., 1972, Appendix C). Index = degree.
constexpr uint32_t kIpolyModulus[7] = {0, 0b11, 0b111, 0b1011, 0b10011, 0b100101, 0b1000011};
constexpr uint32_t kIpolyMaxPartitions = 64;

constexpr uint64_t low_ones(uint32_t n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

bool is_mapping_char(char ch) {
  return ch == 'R' || ch == 'B' || ch == 'C' || ch == 'D' || ch == 'S' || ch == '0';
}

// The mapping string's roles as masks. D is over the address; R, B, C and S
// are over the local address (the string with its D bits removed). R holds
// the leading S/0 padding too; S only the byte-offset S/0 bits.
struct Layout {
  uint32_t length = 0;        // string bits (dots removed)
  uint32_t local_length = 0;  // string bits without the D bits
  uint64_t d = 0, r = 0, b = 0, c = 0, s = 0;
};

// Assumes valid characters and at most 64 of them (validate checks first).
Layout parse_mapping(std::string_view mapping) {
  std::string bits;
  for (char ch : mapping)
    if (ch != '.') bits += ch;
  Layout l;
  l.length = static_cast<uint32_t>(bits.size());
  std::string local;
  for (uint32_t i = 0; i < l.length; ++i) {
    if (bits[i] == 'D')
      l.d |= uint64_t{1} << (l.length - 1 - i);
    else
      local += bits[i];
  }
  l.local_length = static_cast<uint32_t>(local.size());
  const size_t first_field = local.find_first_of("RBC");
  for (uint32_t i = 0; i < l.local_length; ++i) {
    const uint64_t bit = uint64_t{1} << (l.local_length - 1 - i);
    switch (local[i]) {
      case 'R':
        l.r |= bit;
        break;
      case 'B':
        l.b |= bit;
        break;
      case 'C':
        l.c |= bit;
        break;
      default:  // 'S' or '0'
        if (first_field != std::string::npos && i < first_field)
          l.r |= bit;  // leading padding
        else
          l.s |= bit;
    }
  }
  return l;
}

std::string str(uint64_t v) { return std::to_string(v); }

std::string check_partitions_and_string(const AddressMappingConfig& c) {
  if (c.partitions < 1) return "partitions must be at least 1";
  if (!std::has_single_bit(c.interleave_bytes) || c.interleave_bytes < 32)
    return "interleave_bytes must be a power of two of at least 32 (got " +
           str(c.interleave_bytes) + ")";
  uint32_t length = 0;
  for (size_t i = 0; i < c.mapping.size(); ++i) {
    const char ch = c.mapping[i];
    if (ch == '.') continue;
    if (!is_mapping_char(ch))
      return "mapping \"" + c.mapping + "\": character '" + std::string(1, ch) + "' at index " +
             str(i) + " is not one of R B C D S 0 .";
    ++length;
  }
  if (length == 0) return "mapping must name at least one bit (R B C D S 0)";
  if (length > 64)
    return "mapping \"" + c.mapping + "\" has " + str(length) +
           " bits without the dots (at most 64)";
  return "";
}

std::string check_fields(const AddressMappingConfig& c, const Layout& l) {
  const uint32_t d_bits = static_cast<uint32_t>(std::popcount(l.d));
  if (d_bits > 0 && !std::has_single_bit(c.partitions))
    return "mapping has " + str(d_bits) + " D bits, but partitions = " + str(c.partitions) +
           " is not a power of two; remove the D bits to interleave by interleave_bytes";
  if (d_bits > 0 && d_bits != static_cast<uint32_t>(std::countr_zero(c.partitions)))
    return "mapping has " + str(d_bits) + " D bits, but partitions = " + str(c.partitions) +
           " needs " + str(std::countr_zero(c.partitions)) +
           " (log2 of the count), or none to interleave by interleave_bytes";
  if (c.hash == PartitionHash::Ipoly && (!std::has_single_bit(c.partitions) || c.partitions < 2 ||
                                         c.partitions > kIpolyMaxPartitions))
    return "hash = ipoly needs partitions to be a power of two from 2 to 64 (got " +
           str(c.partitions) + "); use xor or none";
  const uint32_t b_bits = static_cast<uint32_t>(std::popcount(l.b));
  if (b_bits > 31) return "mapping has " + str(b_bits) + " B bits (at most 31)";
  const uint32_t column_bits = static_cast<uint32_t>(std::popcount(l.c) + std::popcount(l.s));
  if (column_bits > 31)
    return "mapping has " + str(column_bits) +
           " C and byte-offset S/0 bits (at most 31: a row's bytes must fit in 32 bits)";
  const uint32_t banks = uint32_t{1} << b_bits;
  if (c.sub_partitions < 1) return "sub_partitions must be at least 1";
  if (c.sub_partitions > banks || banks % c.sub_partitions != 0)
    return "sub_partitions = " + str(c.sub_partitions) + " must divide the bank count " +
           str(banks) + " (2^" + str(b_bits) + ", the B bits of mapping)";
  return "";
}

}  // namespace

std::string validate_address_mapping(const AddressMappingConfig& c) {
  std::string err = check_partitions_and_string(c);
  if (!err.empty()) return err;
  return check_fields(c, parse_mapping(c.mapping));
}

void AddressMapping::Field::assign(uint64_t mask) {
  count = 0;
  bits = 0;
  while (mask != 0) {
    const uint32_t lo = static_cast<uint32_t>(std::countr_zero(mask));
    const uint32_t width = static_cast<uint32_t>(std::countr_one(mask >> lo));
    WARPSIM_INVARIANT(count < runs.size(), "a 64-bit mask has at most 32 runs");
    runs[count++] = BitRun{low_ones(width), static_cast<uint8_t>(lo), static_cast<uint8_t>(bits)};
    bits += width;
    mask &= ~(low_ones(width) << lo);
  }
}

uint64_t AddressMapping::Field::gather(uint64_t x) const {
  uint64_t out = 0;
  for (uint32_t i = 0; i < count; ++i) out |= ((x >> runs[i].from) & runs[i].mask) << runs[i].to;
  return out;
}

AddressMapping::AddressMapping(const AddressMappingConfig& config) : config_(config) {
  WARPSIM_INVARIANT(validate_address_mapping(config).empty(),
                    "AddressMapping needs a config that validate_address_mapping accepts");
  const Layout l = parse_mapping(config.mapping);
  const uint32_t p = config.partitions;
  pow2_partitions_ = std::has_single_bit(p);
  partition_shift_ = pow2_partitions_ ? static_cast<uint32_t>(std::countr_zero(p)) : 0;
  interleave_shift_ = static_cast<uint32_t>(std::countr_zero(config.interleave_bytes));
  d_form_ = l.d != 0;
  if (d_form_) {
    d_.assign(l.d);
    squeeze_.assign(~l.d);
    above_d_shift_ = static_cast<uint32_t>(64 - std::countl_zero(l.d));
  }
  local_bits_ = l.local_length;
  b_.assign(l.b);
  c_.assign(l.c);
  s_.assign(l.s);
  r_.assign(l.r);

  if (config.hash == PartitionHash::Xor) {
    // Fold bit j: `upper` bits j, j + w, j + 2w, ... (w = ceil(log2 p)).
    hash_bits_ = static_cast<uint32_t>(std::bit_width(p - 1));
    for (uint32_t j = 0; j < hash_bits_; ++j)
      for (uint32_t i = j; i < 64; i += hash_bits_) hash_masks_[j] |= uint64_t{1} << i;
  } else if (config.hash == PartitionHash::Ipoly) {
    // Bit j of (upper * x^k mod g): the parity of the `upper` bits i whose
    // x^(i+k) mod g has bit j. Walk x^k, x^(k+1), ... modulo g.
    hash_bits_ = partition_shift_;
    const uint32_t g = kIpolyModulus[hash_bits_];
    uint32_t power = g ^ (uint32_t{1} << hash_bits_);  // x^k mod g
    for (uint32_t i = 0; i < 64; ++i) {
      for (uint32_t j = 0; j < hash_bits_; ++j)
        if ((power >> j) & 1) hash_masks_[j] |= uint64_t{1} << i;
      power <<= 1;
      if ((power >> hash_bits_) & 1) power ^= g;
    }
  }
}

uint32_t AddressMapping::hash_of(uint64_t upper) const {
  uint32_t h = 0;
  for (uint32_t j = 0; j < hash_bits_; ++j)
    h |= static_cast<uint32_t>(std::popcount(upper & hash_masks_[j]) & 1) << j;
  return h;
}

DecodedAddress AddressMapping::decode(uint64_t address) const {
  const uint32_t p = config_.partitions;
  uint64_t index = 0, upper = 0, local = 0;
  if (d_form_) {
    index = d_.gather(address);
    local = squeeze_.gather(address);
    upper = above_d_shift_ < 64 ? address >> above_d_shift_ : 0;
  } else {
    const uint64_t slot = address >> interleave_shift_;
    upper = pow2_partitions_ ? slot >> partition_shift_ : slot / p;
    index = slot - upper * p;
    local = (upper << interleave_shift_) | (address & low_ones(interleave_shift_));
  }
  if (hash_bits_ != 0) {
    const uint64_t h = hash_of(upper);
    index = pow2_partitions_ ? index ^ h : (index + h) % p;
  }

  DecodedAddress d;
  d.partition = static_cast<uint32_t>(index);
  d.local = local;
  d.bank = static_cast<uint32_t>(b_.gather(local));
  d.column = static_cast<uint32_t>((c_.gather(local) << s_.bits) | s_.gather(local));
  uint64_t row = r_.gather(local);
  if (local_bits_ < 64) row |= (local >> local_bits_) << r_.bits;
  d.row = static_cast<uint32_t>(row);  // modulo 2^32 (see the file comment)
  d.sub_partition = d.partition * config_.sub_partitions + (d.bank & (config_.sub_partitions - 1));
  return d;
}

uint32_t AddressMapping::banks() const { return uint32_t{1} << b_.bits; }

uint32_t AddressMapping::row_bytes() const { return uint32_t{1} << (c_.bits + s_.bits); }

}  // namespace warpsim::timing
