// A program with its own CUPTI user, as PyTorch's profiler (Kineto) uses
// CUPTI's Activity API: its own buffer callbacks, kinds, external
// correlation ids (CUSTOM0) around its launches, flush at stop,
// cuptiFinalize at teardown. Run beside cudart-shim's GPU tracing
// (tests/cupti_coexist.rs, gpu/checks/coexist/coexist.py): the profiler must see
// exactly its own records.
//   cupti_coexist MODE      MODE: before | after | twice | windows | export |
//                           correlation | child
// PROF=0 skips every profiler call (same CUDA work): the baseline of our rows.
// Prints one line per profiler window:
//   window I kernels K copies C memsets M ext E foreign F driver D unknown U badclock B
// (ext: its CUSTOM0 correlation records; foreign: external correlation
// records of another kind; unknown: buffers handed back that it never gave;
// badclock: records whose start is not on its clock, when it registered one).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <ctime>
#include <mutex>
#include <set>
#include <vector>
#include <sys/wait.h>
#include <unistd.h>
#include <cuda_runtime.h>

// The CUPTI 13 calls used (cupti_activity.h, cupti_callbacks.h), declared
// here: the test needs no CUPTI headers.
extern "C" {
typedef void (*ReqFn)(uint8_t **, size_t *, size_t *);
typedef void (*DoneFn)(void *, uint32_t, uint8_t *, size_t, size_t);
typedef uint64_t (*TsFn)(void);
int cuptiActivityRegisterCallbacks(ReqFn, DoneFn);
int cuptiActivityRegisterTimestampCallback(TsFn);
int cuptiActivityEnable(uint32_t);
int cuptiActivityDisable(uint32_t);
int cuptiActivityFlushAll(uint32_t);
int cuptiActivityGetNextRecord(uint8_t *, size_t, uint8_t **);
int cuptiActivityPushExternalCorrelationId(uint32_t, uint64_t);
int cuptiActivityPopExternalCorrelationId(uint32_t, uint64_t *);
int cuptiFinalize(void);
}

enum { MEMCPY = 1, MEMSET = 2, KERNEL = 3, DRIVER = 4, CONC_KERNEL = 10, EXT = 39, CUSTOM0 = 3 };
static const uint32_t KINDS[] = {CONC_KERNEL, MEMCPY, MEMSET, EXT, DRIVER};

