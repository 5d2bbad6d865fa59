//! CUPTI activity records as bytes: the kinds and field offsets of the
//! records cudart-shim reads (kernels, copies, peer copies, memsets and
//! external correlations), for CUPTI 13.
//!
//! The offsets are those of `CUpti_ActivityKernel10`, `CUpti_ActivityMemcpy6`,
//! `CUpti_ActivityMemcpyPtoP4`, `CUpti_ActivityMemset4` and
//! `CUpti_ActivityExternalCorrelation` in CUDA 13.0's `cupti_activity.h`
//! (nvidia-cuda-cupti 13.0.85), measured with `offsetof` by a C program
//! compiled against that header (the records are packed, 8-byte aligned).
//! CUPTI versions its record structs when a layout changes and appends new
//! fields at the end, so a newer CUPTI 13 keeps these prefixes.
//!
//! Fields are read from byte slices (never through a Rust struct), so a
//! record of a newer, longer layout reads the same. Self-contained (std
//! only): the fake CUPTI of the tests includes this file to write records.

#![allow(dead_code)]

pub const KIND_MEMCPY: u32 = 1;
pub const KIND_MEMSET: u32 = 2;
pub const KIND_KERNEL: u32 = 3;
pub const KIND_DRIVER: u32 = 4;
pub const KIND_CONCURRENT_KERNEL: u32 = 10;
pub const KIND_MEMCPY2: u32 = 22;
pub const KIND_EXTERNAL_CORRELATION: u32 = 39;

/// `CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2`: PyTorch's profiler (Kineto)
/// uses CUSTOM0 and CUSTOM1.
pub const EXTERNAL_KIND: u32 = 5;

/// `CUpti_ActivityKernel10` (kinds KERNEL and CONCURRENT_KERNEL).
pub mod kernel {
    pub const SIZE: usize = 216;
    pub const REGISTERS_PER_THREAD: usize = 6; // u16
    pub const START: usize = 16;
    pub const END: usize = 24;
    pub const DEVICE: usize = 40;
    pub const CONTEXT: usize = 44;
    pub const STREAM: usize = 48;
    pub const GRID: usize = 52; // 3 x i32
    pub const BLOCK: usize = 64; // 3 x i32
    pub const STATIC_SHARED: usize = 76; // i32
    pub const DYNAMIC_SHARED: usize = 80; // i32
    pub const LOCAL_PER_THREAD: usize = 84; // u32
    pub const CORRELATION: usize = 92;
    pub const NAME: usize = 104; // const char *
    pub const GRAPH_NODE: usize = 144; // u64
    pub const GRAPH: usize = 156; // u32
}

/// `CUpti_ActivityMemcpy6` (kind MEMCPY).
pub mod memcpy {
    pub const SIZE: usize = 96;
    pub const COPY_KIND: usize = 4; // u8
    pub const BYTES: usize = 8;
    pub const START: usize = 16;
    pub const END: usize = 24;
    pub const DEVICE: usize = 32;
    pub const STREAM: usize = 40;
    pub const CORRELATION: usize = 44;
    pub const GRAPH_NODE: usize = 64;
    pub const GRAPH: usize = 72;
}

/// `CUpti_ActivityMemcpyPtoP4` (kind MEMCPY2).
pub mod peer {
    pub const SIZE: usize = 96;
    pub const COPY_KIND: usize = 4;
    pub const BYTES: usize = 8;
    pub const START: usize = 16;
    pub const END: usize = 24;
    pub const DEVICE: usize = 32;
    pub const STREAM: usize = 40;
    pub const SRC_DEVICE: usize = 44;
    pub const DST_DEVICE: usize = 52;
    pub const CORRELATION: usize = 60;
    pub const GRAPH_NODE: usize = 72;
    pub const GRAPH: usize = 80;
}

