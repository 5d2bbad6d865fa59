/* Known memory errors, for tests/sanitizers.rs: each must make the checker
 * (AddressSanitizer or valgrind) fail the run, proving that the checker
 * really ran and that its reports reach the exit status.
 *
 *   sanitizer_canary clean     no error (the checker must pass it)
 *   sanitizer_canary leak      a block lost for good ("definitely lost")
 *   sanitizer_canary overflow  a read one byte past a heap block
 *   sanitizer_canary race      two threads write the same out-parameter
 *                              through cudaGetDevice: a data race inside
 *                              our library, for ThreadSanitizer
 *                              (tests/tsan.rs)
 *
 * Each first calls the runtime, so the shim and the fake driver are loaded
 * and initialized as in the real programs. */
#include "cudart_shim.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *volatile sink;

static int shared_device;
static void *write_shared(void *p) {
    (void)p;
    for (int i = 0; i < 1000; i++) cudaGetDevice(&shared_device);
    return NULL;
}

int main(int argc, char **argv) {
    const char *c = argc > 1 ? argv[1] : "";
    int n = -1;
    if (cudaGetDeviceCount(&n) != cudaSuccess) return 2;
    printf("devices %d\n", n);
    if (!strcmp(c, "leak")) {
        sink = malloc(4096);
        sink = NULL; /* the only pointer to the block is gone */
    } else if (!strcmp(c, "overflow")) {
        char *p = malloc(16);
        memset(p, 1, 16);
        volatile char past = p[16];
        printf("read %d\n", past);
        free(p);
    } else if (!strcmp(c, "race")) {
        pthread_t a, b;
        pthread_create(&a, NULL, write_shared, NULL);
        pthread_create(&b, NULL, write_shared, NULL);
        pthread_join(a, NULL);
        pthread_join(b, NULL);
    } else if (strcmp(c, "clean") != 0) {
        return 2;
    }
    return 0;
}
