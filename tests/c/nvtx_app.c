/* A program for the NVTX tests, built on NVIDIA's NVTX3 headers (nvidia-nvtx)
 * and NVIDIA's runtime headers, linked to libcudart.so.13 (as PyTorch is);
 * tests/nvtx.rs runs it under `cudart-shim trace` (ours preloaded).
 *
 *   nvtx_app basic
 *     names its thread; "outer" (pushed, red) nests "inner" (pushed, int64
 *     payload 42, category 7 named "io"), each around cudaGetDevice calls;
 *     domain "mylib": a registered string "registered" pushed with a double
 *     payload 2.5, a mark "tick"; a start/end range "handoff" started here
 *     and ended on another thread; a stream named "copy stream" through
 *     nvtxNameCudaStreamA, with a memset on it; then calls nvtx_lib_a()/nvtx_lib_b() when built
 *     with -DWITH_LIBS (two shared libraries, each embedding NVTX3).
 *   nvtx_app profiler [repeat]
 *     "before" (pushed and popped with no window); "outer" pushed, then
 *     cudaProfilerStart inside it, 3 steps ("step", one cudaGetDevice each),
 *     cudaProfilerStop, "outer" popped, 2 steps more outside; with repeat,
 *     a second window of 2 steps.
 *   nvtx_app nvtxrange
 *     2 steps, then 3 steps inside the range "capture" of domain "mylib",
 *     then 2 steps.
 *   nvtx_app timed
 *     5 cudaGetDevice, sleep 1.5 s, 3 cudaGetDeviceCount.
 *   nvtx_app signal
 *     installs its own SIGUSR2 handler first; 2 cudaGetDevice, raise(SIGUSR2),
 *     3 cudaGetDeviceCount, raise(SIGUSR2), 4 cudaDeviceSynchronize; prints
 *     how often its own handler ran.
 *   nvtx_app env
 *     prints NVTX_INJECTION64_PATH as the program sees it.
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCudaRt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* cuda_profiler_api.h is not in the runtime wheel; the two calls as
 * libcudart.so.13 exports them. */
extern cudaError_t cudaProfilerStart(void);
extern cudaError_t cudaProfilerStop(void);

#ifdef WITH_LIBS
void nvtx_lib_a(void);
void nvtx_lib_b(void);
#endif

