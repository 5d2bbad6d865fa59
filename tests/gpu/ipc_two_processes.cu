// IPC between two processes: the parent allocates and fills device memory
// and records an interprocess event, then runs itself again as the child
// (fork + exec of /proc/self/exe), passing both handles in hex. The child
// opens them, waits on the event, checks the bytes and writes its own
// pattern back; the parent checks that.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("FAIL %s:%d %s -> %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); fflush(stdout); exit(1); } } while (0)

static const int N = 1 << 16;

static void to_hex(const void *p, size_t n, char *out) {
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", b[i]);
}

static void from_hex(const char *s, void *p, size_t n) {
    unsigned char *b = (unsigned char *)p;
    for (size_t i = 0; i < n; i++) { unsigned v; sscanf(s + 2 * i, "%2x", &v); b[i] = (unsigned char)v; }
}

__global__ void pattern(unsigned *p, int n, unsigned salt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = i * 2654435761u ^ salt;
}

static int child(const char *mem_hex, const char *ev_hex) {
    cudaIpcMemHandle_t h;
    cudaIpcEventHandle_t eh;
    from_hex(mem_hex, &h, sizeof h);
    from_hex(ev_hex, &eh, sizeof eh);
    void *p;
    cudaEvent_t ev;
    CHECK(cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess));
    CHECK(cudaIpcOpenEventHandle(&ev, eh));
    CHECK(cudaStreamWaitEvent(0, ev, 0));
    unsigned *host = (unsigned *)malloc(N * sizeof(unsigned));
    CHECK(cudaMemcpy(host, p, N * sizeof(unsigned), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < N; i++) bad += host[i] != (i * 2654435761u ^ 0xabcdu);
    printf("child: parent's bytes %s\n", bad ? "WRONG" : "ok");
    pattern<<<(N + 255) / 256, 256>>>((unsigned *)p, N, 0x1234u);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaIpcCloseMemHandle(p));
    CHECK(cudaEventDestroy(ev));
    free(host);
    fflush(stdout);
    return bad ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "child") == 0) return child(argv[2], argv[3]);

    unsigned *d;
    CHECK(cudaMalloc(&d, N * sizeof(unsigned)));
    pattern<<<(N + 255) / 256, 256>>>(d, N, 0xabcdu);
    cudaEvent_t ev;
    CHECK(cudaEventCreateWithFlags(&ev, cudaEventInterprocess | cudaEventDisableTiming));
    CHECK(cudaEventRecord(ev, 0));
    cudaIpcMemHandle_t h;
    cudaIpcEventHandle_t eh;
    CHECK(cudaIpcGetMemHandle(&h, d));
    CHECK(cudaIpcGetEventHandle(&eh, ev));
    char mem_hex[2 * sizeof h + 1], ev_hex[2 * sizeof eh + 1];
    to_hex(&h, sizeof h, mem_hex);
    to_hex(&eh, sizeof eh, ev_hex);
    CHECK(cudaDeviceSynchronize());
    printf("parent: handles made\n");
    fflush(stdout);

    pid_t pid = fork();
    if (pid == 0) {
        char *args[] = {argv[0], (char *)"child", mem_hex, ev_hex, nullptr};
        execv("/proc/self/exe", args);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    printf("parent: child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);

    unsigned *host = (unsigned *)malloc(N * sizeof(unsigned));
    CHECK(cudaMemcpy(host, d, N * sizeof(unsigned), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < N; i++) bad += host[i] != (i * 2654435761u ^ 0x1234u);
    printf("parent: child's bytes %s\n", bad ? "WRONG" : "ok");
    // A handle cannot be opened in the process that made it.
    void *same;
    cudaError_t e = cudaIpcOpenMemHandle(&same, h, cudaIpcMemLazyEnablePeerAccess);
    printf("parent: open own handle: %s\n", cudaGetErrorName(e));
    cudaGetLastError();
    CHECK(cudaEventDestroy(ev));
    CHECK(cudaFree(d));
    free(host);
    return (bad || status) ? 1 : 0;
}
