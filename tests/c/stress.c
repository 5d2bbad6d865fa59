/* The traced lifecycles that can race (scripts/stress, tests/stress.rs).
 *
 *   stress MODE T K
 *
 * T worker threads start together (a barrier: their first calls race the
 * trace's one-time setup; odd ones staggered) and each makes K rounds of the mix: cudaGetDevice,
 * cudaMalloc (4 KiB), cudaMemset, cudaFree, cudaSetDevice(99) (fails:
 * cudaErrorInvalidDevice), cudaGetLastError (returns that error). MODE:
 *
 *   join         the workers are joined, then main returns.
 *   exit-ending  the workers are detached and end while main returns: each
 *                says it is done from a pthread key destructor that runs
 *                before the shim's, then takes a moment, so its last events
 *                are handed over during the exit flush.
 *   exit-busy    worker 0 makes its K rounds, then calls exit() while the
 *                others call on without pause (calls in flight at exit).
 *   fork         after the workers' first half, main forks while they call:
 *                the child makes 3 calls (which fail in a forked child) and
 *                exits; the parent waits for it.
 *   fork-exec    the same, but the child execs /bin/true at once.
 *   reset        the workers make K/2 rounds and are joined, main calls
 *                cudaDeviceReset, a second set of workers makes the rest.
 *   flush        main calls cudartShimFlush() in a loop while the workers call.
 *   signal       main sends itself SIGUSR1 in a loop while the workers call
 *                (the flight recorder dumps on it when asked to).
 *
 * It prints what it did, for the harness to compare with every output:
 *   pid P                  its process id
 *   child P                a forked child's id (its own outputs are apart)
 *   calls NAME N           calls of NAME that returned (exact)
 *   errors NAME ERROR N    of which failed with ERROR (its name)
 *   allocations N          bytes-allocating calls that succeeded (= frees)
 *   atleast NAME N         exit-busy: calls of NAME that had returned when
 *                          exit() was called (more may follow: the rule for
 *                          calls in flight at exit is checked instead)
 */
#define _GNU_SOURCE
#include <cudart_shim.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

cudaError_t cudartShimFlush(void);

enum { GET, MALLOC, MEMSET, FREE, SETDEV, LASTERR, NFUNC };
static const char *names[NFUNC] = {"cudaGetDevice", "cudaMalloc", "cudaMemset", "cudaFree", "cudaSetDevice", "cudaGetLastError"};

/* Calls that returned, per function, over every thread (updated after
 * each call returns). */
static atomic_long done_calls[NFUNC];
static int rounds;
static int nthreads;
static pthread_barrier_t gate;
static atomic_int ended;
static atomic_int busy_stop;
static pthread_key_t key;

static void fail(const char *what, int got) {
  fprintf(stderr, "%s returned %d\n", what, got);
  _exit(3);
}

#define CALL(i, expr, want)                        \
  do {                                             \
    cudaError_t e_ = (expr);                       \
    if (e_ != (want)) fail(names[i], (int)e_);     \
    atomic_fetch_add(&done_calls[i], 1);           \
  } while (0)

static void one_round(void) {
  int d = -1;
  void *p = NULL;
  CALL(GET, cudaGetDevice(&d), cudaSuccess);
  CALL(MALLOC, cudaMalloc(&p, 4096), cudaSuccess);
  CALL(MEMSET, cudaMemset(p, 0, 4096), cudaSuccess);
  CALL(FREE, cudaFree(p), cudaSuccess);
  CALL(SETDEV, cudaSetDevice(99), cudaErrorInvalidDevice);
  CALL(LASTERR, cudaGetLastError(), cudaErrorInvalidDevice);
}

static void print_counts(const char *word) {
  for (int i = 0; i < NFUNC; i++) printf("%s %s %ld\n", word, names[i], atomic_load(&done_calls[i]));
  if (strcmp(word, "calls") == 0) {
    printf("errors cudaSetDevice cudaErrorInvalidDevice %ld\n", atomic_load(&done_calls[SETDEV]));
    printf("errors cudaGetLastError cudaErrorInvalidDevice %ld\n", atomic_load(&done_calls[LASTERR]));
    printf("allocations %ld\n", atomic_load(&done_calls[MALLOC]));
  }
  fflush(stdout);
}

/* Runs as a detached worker ends, before the shim's key destructor (this
 * key is made before the first CUDA call): says it is done, then waits a
 * moment so the shim hands its events over while main is exiting. */
static void ending(void *arg) {
  atomic_fetch_add(&ended, 1);
  usleep((unsigned)(size_t)arg);
}

/* Even workers make their first call at once (racing the trace's setup
 * and each other); odd ones 3 ms apart, so some first calls land while the
 * setup is under way, wherever its window is. */
