// A host program written for NVIDIA's cuda_runtime.h, in C++17. tests/header.rs
// compiles it against NVIDIA's headers, then, with only the include line
// changed, against include/cudart_shim.h, and runs that over the fake driver.
// It uses what C++ programs use: typed allocation overloads, default stream
// arguments, dim3 constructors, `T v{}`, enums as types, CUDART_CB.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                             \
  do {                                                                                          \
    cudaError_t err_ = (call);                                                                  \
    if (err_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(err_)); \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)

namespace {

int host_calls = 0;

void CUDART_CB on_host(void *user) { ++*static_cast<int *>(user); }

struct DeviceBuffer {
  float *ptr = nullptr;
  size_t n = 0;
  explicit DeviceBuffer(size_t count) : n(count) { CHECK(cudaMalloc(&ptr, n * sizeof(float))); }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
};

constexpr const char *name_of(cudaMemcpyKind kind) {
  return kind == cudaMemcpyHostToDevice ? "HostToDevice" : kind == cudaMemcpyDeviceToHost ? "DeviceToHost" : "other";
}

}  // namespace

int main() {
  static_assert(CUDART_VERSION >= 12000, "a CUDA 12 or 13 header");
  cudaDeviceProp prop = {};
  cudaDeviceProp prop2{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int runtime = 0;
  CHECK(cudaRuntimeGetVersion(&runtime));
  std::printf("runtime matches header=%d name=%s zero=%d\n", runtime == CUDART_VERSION, prop.name, prop2.major);

  dim3 one;
  dim3 grid(4);
  dim3 block(32, 2);
  std::printf("dim3 %u,%u,%u %u,%u,%u %u,%u,%u\n", one.x, one.y, one.z, grid.x, grid.y, grid.z, block.x, block.y,
              block.z);

  const size_t n = 4096;
  std::vector<float> host(n);
  for (size_t i = 0; i < n; ++i) host[i] = static_cast<float>(i) * 0.5f;
  DeviceBuffer dev(n);
  float *pinned = nullptr;
  CHECK(cudaMallocHost(&pinned, n * sizeof(float)));
  float *pinned2 = nullptr;
  CHECK(cudaMallocHost(&pinned2, n * sizeof(float), cudaHostAllocDefault));

  cudaStream_t stream{};
  CHECK(cudaStreamCreate(&stream));
  cudaEvent_t done{};
  CHECK(cudaEventCreate(&done, cudaEventDisableTiming));
  // Default arguments: the legacy stream, as in NVIDIA's prototypes.
  CHECK(cudaMemcpyAsync(dev.ptr, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemsetAsync(pinned2, 0, n * sizeof(float)));
  CHECK(cudaMemcpyAsync(pinned, dev.ptr, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaLaunchHostFunc(stream, on_host, &host_calls));
  CHECK(cudaEventRecord(done, stream));
  CHECK(cudaEventSynchronize(done));
  CHECK(cudaDeviceSynchronize());
  std::printf("copied %s/%s same=%d host_calls=%d\n", name_of(cudaMemcpyHostToDevice), name_of(cudaMemcpyDeviceToHost),
              std::memcmp(pinned, host.data(), n * sizeof(float)) == 0, host_calls);

  cudaStreamCaptureStatus status{};
  CHECK(cudaStreamIsCapturing(stream, &status));
  enum cudaStreamCaptureStatus tagged = status;
  std::printf("capture none=%d\n", tagged == cudaStreamCaptureStatusNone);

  cudaExtent extent = make_cudaExtent(256, 4, 2);
  cudaPitchedPtr pitched{};
  CHECK(cudaMalloc3D(&pitched, extent));
  cudaMemcpy3DParms parms = {};
  parms.srcPtr = pitched;
  parms.dstPtr = pitched;
  parms.extent = extent;
  parms.kind = cudaMemcpyDeviceToDevice;
  parms.srcPos = make_cudaPos(0, 0, 0);
  CHECK(cudaMemcpy3D(&parms));
  CHECK(cudaFree(pitched.ptr));

  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = dim3(128);
  cudaPointerAttributes attrs{};
  CHECK(cudaPointerGetAttributes(&attrs, dev.ptr));
  std::printf("cfg grid=%u block=%u,%u pointer device=%d\n", cfg.gridDim.x, cfg.blockDim.x, cfg.blockDim.y,
              attrs.type == cudaMemoryTypeDevice);

  cudaError_t bad = cudaSetDevice(-1);
  std::printf("bad=%s last=%s\n", cudaGetErrorName(bad), cudaGetErrorString(cudaGetLastError()));

  CHECK(cudaEventDestroy(done));
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFreeHost(pinned2));
  std::printf("all checks passed\n");
  return 0;
}
