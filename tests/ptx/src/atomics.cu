// atomics.cu -- global and shared atomics.  All kernels: 1-D launch, any shape.
// Let T = gridDim.x * blockDim.x and t = global thread index.
//
// atomic_add_all(i32, u32, u64, f32, f64): each points at one zero-initialised
//     element.  Each thread adds i32 += 1, u32 += 2u, u64 += (1ull<<33) + t,
//     f32 += 0.5f, f64 += 0.25.  After: *i32 = T, *u32 = 2T,
//     *u64 = T*2^33 + T(T-1)/2, *f32 = 0.5T, *f64 = 0.25T (floats exact for T <= 2^20).
// atomic_cas_mul(p): unsigned* p (one element, initialise to 1).  Each thread
//     multiplies *p by 3 with an atomicCAS loop, so *p = 3^T mod 2^32.
// atomic_cas_fmax(p, in, n): float* p (one element, initialise to -inf);
//     float in[n].  *p = max(in[]) via atomicCAS on the bit pattern.
// atomic_misc(out, in, n): int in[n]; int out[8] initialised to
//     {0, INT_MIN, INT_MAX, 0, 0, 0, -1, 0}.  Requires T >= n.
//     out[0]: atomicExch(t) -> last writer's t (nondeterministic, in [0,T));
//     out[1] = max(in), out[2] = min(in);
//     out[3]: atomicInc(limit 9) applied T times from 0  -> T % 10;
//     out[4]: atomicDec(limit 9) applied T times from 0  -> (10 - T % 10) % 10;
//     out[5] = OR of (1 << (t%32)), out[6] = -1 & ~OR(...), out[7] = XOR of all t.
// shared_histogram(in, n, hist): unsigned char in[n]; unsigned hist[256]
//     zero-initialised.  Per-block histogram in shared memory with shared
//     atomicAdd, then merged into global hist with atomicAdd.  hist[v] = count of v.
// shared_atomic_misc(out): 1 block of blockDim.x <= 1024 threads; unsigned out[4].
//     out[0] = sum(tid), out[1] = max(tid), out[2] = min(tid) (=0),
//     out[3] = OR of (1u << (tid%32)) -- computed with shared-memory atomics.

extern "C" __global__ void atomic_add_all(int* i32, unsigned* u32, unsigned long long* u64,
                                          float* f32, double* f64) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(i32, 1);
  atomicAdd(u32, 2u);
  atomicAdd(u64, (1ull << 33) + t);
  atomicAdd(f32, 0.5f);
  atomicAdd(f64, 0.25);
}

extern "C" __global__ void atomic_cas_mul(unsigned* p) {
  unsigned old = *p, assumed;
  do {
    assumed = old;
    old = atomicCAS(p, assumed, assumed * 3u);
  } while (old != assumed);
}

extern "C" __global__ void atomic_cas_fmax(float* p, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  int* ip = reinterpret_cast<int*>(p);
  int old = *ip, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= v) break;
    old = atomicCAS(ip, assumed, __float_as_int(v));
  } while (old != assumed);
}

extern "C" __global__ void atomic_misc(int* out, const int* in, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  atomicExch(&out[0], t);
  if (t < n) {
    atomicMax(&out[1], in[t]);
    atomicMin(&out[2], in[t]);
  }
  atomicInc(reinterpret_cast<unsigned*>(&out[3]), 9u);
  atomicDec(reinterpret_cast<unsigned*>(&out[4]), 9u);
  atomicOr(&out[5], 1 << (t & 31));
  atomicAnd(&out[6], ~(1 << (t & 31)));
  atomicXor(&out[7], t);
}

extern "C" __global__ void shared_histogram(const unsigned char* in, int n, unsigned* hist) {
  __shared__ unsigned local[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[in[i]], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    if (local[i]) atomicAdd(&hist[i], local[i]);
}

extern "C" __global__ void shared_atomic_misc(unsigned* out) {
  __shared__ unsigned s[4];
  if (threadIdx.x == 0) { s[0] = 0; s[1] = 0; s[2] = 0xffffffffu; s[3] = 0; }
  __syncthreads();
  unsigned tid = threadIdx.x;
  atomicAdd(&s[0], tid);
  atomicMax(&s[1], tid);
  atomicMin(&s[2], tid);
  atomicOr(&s[3], 1u << (tid & 31));
  __syncthreads();
  if (threadIdx.x < 4) out[threadIdx.x] = s[threadIdx.x];
}

// Shared-memory CAS and exchange on 64-bit values.
// shared_cas64(out): 1 block; unsigned long long out[2].  out[0] = sum(tid) computed
// with a 64-bit shared atomicCAS loop; out[1] = value left by atomicExch (some tid).
extern "C" __global__ void shared_cas64(unsigned long long* out) {
  __shared__ unsigned long long acc, ex;
  if (threadIdx.x == 0) { acc = 0; ex = 0; }
  __syncthreads();
  unsigned long long old = acc, assumed;
  do {
    assumed = old;
    old = atomicCAS(&acc, assumed, assumed + threadIdx.x);
  } while (old != assumed);
  atomicExch(&ex, (unsigned long long)threadIdx.x);
  __syncthreads();
  if (threadIdx.x == 0) { out[0] = acc; out[1] = ex; }
}
