// divergence.cu -- control flow that diverges within a warp.
//
// nested_branches(in, out, n): int in[n]; int out[n].  For each i < n, with v = in[i]:
//     acc = 0; for k in 0..(v & 15): if k odd { if k%3==0 acc += 5*k else acc -= k }
//     else { if v<0 acc ^= k else acc += k*k }; out[i] = acc.
// break_continue(in, out, n): int in[n]; int out[n].  Scan k = 0..63: skip
//     (continue) k where (k*v) % 5 == 0, stop (break) when acc exceeds 200 or
//     k == (v & 63); otherwise acc += k.  out[i] = acc * 1000 + k_at_exit.
// early_return(in, out, n): int in[n]; int out[n] (pre-filled by the host with
//     -1).  Lanes with in[i] < 0 return before writing; lanes with in[i] == 0
//     write 0 and return; others write in[i]*2 and then, if in[i] > 100, also
//     write out[i] = in[i] - 100 after a second branch.
// switch_dense(in, out, n): int in[n]; int out[n].  Dense switch on in[i] & 15
//     (likely lowered to a jump table / brx.idx):
//     case k -> out[i] = table value below (see code); default unreachable.
// while_loop(in, out, n): unsigned in[n]; unsigned out[n] = number of Collatz
//     steps to reach 1 from in[i] (in[i] >= 1, stop after 1000 steps).
// goto_loop(out, n): int out[n]; out[i] = sum of j in [0, i%37) with j % 4 != 3,
//     written with goto-based loops.

extern "C" __global__ void nested_branches(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  int acc = 0;
  for (int k = 0; k < (v & 15); ++k) {
    if (k & 1) {
      if (k % 3 == 0)
        acc += 5 * k;
      else
        acc -= k;
    } else {
      if (v < 0)
        acc ^= k;
      else
        acc += k * k;
    }
  }
  out[i] = acc;
}

extern "C" __global__ void break_continue(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  int acc = 0, k;
  for (k = 0; k < 64; ++k) {
    if (((k * v) % 5) == 0) continue;
    if (acc > 200 || k == (v & 63)) break;
    acc += k;
  }
  out[i] = acc * 1000 + k;
}

extern "C" __global__ void early_return(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  if (v < 0) return;
  if (v == 0) {
    out[i] = 0;
    return;
  }
  out[i] = v * 2;
  if (v > 100) out[i] = v - 100;
}

extern "C" __global__ void switch_dense(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  int r;
  switch (v & 15) {
    case 0: r = v + 1; break;
    case 1: r = v * 7; break;
    case 2: r = v - 19; break;
    case 3: r = v ^ 0x55; break;
    case 4: r = v << 3; break;
    case 5: r = v >> 2; break;
    case 6: r = v | 0x100; break;
    case 7: r = ~v; break;
    case 8: r = v * v; break;
    case 9: r = 42; break;
    case 10: r = v / 3; break;
    case 11: r = v % 7; break;
    case 12: r = -v; break;
    case 13: r = v & 0xf0; break;
    case 14: r = v + 1000; break;
    default: r = v * 13 - 5; break;  // case 15
  }
  out[i] = r;
}

extern "C" __global__ void while_loop(const unsigned* in, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = in[i], steps = 0;
  while (x != 1 && steps < 1000) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    ++steps;
  }
  out[i] = steps;
}

extern "C" __global__ void goto_loop(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int j = 0, s = 0, lim = i % 37;
top:
  if (j >= lim) goto done;
  if (j % 4 == 3) goto next;
  s += j;
next:
  ++j;
  goto top;
done:
  out[i] = s;
}
