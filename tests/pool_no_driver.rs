//! Differential test against NVIDIA's libcudart.so.13 with no driver: the
//! exports of the pool, IPC, external-resource, texture, logs and graphics
//! interop areas, with good and bad arguments, must answer exactly as
//! NVIDIA's do (which checks come before the driver check, and which after).

mod common;
use common::*;

const PROGRAM: &str = r#"
#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>

#define SHOW(x) do { cudaError_t e_ = (x); printf("%s -> %s (last %s)\n", #x, cudaGetErrorName(e_), cudaGetErrorName(cudaGetLastError())); } while (0)

static void CUDART_CB on_log(void *d, cudaLogLevel l, char *m, size_t n) { (void)d; (void)l; (void)m; (void)n; }

int main(void) {
    void *p = 0;
    cudaMemPool_t pool = 0;
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    struct cudaMemLocation loc = {cudaMemLocationTypeDevice, 0};
    struct cudaMemAccessDesc acc = {{cudaMemLocationTypeDevice, 0}, cudaMemAccessFlagsProtReadWrite};
    enum cudaMemAccessFlags flags;
    unsigned long long v = 0;
    struct cudaMemPoolPtrExportData data;
    SHOW(cudaMallocAsync(&p, 16, 0));
    SHOW(cudaMallocAsync(0, 16, 0));
    SHOW(cudaMallocAsync_ptsz(&p, 16, 0));
    SHOW(cudaFreeAsync(0, 0));
    SHOW(cudaFreeAsync_ptsz(0, 0));
    SHOW(cudaMallocFromPoolAsync(&p, 16, 0, 0));
    SHOW(cudaMallocFromPoolAsync_ptsz(&p, 16, 0, 0));
    SHOW(cudaDeviceGetDefaultMemPool(&pool, 0));
    SHOW(cudaDeviceGetDefaultMemPool(0, 0));
    SHOW(cudaDeviceGetMemPool(&pool, 0));
    SHOW(cudaDeviceSetMemPool(0, 0));
    SHOW(cudaMemGetDefaultMemPool(&pool, &loc, cudaMemAllocationTypePinned));
    SHOW(cudaMemGetMemPool(&pool, &loc, cudaMemAllocationTypePinned));
    SHOW(cudaMemSetMemPool(&loc, cudaMemAllocationTypePinned, 0));
    SHOW(cudaMemPoolCreate(&pool, &props));
    SHOW(cudaMemPoolCreate(&pool, 0));
    SHOW(cudaMemPoolDestroy(0));
    SHOW(cudaMemPoolTrimTo(0, 0));
    SHOW(cudaMemPoolGetAttribute(0, cudaMemPoolAttrUsedMemCurrent, &v));
    SHOW(cudaMemPoolSetAttribute(0, cudaMemPoolAttrReleaseThreshold, &v));
    SHOW(cudaMemPoolSetAccess(0, &acc, 1));
    SHOW(cudaMemPoolGetAccess(&flags, 0, &loc));
    SHOW(cudaMemPoolExportToShareableHandle(&v, 0, cudaMemHandleTypePosixFileDescriptor, 0));
    SHOW(cudaMemPoolImportFromShareableHandle(&pool, 0, cudaMemHandleTypePosixFileDescriptor, 0));
    SHOW(cudaMemPoolExportPointer(&data, 0));
    SHOW(cudaMemPoolImportPointer(&p, 0, &data));

    cudaIpcMemHandle_t h;
    cudaIpcEventHandle_t eh;
    cudaEvent_t ev;
    memset(&h, 0, sizeof h);
    memset(&eh, 0, sizeof eh);
    SHOW(cudaIpcGetMemHandle(&h, 0));
    SHOW(cudaIpcOpenMemHandle(&p, h, 1));
    SHOW(cudaIpcCloseMemHandle(0));
    SHOW(cudaIpcGetEventHandle(&eh, 0));
    SHOW(cudaIpcOpenEventHandle(&ev, eh));

    cudaExternalMemory_t em = 0;
    cudaExternalSemaphore_t es = 0;
    struct cudaExternalMemoryHandleDesc md;
    memset(&md, 0, sizeof md);
    struct cudaExternalMemoryBufferDesc bd;
    memset(&bd, 0, sizeof bd);
    struct cudaExternalMemoryMipmappedArrayDesc mmd;
    memset(&mmd, 0, sizeof mmd);
    struct cudaExternalSemaphoreHandleDesc sd;
    memset(&sd, 0, sizeof sd);
    struct cudaExternalSemaphoreSignalParams sp;
    memset(&sp, 0, sizeof sp);
    struct cudaExternalSemaphoreWaitParams wp;
    memset(&wp, 0, sizeof wp);
    cudaMipmappedArray_t mm;
    SHOW(cudaImportExternalMemory(&em, &md));
    SHOW(cudaExternalMemoryGetMappedBuffer(&p, em, &bd));
    SHOW(cudaExternalMemoryGetMappedMipmappedArray(&mm, em, &mmd));
    SHOW(cudaDestroyExternalMemory(em));
    SHOW(cudaImportExternalSemaphore(&es, &sd));
    SHOW(cudaSignalExternalSemaphoresAsync(&es, &sp, 1, 0));
    SHOW(cudaSignalExternalSemaphoresAsync_ptsz(&es, &sp, 1, 0));
    SHOW(cudaWaitExternalSemaphoresAsync(&es, &wp, 1, 0));
    SHOW(cudaWaitExternalSemaphoresAsync_ptsz(&es, &wp, 1, 0));
    SHOW(cudaDestroyExternalSemaphore(es));

    struct cudaChannelFormatDesc cd = cudaCreateChannelDesc(8, 8, 0, 0, cudaChannelFormatKindUnsigned);
    printf("cudaCreateChannelDesc -> %d %d %d %d %d\n", cd.x, cd.y, cd.z, cd.w, (int)cd.f);
    struct cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    struct cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    struct cudaResourceViewDesc vd;
    memset(&vd, 0, sizeof vd);
    cudaTextureObject_t t = 0;
    cudaSurfaceObject_t s = 0;
    SHOW(cudaGetChannelDesc(&cd, 0));
    SHOW(cudaCreateTextureObject(&t, &rd, &td, 0));
    SHOW(cudaCreateTextureObject(&t, 0, &td, 0));
    SHOW(cudaDestroyTextureObject(0));
    SHOW(cudaGetTextureObjectResourceDesc(&rd, 0));
    SHOW(cudaGetTextureObjectTextureDesc(&td, 0));
    SHOW(cudaGetTextureObjectResourceViewDesc(&vd, 0));
    SHOW(cudaCreateSurfaceObject(&s, &rd));
    SHOW(cudaDestroySurfaceObject(0));
    SHOW(cudaGetSurfaceObjectResourceDesc(&rd, 0));

    cudaLogIterator it = 0;
    cudaLogsCallbackHandle lh = 0;
    char buf[64];
    size_t n = sizeof buf;
    SHOW(cudaLogsCurrent(&it, 0));
    SHOW(cudaLogsDumpToMemory(&it, buf, &n, 0));
    SHOW(cudaLogsDumpToFile(&it, "/nonexistent/log.txt", 0));
    SHOW(cudaLogsRegisterCallback(on_log, 0, &lh));
    SHOW(cudaLogsUnregisterCallback(lh));

    cudaGraphicsResource_t r = 0;
    size_t size = 0;
    cudaArray_t arr;
    SHOW(cudaGraphicsMapResources(1, &r, 0));
    SHOW(cudaGraphicsUnmapResources(1, &r, 0));
    SHOW(cudaGraphicsResourceGetMappedPointer(&p, &size, r));
    SHOW(cudaGraphicsResourceSetMapFlags(r, 0));
    SHOW(cudaGraphicsSubResourceGetMappedArray(&arr, r, 0, 0));
    SHOW(cudaGraphicsResourceGetMappedMipmappedArray(&mm, r));
    SHOW(cudaGraphicsUnregisterResource(r));
    return 0;
}
"#;

#[test]
fn no_driver_answers_match_nvidia() {
    let dir = scratch("pool_no_driver");
    let src = dir.join("rest_no_driver.c");
    std::fs::write(&src, PROGRAM).unwrap();
    let exe = compile_c_cudart(&src, &dir.join("rest_no_driver"), &[]);
    let nv = run_on_nvidia(&exe, &[]);
    assert!(nv.status.success(), "NVIDIA run failed: {}", String::from_utf8_lossy(&nv.stderr));
    let ours = run_on_ours_without_driver(&exe, &[]);
    assert!(ours.status.success(), "our run failed: {}", String::from_utf8_lossy(&ours.stderr));
    let (nv, ours) = (String::from_utf8(nv.stdout).unwrap(), String::from_utf8(ours.stdout).unwrap());
    assert!(nv.contains("cudaMallocAsync(&p, 16, 0) -> cudaErrorInsufficientDriver"), "{nv}");
    assert_same_lines(&nv, &ours);
}
