/* A host program written for NVIDIA's cuda_runtime.h, in C11. tests/header.rs
 * compiles it against NVIDIA's headers, then, with only the include line
 * changed, against include/cudart_shim.h, and runs that over the fake driver.
 * It uses what such programs use: enum tags, CUDART_CB callbacks,
 * CUDART_VERSION, make_cudaExtent & co., dim3, the runtime's structs. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                    \
  do {                                                                                 \
    enum cudaError err_ = (call);                                                      \
    if (err_ != cudaSuccess) {                                                         \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(err_)); \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

static int callbacks;

static void CUDART_CB host_fn(void *user) { *(int *)user += 1; }

static void CUDART_CB stream_cb(cudaStream_t stream, cudaError_t status, void *user) {
  (void)stream;
  if (status == cudaSuccess) *(int *)user += 10;
}

static const char *kind_name(enum cudaMemcpyKind kind) {
  switch (kind) {
  case cudaMemcpyHostToDevice: return "HostToDevice";
  case cudaMemcpyDeviceToHost: return "DeviceToHost";
  default: return "other";
  }
}

int main(void) {
  int runtime = 0, count = 0;
  CHECK(cudaRuntimeGetVersion(&runtime));
  if (runtime != CUDART_VERSION) {
    printf("runtime %d, header %d\n", runtime, CUDART_VERSION);
    return 1;
  }
  CHECK(cudaGetDeviceCount(&count));
  CHECK(cudaSetDevice(0));

  struct cudaDeviceProp prop;
  memset(&prop, 0, sizeof prop);
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int warp = 0;
  enum cudaDeviceAttr attr = cudaDevAttrWarpSize;
  CHECK(cudaDeviceGetAttribute(&warp, attr, 0));
  printf("devices=%d name=%s warp=%d\n", count, prop.name, warp);

  const size_t n = 1 << 10;
  float *host = (float *)malloc(n * sizeof(float));
  float *back = NULL;
  float *dev = NULL;
  for (size_t i = 0; i < n; i++) host[i] = (float)i;
  CHECK(cudaMalloc((void **)&dev, n * sizeof(float)));
  CHECK(cudaMallocHost((void **)&back, n * sizeof(float)));
  enum cudaMemcpyKind h2d = cudaMemcpyHostToDevice, d2h = cudaMemcpyDeviceToHost;
  printf("copy %s then %s\n", kind_name(h2d), kind_name(d2h));

  cudaStream_t stream;
  cudaEvent_t start, stop;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreateWithFlags(&stop, cudaEventDefault));
  CHECK(cudaEventRecord(start, stream));
  CHECK(cudaMemcpyAsync(dev, host, n * sizeof(float), h2d, stream));
  CHECK(cudaMemcpyAsync(back, dev, n * sizeof(float), d2h, stream));
  CHECK(cudaLaunchHostFunc(stream, host_fn, &callbacks));
  CHECK(cudaStreamAddCallback(stream, stream_cb, &callbacks, 0));
  CHECK(cudaEventRecord(stop, stream));
  CHECK(cudaStreamSynchronize(stream));
  enum cudaError q = cudaStreamQuery(stream);
  float ms = -1.0f;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  printf("stream query=%s callbacks=%d timed=%d same=%d\n", cudaGetErrorName(q), callbacks, ms >= 0.0f,
         memcmp(host, back, n * sizeof(float)) == 0);

  enum cudaStreamCaptureStatus capture = cudaStreamCaptureStatusActive;
  CHECK(cudaStreamIsCapturing(stream, &capture));
  printf("capturing=%d\n", capture == cudaStreamCaptureStatusActive);

  struct cudaExtent extent = make_cudaExtent(64 * sizeof(float), 8, 2);
  struct cudaPitchedPtr pitched;
  CHECK(cudaMalloc3D(&pitched, extent));
  CHECK(cudaMemset3D(pitched, 0, extent));
  struct cudaPitchedPtr wrapped = make_cudaPitchedPtr(host, 64 * sizeof(float), 64, 8);
  struct cudaPos origin = make_cudaPos(0, 0, 0);
  printf("pitched pitch_ok=%d wrapped=%zu origin=%zu\n", pitched.pitch >= extent.width, wrapped.xsize, origin.x);

  struct cudaPointerAttributes pa;
  CHECK(cudaPointerGetAttributes(&pa, dev));
  enum cudaMemoryType mt = pa.type;
  printf("pointer type device=%d\n", mt == cudaMemoryTypeDevice);

  dim3 grid = {4, 2, 1};
  struct cudaLaunchConfig_st cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.gridDim = grid;
  printf("grid=%u,%u,%u\n", cfg.gridDim.x, cfg.gridDim.y, cfg.gridDim.z);

  enum cudaError bad = cudaSetDevice(1000);
  printf("bad device=%s last=%s\n", cudaGetErrorName(bad), cudaGetErrorName(cudaGetLastError()));

  CHECK(cudaFree(pitched.ptr));
  CHECK(cudaFree(dev));
  CHECK(cudaFreeHost(back));
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaStreamDestroy(stream));
  free(host);
  printf("all checks passed\n");
  return 0;
}
