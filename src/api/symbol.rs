//! Symbol exports (`__device__`/`__constant__`/`__managed__` variables by
//! host shadow): cudaGetSymbolAddress, cudaGetSymbolSize,
//! cudaMemcpyToSymbol/FromSymbol and their async and per-thread twins.

use crate::control::params;
use crate::driver::StreamMode;
use crate::runtime::as_out;
use crate::runtime::symbol::{self, Direction};
use crate::types::*;
use std::ffi::c_void;

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetSymbolAddress(devPtr: *mut *mut c_void, symbol: *const c_void) -> cudaError_t {
    entry!(cudaGetSymbolAddress(devPtr, symbol) => symbol::address(unsafe { as_out(devPtr) }, symbol))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetSymbolSize(size: *mut usize, symbol: *const c_void) -> cudaError_t {
    entry!(cudaGetSymbolSize(size, symbol) => symbol::size(unsafe { as_out(size) }, symbol))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyToSymbol(symbol: *const c_void, src: *const c_void, count: usize, offset: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaMemcpyToSymbol(symbol, src, count, offset, kind) =>
        symbol::copy(Direction::ToSymbol, symbol, src, count, offset, kind, None, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyToSymbol_ptds(symbol: *const c_void, src: *const c_void, count: usize, offset: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaMemcpyToSymbol_ptds(symbol, src, count, offset, kind) =>
        symbol::copy(Direction::ToSymbol, symbol, src, count, offset, kind, None, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyFromSymbol(dst: *mut c_void, symbol: *const c_void, count: usize, offset: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaMemcpyFromSymbol(dst, symbol, count, offset, kind) =>
        symbol::copy(Direction::FromSymbol, symbol, dst, count, offset, kind, None, StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyFromSymbol_ptds(dst: *mut c_void, symbol: *const c_void, count: usize, offset: usize, kind: cudaMemcpyKind) -> cudaError_t {
    entry!(cudaMemcpyFromSymbol_ptds(dst, symbol, count, offset, kind) =>
        symbol::copy(Direction::FromSymbol, symbol, dst, count, offset, kind, None, StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyToSymbolAsync(symbol: *const c_void, src: *const c_void, count: usize, offset: usize, kind: cudaMemcpyKind, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpyToSymbolAsync(symbol, src, count, offset, kind, stream) =>
        symbol::copy(Direction::ToSymbol, symbol, src, count, offset, kind, Some(stream), StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyToSymbolAsync_ptsz(symbol: *const c_void, src: *const c_void, count: usize, offset: usize, kind: cudaMemcpyKind, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpyToSymbolAsync_ptsz(symbol, src, count, offset, kind, stream) =>
        symbol::copy(Direction::ToSymbol, symbol, src, count, offset, kind, Some(stream), StreamMode::PerThread))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyFromSymbolAsync(dst: *mut c_void, symbol: *const c_void, count: usize, offset: usize, kind: cudaMemcpyKind, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpyFromSymbolAsync(dst, symbol, count, offset, kind, stream) =>
        symbol::copy(Direction::FromSymbol, symbol, dst, count, offset, kind, Some(stream), StreamMode::Legacy))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyFromSymbolAsync_ptsz(dst: *mut c_void, symbol: *const c_void, count: usize, offset: usize, kind: cudaMemcpyKind, stream: cudaStream_t) -> cudaError_t {
    entry!(cudaMemcpyFromSymbolAsync_ptsz(dst, symbol, count, offset, kind, stream) =>
        symbol::copy(Direction::FromSymbol, symbol, dst, count, offset, kind, Some(stream), StreamMode::PerThread))
}
