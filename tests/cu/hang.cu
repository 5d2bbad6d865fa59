// The watchdog's test program (tests/hang.rs), over the fake driver:
// A call that blocked is followed by 0.6 s of host work (the watchdog's
// tick sees it return: a program that ends at once ends before its tick).
//   hang sync            : one cudaDeviceSynchronize (a fault delays it)
//   hang stuck           : a kernel `stuck_kernel` on a created stream, then
//                          cudaStreamSynchronize (FAKE_CUDA_HANG_KERNEL keeps it busy)
//   hang queue N         : N launches of step_kernel on a created stream, then
//                          `stuck_kernel` behind them, then cudaStreamSynchronize
//   hang busy N MS       : N launches of step_kernel on a created stream (each
//                          kept running by FAKE_CUDA_HANG_KERNEL=step_kernel:T),
//                          MS ms of host sleep, then cudaStreamSynchronize
//   hang nccl N sync|sleep S|driver : N launches of ncclDevKernel_AllReduce_Sum_f32_RING_LL
//                          on a created stream (with `driver`: through the
//                          driver's cuLaunchKernelEx, as NCCL does), then a
//                          stream sync, or a host sleep of S s inside NVTX
//                          range "step 57"
//   hang idle S          : NVTX range "step" open, S s of host sleep
//   hang signal          : launches, raise(SIGUSR2) (with a handler of its
//                          own installed first), launches, exits 0
//   hang fork            : a launch, fork; the child sleeps 1.5 s and exits 7;
//                          the parent waits for it
//   hang exit            : launches for 0.4 s, then exit(0)
//   hang reset           : launches on a created stream and the default one,
//                          cudaDeviceReset while the watchdog probes, then more
//   hang hook            : a hook of ours that blocks 3 s inside cudaMemset,
//                          while another thread keeps calling
// Prints "done" last (on every path that finishes).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <csignal>
#include <cstdint>
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

extern "C" __global__ void stuck_kernel(int *p) { if (p) p[threadIdx.x] = 1; }
extern "C" __global__ void ncclDevKernel_AllReduce_Sum_f32_RING_LL(int *p) { if (p) p[threadIdx.x] += 1; }
__global__ void step_kernel(int *p) { if (p) p[threadIdx.x] += 2; }

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorName(e_)); return 1; } } while (0)

static volatile sig_atomic_t handled = 0;
static void own_handler(int) { handled = 1; }

static double now() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

// The program's own SIGUSR2 handler, installed before the runtime's (a
// constructor that runs before nvcc's registration constructors, whose
// first CUDA call installs ours): ours must hand the signal on to it.
__attribute__((constructor(101))) static void install_own_handler() { signal(SIGUSR2, own_handler); }