#define CK(call)                                                                      \
    do {                                                                              \
        cudaError_t e_ = (call);                                                      \
        if (e_ != cudaSuccess) {                                                      \
            printf("FAIL %s:%d %s -> %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_)); \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)
#define CU(call)                                                                      \
    do {                                                                              \
        int r_ = (call);                                                              \
        if (r_ != 0) {                                                                \
            printf("FAIL %s:%d %s -> CUPTI %d\n", __FILE__, __LINE__, #call, r_);     \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

__global__ void empty() {}

static bool prof = true;
static bool own_clock = false;
static bool correlate = false;
static std::mutex mu;
static std::set<uint8_t *> mine;
static struct Count { long kernels, copies, memsets, ext, foreign, driver, unknown, badclock; } n;
static uint64_t window_start, window_end;
static uint64_t next_ext = 1;

// Its own clock, as Kineto's (approximate, TSC-like): not nanoseconds but
// 2.1 ticks per ns, far from cudart-shim's zero; CUPTI stamps every record
// in these units once it is registered.
static uint64_t clock_ticks() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return ((uint64_t)t.tv_sec * 1000000000ull + t.tv_nsec) * 21 / 10 + 5000000000ull;
}

static void requested(uint8_t **buf, size_t *size, size_t *max) {
    *size = 1 << 16;
    *buf = (uint8_t *)aligned_alloc(8, *size);
    *max = 0;
    std::lock_guard<std::mutex> g(mu);
    mine.insert(*buf);
}

static void completed(void *, uint32_t, uint8_t *buf, size_t, size_t valid) {
    std::lock_guard<std::mutex> g(mu);
    if (!mine.count(buf)) {
        // Kineto: "bufferCompleted called with unknown buffer"; not ours to free.
        n.unknown++;
        return;
    }
    mine.erase(buf);
    uint8_t *rec = nullptr;
    while (cuptiActivityGetNextRecord(buf, valid, &rec) == 0) {
        uint32_t kind;
        memcpy(&kind, rec, 4);
        uint64_t start = 0;
        switch (kind) {
        case CONC_KERNEL: case KERNEL: n.kernels++; memcpy(&start, rec + 16, 8); break;
        case MEMCPY: n.copies++; memcpy(&start, rec + 16, 8); break;
        case MEMSET: n.memsets++; memcpy(&start, rec + 16, 8); break;
        case DRIVER: n.driver++; break;
        case EXT: {
            uint32_t k;
            memcpy(&k, rec + 4, 4);
            if (k == CUSTOM0) n.ext++; else n.foreign++;
            break;
        }
        }
        if (own_clock && start && (start < window_start || start > window_end)) n.badclock++;
    }
    free(buf);
}

static void start_profiler() {
    if (!prof) return;
    CU(cuptiActivityRegisterCallbacks(requested, completed));
    if (own_clock) CU(cuptiActivityRegisterTimestampCallback(clock_ticks));
    for (uint32_t k : KINDS) CU(cuptiActivityEnable(k));
    memset(&n, 0, sizeof n);
    window_start = clock_ticks();
}

static int windows = 0;

static void stop_profiler(bool teardown) {
    if (!prof) return;
    CK(cudaDeviceSynchronize());
    window_end = clock_ticks();
    for (uint32_t k : KINDS) CU(cuptiActivityDisable(k));
    CU(cuptiActivityFlushAll(1));
    if (teardown) CU(cuptiFinalize());
    printf("window %d kernels %ld copies %ld memsets %ld ext %ld foreign %ld driver %ld unknown %ld badclock %ld\n", windows++, n.kernels,
           n.copies, n.memsets, n.ext, n.foreign, n.driver, n.unknown, n.badclock);
    fflush(stdout);
}

// k kernels, a copy each way, a memset; each launch inside the profiler's
// own external correlation id when it correlates (as Kineto's ops).
static void work(int k) {
    static float *d = nullptr;
    static char host[4096];
    if (!d) CK(cudaMalloc(&d, 1 << 16));
    auto op = [&](auto f) {
        uint64_t last;
        if (correlate) cuptiActivityPushExternalCorrelationId(CUSTOM0, next_ext++);
        f();
        if (correlate) cuptiActivityPopExternalCorrelationId(CUSTOM0, &last);
    };
    for (int i = 0; i < k; i++) op([] { empty<<<1, 1>>>(); });
    CK(cudaGetLastError());
    op([&] { CK(cudaMemcpy(d, host, 1000, cudaMemcpyHostToDevice)); });
    op([&] { CK(cudaMemcpy(host, d, 1000, cudaMemcpyDeviceToHost)); });
    op([&] { CK(cudaMemset(d, 0, 512)); });
    CK(cudaDeviceSynchronize());
}

int main(int argc, char **argv) {
    setvbuf(stdout, nullptr, _IOLBF, 0);
    const char *mode = argc > 1 ? argv[1] : "after";
    prof = !(getenv("PROF") && !strcmp(getenv("PROF"), "0"));
    if (!strcmp(mode, "before")) {
        // The profiler starts before the program's first CUDA call, on its own clock.
        own_clock = true;
        start_profiler();
        work(5);
        // Past cudart-shim's 200-ms refinement period: the profiler's
        // flush at stop has its clock's rate measured again.
        usleep(250000);
        stop_profiler(true);
        work(2);
    } else if (!strcmp(mode, "after")) {
        work(3);
        start_profiler();
        work(5);
        stop_profiler(true);
        work(2);
    } else if (!strcmp(mode, "twice")) {
        // On its own clock, registered after cudart-shim's tracing started
        // (our records so far on our clock), and again for the second window.
        own_clock = true;
        work(2);
        start_profiler();
        work(5);
        stop_profiler(true);
        work(1);
        start_profiler();
        work(4);
        stop_profiler(true);
    } else if (!strcmp(mode, "windows")) {
        // A schedule: two active windows, CUPTI kept between them.
        work(2);
        start_profiler();
        work(3);
        stop_profiler(false);
        work(2);
        start_profiler();
        work(6);
        stop_profiler(false);
        work(1);
    } else if (!strcmp(mode, "export")) {
        // Stop, tear down, then the program goes on (a trace export between).
        work(1);
        start_profiler();
        work(4);
        stop_profiler(true);
        work(7);
    } else if (!strcmp(mode, "correlation")) {
        // Its own external correlation ids around every launch.
        correlate = true;
        work(2);
        start_profiler();
        work(5);
        stop_profiler(true);
    } else if (!strcmp(mode, "child")) {
        // The profiler in a child process (fork + exec of this program).
        work(1);
        pid_t p = fork();
        if (p == 0) {
            execl("/proc/self/exe", argv[0], "after", (char *)nullptr);
            _exit(127);
        }
        int st = 0;
        waitpid(p, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            printf("FAIL child status %d\n", st);
            return 1;
        }
        work(1);
    } else {
        printf("FAIL unknown mode %s\n", mode);
        return 2;
    }
    printf("done %s\n", mode);
    return 0;
}
