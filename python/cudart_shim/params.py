"""Typed parameter blocks of common CUDA functions, as ctypes structures.

A hook handler (:func:`cudart_shim.hook`) gets the call's parameter block:
one C struct per function, ``NAME_params`` in the shim's generated header
``include/cudart_shim_params.h``, its fields named and typed like the
function's C parameters. For the functions in :data:`TYPED` the handler's
``call.params`` is an instance of the structure below, a view onto the
call's own block: reading ``call.params.size`` reads the argument, and
assigning it (in a ``before`` handler) changes what the call receives.

The structures here mirror the header field for field (same names, same
offsets; python/tests/test_hooks.py compiles the header and compares).
Pointer fields are typed where that helps reading them: ``void **devPtr``
of ``cudaMalloc`` is ``POINTER(c_void_p)``, so an ``after`` handler reads the
new allocation as ``call.params.devPtr[0]``; opaque handles (streams,
functions) are ``c_void_p``. Driver blocks use plain C types, as the header
does (``CUdeviceptr`` is ``c_ulonglong``; the ``CUdeviceptr *`` out-parameter
of ``cuMemAlloc_v2`` is ``POINTER(c_ulonglong)``).

For any other function, ``call.params`` is the block's address as a
``c_void_p``; declare a ``ctypes.Structure`` after the header and read it
with ``call.params_as(MyStruct)``.
"""

from __future__ import annotations

import ctypes
from ctypes import POINTER, c_int, c_size_t, c_uint, c_ulonglong, c_void_p
from typing import Dict, List, Tuple, Type

__all__ = ["TYPED", "dim3"]


class dim3(ctypes.Structure):
    """``struct dim3`` (grid and block sizes), passed by value."""

    _fields_ = [("x", c_uint), ("y", c_uint), ("z", c_uint)]


_Fields = List[Tuple[str, object]]

# Field lists in header order. `cudaMemcpyKind` and the other C enums are
# `int`s; streams, events and kernel handles are pointers (`c_void_p`).
_RUNTIME: Dict[str, _Fields] = {
    "cudaMalloc": [("devPtr", POINTER(c_void_p)), ("size", c_size_t)],
    "cudaMallocAsync": [("devPtr", POINTER(c_void_p)), ("size", c_size_t), ("hStream", c_void_p)],
    "cudaMallocHost": [("ptr", POINTER(c_void_p)), ("size", c_size_t)],
    "cudaHostAlloc": [("pHost", POINTER(c_void_p)), ("size", c_size_t), ("flags", c_uint)],
    "cudaMallocManaged": [("devPtr", POINTER(c_void_p)), ("size", c_size_t), ("flags", c_uint)],
    "cudaFree": [("devPtr", c_void_p)],
    "cudaFreeAsync": [("devPtr", c_void_p), ("hStream", c_void_p)],
    "cudaFreeHost": [("ptr", c_void_p)],
    "cudaMemcpy": [("dst", c_void_p), ("src", c_void_p), ("count", c_size_t), ("kind", c_int)],
    "cudaMemcpyAsync": [("dst", c_void_p), ("src", c_void_p), ("count", c_size_t), ("kind", c_int), ("stream", c_void_p)],
    "cudaMemset": [("devPtr", c_void_p), ("value", c_int), ("count", c_size_t)],
    "cudaMemsetAsync": [("devPtr", c_void_p), ("value", c_int), ("count", c_size_t), ("stream", c_void_p)],
    "cudaMemGetInfo": [("free", POINTER(c_size_t)), ("total", POINTER(c_size_t))],
    "cudaLaunchKernel": [
        ("func", c_void_p),
        ("gridDim", dim3),
        ("blockDim", dim3),
        ("args", POINTER(c_void_p)),
        ("sharedMem", c_size_t),
        ("stream", c_void_p),
    ],
    # What nvcc 13's `<<<...>>>` stubs call (PyTorch's kernels launch here).
    "__cudaLaunchKernel": [
        ("kernel", c_void_p),
        ("gridDim", dim3),
        ("blockDim", dim3),
        ("args", POINTER(c_void_p)),
        ("sharedMem", c_size_t),
        ("stream", c_void_p),
    ],
    "cudaStreamSynchronize": [("stream", c_void_p)],
    "cudaEventSynchronize": [("event", c_void_p)],
    "cudaSetDevice": [("device", c_int)],
}

_DRIVER: Dict[str, _Fields] = {
    "cuMemAlloc_v2": [("dptr", POINTER(c_ulonglong)), ("bytesize", c_size_t)],
    "cuMemAllocAsync": [("dptr", POINTER(c_ulonglong)), ("bytesize", c_size_t), ("hStream", c_void_p)],
    "cuMemFree_v2": [("dptr", c_ulonglong)],
    "cuMemFreeAsync": [("dptr", c_ulonglong), ("hStream", c_void_p)],
    "cuMemcpyHtoD_v2": [("dstDevice", c_ulonglong), ("srcHost", c_void_p), ("ByteCount", c_size_t)],
    "cuMemcpyDtoH_v2": [("dstHost", c_void_p), ("srcDevice", c_ulonglong), ("ByteCount", c_size_t)],
    "cuLaunchKernel": [
        ("f", c_void_p),
        ("gridDimX", c_uint),
        ("gridDimY", c_uint),
        ("gridDimZ", c_uint),
        ("blockDimX", c_uint),
        ("blockDimY", c_uint),
        ("blockDimZ", c_uint),
        ("sharedMemBytes", c_uint),
        ("hStream", c_void_p),
        ("kernelParams", POINTER(c_void_p)),
        ("extra", POINTER(c_void_p)),
    ],
}

# The per-thread default stream forms (`_ptsz`, `_ptds`) take the same
# parameters as the plain form, in a block of the same layout.
_VARIANTS: Dict[str, Tuple[str, ...]] = {
    "cudaMallocAsync": ("cudaMallocAsync_ptsz",),
    "cudaFreeAsync": ("cudaFreeAsync_ptsz",),
    "cudaMemcpy": ("cudaMemcpy_ptds",),
    "cudaMemcpyAsync": ("cudaMemcpyAsync_ptsz",),
    "cudaMemset": ("cudaMemset_ptds",),
    "cudaMemsetAsync": ("cudaMemsetAsync_ptsz",),
    "cudaLaunchKernel": ("cudaLaunchKernel_ptsz",),
    "__cudaLaunchKernel": ("__cudaLaunchKernel_ptsz",),
    "cudaStreamSynchronize": ("cudaStreamSynchronize_ptsz",),
    "cuMemAllocAsync": ("cuMemAllocAsync_ptsz",),
    "cuMemFreeAsync": ("cuMemFreeAsync_ptsz",),
    "cuMemcpyHtoD_v2": ("cuMemcpyHtoD_v2_ptds",),
    "cuMemcpyDtoH_v2": ("cuMemcpyDtoH_v2_ptds",),
    "cuLaunchKernel": ("cuLaunchKernel_ptsz",),
}

#: Function name -> its parameter block's structure (``NAME_params``).
TYPED: Dict[str, Type[ctypes.Structure]] = {}

for _name, _fields in list(_RUNTIME.items()) + list(_DRIVER.items()):
    for _fn in (_name,) + _VARIANTS.get(_name, ()):
        _cls = type(f"{_fn}_params", (ctypes.Structure,), {"_fields_": _fields, "__module__": __name__})
        TYPED[_fn] = _cls
        globals()[_cls.__name__] = _cls
        __all__.append(_cls.__name__)
del _name, _fields, _fn, _cls
