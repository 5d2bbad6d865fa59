/* A program for the timeline format tests (tests/perfetto.rs): a known mix
 * of runtime calls on two threads, with results other than success, nested
 * driver calls and device-memory counter samples.
 *
 *   perfetto_app mix K
 *     two threads, each K rounds of: cudaGetDevice, cudaMalloc (64 KiB),
 *     cudaMemset, cudaMemcpy host to device, cudaStreamCreate,
 *     cudaStreamSynchronize, cudaStreamDestroy, cudaFree, cudaSetDevice(99)
 *     (fails: cudaErrorInvalidDevice), cudaGetLastError.
 *   perfetto_app hang K
 *     the mix, then cudartShimFlush(), prints "flushed", then more calls
 *     and waits to be killed (the file must be complete as it stands).
 *   perfetto_app steps K
 *     the size figure's mix, like a framework's step loop: two threads,
 *     each K rounds of short calls with 0 to 5 arguments on a stream
 *     (event record and wait, async copy and memset, queries, the device,
 *     the last error; under `cudart-shim trace` their driver calls nest
 *     under them), with an allocation and a free every 8 rounds.
 */
#define _POSIX_C_SOURCE 200809L
#include <cudart_shim.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

cudaError_t cudartShimFlush(void);

#define CHECK(call, want)                                                              \
  do {                                                                                 \
    cudaError_t e_ = (call);                                                           \
    if (e_ != (want)) {                                                                \
      fprintf(stderr, "%s:%d: %s = %d, want %d\n", __FILE__, __LINE__, #call, e_, want); \
      exit(2);                                                                         \
    }                                                                                  \
  } while (0)

static int rounds;

static void *mix(void *arg) {
  (void)arg;
  static char host[65536];
  for (int i = 0; i < rounds; i++) {
    int d = -1;
    void *p = NULL;
    cudaStream_t s;
    CHECK(cudaGetDevice(&d), cudaSuccess);
    CHECK(cudaMalloc(&p, sizeof host), cudaSuccess);
    CHECK(cudaMemset(p, 0, sizeof host), cudaSuccess);
    CHECK(cudaMemcpy(p, host, sizeof host, cudaMemcpyHostToDevice), cudaSuccess);
    CHECK(cudaStreamCreate(&s), cudaSuccess);
    CHECK(cudaStreamSynchronize(s), cudaSuccess);
    CHECK(cudaStreamDestroy(s), cudaSuccess);
    CHECK(cudaFree(p), cudaSuccess);
    CHECK(cudaSetDevice(99), cudaErrorInvalidDevice);
    CHECK(cudaGetLastError(), cudaErrorInvalidDevice);
  }
  return NULL;
}

static void *steps(void *arg) {
  (void)arg;
  static char host[4096];
  cudaStream_t s;
  cudaEvent_t e;
  void *buf = NULL, *p = NULL;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), cudaSuccess);
  CHECK(cudaMalloc(&buf, sizeof host), cudaSuccess);
  for (int i = 0; i < rounds; i++) {
    int d = -1;
    enum cudaStreamCaptureStatus st;
    CHECK(cudaGetDevice(&d), cudaSuccess);
    CHECK(cudaStreamIsCapturing(s, &st), cudaSuccess);
    CHECK(cudaMemsetAsync(buf, i & 0xff, 256 + (i & 7) * 64, s), cudaSuccess);
    CHECK(cudaMemcpyAsync(buf, host, 1024, cudaMemcpyHostToDevice, s), cudaSuccess);
    CHECK(cudaEventRecord(e, s), cudaSuccess);
    CHECK(cudaStreamWaitEvent(s, e, 0), cudaSuccess);
    cudaEventQuery(e);
    CHECK(cudaPeekAtLastError(), cudaSuccess);
    if (i % 8 == 0) {
      CHECK(cudaMalloc(&p, 4096 + (size_t)(i & 15) * 512), cudaSuccess);
      CHECK(cudaFree(p), cudaSuccess);
    }
  }
  CHECK(cudaStreamSynchronize(s), cudaSuccess);
  CHECK(cudaFree(buf), cudaSuccess);
  CHECK(cudaEventDestroy(e), cudaSuccess);
  CHECK(cudaStreamDestroy(s), cudaSuccess);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  rounds = atoi(argv[2]);
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, strcmp(argv[1], "steps") == 0 ? steps : mix, NULL);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  if (strcmp(argv[1], "hang") == 0) {
    CHECK(cudartShimFlush(), cudaSuccess);
    printf("flushed\n");
    fflush(stdout);
    mix(NULL);
    for (;;) pause();
  }
  printf("done\n");
  return 0;
}
