/* Threads that end while the timeline is flushed (tests/timeline_exit.rs):
 * a thread's last events are handed to the writer as it exits, and must be
 * in the trace however that hand-off and a flush interleave.
 *
 *   timeline_exit exit W K
 *     W threads, not joined, each K calls (cudaGetDevice), then it says it
 *     is done and ends; once all W said so, main returns at once, so the
 *     final flush runs while they are still ending.
 *   timeline_exit flush W K
 *     the same, then cudartShimFlush() while they end; prints "flushed"
 *     and waits for its standard input to close (the test reads the file
 *     as the flush left it), then exits.
 */
#define _DEFAULT_SOURCE
#include <cudart_shim.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

cudaError_t cudartShimFlush(void);

static int calls;
static atomic_int done;
static pthread_key_t key;

/* Runs as the thread ends, before the shim's own key destructor (this key
 * was made first): the thread says it is done, then takes a moment, so the
 * shim hands its events over while main is already exiting or flushing. */
static void ending(void *arg) {
  atomic_fetch_add(&done, 1);
  usleep((unsigned)(size_t)arg);
}

static void *worker(void *arg) {
  for (int i = 0; i < calls; i++) {
    int d = -1;
    if (cudaGetDevice(&d) != cudaSuccess) {
      fprintf(stderr, "cudaGetDevice failed\n");
      exit(2);
    }
  }
  unsigned seed = (unsigned)(size_t)arg;
  /* Not NULL: a key whose value is NULL has no destructor call. */
  pthread_setspecific(key, (void *)(size_t)(1 + rand_r(&seed) % 400));
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 4) return 2;
  int flush = strcmp(argv[1], "flush") == 0;
  int threads = atoi(argv[2]);
  calls = atoi(argv[3]);
  pthread_key_create(&key, ending);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  for (int i = 0; i < threads; i++) {
    pthread_t t;
    if (pthread_create(&t, &attr, worker, (void *)(size_t)(i + 1)) != 0) return 3;
  }
  while (atomic_load(&done) < threads) sched_yield();
  if (flush) {
    if (cudartShimFlush() != cudaSuccess) return 4;
    printf("flushed\n");
    fflush(stdout);
    char buf[16];
    while (read(0, buf, sizeof buf) > 0) {
    }
  }
  return 0;
}
