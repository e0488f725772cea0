// Entry points: memory allocation, copies and sets (with their _ptds /
// _ptsz per-thread-default-stream forms), symbols, pointer attributes,
// unified-memory hints.
#include <algorithm>
#include <cstring>

#include "libcudart_shim/api.h"

using namespace warpsim::cudart;
using warpsim::cudart::api::entry;
using warpsim::cudart::api::kContext;

namespace {

uint64_t handle_of(const void* array) { return reinterpret_cast<uint64_t>(array); }

PitchedRegion memory_region(const void* ptr, size_t pitch, size_t rows = 0) {
  PitchedRegion r;
  r.ptr = ptr;
  r.pitch = pitch;
  r.rows = rows;
  return r;
}

PitchedRegion array_region(const void* array, size_t x_bytes, size_t y, size_t z = 0) {
  PitchedRegion r;
  r.array = handle_of(array);
  r.x = x_bytes;
  r.y = y;
  r.z = z;
  return r;
}

cudaError_t copy(void* dst, const void* src, size_t count, int kind, cudaStream_t stream,
                 bool async, bool pt) {
  return entry(kContext, [&](Runtime& r) {
    return r.memcpy(dst, src, count, kind, stream, async, pt);
  });
}

cudaError_t copy_3d(const Copy3D& c, cudaStream_t stream, bool async, bool pt) {
  return entry(kContext, [&](Runtime& r) { return r.memcpy_3d(c, stream, async, pt); });
}

cudaError_t copy_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                    size_t height, int kind, cudaStream_t stream, bool async, bool pt) {
  Copy3D c;
  c.dst = memory_region(dst, dpitch, height);
  c.src = memory_region(src, spitch, height);
  c.width = width;
  c.height = height;
  c.kind = kind;
  return copy_3d(c, stream, async, pt);
}

cudaError_t copy_2d_to_array(cudaArray_t dst, size_t w, size_t h, const void* src, size_t spitch,
                             size_t width, size_t height, int kind, cudaStream_t stream,
                             bool async, bool pt) {
  Copy3D c;
  c.dst = array_region(dst, w, h);
  c.src = memory_region(src, spitch, height);
  c.width = width;
  c.height = height;
  c.kind = kind;
  return copy_3d(c, stream, async, pt);
}

cudaError_t copy_2d_from_array(void* dst, size_t dpitch, cudaArray_const_t src, size_t w, size_t h,
                               size_t width, size_t height, int kind, cudaStream_t stream,
                               bool async, bool pt) {
  Copy3D c;
  c.dst = memory_region(dst, dpitch, height);
  c.src = array_region(src, w, h);
  c.width = width;
  c.height = height;
  c.kind = kind;
  return copy_3d(c, stream, async, pt);
}

// The deprecated 1D array copies: `count` bytes starting at (w bytes, h)
// and continuing on the following rows.
cudaError_t copy_linear_array(cudaArray_const_t array, size_t w, size_t h, void* mem,
                              size_t count, int kind, bool to_array, cudaStream_t stream,
                              bool async, bool pt) {
  return entry(kContext, [&](Runtime& r) {
    const warpsim::functional::ArrayInfo* a = r.array(handle_of(array));
    if (a == nullptr) return Error::InvalidResourceHandle;
    const uint64_t row = uint64_t{a->desc.width} * a->desc.format.bytes();
    uint64_t done = 0, x = w, y = h;
    while (done < count) {
      if (x >= row || y >= a->rows) return Error::InvalidValue;
      const uint64_t n = std::min<uint64_t>(row - x, count - done);
      Copy3D c;
      PitchedRegion arr = array_region(array, x, y);
      PitchedRegion m = memory_region(static_cast<uint8_t*>(mem) + done, n, 1);
      c.dst = to_array ? arr : m;
      c.src = to_array ? m : arr;
      c.width = n;
      c.kind = kind;
      if (Error e = r.memcpy_3d(c, stream, async, pt); e != Error::Success) return e;
      done += n;
      x = 0;
      ++y;
    }
    return Error::Success;
  });
}

}  // namespace

