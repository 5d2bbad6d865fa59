/* Subscriber callbacks that call the runtime (issue 14: an on_exit callback
 * calling cudaGetErrorName re-entered the subscriber until the stack
 * overflowed). Calls made inside a callback must be answered but not
 * delivered again, and still be counted. Ends with exit 0 over a driver and
 * without one; prints what it saw for the test to check. */
#include <cudart_shim.h>
#include <stdio.h>
#include <string.h>

static int enters, exits, inner_calls, deepest;
static int in_callback; /* set while one of our callbacks runs */

static void runtime_from_callback(const cudartShimCallbackData *d) {
  /* Re-delivery would show up as a callback while in_callback is set. */
  in_callback = 1;
  const char *name = cudaGetErrorName(d->result);
  const char *text = cudaGetErrorString(d->result);
  int dev = -1, n = -1, v = 0;
  (void)cudaGetDevice(&dev);
  (void)cudaGetDeviceCount(&n);
  (void)cudaDriverGetVersion(&v);
  (void)cudaGetLastError();
  cudartShimCounter c;
  if (cudartShimGetCounter("cudaGetErrorName", &c) != cudaSuccess) printf("cudartShimGetCounter failed\n");
  if (name == NULL || text == NULL || strncmp(name, "cuda", 4) != 0) printf("bad error name\n");
  inner_calls += 6; /* runtime calls above, the counter query aside */
  in_callback = 0;
}

static void on_enter(void *user, const cudartShimCallbackData *d) {
  (void)user;
  if (in_callback) printf("REDELIVERED enter %s\n", d->function_name);
  enters++;
  if ((int)d->depth > deepest) deepest = (int)d->depth;
  runtime_from_callback(d);
}

static void on_exit_cb(void *user, const cudartShimCallbackData *d) {
  (void)user;
  if (in_callback) printf("REDELIVERED exit %s\n", d->function_name);
  exits++;
  runtime_from_callback(d);
}

int main(void) {
  uint64_t h = 0;
  if (cudartShimEnableCounters(1) != cudaSuccess) return 2;
  if (cudartShimSubscribe(on_enter, on_exit_cb, NULL, &h) != cudaSuccess) return 3;
  int n = 0;
  cudaError_t r = cudaGetDeviceCount(&n);
  printf("cudaGetDeviceCount: %s\n", cudaGetErrorName(r));
  (void)cudaSetDevice(0);
  if (cudartShimUnsubscribe(h) != cudaSuccess) return 4;

  cudartShimCounter c;
  cudartShimGetCounter("cudaGetErrorName", &c);
  /* One per callback (6 callbacks) and one from main. */
  printf("enters=%d exits=%d deepest=%d inner=%d\n", enters, exits, deepest, inner_calls);
  printf("counted cudaGetErrorName=%llu\n", (unsigned long long)c.calls);
  cudartShimGetCounter("cudaGetDevice", &c);
  printf("counted cudaGetDevice=%llu\n", (unsigned long long)c.calls);
  return 0;
}
