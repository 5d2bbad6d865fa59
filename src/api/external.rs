//! External resource interoperability exports.

use crate::control::params;
use crate::driver::StreamMode::{Legacy, PerThread};
use crate::runtime::{self, external};
use crate::types::*;
use std::ffi::{c_uint, c_void};

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaImportExternalMemory(
    extMem_out: *mut cudaExternalMemory_t,
    memHandleDesc: *const cudaExternalMemoryHandleDesc,
) -> cudaError_t {
    entry!(cudaImportExternalMemory(extMem_out, memHandleDesc) => external::import_memory(unsafe { runtime::as_out(extMem_out) }, unsafe { runtime::as_in(memHandleDesc) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaExternalMemoryGetMappedBuffer(
    devPtr: *mut *mut c_void,
    extMem: cudaExternalMemory_t,
    bufferDesc: *const cudaExternalMemoryBufferDesc,
) -> cudaError_t {
    entry!(cudaExternalMemoryGetMappedBuffer(devPtr, extMem, bufferDesc) => external::mapped_buffer(unsafe { runtime::as_out(devPtr) }, extMem, unsafe { runtime::as_in(bufferDesc) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaExternalMemoryGetMappedMipmappedArray(
    mipmap: *mut cudaMipmappedArray_t,
    extMem: cudaExternalMemory_t,
    mipmapDesc: *const cudaExternalMemoryMipmappedArrayDesc,
) -> cudaError_t {
    entry!(cudaExternalMemoryGetMappedMipmappedArray(mipmap, extMem, mipmapDesc) =>
        external::mapped_mipmapped_array(unsafe { runtime::as_out(mipmap) }, extMem, unsafe { runtime::as_in(mipmapDesc) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDestroyExternalMemory(extMem: cudaExternalMemory_t) -> cudaError_t {
    entry!(cudaDestroyExternalMemory(extMem) => external::destroy_memory(extMem))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaImportExternalSemaphore(
    extSem_out: *mut cudaExternalSemaphore_t,
    semHandleDesc: *const cudaExternalSemaphoreHandleDesc,
) -> cudaError_t {
    entry!(cudaImportExternalSemaphore(extSem_out, semHandleDesc) => external::import_semaphore(unsafe { runtime::as_out(extSem_out) }, unsafe { runtime::as_in(semHandleDesc) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaSignalExternalSemaphoresAsync(
    extSemArray: *const cudaExternalSemaphore_t,
    paramsArray: *const cudaExternalSemaphoreSignalParams,
    numExtSems: c_uint,
    stream: cudaStream_t,
) -> cudaError_t {
    entry!(cudaSignalExternalSemaphoresAsync(extSemArray, paramsArray, numExtSems, stream) =>
        external::signal(extSemArray, paramsArray, numExtSems, stream, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaSignalExternalSemaphoresAsync_ptsz(
    extSemArray: *const cudaExternalSemaphore_t,
    paramsArray: *const cudaExternalSemaphoreSignalParams,
    numExtSems: c_uint,
    stream: cudaStream_t,
) -> cudaError_t {
    entry!(cudaSignalExternalSemaphoresAsync_ptsz(extSemArray, paramsArray, numExtSems, stream) =>
        external::signal(extSemArray, paramsArray, numExtSems, stream, PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaWaitExternalSemaphoresAsync(
    extSemArray: *const cudaExternalSemaphore_t,
    paramsArray: *const cudaExternalSemaphoreWaitParams,
    numExtSems: c_uint,
    stream: cudaStream_t,
) -> cudaError_t {
    entry!(cudaWaitExternalSemaphoresAsync(extSemArray, paramsArray, numExtSems, stream) =>
        external::wait(extSemArray, paramsArray, numExtSems, stream, Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaWaitExternalSemaphoresAsync_ptsz(
    extSemArray: *const cudaExternalSemaphore_t,
    paramsArray: *const cudaExternalSemaphoreWaitParams,
    numExtSems: c_uint,
    stream: cudaStream_t,
) -> cudaError_t {
    entry!(cudaWaitExternalSemaphoresAsync_ptsz(extSemArray, paramsArray, numExtSems, stream) =>
        external::wait(extSemArray, paramsArray, numExtSems, stream, PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDestroyExternalSemaphore(extSem: cudaExternalSemaphore_t) -> cudaError_t {
    entry!(cudaDestroyExternalSemaphore(extSem) => external::destroy_semaphore(extSem))
}
