// shared_lib_main.cpp - a plain C++ program whose CUDA work is in a shared
// library (shared_lib_kernels.cu); it does not link libcudart directly.
#include <cstdio>

extern "C" int shared_lib_saxpy(int n);

int main() {
  const int wrong = shared_lib_saxpy(1000);
  if (wrong != 0) {
    std::printf("FAIL shared_lib: %d wrong results\n", wrong);
    return 1;
  }
  std::printf("PASS shared_lib\n");
  return 0;
}
