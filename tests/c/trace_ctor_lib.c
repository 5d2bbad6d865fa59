/* A library whose constructor makes 200k runtime calls (like a framework
 * registering its kernels at import), loaded with dlopen by trace_dlopen.c:
 * its calls run under the dynamic loader's lock. */
extern void** __cudaRegisterFatBinary(void*);
extern void __cudaRegisterFunction(void**, const char*, char*, const char*, int, void*, void*, void*, void*, int*);
extern void __cudaRegisterFatBinaryEnd(void**);
static unsigned long long wrapper[3] = {0x466243B1ULL | (1ULL<<32), 0, 0};
static char stubs[200000];
__attribute__((constructor)) static void reg(void) {
  void **h = __cudaRegisterFatBinary(wrapper);
  for (int i = 0; i < 200000; i++) __cudaRegisterFunction(h, &stubs[i], "k", "k", -1, 0,0,0,0,0);
  __cudaRegisterFatBinaryEnd(h);
}
