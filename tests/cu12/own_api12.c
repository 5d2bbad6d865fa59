/* The project's own API (cudart_shim_ext.h) in a CUDA 12 program: built
 * against NVIDIA's 12.9 headers, linked to our libcudart.so.12. Subscriber,
 * counters, flush and, with CUDART_SHIM_POOL=1, the caching allocator's
 * statistics. Prints one line per check; tests/abi12_own_api.rs reads them. */
#include <cuda_runtime_api.h>
#include <cudart_shim_ext.h>
#include <stdio.h>
#include <string.h>

static int entered, exited, depth_max, malloc_seen;

static void on_enter(void *u, const cudartShimCallbackData *d) {
  (void)u;
  entered++;
  if ((int)d->depth > depth_max) depth_max = (int)d->depth;
}

static void on_exit_cb(void *u, const cudartShimCallbackData *d) {
  (void)u;
  exited++;
  if (strcmp(d->function_name, "cudaMalloc") == 0 && d->result == cudaSuccess && d->num_args == 2 &&
      strcmp(d->args[1].name, "size") == 0)
    malloc_seen++;
}

int main(void) {
  int v = 0;
  cudaRuntimeGetVersion(&v);
  printf("runtime %d header %d\n", v, CUDART_VERSION);
  uint64_t h = 0;
  printf("subscribe %d\n", (int)cudartShimSubscribe(on_enter, on_exit_cb, NULL, &h));
  printf("counters %d\n", (int)cudartShimEnableCounters(1));
  int n = 0;
  cudaGetDeviceCount(&n);
  void *p[4] = {0};
  for (int i = 0; i < 4; i++) cudaMalloc(&p[i], 1000);
  for (int i = 0; i < 4; i++) cudaFree(p[i]);
  cudaDeviceSynchronize();
  /* Freed and synchronized: with the pool on, this one is a cache hit. */
  void *q = NULL;
  cudaMalloc(&q, 1000);
  cudartShimPoolStats s;
  memset(&s, 0, sizeof s);
  cudaError_t ps = cudartShimGetPoolStats(0, 0, &s);
  printf("pool stats %d held>0 %d active %llu hits %llu misses %llu\n", (int)ps, s.held_bytes > 0,
         (unsigned long long)s.active_blocks, (unsigned long long)s.hits, (unsigned long long)s.misses);
  cudaFree(q);
  printf("devices %d subscriber entered %d exited %d depth %d malloc %d\n", n, entered, exited, depth_max, malloc_seen);
  cudartShimCounter c;
  memset(&c, 0, sizeof c);
  cudaError_t r = cudartShimGetCounter("cudaMalloc", &c);
  printf("counter %d %s calls %llu failed %llu\n", (int)r, c.function_name ? c.function_name : "NULL",
         (unsigned long long)c.calls, (unsigned long long)c.failed_calls);
  printf("unsubscribe %d\n", (int)cudartShimUnsubscribe(h));
  cudaGetDeviceCount(&n);
  printf("after unsubscribe entered %d\n", entered);
  printf("flush %d\n", (int)cudartShimFlush());
  return 0;
}
