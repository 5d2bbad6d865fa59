/* The shim's own API from C: subscribe enter/exit callbacks, read counters,
 * reset, flush. Prints what it observed; the test checks it. */
#define _GNU_SOURCE
#include <cudart_shim.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int enters, exits, nested_seen, failed_exits;
static char last_args[512];

static void on_enter(void *user, const cudartShimCallbackData *d) {
  if (d->phase != CUDART_SHIM_PHASE_ENTER || user != (void *)&enters) abort();
  if (d->thread_id != (int)syscall(SYS_gettid)) abort();
  enters++;
  if (d->depth > 0) nested_seen++;
}

static void on_exit_cb(void *user, const cudartShimCallbackData *d) {
  if (d->phase != CUDART_SHIM_PHASE_EXIT || user != (void *)&enters) abort();
  if (d->thread_id != (int)syscall(SYS_gettid)) abort();
  exits++;
  if (d->result != cudaSuccess) failed_exits++;
  if (strcmp(d->function_name, cudartShimGetFunctionName(d->function_id)) != 0) abort();
  if (strcmp(d->function_name, "cudaDeviceGetAttribute") == 0 && d->depth == 0) {
    size_t n = 0;
    for (unsigned i = 0; i < d->num_args; i++)
      n += (size_t)snprintf(last_args + n, sizeof last_args - n, "%s%s=%s", i ? " " : "", d->args[i].name,
                            d->args[i].value);
    printf("exit %s depth=%u result=%d dur_positive=%d args: %s\n", d->function_name, d->depth, (int)d->result,
           d->duration_ns > 0, last_args);
    /* A call from inside a callback: seen as nested. */
    int dev = -1;
    cudaGetDevice(&dev);
  }
}

int main(void) {
  uint64_t h = 0;
  if (cudartShimEnableCounters(1) != cudaSuccess) return 2;
  if (cudartShimSubscribe(NULL, NULL, NULL, &h) != cudaErrorInvalidValue) return 3;
  if (cudartShimSubscribe(on_enter, on_exit_cb, &enters, &h) != cudaSuccess) return 4;
  int n = 0, v = 0;
  cudaGetDeviceCount(&n);
  cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 0);
  cudaSetDevice(42); /* fails */
  printf("enters=%d exits=%d nested=%d failed=%d\n", enters, exits, nested_seen, failed_exits);

  cudartShimCounter c;
  cudartShimGetCounter("cudaGetDevice", &c);
  printf("counter cudaGetDevice calls=%llu failed=%llu\n", (unsigned long long)c.calls,
         (unsigned long long)c.failed_calls);
  cudartShimGetCounter("cudaSetDevice", &c);
  printf("counter cudaSetDevice calls=%llu failed=%llu total_positive=%d\n", (unsigned long long)c.calls,
         (unsigned long long)c.failed_calls, c.total_ns > 0 && c.min_ns <= c.max_ns);
  size_t count = 0;
  cudartShimGetCounters(NULL, 0, &count);
  cudartShimCounter all[64];
  cudartShimGetCounters(all, 64, &count);
  unsigned long long sum = 0;
  for (size_t i = 0; i < count && i < 64; i++) sum += all[i].calls;
  printf("functions=%zu calls=%llu\n", count, sum);

  if (cudartShimUnsubscribe(h) != cudaSuccess || cudartShimUnsubscribe(h) != cudaErrorInvalidValue) return 5;
  cudaGetDeviceCount(&n);
  printf("after unsubscribe enters=%d\n", enters);

  cudartShimResetCounters();
  cudartShimGetCounter("cudaGetDeviceCount", &c);
  printf("after reset calls=%llu\n", (unsigned long long)c.calls);
  cudartShimEnableCounters(1);
  for (int i = 0; i < 5; i++) cudaGetDeviceCount(&n);
  cudartShimGetCounter("cudaGetDeviceCount", &c);
  printf("counting calls=%llu\n", (unsigned long long)c.calls);
  if (cudartShimFlush() != cudaSuccess) return 6;
  return 0;
}
