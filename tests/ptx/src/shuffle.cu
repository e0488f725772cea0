// shuffle.cu -- warp shuffles and votes.  All kernels: 1-D launch, blockDim.x a
// multiple of 32; t = global thread index, lane = threadIdx.x % 32.
//
// shfl_all(in, out): int in[T]; int out[4*T].  For each thread:
//     out[4t+0] = __shfl_up_sync(full, in[t], 3)    (lanes < 3 keep own value)
//     out[4t+1] = __shfl_down_sync(full, in[t], 5)  (lanes > 26 keep own value)
//     out[4t+2] = __shfl_xor_sync(full, in[t], 7)
//     out[4t+3] = __shfl_sync(full, in[t], (lane*3)&31)
// shfl_width(in, out): float in[T]; float out[3*T].  Sub-warp widths:
//     out[3t+0] = __shfl_sync(full, in[t], 0, 8)        (value of lane (lane&~7))
//     out[3t+1] = __shfl_down_sync(full, in[t], 1, 16)  (lane%16 == 15 keeps own)
//     out[3t+2] = __shfl_xor_sync(full, (double)in[t], 2, 4) converted back to float
// shfl_partial(in, out): int in[T]; int out[T].  Only even lanes participate
//     (mask 0x55555555): even lanes get __shfl_xor_sync(0x55555555, in[t], 2);
//     odd lanes write -1.
// vote_all(in, out): int in[T]; unsigned out[5*T].
//     out[5t+0] = __all_sync(full, in[t] > 0)
//     out[5t+1] = __any_sync(full, in[t] > 100)
//     out[5t+2] = __ballot_sync(full, in[t] & 1)
//     out[5t+3] = __popc(ballot value)
//     out[5t+4] = __activemask() evaluated inside `if (lane < 20)`; lanes >= 20
//                 write 0.  (Expected 0x000fffff if the warp is fully converged
//                 before the branch.)
// vote_partial(in, out): int in[T]; unsigned out[T].  Lanes in the upper half
//     (lane >= 16) compute __ballot_sync(0xffff0000, in[t] != 0); the lower half
//     compute __any_sync(0x0000ffff, in[t] < 0).

#define FULL 0xffffffffu

extern "C" __global__ void shfl_all(const int* in, int* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = in[t];
  out[4 * t + 0] = __shfl_up_sync(FULL, v, 3);
  out[4 * t + 1] = __shfl_down_sync(FULL, v, 5);
  out[4 * t + 2] = __shfl_xor_sync(FULL, v, 7);
  out[4 * t + 3] = __shfl_sync(FULL, v, (lane * 3) & 31);
}

extern "C" __global__ void shfl_width(const float* in, float* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[t];
  out[3 * t + 0] = __shfl_sync(FULL, v, 0, 8);
  out[3 * t + 1] = __shfl_down_sync(FULL, v, 1, 16);
  out[3 * t + 2] = (float)__shfl_xor_sync(FULL, (double)v, 2, 4);
}

extern "C" __global__ void shfl_partial(const int* in, int* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int r = -1;
  if ((lane & 1) == 0) r = __shfl_xor_sync(0x55555555u, in[t], 2);
  out[t] = r;
}

extern "C" __global__ void vote_all(const int* in, unsigned* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = in[t];
  unsigned b = __ballot_sync(FULL, v & 1);
  out[5 * t + 0] = __all_sync(FULL, v > 0);
  out[5 * t + 1] = __any_sync(FULL, v > 100);
  out[5 * t + 2] = b;
  out[5 * t + 3] = __popc(b);
  unsigned am = 0;
  if (lane < 20) am = __activemask();
  out[5 * t + 4] = am;
}

extern "C" __global__ void vote_partial(const int* in, unsigned* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  unsigned r;
  if (lane >= 16)
    r = __ballot_sync(0xffff0000u, in[t] != 0);
  else
    r = __any_sync(0x0000ffffu, in[t] < 0);
  out[t] = r;
}
