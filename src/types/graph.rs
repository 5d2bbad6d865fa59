//! C ABI types of the graph area (CUDA 13.0 layouts).
