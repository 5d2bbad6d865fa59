//! C ABI types of the interop area (CUDA 13.0 layouts).