#define CHECK(x)                                                  \
  do {                                                            \
    cudaError_t e_ = (x);                                         \
    if (e_ != cudaSuccess) {                                      \
      fprintf(stderr, "%s: got %d\n", #x, (int)e_);               \
      exit(2);                                                    \
    }                                                             \
  } while (0)

static void step(void) {
  int d = -1;
  nvtxRangePushA("step");
  CHECK(cudaGetDevice(&d));
  nvtxRangePop();
}

static void *ender(void *arg) {
  nvtxRangeEnd(*(nvtxRangeId_t *)arg);
  return NULL;
}

static volatile sig_atomic_t own_handler_ran;
static void own_handler(int sig) {
  (void)sig;
  own_handler_ran++;
}

static void basic(void) {
  int d = -1;
  nvtxNameOsThreadA((uint32_t)gettid(), "main thread");
  nvtxEventAttributes_t a;
  memset(&a, 0, sizeof a);
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.colorType = NVTX_COLOR_ARGB;
  a.color = 0xFFFF0000u;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = "outer";
  if (nvtxRangePushEx(&a) != 0) exit(3);
  CHECK(cudaGetDevice(&d));
  nvtxNameCategoryA(7, "io");
  nvtxEventAttributes_t b;
  memset(&b, 0, sizeof b);
  b.version = NVTX_VERSION;
  b.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  b.category = 7;
  b.payloadType = NVTX_PAYLOAD_TYPE_INT64;
  b.payload.llValue = 42;
  b.messageType = NVTX_MESSAGE_TYPE_ASCII;
  b.message.ascii = "inner";
  if (nvtxRangePushEx(&b) != 1) exit(4);
  CHECK(cudaGetDevice(&d));
  CHECK(cudaGetDevice(&d));
  if (nvtxRangePop() != 1) exit(5);
  if (nvtxRangePop() != 0) exit(6);

  nvtxDomainHandle_t dom = nvtxDomainCreateA("mylib");
  if (!dom || nvtxDomainCreateA("mylib") != dom) exit(7);
  nvtxStringHandle_t reg = nvtxDomainRegisterStringA(dom, "registered");
  nvtxEventAttributes_t c;
  memset(&c, 0, sizeof c);
  c.version = NVTX_VERSION;
  c.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  c.payloadType = NVTX_PAYLOAD_TYPE_DOUBLE;
  c.payload.dValue = 2.5;
  c.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  c.message.registered = reg;
  nvtxDomainRangePushEx(dom, &c);
  CHECK(cudaDeviceSynchronize());
  nvtxEventAttributes_t m;
  memset(&m, 0, sizeof m);
  m.version = NVTX_VERSION;
  m.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  m.messageType = NVTX_MESSAGE_TYPE_ASCII;
  m.message.ascii = "tick";
  nvtxDomainMarkEx(dom, &m);
  nvtxDomainRangePop(dom);

  nvtxRangeId_t id = nvtxRangeStartA("handoff");
  pthread_t t;
  usleep(2000);
  pthread_create(&t, NULL, ender, &id);
  pthread_join(t, NULL);

  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  nvtxNameCudaStreamA(s, "copy stream");
  void *p = NULL;
  CHECK(cudaMalloc(&p, 256));
  CHECK(cudaMemsetAsync(p, 0, 256, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaFree(p));
  CHECK(cudaStreamDestroy(s));
#ifdef WITH_LIBS
  nvtx_lib_a();
  nvtx_lib_b();
#endif
  printf("basic done\n");
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "basic";
  int d = -1, n = 0;
  if (!strcmp(mode, "basic")) {
    basic();
  } else if (!strcmp(mode, "profiler")) {
    nvtxRangePushA("before");
    CHECK(cudaGetDeviceCount(&n));
    nvtxRangePop();
    nvtxRangePushA("outer");
    CHECK(cudaProfilerStart());
    for (int i = 0; i < 3; i++) step();
    CHECK(cudaProfilerStop());
    nvtxRangePop();
    for (int i = 0; i < 2; i++) step();
    if (argc > 2 && !strcmp(argv[2], "repeat")) {
      CHECK(cudaProfilerStart());
      for (int i = 0; i < 2; i++) step();
      CHECK(cudaProfilerStop());
      step();
    }
  } else if (!strcmp(mode, "nvtxrange")) {
    nvtxDomainHandle_t dom = nvtxDomainCreateA("mylib");
    for (int i = 0; i < 2; i++) step();
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "capture";
    nvtxDomainRangePushEx(dom, &a);
    for (int i = 0; i < 3; i++) step();
    nvtxDomainRangePop(dom);
    for (int i = 0; i < 2; i++) step();
  } else if (!strcmp(mode, "timed")) {
    for (int i = 0; i < 5; i++) CHECK(cudaGetDevice(&d));
    usleep(1500 * 1000);
    for (int i = 0; i < 3; i++) CHECK(cudaGetDeviceCount(&n));
  } else if (!strcmp(mode, "signal")) {
    signal(SIGUSR2, own_handler);
    for (int i = 0; i < 2; i++) CHECK(cudaGetDevice(&d));
    raise(SIGUSR2);
    for (int i = 0; i < 3; i++) CHECK(cudaGetDeviceCount(&n));
    raise(SIGUSR2);
    for (int i = 0; i < 4; i++) CHECK(cudaDeviceSynchronize());
    printf("own handler ran %d\n", (int)own_handler_ran);
  } else if (!strcmp(mode, "env")) {
    const char *v = getenv("NVTX_INJECTION64_PATH");
    printf("NVTX_INJECTION64_PATH=%s\n", v ? v : "(unset)");
    step();
  }
  return 0;
}
