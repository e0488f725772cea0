// A stand-in for the CUDA 13 runtime: a library whose soname is
// libcudart.so.13, so that a program linked against it names that runtime
// in DT_NEEDED as an nvcc-built one does, without needing CUDA to build.
extern "C" int cudaRuntimeGetVersion(int* version) {
  *version = 13000;
  return 0;
}
