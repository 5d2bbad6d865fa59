//! `libcudart_shim12.so`: the cudart-shim runtime as NVIDIA's
//! `libcudart.so.12` (CUDA 12.9's ABI). It holds no code: linking the
//! `cudart_shim` crate brings every export; tools/linker keeps the 12.9
//! names, with the CUDA 12 forms of `src/api/abi12.rs` under their C names.
//! See docs/DESIGN.md, "Several ABIs".

extern crate cudart_shim;
