//! Peer device memory access.
//!
//! Peer access is a property of a pair of contexts: enabling it from the
//! current device to `peer` maps the peer's primary context's allocations
//! into the current context (`cuCtxEnablePeerAccess`). The driver's codes
//! (`cudaErrorPeerAccessAlreadyEnabled`, `...NotEnabled`,
//! `...Unsupported`) share the runtime's numbers and pass through.

use super::context::enter;
use super::out_first;
use super::state::runtime;
use crate::types::*;
use std::ffi::{c_int, c_uint};

/// `cudaDeviceCanAccessPeer`: a device cannot access itself as a peer.
pub fn can_access_peer(out: Option<&mut c_int>, device: c_int, peer: c_int) -> CudaResult {
    out_first(out, || can_access(device, peer))
}

fn can_access(device: c_int, peer: c_int) -> CudaResult<c_int> {
    let rt = runtime()?;
    let (d, p) = (rt.device(device)?.cu, rt.device(peer)?.cu);
    if device == peer {
        return Ok(0);
    }
    let mut can = 0;
    cu!(cuDeviceCanAccessPeer(&mut can, d, p))?;
    Ok(can)
}

/// `cudaDeviceEnablePeerAccess` from the current device to `peer`.
pub fn enable_peer_access(peer: c_int, flags: c_uint) -> CudaResult {
    let rt = runtime()?;
    let p = rt.device(peer)?;
    if flags != cudaPeerAccessDefault {
        return Err(cudaErrorInvalidValue);
    }
    // Peer == current device goes to the driver, which answers
    // cudaErrorPeerAccessUnsupported, as NVIDIA's runtime does (H100, 13.0).
    enter()?;
    let peer_ctx = p.primary()?;
    cu!(cuCtxEnablePeerAccess(peer_ctx, 0))
}

/// `cudaDeviceDisablePeerAccess`.
pub fn disable_peer_access(peer: c_int) -> CudaResult {
    let rt = runtime()?;
    let p = rt.device(peer)?;
    // Peer == current device: the driver's cudaErrorPeerAccessNotEnabled.
    enter()?;
    let peer_ctx = p.primary()?;
    cu!(cuCtxDisablePeerAccess(peer_ctx))
}

/// `cudaDeviceGetP2PAttribute`: attribute numbers equal the driver's.
pub fn p2p_attribute(out: Option<&mut c_int>, attr: cudaDeviceP2PAttr, src: c_int, dst: c_int) -> CudaResult {
    out_first(out, || p2p_value(attr, src, dst))
}

fn p2p_value(attr: cudaDeviceP2PAttr, src: c_int, dst: c_int) -> CudaResult<c_int> {
    let rt = runtime()?;
    let (s, d) = (rt.device(src)?.cu, rt.device(dst)?.cu);
    let mut v = 0;
    cu!(cuDeviceGetP2PAttribute(&mut v, attr.0, s, d))?;
    Ok(v)
}

/// `cudaDeviceGetP2PAtomicCapabilities`: one capability mask per operation.
pub fn p2p_atomic_capabilities(
    caps: *mut c_uint,
    ops: *const cudaAtomicOperation,
    count: c_uint,
    src: c_int,
    dst: c_int,
) -> CudaResult {
    let rt = runtime()?;
    let (s, d) = (rt.device_arg(src)?.cu, rt.device_arg(dst)?.cu);
    if caps.is_null() || ops.is_null() || count == 0 {
        return Err(cudaErrorInvalidValue);
    }
    cu!(cuDeviceGetP2PAtomicCapabilities(caps, ops.cast(), count, s, d))
}
