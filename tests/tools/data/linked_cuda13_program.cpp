// A program linked against "libcudart.so.13" (cudart13_stand_in.cpp), as
// host_binary_test.cpp needs one.
extern "C" int cudaRuntimeGetVersion(int* version);

int main() {
  int v = 0;
  return cudaRuntimeGetVersion(&v);
}
