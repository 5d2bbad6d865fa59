/* Process lifecycle cases, one per argv[1], each printing return codes by
 * name. Built against include/cudart_shim.h and run on the shim over the
 * fake driver by tests/lifecycle.rs; the GPU check runs the same cases. */
#include "cudart_shim.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SHOW(call) printf("%s %s\n", #call, cudaGetErrorName(call))

static void at_exit_calls(void) {
    int n = -1;
    /* After main returned: our state may be torn down; an answer, no crash. */
    cudaError_t e = cudaGetDeviceCount(&n);
    printf("atexit cudaGetDeviceCount %s\n", e == cudaSuccess || e == cudaErrorCudartUnloading ? "ok" : cudaGetErrorName(e));
    fflush(stdout);
}

static pthread_key_t key;
static void thread_dtor(void *p) {
    (void)p;
    int d = -1;
    cudaError_t e = cudaGetDevice(&d);
    printf("thread destructor cudaGetDevice %s\n", e == cudaSuccess || e == cudaErrorCudartUnloading ? "ok" : cudaGetErrorName(e));
    fflush(stdout);
}
static void *thread_main(void *p) {
    (void)p;
    pthread_setspecific(key, (void *)1);
    SHOW(cudaSetDevice(0));
    fflush(stdout);
    return NULL;
}

/* Set once main has printed the launch's result: the callback may start
 * before cudaLaunchHostFunc returns, and must not print before it. */
static atomic_int launch_printed;

static void exit_from_callback(void *p) {
    (void)p;
    while (!atomic_load(&launch_printed)) {
    }
    printf("callback exits\n");
    fflush(stdout);
    exit(7);
}

int main(int argc, char **argv) {
    const char *c = argc > 1 ? argv[1] : "";
    int n = -1;
    if (!strcmp(c, "fork")) {
        SHOW(cudaGetDeviceCount(&n));
        SHOW(cudaSetDevice(0));
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            /* The driver's state does not survive fork. */
            SHOW(cudaGetDeviceCount(&n));
            SHOW(cudaSetDevice(0));
            SHOW(cudaGetLastError());
            printf("child %s\n", cudaGetErrorString(cudaErrorInitializationError));
            fflush(stdout);
            exit(0);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        printf("child exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        SHOW(cudaDeviceSynchronize());
        return 0;
    }
    if (!strcmp(c, "atexit")) {
        SHOW(cudaSetDevice(0));
        atexit(at_exit_calls);
        return 0;
    }
    if (!strcmp(c, "thread-dtor")) {
        pthread_key_create(&key, thread_dtor);
        pthread_t t;
        pthread_create(&t, NULL, thread_main, NULL);
        pthread_join(t, NULL);
        return 0;
    }
    if (!strcmp(c, "dlclose")) {
        /* argv[2]: the library to load with dlopen (ours). */
        for (int round = 0; round < 3; round++) {
            void *h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
            if (!h) {
                printf("dlopen: %s\n", dlerror());
                return 1;
            }
            cudaError_t (*count)(int *) = (cudaError_t (*)(int *))dlsym(h, "cudaGetDeviceCount");
            cudaError_t (*set)(int) = (cudaError_t (*)(int))dlsym(h, "cudaSetDevice");
            printf("round %d count %d set %d\n", round, count(&n), set(0));
            fflush(stdout);
            dlclose(h);
        }
        return 0;
    }
    if (!strcmp(c, "exit-in-callback")) {
        /* exit() from a host function running on a driver thread while the
         * main thread waits in cudaStreamSynchronize. */
        cudaStream_t s;
        SHOW(cudaStreamCreate(&s));
        fflush(stdout);
        SHOW(cudaLaunchHostFunc(s, exit_from_callback, NULL));
        fflush(stdout);
        atomic_store(&launch_printed, 1);
        cudaStreamSynchronize(s);
        printf("not reached\n");
        return 1;
    }
    if (!strcmp(c, "exit-mid-call-thread")) {
        SHOW(cudaSetDevice(0));
        fflush(stdout);
        exit(3);
    }
    fprintf(stderr, "unknown case %s\n", c);
    return 2;
}
