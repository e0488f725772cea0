// localarr.cu -- per-thread arrays indexed dynamically (kept in .local memory).
//
// local_perm(idx, out, n): int idx[n*16]; int out[n].  Thread i fills
//     int a[16] with a[k] = k*k + i, then out[i] = sum over k of a[idx[16i+k] & 15].
// local_sort(data, n): float data[n*8] in/out; thread i insertion-sorts its 8
//     elements data[8i .. 8i+8) ascending in a local array, then writes back.
// local_histogram(in, out, n): unsigned char in[n*64]; unsigned out[n*32].
//     Thread i counts (in[64i+k] % 32) for k < 64 into a local
//     unsigned h[32] and writes it to out[32i .. 32i+32).
// local_struct(in, out, n): int in[n]; int out[n]; a local array of structs
//     {int key; double w;} with dynamic indexing; out[i] = key of the
//     element with max w where elems[k] = {k, (double)((in[i] * (k+3)) % 11)}, k<10
//     (first max wins).

extern "C" __global__ void local_perm(const int* idx, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int a[16];
  for (int k = 0; k < 16; ++k) a[k] = k * k + i;
  int s = 0;
  for (int k = 0; k < 16; ++k) s += a[idx[16 * i + k] & 15];
  out[i] = s;
}

extern "C" __global__ void local_sort(float* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v[8];
  for (int k = 0; k < 8; ++k) v[k] = data[8 * i + k];
  for (int k = 1; k < 8; ++k) {
    float key = v[k];
    int j = k - 1;
    while (j >= 0 && v[j] > key) {
      v[j + 1] = v[j];
      --j;
    }
    v[j + 1] = key;
  }
  for (int k = 0; k < 8; ++k) data[8 * i + k] = v[k];
}

extern "C" __global__ void local_histogram(const unsigned char* in, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned h[32];
  for (int k = 0; k < 32; ++k) h[k] = 0;
  for (int k = 0; k < 64; ++k) h[in[64 * i + k] & 31]++;
  for (int k = 0; k < 32; ++k) out[32 * i + k] = h[k];
}

struct Elem {
  int key;
  double w;
};

extern "C" __global__ void local_struct(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Elem e[10];
  for (int k = 0; k < 10; ++k) e[k] = Elem{k, (double)((in[i] * (k + 3)) % 11)};
  int best = 0;
  for (int k = 1; k < 10; ++k)
    if (e[k].w > e[best].w) best = k;
  out[i] = e[best].key;
}
