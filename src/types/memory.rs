//! C ABI types of the memory area (CUDA 13.0 layouts).
