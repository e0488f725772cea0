// sharedmem.cu -- static and dynamic shared memory.
//
// matmul_tiled(A, B, C, M, N, K): row-major float A[M*K], B[K*N], C[M*N];
//     C = A * B.  blockDim = (16, 16), grid = (ceil(N/16), ceil(M/16)).  Uses
//     two static __shared__ float[16][16] tiles.
// transpose_padded(in, out, rows, cols): float in[rows*cols] (row-major),
//     out[cols*rows] = transpose.  blockDim = (32, 8), grid = (ceil(cols/32),
//     ceil(rows/32)); tile float[32][33] (padding avoids bank conflicts).
// dyn_shared_mixed(in, out, n): dynamic shared memory holding n ints followed by
//     n floats (extern __shared__ char buf[]); launch with 1 block of n threads,
//     dynamic smem = n*8 bytes.  out[t] = (float)in_int[n-1-t] + 0.5f * t.
//     (int in[n], float out[n])
// shared_stencil(in, out, n): float in[n], out[n]; 1-D 3-point stencil
//     out[i] = in[i-1] + 2*in[i] + in[i+1] (out-of-range neighbours are 0);
//     blockDim.x == 128, static shared halo array of 130 floats.

#define TILE 16

extern "C" __global__ void matmul_tiled(const float* A, const float* B, float* C, int M,
                                        int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
    int ak = t * TILE + threadIdx.x;
    int bk = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[row * K + ak] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (bk < K && col < N) ? B[bk * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

#define TDIM 32
#define TROWS 8

extern "C" __global__ void transpose_padded(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[TDIM][TDIM + 1];
  int x = blockIdx.x * TDIM + threadIdx.x;
  int y = blockIdx.y * TDIM + threadIdx.y;
  for (int j = 0; j < TDIM; j += TROWS)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TDIM + threadIdx.x;
  y = blockIdx.x * TDIM + threadIdx.y;
  for (int j = 0; j < TDIM; j += TROWS)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" __global__ void dyn_shared_mixed(const int* in, float* out, int n) {
  extern __shared__ __align__(16) char buf[];
  int* si = reinterpret_cast<int*>(buf);
  float* sf = reinterpret_cast<float*>(buf + n * sizeof(int));
  int t = threadIdx.x;
  if (t < n) si[t] = in[t];
  __syncthreads();
  if (t < n) sf[t] = (float)si[n - 1 - t] + 0.5f * t;
  __syncthreads();
  if (t < n) out[t] = sf[t];
}

extern "C" __global__ void shared_stencil(const float* in, float* out, int n) {
  __shared__ float halo[128 + 2];
  int i = blockIdx.x * 128 + threadIdx.x;
  halo[threadIdx.x + 1] = (i < n) ? in[i] : 0.0f;
  if (threadIdx.x == 0) halo[0] = (i > 0 && i - 1 < n) ? in[i - 1] : 0.0f;
  if (threadIdx.x == 127) halo[129] = (i + 1 < n) ? in[i + 1] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = halo[threadIdx.x] + 2.0f * halo[threadIdx.x + 1] + halo[threadIdx.x + 2];
}
