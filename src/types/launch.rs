//! C ABI types of the launch area (CUDA 13.0 layouts).