/// `CUpti_ActivityMemset4` (kind MEMSET).
pub mod memset {
    pub const SIZE: usize = 88;
    pub const VALUE: usize = 4; // u32
    pub const BYTES: usize = 8;
    pub const START: usize = 16;
    pub const END: usize = 24;
    pub const DEVICE: usize = 32;
    pub const STREAM: usize = 40;
    pub const CORRELATION: usize = 44;
    pub const GRAPH_NODE: usize = 64;
    pub const GRAPH: usize = 72;
}

/// `CUpti_ActivityAPI` (kind DRIVER): read by nobody here; its size lets
/// the fake CUPTI lay one out.
pub mod api {
    pub const SIZE: usize = 40;
}

/// The callback ids (`cupti_driver_cbid.h`, CUDA 13.0) of the driver calls
/// that start GPU work: every `cuLaunch*`, `cuGraphLaunch*`, `cuMemcpy*`
/// and `cuMemset*` (HostFunc excepted). CUPTI writes an external
/// correlation record only before an API record, so these API records are
/// switched on (`cuptiActivityEnableDriverApi`), and no other.
pub const LAUNCH_DRIVER_APIS: &[u32] = &[
    43, 45, 47, 49, 51, 53, 54, 55, 56, 57, 58, 60, 62, 64, 66, 67, 68, 69, 71, 73, 75, 77, 79, 81, 115, 116, 117, 216, 218, 220,
    222, 224, 226, 248, 249, 250, 251, 252, 253, 254, 276, 277, 278, 279, 280, 281, 282, 283, 284, 285, 286, 287, 288, 289, 290,
    291, 292, 293, 305, 306, 307, 318, 319, 320, 321, 397, 398, 399, 400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411,
    412, 413, 414, 415, 416, 418, 419, 420, 421, 422, 423, 424, 425, 426, 427, 428, 429, 430, 431, 432, 433, 442, 477, 478, 480,
    514, 515, 652, 653, 776, 777, 778, 779, 796, 797, 798, 799,
];

/// `CUpti_ActivityExternalCorrelation`.
pub mod external {
    pub const SIZE: usize = 24;
    pub const EXTERNAL_KIND: usize = 4;
    pub const EXTERNAL_ID: usize = 8; // u64
    pub const CORRELATION: usize = 16;
}

/// The size of a record of `kind` in the layouts above (None: a kind this
/// file does not describe).
pub fn size_of_kind(kind: u32) -> Option<usize> {
    Some(match kind {
        KIND_KERNEL | KIND_CONCURRENT_KERNEL => kernel::SIZE,
        KIND_MEMCPY => memcpy::SIZE,
        KIND_MEMCPY2 => peer::SIZE,
        KIND_MEMSET => memset::SIZE,
        KIND_EXTERNAL_CORRELATION => external::SIZE,
        KIND_DRIVER => api::SIZE,
        _ => return None,
    })
}

/// A little-endian field of `N` bytes at `off` (zeros past the end).
fn bytes<const N: usize>(rec: &[u8], off: usize) -> [u8; N] {
    let mut b = [0u8; N];
    if let Some(s) = rec.get(off..off + N) {
        b.copy_from_slice(s);
    }
    b
}

pub fn u8_at(rec: &[u8], off: usize) -> u8 {
    bytes::<1>(rec, off)[0]
}
pub fn u16_at(rec: &[u8], off: usize) -> u16 {
    u16::from_ne_bytes(bytes(rec, off))
}
pub fn u32_at(rec: &[u8], off: usize) -> u32 {
    u32::from_ne_bytes(bytes(rec, off))
}
pub fn i32_at(rec: &[u8], off: usize) -> i32 {
    i32::from_ne_bytes(bytes(rec, off))
}
pub fn u64_at(rec: &[u8], off: usize) -> u64 {
    u64::from_ne_bytes(bytes(rec, off))
}

/// Write `v`'s bytes at `off` (the fake CUPTI builds records with this).
pub fn put(rec: &mut [u8], off: usize, v: &[u8]) {
    rec[off..off + v.len()].copy_from_slice(v);
}
