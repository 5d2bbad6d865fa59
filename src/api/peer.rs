//! Exports of the peer device memory access area.

use crate::control::params;
use crate::runtime::{as_out, peer};
use crate::types::*;
use std::ffi::{c_int, c_uint};

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceCanAccessPeer(canAccessPeer: *mut c_int, device: c_int, peerDevice: c_int) -> cudaError_t {
    entry!(cudaDeviceCanAccessPeer(canAccessPeer, device, peerDevice) => peer::can_access_peer(unsafe { as_out(canAccessPeer) }, device, peerDevice))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceEnablePeerAccess(peerDevice: c_int, flags: c_uint) -> cudaError_t {
    entry!(cudaDeviceEnablePeerAccess(peerDevice, flags) => peer::enable_peer_access(peerDevice, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceDisablePeerAccess(peerDevice: c_int) -> cudaError_t {
    entry!(cudaDeviceDisablePeerAccess(peerDevice) => peer::disable_peer_access(peerDevice))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceGetP2PAttribute(value: *mut c_int, attr: cudaDeviceP2PAttr, srcDevice: c_int, dstDevice: c_int) -> cudaError_t {
    entry!(cudaDeviceGetP2PAttribute(value, attr, srcDevice, dstDevice) => peer::p2p_attribute(unsafe { as_out(value) }, attr, srcDevice, dstDevice))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceGetP2PAtomicCapabilities(
    capabilities: *mut c_uint,
    operations: *const cudaAtomicOperation,
    count: c_uint,
    srcDevice: c_int,
    dstDevice: c_int,
) -> cudaError_t {
    entry!(cudaDeviceGetP2PAtomicCapabilities(capabilities, operations, count, srcDevice, dstDevice) =>
        peer::p2p_atomic_capabilities(capabilities, operations, count, srcDevice, dstDevice))
}
