/* A program for the metrics tests (tests/metrics.rs), built on NVIDIA's
 * runtime and NVTX3 headers, linked to libcudart.so.13, run with ours
 * preloaded over the fake driver.
 *
 *   metrics_app STEPS SLEEP_MS STOPFILE [fork|stall]
 *     STEPS times: an NVTX range "step" (push/pop) around cudaMalloc of
 *     1 MiB (kept), cudaMemset on it, cudaGetDevice x3, cudaSetDevice(99)
 *     (fails: cudaErrorInvalidDevice), cudaDeviceSynchronize; then
 *     SLEEP_MS ms outside the range. Then prints "DONE" on stdout and
 *     waits (no CUDA call) until STOPFILE exists, at most 120 s; with
 *     fork, first forks a child that calls cudaGetDevice and exits, and
 *     waits for it. Then returns 0.
 *     With stall, before "DONE": a second thread calls cudaGetDevice every
 *     2 ms while the main thread prints "SYNC ENTER", calls
 *     cudaDeviceSynchronize once more (a fault delays it: STEPS + 1st) and
 *     then prints "SYNC RETURNED"; the second thread then stops. Both
 *     lines carry the time (CLOCK_REALTIME, seconds).
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHECK(x, want)                                                       \
  do {                                                                     \
    cudaError_t e_ = (x);                                                  \
    if (e_ != (want)) {                                                    \
      fprintf(stderr, "%s: got %d, want %d\n", #x, (int)e_, (int)(want)); \
      exit(2);                                                             \
    }                                                                      \
  } while (0)

/* CLOCK_REALTIME in seconds: the test compares it with its own clock. */
static double unix_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static volatile int stop_caller = 0;

/* The other thread of `stall`: calls while the main thread is stuck. */
static void *caller(void *arg) {
  (void)arg;
  int d = -1;
  while (!stop_caller) {
    CHECK(cudaGetDevice(&d), cudaSuccess);
    usleep(2000);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: metrics_app STEPS SLEEP_MS STOPFILE [fork]\n");
    return 2;
  }
  int steps = atoi(argv[1]), sleep_ms = atoi(argv[2]);
  const char *stop = argv[3];
  int do_fork = argc > 4 && strcmp(argv[4], "fork") == 0;
  int do_stall = argc > 4 && strcmp(argv[4], "stall") == 0;
  for (int i = 0; i < steps; i++) {
    nvtxRangePushA("step");
    void *p = NULL;
    int d = -1;
    CHECK(cudaMalloc(&p, 1 << 20), cudaSuccess);
    CHECK(cudaMemset(p, 0, 1 << 20), cudaSuccess);
    for (int k = 0; k < 3; k++) CHECK(cudaGetDevice(&d), cudaSuccess);
    CHECK(cudaSetDevice(99), cudaErrorInvalidDevice);
    CHECK(cudaDeviceSynchronize(), cudaSuccess);
    nvtxRangePop();
    usleep(sleep_ms * 1000);
  }
  (void)cudaGetLastError();
  if (do_stall) {
    pthread_t t;
    if (pthread_create(&t, NULL, caller, NULL) != 0) return 4;
    printf("SYNC ENTER %.6f\n", unix_now());
    fflush(stdout);
    CHECK(cudaDeviceSynchronize(), cudaSuccess);
    printf("SYNC RETURNED %.6f\n", unix_now());
    fflush(stdout);
    stop_caller = 1;
    pthread_join(t, NULL);
  }
  if (do_fork) {
    pid_t c = fork();
    if (c == 0) {
      int d = -1;
      cudaGetDevice(&d);
      exit(0);
    }
    int st = 0;
    waitpid(c, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      fprintf(stderr, "child: status %d\n", st);
      return 3;
    }
  }
  printf("DONE\n");
  fflush(stdout);
  for (int i = 0; i < 2400 && access(stop, F_OK) != 0; i++) usleep(50 * 1000);
  return 0;
}
