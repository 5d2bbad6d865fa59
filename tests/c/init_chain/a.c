// Loaded by main.c with dlopen; needs libb.so. Its initializer calls CUDA
// too, after libb.so's: it must not run inside libb.so's call.
int cudaGetDeviceCount(int *);
int b_value(void);
__attribute__((constructor)) static void a_init(void) { int n = 0; cudaGetDeviceCount(&n); }
int a_value(void) { return b_value() + 1; }
