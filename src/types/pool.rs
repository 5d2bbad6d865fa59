//! C ABI types of the pool area (CUDA 13.0 layouts).
