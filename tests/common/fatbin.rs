//! Shared by the tests (through `common`) and benches/launch_threads.rs.

/// A fatbin container around `ptx` (one uncompressed PTX entry), as nvcc
/// lays it out, and the wrapper nvcc's host code registers.
pub fn fatbin_wrapper(ptx: &std::ffi::CStr) -> &'static [u64; 3] {
    let payload = ptx.to_bytes_with_nul();
    let mut e = vec![0u8; 64];
    e[0..2].copy_from_slice(&1u16.to_le_bytes());
    e[2..4].copy_from_slice(&0x0101u16.to_le_bytes());
    e[4..8].copy_from_slice(&64u32.to_le_bytes());
    e[8..16].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    e[28..32].copy_from_slice(&90u32.to_le_bytes());
    e.extend_from_slice(payload);
    let mut c = Vec::new();
    c.extend_from_slice(&0xBA55ED50u32.to_le_bytes());
    c.extend_from_slice(&1u16.to_le_bytes());
    c.extend_from_slice(&16u16.to_le_bytes());
    c.extend_from_slice(&(e.len() as u64).to_le_bytes());
    c.extend_from_slice(&e);
    let data: &'static [u8] = Box::leak(c.into_boxed_slice());
    Box::leak(Box::new([0x466243B1u64 | (1u64 << 32), data.as_ptr() as u64, 0]))
}
