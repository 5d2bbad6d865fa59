#include <cuda_runtime.h>

__device__ int table[8];
__device__ int scale(int x) { return 2 * x; }
__global__ void from_b(int y, short z) { table[1] = scale(y) + z; }
void launch_from_b(int y) { from_b<<<3, 7>>>(y, (short)-2); }