typedef int (*HookFn)(void *, void *);
static int blocking_hook(void *, void *) {
    sleep(3);
    return 0;
}
static volatile int stop_caller = 0;
static void *caller(void *) {
    int d;
    while (!stop_caller) {
        cudaGetDevice(&d);
        usleep(20000);
    }
    return nullptr;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "sync";
    int *p = nullptr;
    CHECK(cudaMalloc(&p, 4096));
    if (!strcmp(mode, "sync")) {
        CHECK(cudaDeviceSynchronize());
        usleep(600000);
    } else if (!strcmp(mode, "stuck") || !strcmp(mode, "queue")) {
        // `stuck` is `queue 0`.
        int n = argc > 2 && !strcmp(mode, "queue") ? atoi(argv[2]) : 0;
        cudaStream_t s;
        CHECK(cudaStreamCreate(&s));
        for (int i = 0; i < n; i++) step_kernel<<<1, 32, 0, s>>>(p);
        stuck_kernel<<<2, 32, 0, s>>>(p);
        CHECK(cudaGetLastError());
        CHECK(cudaStreamSynchronize(s));
        usleep(600000);
    } else if (!strcmp(mode, "busy")) {
        int n = argc > 2 ? atoi(argv[2]) : 10;
        int ms = argc > 3 ? atoi(argv[3]) : 3000;
        cudaStream_t s;
        CHECK(cudaStreamCreate(&s));
        for (int i = 0; i < n; i++) step_kernel<<<1, 32, 0, s>>>(p);
        CHECK(cudaGetLastError());
        usleep(ms * 1000);
        CHECK(cudaStreamSynchronize(s));
    } else if (!strcmp(mode, "nccl")) {
        int n = argc > 2 ? atoi(argv[2]) : 5;
        cudaStream_t s;
        CHECK(cudaStreamCreate(&s));
        if (argc > 3 && !strcmp(argv[3], "driver")) {
            typedef CUresult (*LaunchEx)(const CUlaunchConfig *, CUfunction, void **, void **);
            // As NCCL gets it: from the runtime's driver entry points.
            LaunchEx launch = nullptr;
            cudaDriverEntryPointQueryResult q;
            CHECK(cudaGetDriverEntryPointByVersion("cuLaunchKernelEx", (void **)&launch, 12000, cudaEnableDefault, &q));
            // A kernel handle: the driver takes it where a function goes.
            cudaKernel_t f;
            CHECK(cudaGetKernel(&f, (const void *)ncclDevKernel_AllReduce_Sum_f32_RING_LL));
            CUlaunchConfig c = {};
            c.gridDimX = c.gridDimY = c.gridDimZ = 1;
            c.blockDimX = 32; c.blockDimY = c.blockDimZ = 1;
            c.hStream = (CUstream)s;
            void *args[] = {&p};
            for (int i = 0; i < n; i++)
                if (CUresult r = launch ? launch(&c, (CUfunction)f, args, nullptr) : CUDA_ERROR_NOT_FOUND) { printf("cuLaunchKernelEx: %d (%p)\n", (int)r, (void *)launch); return 1; }
        } else {
            for (int i = 0; i < n; i++) ncclDevKernel_AllReduce_Sum_f32_RING_LL<<<1, 32, 0, s>>>(p);
        }
        CHECK(cudaGetLastError());
        if (argc > 3 && !strcmp(argv[3], "sleep")) {
            nvtxRangePushA("step 57");
            sleep(argc > 4 ? atoi(argv[4]) : 30);
            nvtxRangePop();
        }
        CHECK(cudaStreamSynchronize(s));
    } else if (!strcmp(mode, "idle")) {
        step_kernel<<<1, 32>>>(p);
        CHECK(cudaDeviceSynchronize());
        nvtxRangePushA("step");
        sleep(argc > 2 ? atoi(argv[2]) : 3);
        nvtxRangePop();
        step_kernel<<<1, 32>>>(p);
        CHECK(cudaDeviceSynchronize());
    } else if (!strcmp(mode, "signal")) {
        step_kernel<<<1, 32>>>(p);
        CHECK(cudaDeviceSynchronize());
        raise(SIGUSR2);
        // The report is written by a thread of the runtime: give it time,
        // with calls going on.
        for (int i = 0; i < 50; i++) {
            step_kernel<<<1, 32>>>(p);
            usleep(20000);
        }
        CHECK(cudaDeviceSynchronize());
        printf("program handler %s\n", handled ? "ran" : "did not run");
    } else if (!strcmp(mode, "fork")) {
        step_kernel<<<1, 32>>>(p);
        CHECK(cudaDeviceSynchronize());
        pid_t c = fork();
        if (c == 0) {
            usleep(1500000);
            _exit(7);
        }
        int st = 0;
        waitpid(c, &st, 0);
        printf("child %d exited %d\n", (int)c, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        CHECK(cudaDeviceSynchronize());
    } else if (!strcmp(mode, "exit")) {
        double t0 = now();
        while (now() - t0 < 0.4) {
            step_kernel<<<1, 32>>>(p);
            CHECK(cudaDeviceSynchronize());
        }
        printf("done\n");
        fflush(stdout);
        exit(0);
    } else if (!strcmp(mode, "reset")) {
        for (int round = 0; round < 3; round++) {
            cudaStream_t s;
            CHECK(cudaStreamCreate(&s));
            double t0 = now();
            while (now() - t0 < 0.3) {
                stuck_kernel<<<1, 32, 0, s>>>(p);
                step_kernel<<<1, 32>>>(p);
                usleep(1000);
            }
            CHECK(cudaDeviceReset());
            CHECK(cudaMalloc(&p, 4096));
        }
        step_kernel<<<1, 32>>>(p);
        CHECK(cudaDeviceSynchronize());
    } else if (!strcmp(mode, "hook")) {
        typedef cudaError_t (*Reg)(const char *, int, HookFn, void *, uint64_t *);
        Reg reg = (Reg)dlsym(RTLD_DEFAULT, "cudartShimHookRegister");
        if (!reg) { printf("no cudartShimHookRegister\n"); return 1; }
        uint64_t h = 0;
        CHECK(reg("cudaMemset", 0, blocking_hook, nullptr, &h));
        pthread_t t;
        pthread_create(&t, nullptr, caller, nullptr);
        CHECK(cudaMemset(p, 0, 4096));
        usleep(600000);
        stop_caller = 1;
        pthread_join(t, nullptr);
    } else {
        printf("unknown mode %s\n", mode);
        return 2;
    }
    printf("done\n");
    return 0;
}
