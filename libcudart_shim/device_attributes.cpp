#include "libcudart_shim/device_attributes.h"

#include <algorithm>
#include <climits>

namespace warpsim::cudart {

namespace {

int clamp_int(uint64_t v) { return static_cast<int>(std::min<uint64_t>(v, INT_MAX)); }

// One past the largest attribute number of each major (cudaDevAttrMax).
int attribute_end(int major) {
  if (major <= 11) return 122;
  if (major == 12) return 144;
  return 148;
}

}  // namespace

std::optional<int> device_attribute(const GpuConfig& g, int a, int major) {
  if (a < 1 || a >= attribute_end(major)) return std::nullopt;
  const int cc = static_cast<int>(g.cc());
  switch (a) {
    // --- the configured GPU -----------------------------------------------------------
    case 1: return clamp_int(g.max_threads_per_block);
    case 2: return clamp_int(g.max_block_dim[0]);
    case 3: return clamp_int(g.max_block_dim[1]);
    case 4: return clamp_int(g.max_block_dim[2]);
    case 5: return clamp_int(g.max_grid_dim[0]);
    case 6: return clamp_int(g.max_grid_dim[1]);
    case 7: return clamp_int(g.max_grid_dim[2]);
    case 8: return clamp_int(g.shared_mem_per_block);
    case 9: return clamp_int(g.const_mem);
    case 10: return clamp_int(g.warp_size);
    case 12: return clamp_int(g.regs_per_block);
    case 13: return clamp_int(static_cast<uint64_t>(g.core_clock * 1000.0));  // kHz
    case 16: return clamp_int(g.num_sms);
    case 33: return clamp_int(g.pci_bus_id);
    case 34: return clamp_int(g.pci_device_id);
    case 36: return clamp_int(static_cast<uint64_t>(g.memory_clock * 1000.0));  // kHz
    case 37: return clamp_int(g.memory_bus_width);
    case 38: return clamp_int(g.l2_size);
    case 39: return clamp_int(g.max_threads_per_sm);
    case 40: return clamp_int(g.async_engines);
    case 75: return static_cast<int>(g.cc_major());
    case 76: return static_cast<int>(g.cc_minor());
    case 81: return clamp_int(g.shared_mem_per_sm);
    case 82: return clamp_int(g.regs_per_sm);
    case 97: return clamp_int(g.shared_mem_per_block_optin);
    case 106: return clamp_int(g.max_ctas_per_sm);
    case 108: return clamp_int(g.l2_size * 3 / 4);  // persisting L2 lines: 75% of L2
    case 111: return clamp_int(g.reserved_shared_mem_per_block);
    case 120: return cc >= 90 ? 1 : 0;  // thread-block clusters
    case 126: return cc >= 90 ? 4 : 1;  // memory synchronisation domains
    // --- every CC >= 7.0 GPU ----------------------------------------------------------
    case 11: return INT_MAX;              // max pitch
    case 14: return 512;                  // texture alignment
    case 15: return 1;                    // copy/compute overlap
    case 17: return 0;                    // no display watchdog
    case 18: return 0;                    // discrete
    case 19: return 1;                    // can map host memory
    case 20: return 0;                    // compute mode default
    case 21: return 131072;               // max texture 1D
    case 22: return 131072;
    case 23: return 65536;
    case 24: case 25: case 26: return 16384;
    case 27: case 28: return 32768;
    case 29: return 2048;
    case 30: return 512;                  // surface alignment
    case 31: return 1;                    // concurrent kernels
    case 32: return 1;                    // ECC
    case 35: return 0;                    // TCC driver
    case 41: return 1;                    // unified addressing
    case 42: return 32768;
    case 43: return 2048;
    case 45: case 46: return 32768;
    case 47: case 48: return 8192;
    case 49: return 32768;
    case 50: return 0;                    // PCI domain
    case 51: return 32;                   // texture pitch alignment
    case 52: return 32768;
    case 53: return 32768;
    case 54: return 2046;
    case 55: return 32768;
    case 56: return 131072;
    case 57: return 65536;
    case 58: case 59: case 60: return 16384;
    case 61: return 32768;
    case 62: return 2048;
    case 63: case 64: return 32768;
    case 65: return 2048;
    case 66: return 32768;
    case 67: return 32768;
    case 68: return 2046;
    case 69: return 268435456;
    case 70: return 131072;
    case 71: return 65000;
    case 72: return 2097120;
    case 73: case 74: return 32768;
    case 77: return 32768;
    case 78: return 1;                    // stream priorities
    case 79: return 1;                    // L1 caches globals
    case 80: return 1;                    // L1 caches locals
    case 83: return 1;                    // managed memory
    case 84: return 0;                    // multi-GPU board
    case 85: return 0;
    case 86: return 0;                    // host native atomics
    case 87: return 2;                    // FP32:FP64 throughput ratio
    case 88: return 0;                    // pageable memory access (no HMM)
    case 89: return 1;                    // concurrent managed access
    case 90: return 1;                    // compute preemption
    case 91: return 1;                    // host pointer usable for registered memory
    case 92: case 93: case 94: return 0;  // reserved
    case 95: return 1;                    // cooperative launch
    case 96: return major <= 12 ? 1 : 0;  // multi-device cooperative launch (12), reserved (13)
    case 98: return 0;                    // flush remote writes
    case 99: return 1;                    // host register
    case 100: return 0;
    case 101: return 0;
    case 109: return 134213632;           // max access policy window
    case 112: return 0;                   // sparse arrays
    case 113: return 1;                   // read-only host registration
    case 114: return 0;                   // timeline semaphores
    case 115: return 1;                   // memory pools
    case 116: return 0;                   // GPUDirect RDMA
    case 117: return 0;
    case 118: return 0;
    case 119: return 0;                   // pool IPC handle types
    case 121: return 0;                   // deferred mapping arrays
    case 122: case 123: case 124: return 0;
    case 125: return 0;                   // IPC events
    case 127: case 128: case 129: return 0;
    case 130: return 0;                   // NUMA config: none
    case 131: return -1;                  // NUMA id
    case 132: return 0;
    case 133: return 0;                   // MPS
    case 134: return -1;                  // host NUMA id
    case 135: return 0;
    case 138: return 0;
    case 139: return static_cast<int>((static_cast<unsigned>(g.pci_device_id) << 16) | 0x10de);
    case 140: return 0;
    case 141: return 0;
    case 142: return 0;
    case 143: return 0;
    case 144: return 0;
    case 145: return 0;
    case 147: return 0;
    default: return std::nullopt;  // unused numbers (44, 102-105, 107, 110, 136, 137, 146)
  }
}

}  // namespace warpsim::cudart
