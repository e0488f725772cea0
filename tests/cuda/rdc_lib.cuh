// rdc_lib.cuh - interface of rdc_lib.cu, used by rdc_main.cu (relocatable device code test).
// Everything declared here is defined in rdc_lib.cu; rdc_main.cu uses it across translation
// units, which needs separate compilation: nvcc -rdc=true (device link step).
#pragma once

#define RDC_TABLE_SIZE 16

// Device function defined in rdc_lib.cu, called from kernels in rdc_main.cu.
__device__ int lib_transform(int x);

// Device counter defined (and initialised to 5) in rdc_lib.cu.
extern __device__ int lib_counter;

// Constant table defined (with an initialiser) in rdc_lib.cu.
extern __constant__ int lib_table[RDC_TABLE_SIZE];

// Kernel defined in rdc_lib.cu, launched from rdc_main.cu.
__global__ void lib_kernel(int* out, int n);

// Host helper in rdc_lib.cu: reads lib_counter through that translation unit's symbol.
int lib_read_counter();
