/* Load a PTX kernel with cudaLibraryLoadData, launch it with
 * cudaLaunchKernel on the cudaKernel_t, and check what it wrote.
 *
 * The output lives in a __managed__-style PTX variable, so the host reads it
 * directly after cudaDeviceSynchronize: no other runtime API is needed.
 * `library_ptx --no-check` skips the result check (the test suite's fake
 * driver records launches but runs no code). */
#ifdef USE_NVIDIA_HEADERS
#include <cuda_runtime_api.h>
#else
#include <cudart_shim.h>
#endif
#include <stdio.h>
#include <string.h>

static const char *ptx =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".global .attribute(.managed) .align 4 .b8 out[256];\n"
    ".visible .entry axpb(\n"
    "    .param .u64 axpb_param_0,\n"
    "    .param .u32 axpb_param_1,\n"
    "    .param .u32 axpb_param_2,\n"
    "    .param .u32 axpb_param_3\n"
    ")\n"
    "{\n"
    "    .reg .pred %p<2>;\n"
    "    .reg .b32 %r<10>;\n"
    "    .reg .b64 %rd<5>;\n"
    "    ld.param.u64 %rd1, [axpb_param_0];\n"
    "    ld.param.u32 %r1, [axpb_param_1];\n"
    "    ld.param.u32 %r2, [axpb_param_2];\n"
    "    ld.param.u32 %r3, [axpb_param_3];\n"
    "    mov.u32 %r4, %ctaid.x;\n"
    "    mov.u32 %r5, %ntid.x;\n"
    "    mov.u32 %r6, %tid.x;\n"
    "    mad.lo.s32 %r7, %r4, %r5, %r6;\n"
    "    setp.ge.s32 %p1, %r7, %r3;\n"
    "    @%p1 bra DONE;\n"
    "    cvta.to.global.u64 %rd2, %rd1;\n"
    "    mul.wide.s32 %rd3, %r7, 4;\n"
    "    add.s64 %rd4, %rd2, %rd3;\n"
    "    mad.lo.s32 %r8, %r7, %r1, %r2;\n"
    "    st.global.u32 [%rd4], %r8;\n"
    "DONE:\n"
    "    ret;\n"
    "}\n";

#define CK(call)                                                                   \
    do {                                                                           \
        cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess) {                                                   \
            printf("FAIL line %d: %s -> %s\n", __LINE__, #call, cudaGetErrorName(e_)); \
            return 1;                                                              \
        }                                                                          \
    } while (0)

int main(int argc, char **argv) {
    int check = !(argc > 1 && strcmp(argv[1], "--no-check") == 0);
    cudaLibrary_t lib;
    CK(cudaLibraryLoadData(&lib, ptx, NULL, NULL, 0, NULL, NULL, 0));
    unsigned int count = 0;
    CK(cudaLibraryGetKernelCount(&count, lib));
    cudaKernel_t kernel;
    CK(cudaLibraryGetKernel(&kernel, lib, "axpb"));
    const char *name = NULL;
    CK(cudaFuncGetName(&name, (const void *)kernel));
    void *outp = NULL;
    size_t bytes = 0;
    CK(cudaLibraryGetManaged(&outp, &bytes, lib, "out"));
    printf("kernels %u, kernel %s, out %zu bytes\n", count, name, bytes);

    unsigned int a = 3, b = 7, n = 64;
    void *args[] = {&outp, &a, &b, &n};
    dim3 grid = {2, 1, 1}, block = {32, 1, 1};
    CK(cudaLaunchKernel((const void *)kernel, grid, block, args, 0, NULL));
    CK(cudaDeviceSynchronize());
    printf("launched axpb<<<2, 32>>>(out, 3, 7, 64)\n");
    if (check) {
        const unsigned int *o = (const unsigned int *)outp;
        for (unsigned int i = 0; i < n; i++) {
            if (o[i] != i * a + b) {
                printf("FAIL out[%u] = %u, want %u\n", i, o[i], i * a + b);
                return 1;
            }
        }
        printf("out[0] %u out[63] %u: correct\n", o[0], o[63]);
    }
    CK(cudaLibraryUnload(lib));
    printf("ok\n");
    return 0;
}
