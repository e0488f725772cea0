#include "kernels.cu"
int main() { scale<<<1, 1>>>(nullptr, 1.f, 0); return 0; }
