/* A program for the tracing tests: a known sequence of runtime calls.
 *
 *   trace_app basic [exit|return|reset]
 *     cudaGetDeviceCount x1, cudaSetDevice(0) x1, cudaGetDeviceProperties x1,
 *     cudaDeviceSynchronize x3, cudaDeviceGetAttribute x2,
 *     cudaSetDevice(99) x2 (fails: cudaErrorInvalidDevice),
 *     cudaGetDeviceCount(NULL) x1 (fails: cudaErrorInvalidValue),
 *     cudaGetLastError x1; then ends by exit(), return from main, or
 *     cudaDeviceReset + cudaGetDevice + return.
 *   trace_app threads N K
 *     N threads each call cudaGetDevice K times, at once.
 *   trace_app basic fork
 *     the basic sequence, then a forked child that calls nothing and exits
 *     with exit(0) (a worker process); the parent waits and returns.
 *   trace_app teardown N
 *     N threads each call cudaGetDevice once, and once more from a
 *     pthread key destructor (after the thread's own thread-locals are
 *     gone); then main calls cudaGetDevice from an atexit handler.
 */
#define _POSIX_C_SOURCE 200809L
#include <cudart_shim.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK(x, want)                                                          \
  do {                                                                        \
    cudaError_t e_ = (x);                                                     \
    if (e_ != (want)) {                                                       \
      fprintf(stderr, "%s: got %d, want %d\n", #x, (int)e_, (int)(want));    \
      exit(2);                                                                \
    }                                                                         \
  } while (0)

static int per_thread;
static pthread_barrier_t start;

static void *worker(void *arg) {
  (void)arg;
  int d = -1;
  pthread_barrier_wait(&start);
  for (int i = 0; i < per_thread; i++) CHECK(cudaGetDevice(&d), cudaSuccess);
  return NULL;
}

static void finish_by_exit(void) { exit(0); }

static pthread_key_t key;

static void at_thread_end(void *p) {
  (void)p;
  int d = -1;
  CHECK(cudaGetDevice(&d), cudaSuccess);
}

static void *teardown_worker(void *arg) {
  (void)arg;
  int d = -1;
  pthread_setspecific(key, (void *)1);
  CHECK(cudaGetDevice(&d), cudaSuccess);
  return NULL;
}

/* Makes no CUDA call itself: its first one comes from its key destructor. */
static void *late_first_worker(void *arg) {
  (void)arg;
  pthread_setspecific(key, (void *)1);
  return NULL;
}

static void at_process_end(void) {
  int d = -1;
  CHECK(cudaGetDevice(&d), cudaSuccess);
}

int main(int argc, char **argv) {
  if (argc >= 4 && strcmp(argv[1], "threads") == 0) {
    int n = atoi(argv[2]);
    per_thread = atoi(argv[3]);
    pthread_t t[64];
    if (n > 64) n = 64;
    pthread_barrier_init(&start, NULL, (unsigned)n);
    for (int i = 0; i < n; i++) pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
    printf("threads done\n");
    return 0;
  }
  int first_in_teardown = argc >= 3 && strcmp(argv[1], "teardown-first") == 0;
  if (argc >= 3 && (strcmp(argv[1], "teardown") == 0 || first_in_teardown)) {
    int n = atoi(argv[2]);
    pthread_t t[64];
    if (n > 64) n = 64;
    pthread_key_create(&key, at_thread_end);
    atexit(at_process_end);
    /* The process's first call (which starts tracing) is made by main. */
    if (first_in_teardown) at_process_end();
    for (int i = 0; i < n; i++) pthread_create(&t[i], NULL, first_in_teardown ? late_first_worker : teardown_worker, NULL);
    for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
    printf("teardown done\n");
    return 0;
  }
  int n = 0, v = 0;
  CHECK(cudaGetDeviceCount(&n), cudaSuccess);
  CHECK(cudaSetDevice(0), cudaSuccess);
  struct cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0), cudaSuccess);
  for (int i = 0; i < 3; i++) CHECK(cudaDeviceSynchronize(), cudaSuccess);
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 0), cudaSuccess);
  CHECK(cudaSetDevice(99), cudaErrorInvalidDevice);
  CHECK(cudaSetDevice(99), cudaErrorInvalidDevice);
  CHECK(cudaGetDeviceCount(NULL), cudaErrorInvalidValue);
  CHECK(cudaGetLastError(), cudaErrorInvalidValue);
  printf("devices %d warp %d\n", n, v);
  const char *how = argc >= 3 ? argv[2] : "return";
  if (strcmp(how, "exit") == 0) finish_by_exit();
  if (strcmp(how, "fork") == 0) {
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) exit(0);
    int st = 0;
    waitpid(c, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) return 3;
  }
  if (strcmp(how, "reset") == 0) {
    int d = -1;
    CHECK(cudaDeviceReset(), cudaSuccess);
    CHECK(cudaGetDevice(&d), cudaSuccess);
  }
  return 0;
}
