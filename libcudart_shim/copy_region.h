#pragma once
// Regions of copies and sets (cudaMemcpy3DParms, cudaMemcpy2D, memset
// nodes) flattened to plain C++ types: what Runtime::memcpy_3d and graph
// memcpy nodes hold.
#include <cstdint>

namespace warpsim::cudart {

// A 3D copy or set, in bytes (cudaMemcpy3DParms / cudaMemcpy2D flattened):
// `height` rows of `width` bytes in each of `depth` slices. Pointers are
// either arrays (cudaArray_t handles) or pitched memory.
struct PitchedRegion {
  const void* ptr = nullptr;  // memory; null when array != 0
  uint64_t array = 0;         // cudaArray_t handle
  uint64_t pitch = 0;         // bytes between rows (memory)
  uint64_t rows = 0;          // rows per slice (memory: ysize)
  uint64_t x = 0, y = 0, z = 0;  // position: x in bytes for memory, elements for arrays
};
struct Copy3D {
  PitchedRegion dst, src;
  uint64_t width = 0, height = 1, depth = 1;  // width in bytes
  int kind = 4;
};

// A copy of `bytes` contiguous bytes.
inline Copy3D linear_copy(void* dst, const void* src, uint64_t bytes, int kind) {
  Copy3D c;
  c.dst.ptr = dst;
  c.dst.pitch = bytes;
  c.src.ptr = src;
  c.src.pitch = bytes;
  c.width = bytes;
  c.kind = kind;
  return c;
}

}  // namespace warpsim::cudart
