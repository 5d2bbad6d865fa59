// The dependency of liba.so: its initializer is the first CUDA call of the
// process, made while the loader initializes liba.so and libb.so for one
// dlopen (as libtorch_nvshmem registers its fatbin before libtorch_cuda).
int cudaGetDeviceCount(int *);
__attribute__((constructor)) static void b_init(void) { int n = 0; cudaGetDeviceCount(&n); }
int b_value(void) { return 2; }
