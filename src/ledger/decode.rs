//! Which calls the ledger acts on, and how each one's parameters give the
//! size, device, stream and handle of an allocation.
//!
//! One table ([`op_of`]) over runtime and driver names. Parameters are
//! read by their C names from the call's typed parameter block
//! ([`super::CallView::param`]), so the table does not depend on the
//! block's layout.

use super::Kind;

/// The address space a handle lives in: device pointers (every device,
/// pool, managed and imported allocation, freed by one another's frees:
/// `cudaFree` frees managed and stream-ordered memory too), host pointers,
/// array handles, VMM allocation handles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Space {
    Dptr = 0,
    Host = 1,
    Array = 2,
    Vmm = 3,
}

/// How the size of an allocation is found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// A `size_t` parameter.
    Param(&'static str),
    /// `width * height`; after the call, `*pitch * height` (the pitch the
    /// driver chose).
    Pitch { width: &'static str, height: &'static str, pitch_out: &'static str },
    /// `cudaMalloc3D`: a `cudaExtent` by value; after, the
    /// `cudaPitchedPtr`'s pitch times height and depth.
    Extent3D { extent: &'static str },
    /// `cudaMallocArray(desc, width, height)`: a `cudaChannelFormatDesc`.
    RtArray { desc: &'static str, width: &'static str, height: &'static str },
    /// `cudaMalloc3DArray` / `cudaMallocMipmappedArray` (levels: `numLevels`).
    RtArray3D { desc: &'static str, extent: &'static str, levels: Option<&'static str> },
    /// `cuArrayCreate`: a pointer to `CUDA_ARRAY_DESCRIPTOR`.
    DrvArray { desc: &'static str },
    /// `cuArray3DCreate` / `cuMipmappedArrayCreate`: a pointer to
    /// `CUDA_ARRAY3D_DESCRIPTOR`.
    DrvArray3D { desc: &'static str, levels: Option<&'static str> },
    /// Asked of the driver after the call (IPC imports).
    AddressRange,
}

/// Where the device of an allocation comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DevFrom {
    /// The calling thread's current device (context).
    Current,
    /// Host memory: no device.
    Host,
    /// `CUmemAllocationProp*`: its `location.id`.
    VmmProp(&'static str),
}

/// Where the allocation's handle is after the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handle {
    /// An out-pointer to the handle (`void**`, `CUdeviceptr*`, ...).
    Out(&'static str),
    /// The parameter is the handle itself (`cudaHostRegister(ptr, ...)`).
    In(&'static str),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Alloc {
    pub kind: Kind,
    pub space: Space,
    pub size: Size,
    pub device: DevFrom,
    pub handle: Handle,
    pub stream: Option<&'static str>,
}

/// What the ledger does with one function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Alloc(Alloc),
    /// The parameter is the handle freed.
    Free { space: Space, handle: &'static str },
    /// `cudaMemGetInfo` / `cuMemGetInfo`: out-pointers to free and total.
    MemInfo { free: &'static str, total: &'static str },
    /// `cuDeviceTotalMem(bytes, dev)`.
    TotalMem { bytes: &'static str, dev: &'static str },
    /// `cudaGetDeviceProperties(prop, device)`: `prop->totalGlobalMem`.
    DeviceProps { prop: &'static str, dev: &'static str },
}

/// The name without the suffixes that select an ABI version or the
/// per-thread default stream (`_v2`, `_v3`, `_ptds`, `_ptsz`).
pub fn base_name(mut n: &str) -> &str {
    loop {
        let before = n;
        for s in ["_ptds", "_ptsz", "_v2", "_v3"] {
            n = n.strip_suffix(s).unwrap_or(n);
        }
        if n == before {
            return n;
        }
    }
}

const fn alloc(kind: Kind, space: Space, size: Size, device: DevFrom, handle: Handle, stream: Option<&'static str>) -> Option<Op> {
    Some(Op::Alloc(Alloc { kind, space, size, device, handle, stream }))
}

/// The ledger's operation for function `name` (runtime or driver), if any.
pub fn op_of(name: &str) -> Option<Op> {
    use DevFrom::{Current, Host as NoDev};
    use Handle::{In, Out};
    use Kind::*;
    use Size::*;
    let dptr = Space::Dptr;
    let host = Space::Host;
    let arr = Space::Array;
    match base_name(name) {
        // The runtime.
        "cudaMalloc" => alloc(Device, dptr, Param("size"), Current, Out("devPtr"), None),
        "cudaMallocPitch" => alloc(Device, dptr, Pitch { width: "width", height: "height", pitch_out: "pitch" }, Current, Out("devPtr"), None),
        "cudaMalloc3D" => alloc(Device, dptr, Extent3D { extent: "extent" }, Current, Out("pitchedDevPtr"), None),
        "cudaMallocArray" => alloc(Device, arr, RtArray { desc: "desc", width: "width", height: "height" }, Current, Out("array"), None),
        "cudaMalloc3DArray" => alloc(Device, arr, RtArray3D { desc: "desc", extent: "extent", levels: None }, Current, Out("array"), None),
        "cudaMallocMipmappedArray" => {
            alloc(Device, arr, RtArray3D { desc: "desc", extent: "extent", levels: Some("numLevels") }, Current, Out("mipmappedArray"), None)
        }
        "cudaMallocAsync" => alloc(Pool, dptr, Param("size"), Current, Out("devPtr"), Some("hStream")),
        "cudaMallocFromPoolAsync" => alloc(Pool, dptr, Param("size"), Current, Out("ptr"), Some("stream")),
        "cudaMallocManaged" => alloc(Managed, dptr, Param("size"), Current, Out("devPtr"), None),
        "cudaMallocHost" => alloc(Host, host, Param("size"), NoDev, Out("ptr"), None),
        "cudaHostAlloc" => alloc(Host, host, Param("size"), NoDev, Out("pHost"), None),
        "cudaHostRegister" => alloc(Host, host, Param("size"), NoDev, In("ptr"), None),
        "cudaIpcOpenMemHandle" => alloc(Imported, dptr, AddressRange, Current, Out("devPtr"), None),
        "cudaFree" | "cudaIpcCloseMemHandle" => Some(Op::Free { space: dptr, handle: "devPtr" }),
        "cudaFreeAsync" => Some(Op::Free { space: dptr, handle: "devPtr" }),
        "cudaFreeHost" | "cudaHostUnregister" => Some(Op::Free { space: host, handle: "ptr" }),
        "cudaFreeArray" => Some(Op::Free { space: arr, handle: "array" }),
        "cudaFreeMipmappedArray" => Some(Op::Free { space: arr, handle: "mipmappedArray" }),
        "cudaMemGetInfo" => Some(Op::MemInfo { free: "free", total: "total" }),
        "cudaGetDeviceProperties" => Some(Op::DeviceProps { prop: "prop", dev: "device" }),
        // The driver.
        "cuMemAlloc" => alloc(Device, dptr, Param("bytesize"), Current, Out("dptr"), None),
        "cuMemAllocPitch" => alloc(Device, dptr, Pitch { width: "WidthInBytes", height: "Height", pitch_out: "pPitch" }, Current, Out("dptr"), None),
        "cuArrayCreate" => alloc(Device, arr, DrvArray { desc: "pAllocateArray" }, Current, Out("pHandle"), None),
        "cuArray3DCreate" => alloc(Device, arr, DrvArray3D { desc: "pAllocateArray", levels: None }, Current, Out("pHandle"), None),
        "cuMipmappedArrayCreate" => {
            alloc(Device, arr, DrvArray3D { desc: "pMipmappedArrayDesc", levels: Some("numMipmapLevels") }, Current, Out("pHandle"), None)
        }
        "cuMemAllocAsync" => alloc(Pool, dptr, Param("bytesize"), Current, Out("dptr"), Some("hStream")),
        "cuMemAllocFromPoolAsync" => alloc(Pool, dptr, Param("bytesize"), Current, Out("dptr"), Some("hStream")),
        "cuMemCreate" => alloc(Vmm, Space::Vmm, Param("size"), DevFrom::VmmProp("prop"), Out("handle"), None),
        "cuMemAllocManaged" => alloc(Managed, dptr, Param("bytesize"), Current, Out("dptr"), None),
        "cuMemAllocHost" => alloc(Host, host, Param("bytesize"), NoDev, Out("pp"), None),
        "cuMemHostAlloc" => alloc(Host, host, Param("bytesize"), NoDev, Out("pp"), None),
        "cuMemHostRegister" => alloc(Host, host, Param("bytesize"), NoDev, In("p"), None),
        "cuIpcOpenMemHandle" => alloc(Imported, dptr, AddressRange, Current, Out("pdptr"), None),
        "cuMemFree" | "cuMemFreeAsync" | "cuIpcCloseMemHandle" => Some(Op::Free { space: dptr, handle: "dptr" }),
        "cuMemFreeHost" | "cuMemHostUnregister" => Some(Op::Free { space: host, handle: "p" }),
        "cuArrayDestroy" => Some(Op::Free { space: arr, handle: "hArray" }),
        "cuMipmappedArrayDestroy" => Some(Op::Free { space: arr, handle: "hMipmappedArray" }),
        "cuMemRelease" => Some(Op::Free { space: Space::Vmm, handle: "handle" }),
        "cuMemGetInfo" => Some(Op::MemInfo { free: "free", total: "total" }),
        "cuDeviceTotalMem" => Some(Op::TotalMem { bytes: "bytes", dev: "dev" }),
        _ => None,
    }
}

/// Bytes per element of a `CUarray_format` with `channels` channels
/// (block-compressed and planar video formats: 1 byte per element, an
/// estimate, as the ledger documents).
pub fn drv_format_bytes(format: u32, channels: u32) -> u64 {
    let per = match format {
        0x01 | 0x08 | 0xc0..=0xc2 | 0xc6..=0xc8 => 1,
        0x02 | 0x09 | 0x10 | 0xc3..=0xc5 | 0xc9..=0xcb => 2,
        0x03 | 0x0a | 0x20 => 4,
        _ => 1,
    };
    per * channels.max(1) as u64
}

/// Elements of a 1D/2D/3D array with `levels` mipmap levels (1 without):
/// each level halves every extent that is not 0.
pub fn array_elements(w: u64, h: u64, d: u64, levels: u32) -> u64 {
    let mut total = 0u64;
    for l in 0..levels.clamp(1, 32) {
        let e = |x: u64| if x == 0 { 1 } else { (x >> l).max(1) };
        total = total.saturating_add(e(w).saturating_mul(e(h)).saturating_mul(e(d)));
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_do_not_change_the_function() {
        assert_eq!(base_name("cuMemAlloc_v2"), "cuMemAlloc");
        assert_eq!(base_name("cuMemcpyHtoD_v2_ptds"), "cuMemcpyHtoD");
        assert_eq!(base_name("cudaMemcpy_ptds"), "cudaMemcpy");
        assert_eq!(op_of("cuMemAllocAsync_ptsz"), op_of("cuMemAllocAsync"));
        assert!(op_of("cudaMemcpy").is_none() && op_of("cuLaunchKernel").is_none());
    }

    #[test]
    fn every_family_of_both_layers_is_known() {
        let kind = |n: &str| match op_of(n) {
            Some(Op::Alloc(a)) => a.kind,
            o => panic!("{n}: {o:?}"),
        };
        for n in ["cudaMalloc", "cudaMallocPitch", "cudaMalloc3D", "cudaMallocArray", "cudaMalloc3DArray", "cudaMallocMipmappedArray", "cuMemAlloc_v2", "cuMemAllocPitch_v2", "cuArrayCreate_v2", "cuArray3DCreate_v2", "cuMipmappedArrayCreate"] {
            assert_eq!(kind(n), Kind::Device, "{n}");
        }
        for n in ["cudaMallocAsync", "cudaMallocFromPoolAsync", "cuMemAllocAsync", "cuMemAllocFromPoolAsync"] {
            assert_eq!(kind(n), Kind::Pool, "{n}");
        }
        assert_eq!(kind("cuMemCreate"), Kind::Vmm);
        assert_eq!(kind("cudaMallocManaged"), Kind::Managed);
        assert_eq!(kind("cuMemAllocManaged"), Kind::Managed);
        assert_eq!(kind("cudaIpcOpenMemHandle"), Kind::Imported);
        assert_eq!(kind("cuIpcOpenMemHandle_v2"), Kind::Imported);
        for n in ["cudaHostAlloc", "cudaMallocHost", "cudaHostRegister", "cuMemHostAlloc", "cuMemAllocHost_v2", "cuMemHostRegister_v2"] {
            assert_eq!(kind(n), Kind::Host, "{n}");
        }
        // Mapping VMM memory is not a second allocation.
        assert!(op_of("cuMemMap").is_none() && op_of("cuMemAddressReserve").is_none());
    }

    #[test]
    fn array_sizes() {
        assert_eq!(drv_format_bytes(0x20, 4), 16);
        assert_eq!(drv_format_bytes(0x10, 1), 2);
        assert_eq!(array_elements(100, 0, 0, 1), 100);
        assert_eq!(array_elements(8, 8, 0, 1), 64);
        // 8x8, 4x4, 2x2, 1x1.
        assert_eq!(array_elements(8, 8, 0, 4), 64 + 16 + 4 + 1);
    }
}
