/* A program for the flight recorder's tests (tests/recorder.rs).
 *
 *   recorder threads N K
 *     N threads each call cudaMalloc(size) + cudaFree K times, size =
 *     thread * 1000000 + iteration + 1 (so a dump shows which thread and
 *     which iteration each call was); then main calls cudartShimFlush().
 *   recorder ended N K
 *     the same calls, but the N threads one after another (each is joined
 *     before the next starts, so each new thread finds the last one's
 *     state free); then main calls cudartShimFlush().
 *   recorder sticky
 *     cudaSetDevice(9999) (an error that is not sticky: the last-error rule
 *     holds while recorded), cudaGetLastError twice,
 *     cudaMalloc, cudaFree, then cudaDeviceSynchronize twice (the test
 *     makes the fake driver's cuCtxSynchronize fail with 700, a sticky
 *     error); returns 0.
 *   recorder segv [none|before|after]
 *     cudaGetDeviceCount, cudaMalloc, cudaFree, then a write through NULL.
 *     `before`: the program's own SIGSEGV handler is installed before the
 *     first CUDA call (so before the recorder's); `after`: after it, saving
 *     the recorder's as the one to chain to, as careful programs do. The
 *     handler writes "program handler: SIGSEGV" and chains (after) or
 *     restores the default and returns (before), so the fault ends the
 *     process by SIGSEGV either way.
 *   recorder abort
 *     cudaGetDeviceCount, then abort().
 *   recorder usr1
 *     cudaGetDeviceCount, then raise(SIGUSR1), then cudaGetDevice; returns 0.
 *   recorder fork
 *     cudaGetDeviceCount, then fork: the child calls cudaGetDevice (which
 *     fails in a forked child) and aborts; the parent waits for it, prints "child: signal N", calls
 *     cudaDriverGetVersion and cudartShimFlush(), returns 0.
 */
#define _POSIX_C_SOURCE 200809L
#include <cudart_shim.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK(x, want)                                                       \
  do {                                                                     \
    cudaError_t e_ = (x);                                                  \
    if (e_ != (want)) {                                                    \
      fprintf(stderr, "%s: got %d, want %d\n", #x, (int)e_, (int)(want)); \
      exit(2);                                                             \
    }                                                                      \
  } while (0)

static int per_thread;
static pthread_barrier_t start;

static void *worker(void *arg) {
  size_t t = (size_t)arg;
  pthread_barrier_wait(&start);
  for (int i = 0; i < per_thread; i++) {
    void *p = NULL;
    CHECK(cudaMalloc(&p, t * 1000000 + (size_t)i + 1), cudaSuccess);
    CHECK(cudaFree(p), cudaSuccess);
  }
  return NULL;
}

static struct sigaction chained;

static void own_handler(int sig, siginfo_t *info, void *ctx) {
  static const char msg[] = "program handler: SIGSEGV\n";
  ssize_t r = write(2, msg, sizeof msg - 1);
  (void)r;
  if (chained.sa_flags & SA_SIGINFO && chained.sa_sigaction) {
    chained.sa_sigaction(sig, info, ctx);
  } else {
    signal(sig, SIG_DFL);
  }
}

static void install_own(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = own_handler;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &chained);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "threads") && argc > 3) {
    int n = atoi(argv[2]);
    per_thread = atoi(argv[3]);
    pthread_t th[64];
    if (n > 64) n = 64;
    int count = 0;
    CHECK(cudaGetDeviceCount(&count), cudaSuccess);
    pthread_barrier_init(&start, NULL, (unsigned)n);
    for (long t = 0; t < n; t++) pthread_create(&th[t], NULL, worker, (void *)(t + 1));
    for (int t = 0; t < n; t++) pthread_join(th[t], NULL);
    CHECK(cudartShimFlush(), cudaSuccess);
    return 0;
  }
  if (!strcmp(mode, "ended") && argc > 3) {
    int n = atoi(argv[2]);
    per_thread = atoi(argv[3]);
    int count = 0;
    CHECK(cudaGetDeviceCount(&count), cudaSuccess);
    pthread_barrier_init(&start, NULL, 1);
    for (long t = 0; t < n; t++) {
      pthread_t th;
      pthread_create(&th, NULL, worker, (void *)(t + 1));
      pthread_join(th, NULL);
    }
    CHECK(cudartShimFlush(), cudaSuccess);
    return 0;
  }
  if (!strcmp(mode, "sticky")) {
    void *p = NULL;
    CHECK(cudaSetDevice(9999), cudaErrorInvalidDevice);
    CHECK(cudaGetLastError(), cudaErrorInvalidDevice);
    CHECK(cudaGetLastError(), cudaSuccess);
    CHECK(cudaMalloc(&p, 4096), cudaSuccess);
    CHECK(cudaFree(p), cudaSuccess);
    CHECK(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    CHECK(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    printf("sticky done\n");
    return 0;
  }
  if (!strcmp(mode, "segv")) {
    const char *how = argc > 2 ? argv[2] : "none";
    if (!strcmp(how, "before")) install_own();
    int count = 0;
    CHECK(cudaGetDeviceCount(&count), cudaSuccess);
    if (!strcmp(how, "after")) install_own();
    void *p = NULL;
    CHECK(cudaMalloc(&p, 12345), cudaSuccess);
    CHECK(cudaFree(p), cudaSuccess);
    volatile int *null = NULL;
    *null = 1;
    return 0;
  }
  if (!strcmp(mode, "abort")) {
    int count = 0;
    CHECK(cudaGetDeviceCount(&count), cudaSuccess);
    abort();
  }
  if (!strcmp(mode, "usr1")) {
    int count = 0, dev = -1;
    CHECK(cudaGetDeviceCount(&count), cudaSuccess);
    raise(SIGUSR1);
    CHECK(cudaGetDevice(&dev), cudaSuccess);
    printf("usr1 done\n");
    return 0;
  }
  if (!strcmp(mode, "fork")) {
    int count = 0, dev = -1, ver = 0;
    CHECK(cudaGetDeviceCount(&count), cudaSuccess);
    pid_t child = fork();
    if (child == 0) {
      /* CUDA does not work in a forked child (cudaErrorInitializationError,
         as with NVIDIA's runtime): the call is recorded all the same. */
      (void)cudaGetDevice(&dev);
      abort();
    }
    int status = 0;
    waitpid(child, &status, 0);
    printf("child: signal %d\n", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    CHECK(cudaDriverGetVersion(&ver), cudaSuccess);
    CHECK(cudartShimFlush(), cudaSuccess);
    return 0;
  }
  fprintf(stderr, "usage: recorder threads N K | ended N K | sticky | segv [none|before|after] | abort | usr1 | fork\n");
  return 2;
}