namespace warpsim::cudart::api {

// cudaMemcpy3DParms: positions and extents are in array elements when an
// array takes part (bytes otherwise).
Copy3D from_parms(const cudaMemcpy3DParms& p, Runtime& r, Error& err) {
  Copy3D c;
  uint64_t elem = 1;
  for (cudaArray_t a : {p.srcArray, p.dstArray})
    if (a != nullptr) {
      const warpsim::functional::ArrayInfo* info = r.array(handle_of(a));
      if (info == nullptr) {
        err = Error::InvalidResourceHandle;
        return c;
      }
      elem = info->desc.format.bytes();
    }
  auto side = [&](cudaArray_t array, const cudaPos& pos, const cudaPitchedPtr& ptr) {
    PitchedRegion reg;
    if (array != nullptr) {
      reg = array_region(array, pos.x * elem, pos.y, pos.z);
    } else {
      reg = memory_region(ptr.ptr, ptr.pitch, ptr.ysize);
      reg.x = pos.x;
      reg.y = pos.y;
      reg.z = pos.z;
    }
    return reg;
  };
  if ((p.srcArray != nullptr) == (p.srcPtr.ptr != nullptr) ||
      (p.dstArray != nullptr) == (p.dstPtr.ptr != nullptr)) {
    err = Error::InvalidValue;
    return c;
  }
  c.src = side(p.srcArray, p.srcPos, p.srcPtr);
  c.dst = side(p.dstArray, p.dstPos, p.dstPtr);
  c.width = p.extent.width * ((p.srcArray || p.dstArray) ? elem : 1);
  c.height = p.extent.height;
  c.depth = p.extent.depth;
  c.kind = p.kind;
  err = Error::Success;
  return c;
}

}  // namespace warpsim::cudart::api

namespace {

using warpsim::cudart::api::from_parms;

cudaError_t copy_3d_parms(const cudaMemcpy3DParms* p, cudaStream_t stream, bool async, bool pt) {
  return entry(kContext, [&](Runtime& r) {
    if (p == nullptr) return Error::InvalidValue;
    Error e = Error::Success;
    Copy3D c = from_parms(*p, r, e);
    if (e != Error::Success) return e;
    return r.memcpy_3d(c, stream, async, pt);
  });
}

cudaError_t copy_3d_peer(const cudaMemcpy3DPeerParms* p, cudaStream_t stream, bool async, bool pt) {
  return entry(kContext, [&](Runtime& r) {
    if (p == nullptr) return Error::InvalidValue;
    if (p->srcDevice != 0 || p->dstDevice != 0) return Error::InvalidDevice;
    cudaMemcpy3DParms q{};
    q.srcArray = p->srcArray;
    q.srcPos = p->srcPos;
    q.srcPtr = p->srcPtr;
    q.dstArray = p->dstArray;
    q.dstPos = p->dstPos;
    q.dstPtr = p->dstPtr;
    q.extent = p->extent;
    q.kind = cudaMemcpyDefault;
    Error e = Error::Success;
    Copy3D c = from_parms(q, r, e);
    if (e != Error::Success) return e;
    return r.memcpy_3d(c, stream, async, pt);
  });
}

cudaError_t set(void* ptr, int value, size_t count, cudaStream_t stream, bool async, bool pt) {
  return entry(kContext, [&](Runtime& r) {
    return r.memset_3d(memory_region(ptr, count, 1), value, count, 1, 1, stream, async, pt);
  });
}

cudaError_t set_2d(void* ptr, size_t pitch, int value, size_t width, size_t height,
                   cudaStream_t stream, bool async, bool pt) {
  return entry(kContext, [&](Runtime& r) {
    return r.memset_3d(memory_region(ptr, pitch, height), value, width, height, 1, stream, async,
                       pt);
  });
}

cudaError_t set_3d(cudaPitchedPtr p, int value, cudaExtent extent, cudaStream_t stream, bool async,
                   bool pt) {
  return entry(kContext, [&](Runtime& r) {
    return r.memset_3d(memory_region(p.ptr, p.pitch, p.ysize), value, extent.width, extent.height,
                       extent.depth, stream, async, pt);
  });
}

cudaError_t to_symbol(const void* symbol, const void* src, size_t count, size_t offset, int kind,
                      cudaStream_t stream, bool async, bool pt) {
  return entry(kContext, [&](Runtime& r) {
    return r.memcpy_to_symbol(symbol, src, count, offset, kind, stream, async, pt);
  });
}

cudaError_t from_symbol(void* dst, const void* symbol, size_t count, size_t offset, int kind,
                        cudaStream_t stream, bool async, bool pt) {
  return entry(kContext, [&](Runtime& r) {
    return r.memcpy_from_symbol(dst, symbol, count, offset, kind, stream, async, pt);
  });
}

// A location for prefetch and advice: 0 (the device) or -1 (the host).
struct Location {
  int device = 0;
  Error error = Error::Success;
};

// cudaMemLocation (CUDA 12.2+ and 13).
[[maybe_unused]] Location location(const cudaMemLocation& loc) {
  if (loc.type == cudaMemLocationTypeDevice)
    return loc.id == 0 ? Location{0} : Location{0, Error::InvalidDevice};
  if (loc.type == cudaMemLocationTypeHost || loc.type == cudaMemLocationTypeHostNuma ||
      loc.type == cudaMemLocationTypeHostNumaCurrent)
    return Location{-1};
  return Location{0, Error::InvalidValue};
}

// The int form: a device ordinal or cudaCpuDeviceId (-1).
[[maybe_unused]] Location location(int device) {
  return device == 0 || device == -1 ? Location{device} : Location{0, Error::InvalidDevice};
}

cudaError_t prefetch(const void* ptr, size_t count, Location loc, cudaStream_t stream, bool pt) {
  return entry(kContext, [&](Runtime& r) {
    if (loc.error != Error::Success) return loc.error;
    return r.prefetch(ptr, count, loc.device, stream, pt);
  });
}

cudaError_t advise(const void* ptr, size_t count, int advice, Location loc) {
  return entry(kContext, [&](Runtime& r) {
    if (loc.error != Error::Success) return loc.error;
    return r.advise(ptr, count, advice, loc.device);
  });
}

}  // namespace

