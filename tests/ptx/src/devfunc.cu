// devfunc.cu -- non-inlined device functions, recursion, function pointers.
//
// call_chain(in, out, n): int in[n], int out[n]; out[i] = poly(in[i]) where
//     poly(x) = add3(mul2(x), x, 7) = 3x + 7, computed through __noinline__ calls.
// recursive(in, out, n): int in[n] (values 0..20); long long out[2n]:
//     out[2i] = fact(in[i]) (recursive factorial), out[2i+1] = fib(in[i])
//     (naive doubly-recursive Fibonacci, fib(0)=0, fib(1)=1).
// fnptr_table(op, a, b, out, n): int op[n] (0..3), float a[n], b[n], float out[n];
//     out[i] = ops[op[i]](a[i], b[i]) where ops = {add, sub, mul, max} held in a
//     __device__ table of function pointers (indirect call).
// fnptr_param(sel, out): int sel; float out[32]; selects a function pointer from
//     a local array (prevents constant folding when sel is runtime):
//     out[lane] = f(lane) with f = sel ? square : halve.
// void_func(out, n): out[i] = i*i via a __noinline__ void function with
//     pointer parameters.
// mutual(in, out, n): int in[n] >= 0, int out[n]; out[i] = is_even(in[i]) via
//     mutually recursive is_even/is_odd.

__device__ __noinline__ int mul2(int x) { return x * 2; }
__device__ __noinline__ int add3(int a, int b, int c) { return a + b + c; }
__device__ __noinline__ int poly(int x) { return add3(mul2(x), x, 7); }

extern "C" __global__ void call_chain(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = poly(in[i]);
}

__device__ __noinline__ long long fact(int k) { return k <= 1 ? 1 : k * fact(k - 1); }
__device__ __noinline__ long long fib(int k) { return k < 2 ? k : fib(k - 1) + fib(k - 2); }

extern "C" __global__ void recursive(const int* in, long long* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[2 * i] = fact(in[i]);
  out[2 * i + 1] = fib(in[i]);
}

typedef float (*binop_t)(float, float);
__device__ __noinline__ float op_add(float a, float b) { return a + b; }
__device__ __noinline__ float op_sub(float a, float b) { return a - b; }
__device__ __noinline__ float op_mul(float a, float b) { return a * b; }
__device__ __noinline__ float op_max(float a, float b) { return fmaxf(a, b); }
__device__ binop_t g_ops[4] = {op_add, op_sub, op_mul, op_max};

extern "C" __global__ void fnptr_table(const int* op, const float* a, const float* b,
                                       float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = g_ops[op[i] & 3](a[i], b[i]);
}

typedef float (*unop_t)(float);
__device__ __noinline__ float square(float x) { return x * x; }
__device__ __noinline__ float halve(float x) { return x * 0.5f; }

extern "C" __global__ void fnptr_param(int sel, float* out) {
  unop_t fns[2] = {halve, square};
  unop_t f = fns[sel != 0];
  int lane = threadIdx.x & 31;
  out[lane] = f((float)lane);
}

__device__ __noinline__ void store_square(int* dst, const int* idx) { *dst = *idx * *idx; }

extern "C" __global__ void void_func(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) store_square(&out[i], &i);
}

__device__ __noinline__ bool is_odd(int k);
__device__ __noinline__ bool is_even(int k) { return k == 0 ? true : is_odd(k - 1); }
__device__ __noinline__ bool is_odd(int k) { return k == 0 ? false : is_even(k - 1); }

extern "C" __global__ void mutual(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = is_even(in[i]) ? 1 : 0;
}
