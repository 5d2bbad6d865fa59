//! The ledger's view of the pipeline's `Call`: the parameters it reads, by
//! C name, in the call's typed parameter block (`control::params`).
//!
//! One table, [`fields!`], of the functions the ledger acts on
//! ([`super::decode::op_of`]) and the fields it may read; a function not
//! listed is not looked at (its parameters are unknown to the ledger), so
//! the two tables must agree: `tests/ledger_pipeline.rs` checks that every
//! function `op_of` knows of, in the id space, is listed here.

use crate::control::params::{self as rt, driver as drv};
use crate::control::Call;

/// The bytes of `field` of a parameter block of type `P` at `block`.
fn field_of<P, F>(block: *const P, get: fn(*const P) -> *const F) -> &'static [u8] {
    // SAFETY: the pipeline's block lives for the whole call; the ledger
    // reads it only during its stage functions.
    unsafe { std::slice::from_raw_parts(get(block) as *const u8, std::mem::size_of::<F>()) }
}

macro_rules! fields {
    ($($m:ident :: $p:ident { $($f:ident),* $(,)? })*) => {
        /// The functions listed, in order.
        const LISTED: &[&str] = &[$(stringify!($p)),*];

        /// The bytes of parameter `name` of call `id` (its block at `params`).
        pub fn param(id: u32, params: *const std::ffi::c_void, name: &str) -> Option<&'static [u8]> {
            if params.is_null() {
                return None;
            }
            let i = index(id)?;
            let mut k = 0usize;
            $(
                if i == k {
                    let b = params as *const $m::$p;
                    $(
                        if name == stringify!($f) {
                            // SAFETY: a field projection of the block; nothing is read here.
                            return Some(field_of(b, |b| unsafe { std::ptr::addr_of!((*b).$f) }));
                        }
                    )*
                    return None;
                }
                k += 1;
            )*
            let _ = k;
            None
        }
    };
}

/// The position in [`LISTED`] of function `id`, by name: a name may have
/// more than one id (the interposer's list repeats a few), all of them
/// with the same parameters.
fn index(id: u32) -> Option<usize> {
    static INDEX: std::sync::OnceLock<Box<[u8]>> = std::sync::OnceLock::new();
    let t = INDEX.get_or_init(|| {
        crate::control::params::NAMES.iter().map(|n| LISTED.iter().position(|l| l == n).map_or(0, |i| i as u8 + 1)).collect()
    });
    t.get(id as usize).and_then(|&v| v.checked_sub(1)).map(usize::from)
}

/// Whether the ledger knows the parameters of function `id`.
pub fn known(id: u32) -> bool {
    index(id).is_some()
}

fields! {
    rt::cudaMalloc { devPtr, size }
    rt::cudaMallocPitch { devPtr, pitch, width, height }
    rt::cudaMalloc3D { pitchedDevPtr, extent }
    rt::cudaMallocArray { array, desc, width, height }
    rt::cudaMalloc3DArray { array, desc, extent }
    rt::cudaMallocMipmappedArray { mipmappedArray, desc, extent, numLevels }
    rt::cudaMallocAsync { devPtr, size, hStream }
    rt::cudaMallocAsync_ptsz { devPtr, size, hStream }
    rt::cudaMallocFromPoolAsync { ptr, size, stream }
    rt::cudaMallocFromPoolAsync_ptsz { ptr, size, stream }
    rt::cudaMallocManaged { devPtr, size }
    rt::cudaMallocHost { ptr, size }
    rt::cudaHostAlloc { pHost, size }
    rt::cudaHostRegister { ptr, size }
    rt::cudaIpcOpenMemHandle { devPtr }
    rt::cudaFree { devPtr }
    rt::cudaIpcCloseMemHandle { devPtr }
    rt::cudaFreeAsync { devPtr }
    rt::cudaFreeAsync_ptsz { devPtr }
    rt::cudaFreeHost { ptr }
    rt::cudaHostUnregister { ptr }
    rt::cudaFreeArray { array }
    rt::cudaFreeMipmappedArray { mipmappedArray }
    rt::cudaMemGetInfo { free, total }
    rt::cudaGetDeviceProperties { prop, device }
    drv::cuMemAlloc_v2 { dptr, bytesize }
    drv::cuMemAllocPitch_v2 { dptr, pPitch, WidthInBytes, Height }
    drv::cuArrayCreate_v2 { pHandle, pAllocateArray }
    drv::cuArray3DCreate_v2 { pHandle, pAllocateArray }
    drv::cuMipmappedArrayCreate { pHandle, pMipmappedArrayDesc, numMipmapLevels }
    drv::cuMemAllocAsync { dptr, bytesize, hStream }
    drv::cuMemAllocAsync_ptsz { dptr, bytesize, hStream }
    drv::cuMemAllocFromPoolAsync { dptr, bytesize, hStream }
    drv::cuMemAllocFromPoolAsync_ptsz { dptr, bytesize, hStream }
    drv::cuMemCreate { handle, size, prop }
    drv::cuMemAllocManaged { dptr, bytesize }
    drv::cuMemAllocHost_v2 { pp, bytesize }
    drv::cuMemHostAlloc { pp, bytesize }
    drv::cuMemHostRegister_v2 { p, bytesize }
    drv::cuIpcOpenMemHandle_v2 { pdptr }
    drv::cuMemFree_v2 { dptr }
    drv::cuMemFreeAsync { dptr }
    drv::cuMemFreeAsync_ptsz { dptr }
    drv::cuIpcCloseMemHandle { dptr }
    drv::cuMemFreeHost { p }
    drv::cuMemHostUnregister { p }
    drv::cuArrayDestroy { hArray }
    drv::cuMipmappedArrayDestroy { hMipmappedArray }
    drv::cuMemRelease { handle }
    drv::cuMemGetInfo_v2 { free, total }
    drv::cuDeviceTotalMem_v2 { bytes, dev }
}

/// The pipeline's call as the ledger reads it.
pub struct View<'a>(pub &'a Call);

impl super::CallView for View<'_> {
    fn id(&self) -> u32 {
        self.0.function_id
    }
    fn name(&self) -> &str {
        crate::control::name(self.0.function_id)
    }
    fn layer(&self) -> super::Layer {
        if self.0.layer == crate::control::DRIVER { super::Layer::Driver } else { super::Layer::Runtime }
    }
    fn depth(&self) -> u32 {
        self.0.depth
    }
    fn param(&self, name: &str) -> Option<&[u8]> {
        param(self.0.function_id, self.0.params as *const std::ffi::c_void, name)
    }
    fn known(&self) -> bool {
        known(self.0.function_id)
    }
}