extern "C" {

// ---- allocation ---------------------------------------------------------------------------

cudaError_t cudaMalloc(void** ptr, size_t size) {
  return entry(kContext, [&](Runtime& r) { return r.malloc_device(ptr, size); });
}

cudaError_t cudaFree(void* ptr) {
  return entry(kContext, [&](Runtime& r) { return r.free_device(ptr, true); });
}

cudaError_t cudaMallocHost(void** ptr, size_t size) {
  return entry(kContext, [&](Runtime& r) { return r.malloc_host(ptr, size, 0); });
}

cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned flags) {
  return entry(kContext, [&](Runtime& r) { return r.malloc_host(ptr, size, flags); });
}

cudaError_t cudaFreeHost(void* ptr) {
  return entry(kContext, [&](Runtime& r) { return r.free_host(ptr); });
}

cudaError_t cudaMallocManaged(void** ptr, size_t size, unsigned flags) {
  return entry(kContext, [&](Runtime& r) { return r.malloc_managed(ptr, size, flags); });
}

cudaError_t cudaMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height) {
  return entry(kContext, [&](Runtime& r) {
    uint64_t p = 0;
    if (pitch == nullptr) return Error::InvalidValue;
    Error e = r.malloc_pitch(ptr, &p, width, height);
    if (e == Error::Success) *pitch = p;
    return e;
  });
}

cudaError_t cudaMalloc3D(cudaPitchedPtr* pitched, cudaExtent extent) {
  return entry(kContext, [&](Runtime& r) {
    if (pitched == nullptr) return Error::InvalidValue;
    void* ptr = nullptr;
    uint64_t pitch = 0;
    uint64_t rows = 0;
    if (__builtin_mul_overflow(uint64_t{extent.height}, uint64_t{extent.depth}, &rows))
      return Error::MemoryAllocation;
    Error e = r.malloc_pitch(&ptr, &pitch, extent.width, rows);
    if (e != Error::Success) return e;
    *pitched = cudaPitchedPtr{ptr, pitch, extent.width, extent.height};
    return Error::Success;
  });
}

cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned flags) {
  return entry(kContext, [&](Runtime& r) { return r.host_register(ptr, size, flags); });
}

cudaError_t cudaHostUnregister(void* ptr) {
  return entry(kContext, [&](Runtime& r) { return r.host_unregister(ptr); });
}

cudaError_t cudaHostGetDevicePointer(void** device, void* host, unsigned flags) {
  return entry(kContext, [&](Runtime& r) { return r.host_device_pointer(device, host, flags); });
}

