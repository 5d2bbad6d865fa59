//! `__device__`, `__constant__` and `__managed__` variables named by their
//! host shadow: addresses, sizes, and copies to and from them.

use super::{registry, value_first};
use crate::driver::{CUdeviceptr, StreamMode};
use crate::types::*;
use std::ffi::c_void;

/// `cudaGetSymbolAddress` / `cudaGetSymbolSize`: (address, size) in the
/// current context.
pub fn address_and_size(symbol: *const c_void) -> CudaResult<(CUdeviceptr, usize)> {
    if symbol.is_null() {
        return Err(cudaErrorInvalidSymbol);
    }
    registry::var_address(symbol)
}

/// `cudaGetSymbolAddress`: the symbol is checked before the out-parameter,
/// as NVIDIA's runtime does.
pub fn address(out: Option<&mut *mut c_void>, symbol: *const c_void) -> CudaResult {
    value_first(out, address_and_size(symbol).map(|(a, _)| a as *mut c_void))
}

/// `cudaGetSymbolSize`: the symbol first, as for [`address`].
pub fn size(out: Option<&mut usize>, symbol: *const c_void) -> CudaResult {
    value_first(out, address_and_size(symbol).map(|(_, n)| n))
}

/// Which way a symbol copy goes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    ToSymbol,
    FromSymbol,
}

/// `cudaMemcpyToSymbol*` / `cudaMemcpyFromSymbol*`: `other` is the source
/// (to) or destination (from); `stream` None for the synchronous copies.
#[allow(clippy::too_many_arguments)]
pub fn copy(
    dir: Direction,
    symbol: *const c_void,
    other: *const c_void,
    count: usize,
    offset: usize,
    kind: cudaMemcpyKind,
    stream: Option<cudaStream_t>,
    mode: StreamMode,
) -> CudaResult {
    let allowed = match dir {
        Direction::ToSymbol => [cudaMemcpyHostToDevice, cudaMemcpyDeviceToDevice, cudaMemcpyDefault],
        Direction::FromSymbol => [cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice, cudaMemcpyDefault],
    };
    // A zero-byte copy succeeds before anything is checked, then the symbol
    // comes before the direction (NVIDIA, H100, CUDA 13.0).
    if count == 0 {
        return Ok(());
    }
    let (base, size) = address_and_size(symbol)?;
    if !allowed.contains(&kind) {
        return Err(cudaErrorInvalidMemcpyDirection);
    }
    if offset.checked_add(count).is_none_or(|end| end > size) {
        return Err(cudaErrorInvalidValue);
    }
    if count == 0 {
        return Ok(());
    }
    if other.is_null() {
        return Err(cudaErrorInvalidValue);
    }
    let sym = base + offset as CUdeviceptr;
    let (dst, src) = match dir {
        Direction::ToSymbol => (sym, other as CUdeviceptr),
        Direction::FromSymbol => (other as CUdeviceptr, sym),
    };
    // Unified addressing: cuMemcpy infers each side's memory type.
    let r = match stream {
        None => crate::driver::api::cuMemcpy.get_mode(mode).map(|f| unsafe { f(dst, src, count) }),
        Some(s) => crate::driver::api::cuMemcpyAsync.get_mode(mode).map(|f| unsafe { f(dst, src, count, s) }),
    };
    crate::driver::check(r?)
}
