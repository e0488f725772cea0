// structs.cu -- structs passed by value as kernel parameters (.param .align N .b8 x[M]).
//
// struct Mixed { char c; short s; int i; double d; float4 v; int arr[5]; float f; }
//   (offsets c@0 s@2 i@4 d@8 v@16 arr@32 f@52; sizeof == 64, alignof == 16).
// struct Small { char a; char b; short c; }   (4 bytes, align 2)
// struct Big   { double vals[20]; int count; } (168 bytes, align 8)
//
// unpack_mixed(m, out): out = float[16]; thread 0 writes
//     out[0] = m.c, 1 = m.s, 2 = m.i, 3 = (float)m.d, 4..7 = m.v.x..w,
//     8..12 = m.arr[0..4], 13 = m.f, 14 = sizeof(Mixed), 15 = alignof(Mixed).
// small_and_scalar(sm, k, bg, out): out = double[4]; thread 0 writes
//     out[0] = sm.a + sm.b * 256 + sm.c * 65536, out[1] = k,
//     out[2] = sum(bg.vals[0 .. bg.count)) (count <= 20), out[3] = bg.count.
// pair_sum(p, out, n): struct Pair { float x; int y; } p; out[i] = p.x * i + p.y
//     for i < n (float out[n]).
// return_struct(in, out, n): struct Vec3 {float x, y, z} returned by value from a
//     __noinline__ device function; float in[3n], float out[3n]:
//     out[i] = cross(in[i], (1, 2, 3)).

struct Mixed {
  char c;
  short s;
  int i;
  double d;
  float4 v;
  int arr[5];
  float f;
};

struct Small {
  char a;
  char b;
  short c;
};

struct Big {
  double vals[20];
  int count;
};

struct Pair {
  float x;
  int y;
};

struct Vec3 {
  float x, y, z;
};

extern "C" __global__ void unpack_mixed(Mixed m, float* out) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  out[0] = m.c;
  out[1] = m.s;
  out[2] = (float)m.i;
  out[3] = (float)m.d;
  out[4] = m.v.x;
  out[5] = m.v.y;
  out[6] = m.v.z;
  out[7] = m.v.w;
  for (int k = 0; k < 5; ++k) out[8 + k] = (float)m.arr[k];
  out[13] = m.f;
  out[14] = (float)sizeof(Mixed);
  out[15] = (float)alignof(Mixed);
}

extern "C" __global__ void small_and_scalar(Small sm, int k, Big bg, double* out) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  out[0] = sm.a + sm.b * 256.0 + sm.c * 65536.0;
  out[1] = k;
  double s = 0;
  for (int j = 0; j < bg.count; ++j) s += bg.vals[j];
  out[2] = s;
  out[3] = bg.count;
}

extern "C" __global__ void pair_sum(Pair p, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = p.x * i + p.y;
}

__device__ __noinline__ Vec3 cross(Vec3 a, Vec3 b) {
  return Vec3{a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

extern "C" __global__ void return_struct(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Vec3 a{in[3 * i], in[3 * i + 1], in[3 * i + 2]};
  Vec3 r = cross(a, Vec3{1.0f, 2.0f, 3.0f});
  out[3 * i] = r.x;
  out[3 * i + 1] = r.y;
  out[3 * i + 2] = r.z;
}
