/* A shared library that embeds its own copy of NVTX3 (NVIDIA's headers),
 * as libtorch and CuPy do; built twice (-DLIB_FN=nvtx_lib_a / nvtx_lib_b,
 * -DLIB_RANGE="..."): each copy loads the injection and calls
 * InitializeInjectionNvtx2 itself. Built -fvisibility=hidden, so NVTX's
 * globals stay private to each library (two copies, two initializations). */
#include <nvtx3/nvToolsExt.h>

__attribute__((visibility("default"))) void LIB_FN(void) {
  nvtxRangePushA(LIB_RANGE);
  nvtxRangePop();
}