static void start_line(size_t t) {
  pthread_barrier_wait(&gate);
  if (t % 2) usleep((unsigned)(t * 3000));
}

static void *worker(void *arg) {
  size_t t = (size_t)arg;
  start_line(t);
  for (int i = 0; i < rounds; i++) one_round();
  unsigned seed = (unsigned)t;
  pthread_setspecific(key, (void *)(size_t)(1 + rand_r(&seed) % 300));
  return NULL;
}

static void *busy_worker(void *arg) {
  size_t t = (size_t)arg;
  start_line(t);
  if (t == 0) {
    for (int i = 0; i < rounds; i++) one_round();
    print_counts("atleast");
    exit(0);
  }
  for (;;) one_round();
  return NULL;
}

static pthread_t *start_workers(void *(*fn)(void *), int detached) {
  pthread_t *t = calloc((size_t)nthreads, sizeof *t);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  if (detached) pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_barrier_init(&gate, NULL, (unsigned)nthreads);
  for (int i = 0; i < nthreads; i++)
    if (pthread_create(&t[i], &attr, fn, (void *)(size_t)i) != 0) _exit(4);
  return t;
}

static void join_workers(pthread_t *t) {
  for (int i = 0; i < nthreads; i++) pthread_join(t[i], NULL);
  pthread_barrier_destroy(&gate);
  free(t);
}

static void on_usr1(int sig) { (void)sig; }

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: stress MODE THREADS ROUNDS\n");
    return 2;
  }
  const char *mode = argv[1];
  nthreads = atoi(argv[2]);
  rounds = atoi(argv[3]);
  if (nthreads < 1 || rounds < 2) return 2;
  pthread_key_create(&key, ending);
  printf("pid %d\n", (int)getpid());
  fflush(stdout);
  if (strcmp(mode, "join") == 0 || strcmp(mode, "flush") == 0 || strcmp(mode, "signal") == 0) {
    if (strcmp(mode, "signal") == 0) signal(SIGUSR1, on_usr1);
    pthread_t *t = start_workers(worker, 0);
    if (strcmp(mode, "flush") == 0) {
      while (atomic_load(&done_calls[LASTERR]) < (long)nthreads * rounds)
        if (cudartShimFlush() != cudaSuccess) return 5;
    } else if (strcmp(mode, "signal") == 0) {
      /* At least one signal once the recorder can dump: a dump before the
       * tracing's setup has named the recorder's files writes nothing
       * (recorder/dump.rs), and the setup ends before any traced call
       * returns, so wait for a worker's first call. Without the wait the
       * loop's signals could all come before the setup, the workers
       * finishing within its 500 us sleep: the likeliest cause of the
       * long run's lifecycle 31,237 (no dump, on a loaded host; not
       * reproduced on demand). */
      while (atomic_load(&done_calls[GET]) == 0) sched_yield();
      do {
        kill(getpid(), SIGUSR1);
        usleep(500);
      } while (atomic_load(&done_calls[LASTERR]) < (long)nthreads * rounds);
    }
    join_workers(t);
  } else if (strcmp(mode, "exit-ending") == 0) {
    free(start_workers(worker, 1));
    while (atomic_load(&ended) < nthreads) sched_yield();
  } else if (strcmp(mode, "exit-busy") == 0) {
    free(start_workers(busy_worker, 1));
    for (;;) pause();
  } else if (strcmp(mode, "fork") == 0 || strcmp(mode, "fork-exec") == 0) {
    int exec = strcmp(mode, "fork-exec") == 0;
    pthread_t *t = start_workers(worker, 0);
    while (atomic_load(&done_calls[LASTERR]) < (long)nthreads * rounds / 2) sched_yield();
    pid_t child = fork();
    if (child == 0) {
      if (exec) {
        execl("/bin/true", "true", (char *)NULL);
        _exit(7);
      }
      int d;
      /* A forked child's calls fail; it counts them in its own outputs. */
      for (int i = 0; i < 3; i++)
        if (cudaGetDevice(&d) == cudaSuccess) _exit(8);
      exit(0);
    }
    printf("child %d\n", (int)child);
    int status = 0;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fprintf(stderr, "child failed: %d\n", status);
      return 6;
    }
    join_workers(t);
  } else if (strcmp(mode, "reset") == 0) {
    int all = rounds;
    rounds = all / 2;
    join_workers(start_workers(worker, 0));
    if (cudaDeviceReset() != cudaSuccess) return 5;
    printf("calls cudaDeviceReset 1\n");
    rounds = all - all / 2;
    join_workers(start_workers(worker, 0));
  } else {
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
  }
  print_counts("calls");
  (void)busy_stop;
  return 0;
}
