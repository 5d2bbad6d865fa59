//! Memory and peer calls with no driver, differential against NVIDIA's
//! libcudart.so.13 from the wheel: the runtime initializes before it checks
//! arguments, so every call (bad arguments included) answers
//! cudaErrorInsufficientDriver, and the last error says so.

mod common;
use common::*;

const PROGRAM: &str = r#"#include <cuda_runtime_api.h>
#include <stdio.h>
#define S(call) printf("%-70s -> %d\n", #call, (int)(call))
int main(void) {
    void *p = 0; char local[64]; int v;
    struct cudaPointerAttributes a; struct cudaExtent e = {0, 0, 0}, ze = {0, 0, 0};
    struct cudaPitchedPtr zp = {0, 0, 0, 0}; struct cudaMemLocation zl = {cudaMemLocationTypeInvalid, 0};
    struct cudaChannelFormatDesc d = {8, 0, 0, 0, cudaChannelFormatKindUnsigned};
    struct cudaChannelFormatDesc bad = {8, 8, 8, 0, cudaChannelFormatKindUnsigned};
    cudaArray_t arr; struct cudaMemLocation loc = {cudaMemLocationTypeDevice, 0};
    S(cudaMalloc(NULL, 16));
    S(cudaMalloc(&p, 0));
    S(cudaMallocHost(NULL, 16));
    S(cudaHostAlloc(&p, 16, 0x80));
    S(cudaHostRegister(NULL, 16, 0));
    S(cudaHostRegister(local, 16, 0x100));
    S(cudaHostUnregister(NULL));
    S(cudaHostGetDevicePointer(&p, local, 1));
    S(cudaHostGetFlags(NULL, local));
    S(cudaMallocManaged(&p, 0, 1));
    S(cudaMallocManaged(&p, 16, 4));
    S(cudaMallocPitch(&p, NULL, 4, 4));
    S(cudaMalloc3D(NULL, e));
    S(cudaMemGetInfo(NULL, NULL));
    S(cudaFree(local));
    S(cudaFreeHost(NULL));
    S(cudaMemcpy(local, local, 4, (enum cudaMemcpyKind)7));
    S(cudaMemcpy(local, local, 0, cudaMemcpyHostToHost));
    S(cudaMemcpy2D(local, 4, local, 4, 8, 2, cudaMemcpyHostToHost));
    S(cudaMemcpy3D(NULL));
    S(cudaMemset(local, 0, 0));
    S(cudaPointerGetAttributes(NULL, local));
    S(cudaPointerGetAttributes(&a, local));
    S(cudaMallocArray(&arr, &bad, 4, 4, 0));
    S(cudaMallocArray(&arr, NULL, 4, 4, 0));
    S(cudaMallocArray(NULL, &d, 4, 4, 0));
    S(cudaArrayGetInfo(NULL, NULL, NULL, NULL));
    S(cudaFreeArray(NULL));
    S(cudaMemAdvise(local, 4, (enum cudaMemoryAdvise)77, loc));
    S(cudaDeviceCanAccessPeer(NULL, 0, 0));
    S(cudaDeviceCanAccessPeer(&v, 0, 0));
    S(cudaDeviceEnablePeerAccess(0, 1));
    S(cudaDeviceGetP2PAttribute(NULL, cudaDevP2PAttrAccessSupported, 0, 1));
    S(cudaDeviceGetP2PAtomicCapabilities(NULL, NULL, 0, 0, 1));
    S(cudaMemcpyPeer(local, 0, local, 1, 0));
    /* Every memory and peer export with zero arguments. */
    S(cudaArrayGetInfo(0, 0, 0, 0));
    S(cudaArrayGetMemoryRequirements(0, 0, 0));
    S(cudaArrayGetPlane(0, 0, 0));
    S(cudaArrayGetSparseProperties(0, 0));
    S(cudaFree(0));
    S(cudaFreeArray(0));
    S(cudaFreeHost(0));
    S(cudaFreeMipmappedArray(0));
    S(cudaGetMipmappedArrayLevel(0, 0, 0));
    S(cudaHostAlloc(0, 0, 0));
    S(cudaHostGetDevicePointer(0, 0, 0));
    S(cudaHostGetFlags(0, 0));
    S(cudaHostRegister(0, 0, 0));
    S(cudaHostUnregister(0));
    S(cudaMalloc(0, 0));
    S(cudaMalloc3D(0, ze));
    S(cudaMalloc3DArray(0, 0, ze, 0));
    S(cudaMallocArray(0, 0, 0, 0, 0));
    S(cudaMallocHost(0, 0));
    S(cudaMallocManaged(0, 0, 0));
    S(cudaMallocMipmappedArray(0, 0, ze, 0, 0));
    S(cudaMallocPitch(0, 0, 0, 0));
    S(cudaMemAdvise(0, 0, (enum cudaMemoryAdvise)0, zl));
    S(cudaMemDiscardAndPrefetchBatchAsync(0, 0, 0, 0, 0, 0, 0, 0));
    S(cudaMemDiscardBatchAsync(0, 0, 0, 0, 0));
    S(cudaMemGetInfo(0, 0));
    S(cudaMemPrefetchAsync(0, 0, zl, 0, 0));
    S(cudaMemPrefetchBatchAsync(0, 0, 0, 0, 0, 0, 0, 0));
    S(cudaMemRangeGetAttribute(0, 0, (enum cudaMemRangeAttribute)0, 0, 0));
    S(cudaMemRangeGetAttributes(0, 0, 0, 0, 0, 0));
    S(cudaMemcpy(0, 0, 0, (enum cudaMemcpyKind)0));
    S(cudaMemcpy2D(0, 0, 0, 0, 0, 0, (enum cudaMemcpyKind)0));
    S(cudaMemcpy2DArrayToArray(0, 0, 0, 0, 0, 0, 0, 0, (enum cudaMemcpyKind)0));
    S(cudaMemcpy2DAsync(0, 0, 0, 0, 0, 0, (enum cudaMemcpyKind)0, 0));
    S(cudaMemcpy2DFromArray(0, 0, 0, 0, 0, 0, 0, (enum cudaMemcpyKind)0));
    S(cudaMemcpy2DFromArrayAsync(0, 0, 0, 0, 0, 0, 0, (enum cudaMemcpyKind)0, 0));
    S(cudaMemcpy2DToArray(0, 0, 0, 0, 0, 0, 0, (enum cudaMemcpyKind)0));
    S(cudaMemcpy2DToArrayAsync(0, 0, 0, 0, 0, 0, 0, (enum cudaMemcpyKind)0, 0));
    S(cudaMemcpy3D(0));
    S(cudaMemcpy3DAsync(0, 0));
    S(cudaMemcpy3DBatchAsync(0, 0, 0, 0));
    S(cudaMemcpy3DPeer(0));
    S(cudaMemcpy3DPeerAsync(0, 0));
    S(cudaMemcpyArrayToArray(0, 0, 0, 0, 0, 0, 0, (enum cudaMemcpyKind)0));
    S(cudaMemcpyAsync(0, 0, 0, (enum cudaMemcpyKind)0, 0));
    S(cudaMemcpyBatchAsync(0, 0, 0, 0, 0, 0, 0, 0));
    S(cudaMemcpyFromArray(0, 0, 0, 0, 0, (enum cudaMemcpyKind)0));
    S(cudaMemcpyFromArrayAsync(0, 0, 0, 0, 0, (enum cudaMemcpyKind)0, 0));
    S(cudaMemcpyPeer(0, 0, 0, 0, 0));
    S(cudaMemcpyPeerAsync(0, 0, 0, 0, 0, 0));
    S(cudaMemcpyToArray(0, 0, 0, 0, 0, (enum cudaMemcpyKind)0));
    S(cudaMemcpyToArrayAsync(0, 0, 0, 0, 0, (enum cudaMemcpyKind)0, 0));
    S(cudaMemset(0, 0, 0));
    S(cudaMemset2D(0, 0, 0, 0, 0));
    S(cudaMemset2DAsync(0, 0, 0, 0, 0, 0));
    S(cudaMemset3D(zp, 0, ze));
    S(cudaMemset3DAsync(zp, 0, ze, 0));
    S(cudaMemsetAsync(0, 0, 0, 0));
    S(cudaMipmappedArrayGetMemoryRequirements(0, 0, 0));
    S(cudaMipmappedArrayGetSparseProperties(0, 0));
    S(cudaPointerGetAttributes(0, 0));
    S(cudaDeviceCanAccessPeer(0, 0, 0));
    S(cudaDeviceDisablePeerAccess(0));
    S(cudaDeviceEnablePeerAccess(0, 0));
    S(cudaDeviceGetP2PAtomicCapabilities(0, 0, 0, 0, 0));
    S(cudaDeviceGetP2PAttribute(0, (enum cudaDeviceP2PAttr)0, 0, 0));
    S(cudaGetLastError());
    S(cudaGetLastError());
    return 0;
}
"#;

#[test]
fn memory_calls_without_a_driver_match_nvidia() {
    let dir = scratch("memory_differential");
    let src = dir.join("memory_no_driver.c");
    std::fs::write(&src, PROGRAM).unwrap();
    let exe = compile_c_cudart(&src, &dir.join("memory_no_driver"), &["-Wno-deprecated-declarations"]);
    let nv = run_on_nvidia(&exe, &[]);
    assert!(nv.status.success(), "NVIDIA run failed: {}", String::from_utf8_lossy(&nv.stderr));
    let ours = run_on_ours_without_driver(&exe, &[]);
    assert!(ours.status.success(), "our run failed: {}", String::from_utf8_lossy(&ours.stderr));
    let (nv, ours) = (String::from_utf8(nv.stdout).unwrap(), String::from_utf8(ours.stdout).unwrap());
    assert!(nv.lines().count() > 100, "{nv}");
    assert_same_lines(&nv, &ours);
}