cudaError_t cudaHostGetFlags(unsigned* flags, void* host) {
  return entry(kContext, [&](Runtime& r) { return r.host_flags(flags, host); });
}

cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  return entry(kContext, [&](Runtime& r) {
    uint64_t f = 0, t = 0;
    Error e = r.memory_info(&f, &t);
    if (e == Error::Success) {
      *free = f;
      *total = t;
    }
    return e;
  });
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr) {
  return entry(kContext, [&](Runtime& r) {
    if (attributes == nullptr) return Error::InvalidValue;
    int type = 0, device = 0;
    void* dptr = nullptr;
    void* hptr = nullptr;
    Error e = r.pointer_attributes(ptr, &type, &device, &dptr, &hptr);
    if (e != Error::Success) return e;
    std::memset(attributes, 0, sizeof *attributes);
    attributes->type = static_cast<cudaMemoryType>(type);
    attributes->device = device;
    attributes->devicePointer = dptr;
    attributes->hostPointer = hptr;
    return Error::Success;
  });
}

// ---- copies and sets ----------------------------------------------------------------------

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, int kind) {
  return copy(dst, src, count, kind, nullptr, false, false);
}
cudaError_t cudaMemcpy_ptds(void* dst, const void* src, size_t count, int kind) {
  return copy(dst, src, count, kind, nullptr, false, true);
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, int kind,
                            cudaStream_t stream) {
  return copy(dst, src, count, kind, stream, true, false);
}
cudaError_t cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t count, int kind,
                                 cudaStream_t stream) {
  return copy(dst, src, count, kind, stream, true, true);
}
cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device,
                           size_t count) {
  if (dst_device != 0 || src_device != 0)
    return entry(kContext, [&](Runtime&) { return Error::InvalidDevice; });
  return copy(dst, src, count, cudaMemcpyDefault, nullptr, false, false);
}
cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device,
                                size_t count, cudaStream_t stream) {
  if (dst_device != 0 || src_device != 0)
    return entry(kContext, [&](Runtime&) { return Error::InvalidDevice; });
  return copy(dst, src, count, cudaMemcpyDefault, stream, true, false);
}

cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, int kind) {
  return copy_2d(dst, dpitch, src, spitch, width, height, kind, nullptr, false, false);
}
cudaError_t cudaMemcpy2D_ptds(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, int kind) {
  return copy_2d(dst, dpitch, src, spitch, width, height, kind, nullptr, false, true);
}
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, int kind, cudaStream_t stream) {
  return copy_2d(dst, dpitch, src, spitch, width, height, kind, stream, true, false);
}
cudaError_t cudaMemcpy2DAsync_ptsz(void* dst, size_t dpitch, const void* src, size_t spitch,
                                   size_t width, size_t height, int kind, cudaStream_t stream) {
  return copy_2d(dst, dpitch, src, spitch, width, height, kind, stream, true, true);
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t w, size_t h, const void* src,
                                size_t spitch, size_t width, size_t height, int kind) {
  return copy_2d_to_array(dst, w, h, src, spitch, width, height, kind, nullptr, false, false);
}
cudaError_t cudaMemcpy2DToArray_ptds(cudaArray_t dst, size_t w, size_t h, const void* src,
                                     size_t spitch, size_t width, size_t height, int kind) {
  return copy_2d_to_array(dst, w, h, src, spitch, width, height, kind, nullptr, false, true);
}
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t w, size_t h, const void* src,
                                     size_t spitch, size_t width, size_t height, int kind,
                                     cudaStream_t stream) {
  return copy_2d_to_array(dst, w, h, src, spitch, width, height, kind, stream, true, false);
}
cudaError_t cudaMemcpy2DToArrayAsync_ptsz(cudaArray_t dst, size_t w, size_t h, const void* src,
                                          size_t spitch, size_t width, size_t height, int kind,
                                          cudaStream_t stream) {
  return copy_2d_to_array(dst, w, h, src, spitch, width, height, kind, stream, true, true);
}
cudaError_t cudaMemcpy2DFromArray(void* dst, size_t dpitch, cudaArray_const_t src, size_t w,
                                  size_t h, size_t width, size_t height, int kind) {
  return copy_2d_from_array(dst, dpitch, src, w, h, width, height, kind, nullptr, false, false);
}
cudaError_t cudaMemcpy2DFromArray_ptds(void* dst, size_t dpitch, cudaArray_const_t src, size_t w,
                                       size_t h, size_t width, size_t height, int kind) {
  return copy_2d_from_array(dst, dpitch, src, w, h, width, height, kind, nullptr, false, true);
}
cudaError_t cudaMemcpy2DFromArrayAsync(void* dst, size_t dpitch, cudaArray_const_t src, size_t w,
                                       size_t h, size_t width, size_t height, int kind,
                                       cudaStream_t stream) {
  return copy_2d_from_array(dst, dpitch, src, w, h, width, height, kind, stream, true, false);
}
cudaError_t cudaMemcpy2DFromArrayAsync_ptsz(void* dst, size_t dpitch, cudaArray_const_t src,
                                            size_t w, size_t h, size_t width, size_t height,
                                            int kind, cudaStream_t stream) {
  return copy_2d_from_array(dst, dpitch, src, w, h, width, height, kind, stream, true, true);
}
cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wd, size_t hd, cudaArray_const_t src,
                                     size_t ws, size_t hs, size_t width, size_t height, int kind) {
  Copy3D c;
  c.dst = array_region(dst, wd, hd);
  c.src = array_region(src, ws, hs);
  c.width = width;
  c.height = height;
  c.kind = kind;
  return copy_3d(c, nullptr, false, false);
}
cudaError_t cudaMemcpy2DArrayToArray_ptds(cudaArray_t dst, size_t wd, size_t hd,
                                          cudaArray_const_t src, size_t ws, size_t hs,
                                          size_t width, size_t height, int kind) {
  Copy3D c;
  c.dst = array_region(dst, wd, hd);
  c.src = array_region(src, ws, hs);
  c.width = width;
  c.height = height;
  c.kind = kind;
  return copy_3d(c, nullptr, false, true);
}

cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t w, size_t h, const void* src, size_t count,
                              int kind) {
  return copy_linear_array(dst, w, h, const_cast<void*>(src), count, kind, true, nullptr, false,
                           false);
}
cudaError_t cudaMemcpyToArray_ptds(cudaArray_t dst, size_t w, size_t h, const void* src,
                                   size_t count, int kind) {
  return copy_linear_array(dst, w, h, const_cast<void*>(src), count, kind, true, nullptr, false,
                           true);
}
cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t w, size_t h, const void* src,
                                   size_t count, int kind, cudaStream_t stream) {
  return copy_linear_array(dst, w, h, const_cast<void*>(src), count, kind, true, stream, true,
                           false);
}
cudaError_t cudaMemcpyToArrayAsync_ptsz(cudaArray_t dst, size_t w, size_t h, const void* src,
                                        size_t count, int kind, cudaStream_t stream) {
  return copy_linear_array(dst, w, h, const_cast<void*>(src), count, kind, true, stream, true,
                           true);
}
cudaError_t cudaMemcpyFromArray(void* dst, cudaArray_const_t src, size_t w, size_t h, size_t count,
                                int kind) {
  return copy_linear_array(src, w, h, dst, count, kind, false, nullptr, false, false);
}
cudaError_t cudaMemcpyFromArray_ptds(void* dst, cudaArray_const_t src, size_t w, size_t h,
                                     size_t count, int kind) {
  return copy_linear_array(src, w, h, dst, count, kind, false, nullptr, false, true);
}
cudaError_t cudaMemcpyFromArrayAsync(void* dst, cudaArray_const_t src, size_t w, size_t h,
                                     size_t count, int kind, cudaStream_t stream) {
  return copy_linear_array(src, w, h, dst, count, kind, false, stream, true, false);
}
cudaError_t cudaMemcpyFromArrayAsync_ptsz(void* dst, cudaArray_const_t src, size_t w, size_t h,
                                          size_t count, int kind, cudaStream_t stream) {
  return copy_linear_array(src, w, h, dst, count, kind, false, stream, true, true);
}
cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t wd, size_t hd, cudaArray_const_t src,
                                   size_t ws, size_t hs, size_t count, int kind) {
  Copy3D c;
  c.dst = array_region(dst, wd, hd);
  c.src = array_region(src, ws, hs);
  c.width = count;
  c.kind = kind;
  return copy_3d(c, nullptr, false, false);
}
cudaError_t cudaMemcpyArrayToArray_ptds(cudaArray_t dst, size_t wd, size_t hd,
                                        cudaArray_const_t src, size_t ws, size_t hs, size_t count,
                                        int kind) {
  Copy3D c;
  c.dst = array_region(dst, wd, hd);
  c.src = array_region(src, ws, hs);
  c.width = count;
  c.kind = kind;
  return copy_3d(c, nullptr, false, true);
}

cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p) { return copy_3d_parms(p, nullptr, false, false); }
cudaError_t cudaMemcpy3D_ptds(const cudaMemcpy3DParms* p) {
  return copy_3d_parms(p, nullptr, false, true);
}
cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t stream) {
  return copy_3d_parms(p, stream, true, false);
}
cudaError_t cudaMemcpy3DAsync_ptsz(const cudaMemcpy3DParms* p, cudaStream_t stream) {
  return copy_3d_parms(p, stream, true, true);
}
cudaError_t cudaMemcpy3DPeer(const cudaMemcpy3DPeerParms* p) {
  return copy_3d_peer(p, nullptr, false, false);
}
cudaError_t cudaMemcpy3DPeer_ptds(const cudaMemcpy3DPeerParms* p) {
  return copy_3d_peer(p, nullptr, false, true);
}
cudaError_t cudaMemcpy3DPeerAsync(const cudaMemcpy3DPeerParms* p, cudaStream_t stream) {
  return copy_3d_peer(p, stream, true, false);
}
cudaError_t cudaMemcpy3DPeerAsync_ptsz(const cudaMemcpy3DPeerParms* p, cudaStream_t stream) {
  return copy_3d_peer(p, stream, true, true);
}

cudaError_t cudaMemset(void* ptr, int value, size_t count) {
  return set(ptr, value, count, nullptr, false, false);
}
cudaError_t cudaMemset_ptds(void* ptr, int value, size_t count) {
  return set(ptr, value, count, nullptr, false, true);
}
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t stream) {
  return set(ptr, value, count, stream, true, false);
}
cudaError_t cudaMemsetAsync_ptsz(void* ptr, int value, size_t count, cudaStream_t stream) {
  return set(ptr, value, count, stream, true, true);
}
cudaError_t cudaMemset2D(void* ptr, size_t pitch, int value, size_t width, size_t height) {
  return set_2d(ptr, pitch, value, width, height, nullptr, false, false);
}
cudaError_t cudaMemset2D_ptds(void* ptr, size_t pitch, int value, size_t width, size_t height) {
  return set_2d(ptr, pitch, value, width, height, nullptr, false, true);
}
cudaError_t cudaMemset2DAsync(void* ptr, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t stream) {
  return set_2d(ptr, pitch, value, width, height, stream, true, false);
}
cudaError_t cudaMemset2DAsync_ptsz(void* ptr, size_t pitch, int value, size_t width, size_t height,
                                   cudaStream_t stream) {
  return set_2d(ptr, pitch, value, width, height, stream, true, true);
}
cudaError_t cudaMemset3D(cudaPitchedPtr p, int value, cudaExtent extent) {
  return set_3d(p, value, extent, nullptr, false, false);
}
cudaError_t cudaMemset3D_ptds(cudaPitchedPtr p, int value, cudaExtent extent) {
  return set_3d(p, value, extent, nullptr, false, true);
}
cudaError_t cudaMemset3DAsync(cudaPitchedPtr p, int value, cudaExtent extent, cudaStream_t stream) {
  return set_3d(p, value, extent, stream, true, false);
}
cudaError_t cudaMemset3DAsync_ptsz(cudaPitchedPtr p, int value, cudaExtent extent,
                                   cudaStream_t stream) {
  return set_3d(p, value, extent, stream, true, true);
}

