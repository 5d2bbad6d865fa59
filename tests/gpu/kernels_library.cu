// cudaLibrary*: a PTX image loaded at run time, its kernel launched by
// handle, its globals read back; plus driver entry points.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define CK(call)                                                                 \
    do {                                                                         \
        cudaError_t e_ = (call);                                                 \
        if (e_ != cudaSuccess) {                                                 \
            printf("FAIL %d %s -> %s\n", __LINE__, #call, cudaGetErrorName(e_)); \
            return 1;                                                            \
        }                                                                        \
    } while (0)
#define SHOW(what, call) printf("%s: %s\n", what, cudaGetErrorName(call))

static const char *ptx = R"(
.version 8.0
.target sm_90
.address_size 64
.global .align 4 .u32 bias = 1000;
.global .align 4 .b8 result[64];
.visible .entry shift(.param .u32 shift_param_0)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u32 %r1, [shift_param_0];
    ld.global.u32 %r2, [bias];
    mov.u32 %r3, %tid.x;
    add.s32 %r4, %r1, %r2;
    add.s32 %r5, %r4, %r3;
    mov.u64 %rd1, result;
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r5;
    ret;
}
.visible .entry nothing()
{
    ret;
}
)";

int main() {
    cudaLibrary_t lib;
    CK(cudaLibraryLoadData(&lib, ptx, nullptr, nullptr, 0, nullptr, nullptr, 0));
    unsigned int n = 0;
    CK(cudaLibraryGetKernelCount(&n, lib));
    printf("kernels %u\n", n);
    cudaKernel_t k;
    CK(cudaLibraryGetKernel(&k, lib, "shift"));
    const char *name;
    CK(cudaFuncGetName(&name, (const void *)k));
    printf("name %s\n", name);
    unsigned int s = 5;
    void *args[] = {&s};
    CK(cudaLaunchKernel((const void *)k, dim3(1), dim3(16), args, 0, 0));
    CK(cudaDeviceSynchronize());
    void *res = nullptr;
    size_t bytes = 0;
    CK(cudaLibraryGetGlobal(&res, &bytes, lib, "result"));
    unsigned int r[16];
    CK(cudaMemcpy(r, res, sizeof r, cudaMemcpyDeviceToHost));
    printf("result bytes %zu: %u %u %u\n", bytes, r[0], r[1], r[15]);
    SHOW("missing kernel", cudaLibraryGetKernel(&k, lib, "nope"));
    SHOW("missing global", cudaLibraryGetGlobal(&res, &bytes, lib, "nope"));
    cudaGetLastError();

    // A library survives cudaDeviceReset: its kernel still launches.
    CK(cudaDeviceReset());
    CK(cudaLibraryGetKernel(&k, lib, "shift"));
    CK(cudaLaunchKernel((const void *)k, dim3(1), dim3(16), args, 0, 0));
    CK(cudaDeviceSynchronize());
    CK(cudaLibraryUnload(lib));

    void *fn = (void *)1;
    cudaDriverEntryPointQueryResult st;
    CK(cudaGetDriverEntryPointByVersion("cuLaunchKernel", &fn, 13000, cudaEnableDefault, &st));
    printf("cuLaunchKernel found %d status %d\n", fn != nullptr, (int)st);
    CK(cudaGetDriverEntryPointByVersion("cuNoSuchFunction", &fn, 13000, cudaEnableDefault, &st));
    printf("cuNoSuchFunction found %d status %d\n", fn != nullptr, (int)st);
    printf("done\n");
    return 0;
}
