// The 13.0 forms of calls whose plain name means something else in CUDA 12.
// Under CUDA 12.9's headers (gpu/checks/conformance/conformance.py --abi 12) the forms with edge
// data and the 7-argument capture info are the _v2/_v3 exports, while the
// plain names keep 12's older signatures (tests/gpu12 calls those); the
// batch copies take 12's extra failIdx argument (forwarded below). Naming
// the 13.0 form once here keeps each program's text, and so what its
// stringifying macros print, the same under both ABIs. Under CUDA 13 this
// file changes nothing.
#pragma once
#include <cuda_runtime.h>

#if CUDART_VERSION < 13000
#define cudaGraphGetEdges cudaGraphGetEdges_v2
#define cudaGraphNodeGetDependencies cudaGraphNodeGetDependencies_v2
#define cudaGraphNodeGetDependentNodes cudaGraphNodeGetDependentNodes_v2
#define cudaGraphAddDependencies cudaGraphAddDependencies_v2
#define cudaGraphRemoveDependencies cudaGraphRemoveDependencies_v2
#define cudaGraphAddNode cudaGraphAddNode_v2
// 12.9's header maps these names to its own forms (and to _ptsz twins under
// --default-stream per-thread); the _v2/_v3 names carry that mapping on.
#undef cudaStreamGetCaptureInfo
#define cudaStreamGetCaptureInfo cudaStreamGetCaptureInfo_v3
#undef cudaStreamUpdateCaptureDependencies
#define cudaStreamUpdateCaptureDependencies cudaStreamUpdateCaptureDependencies_v2
#endif

#if CUDART_VERSION < 13000
// 12.9's batch copies take a failIdx before the stream (and srcs without
// const); these forward 13.0's argument lists to them. The parenthesized
// names call the functions, not these macros.
static inline cudaError_t cuda13_memcpy_batch_async(void *const *dsts, const void *const *srcs, const size_t *sizes,
                                                    size_t count, cudaMemcpyAttributes *attrs, size_t *attrsIdxs,
                                                    size_t numAttrs, cudaStream_t stream) {
    size_t fail_idx = 0;
    return (cudaMemcpyBatchAsync)((void **)dsts, (void **)srcs, (size_t *)sizes, count, attrs, attrsIdxs, numAttrs,
                                  &fail_idx, stream);
}
static inline cudaError_t cuda13_memcpy_3d_batch_async(size_t numOps, cudaMemcpy3DBatchOp *opList,
                                                       unsigned long long flags, cudaStream_t stream) {
    size_t fail_idx = 0;
    return (cudaMemcpy3DBatchAsync)(numOps, opList, &fail_idx, flags, stream);
}
#define cudaMemcpyBatchAsync(...) cuda13_memcpy_batch_async(__VA_ARGS__)
#define cudaMemcpy3DBatchAsync(...) cuda13_memcpy_3d_batch_async(__VA_ARGS__)
#endif