// ---- symbols -------------------------------------------------------------------------------

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset,
                               int kind) {
  return to_symbol(symbol, src, count, offset, kind, nullptr, false, false);
}
cudaError_t cudaMemcpyToSymbol_ptds(const void* symbol, const void* src, size_t count,
                                    size_t offset, int kind) {
  return to_symbol(symbol, src, count, offset, kind, nullptr, false, true);
}
cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count,
                                    size_t offset, int kind, cudaStream_t stream) {
  return to_symbol(symbol, src, count, offset, kind, stream, true, false);
}
cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void* symbol, const void* src, size_t count,
                                         size_t offset, int kind, cudaStream_t stream) {
  return to_symbol(symbol, src, count, offset, kind, stream, true, true);
}
cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset,
                                 int kind) {
  return from_symbol(dst, symbol, count, offset, kind, nullptr, false, false);
}
cudaError_t cudaMemcpyFromSymbol_ptds(void* dst, const void* symbol, size_t count, size_t offset,
                                      int kind) {
  return from_symbol(dst, symbol, count, offset, kind, nullptr, false, true);
}
cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset,
                                      int kind, cudaStream_t stream) {
  return from_symbol(dst, symbol, count, offset, kind, stream, true, false);
}
cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void* dst, const void* symbol, size_t count,
                                           size_t offset, int kind, cudaStream_t stream) {
  return from_symbol(dst, symbol, count, offset, kind, stream, true, true);
}

cudaError_t cudaGetSymbolAddress(void** ptr, const void* symbol) {
  return entry(kContext, [&](Runtime& r) { return r.symbol_address(ptr, symbol); });
}

cudaError_t cudaGetSymbolSize(size_t* size, const void* symbol) {
  return entry(kContext, [&](Runtime& r) {
    uint64_t s = 0;
    if (size == nullptr) return Error::InvalidValue;
    Error e = r.symbol_size(&s, symbol);
    if (e == Error::Success) *size = s;
    return e;
  });
}

// ---- unified-memory hints -----------------------------------------------------------------

namespace {
[[maybe_unused]] Location with_flags(Location loc, unsigned flags) {
  if (flags != 0) loc.error = Error::InvalidValue;
  return loc;
}
}  // namespace

#if WARPSIM_CUDA_MAJOR >= 13
cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t count, cudaMemLocation loc,
                                 unsigned flags, cudaStream_t stream) {
  return prefetch(ptr, count, with_flags(location(loc), flags), stream, false);
}
cudaError_t cudaMemPrefetchAsync_ptsz(const void* ptr, size_t count, cudaMemLocation loc,
                                      unsigned flags, cudaStream_t stream) {
  return prefetch(ptr, count, with_flags(location(loc), flags), stream, true);
}
cudaError_t cudaMemAdvise(const void* ptr, size_t count, int advice, cudaMemLocation loc) {
  return advise(ptr, count, advice, location(loc));
}
#else
cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t count, int device, cudaStream_t stream) {
  return prefetch(ptr, count, location(device), stream, false);
}
cudaError_t cudaMemPrefetchAsync_ptsz(const void* ptr, size_t count, int device,
                                      cudaStream_t stream) {
  return prefetch(ptr, count, location(device), stream, true);
}
cudaError_t cudaMemAdvise(const void* ptr, size_t count, int advice, int device) {
  return advise(ptr, count, advice, location(device));
}
#endif
#if WARPSIM_CUDA_MAJOR == 12
cudaError_t cudaMemPrefetchAsync_v2(const void* ptr, size_t count, cudaMemLocation loc,
                                    unsigned flags, cudaStream_t stream) {
  return prefetch(ptr, count, with_flags(location(loc), flags), stream, false);
}
cudaError_t cudaMemPrefetchAsync_v2_ptsz(const void* ptr, size_t count, cudaMemLocation loc,
                                         unsigned flags, cudaStream_t stream) {
  return prefetch(ptr, count, with_flags(location(loc), flags), stream, true);
}
cudaError_t cudaMemAdvise_v2(const void* ptr, size_t count, int advice, cudaMemLocation loc) {
  return advise(ptr, count, advice, location(loc));
}
#endif

cudaError_t cudaMemRangeGetAttribute(void* data, size_t size, int attribute, const void* ptr,
                                     size_t count) {
  return entry(kContext, [&](Runtime& r) {
    return r.range_attribute(data, size, attribute, ptr, count);
  });
}

cudaError_t cudaMemRangeGetAttributes(void** data, size_t* sizes, int* attributes, size_t n,
                                      const void* ptr, size_t count) {
  return entry(kContext, [&](Runtime& r) {
    if (n == 0 || data == nullptr || sizes == nullptr || attributes == nullptr)
      return Error::InvalidValue;
    for (size_t i = 0; i < n; ++i)
      if (Error e = r.range_attribute(data[i], sizes[i], attributes[i], ptr, count);
          e != Error::Success)
        return e;
    return Error::Success;
  });
}

}  // extern "C"
