//! C ABI types of the stream area (CUDA 13.0 layouts).
