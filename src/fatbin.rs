//! A safe parser of nvcc's fatbinary wrapper and container headers.
//!
//! Layouts (little-endian, as nvcc 13 writes them and `fatbinary_section.h`
//! declares the wrapper):
//!
//! - wrapper (`__fatBinC_Wrapper_t`, in `.nvFatBinSegment`):
//!   `{u32 magic 0x466243B1, u32 version (1; 2 for -rdc device-linked), data*, filename_or_fatbins*}`
//! - container (what `data` points to, in `.nv_fatbin`): a 16-byte header
//!   `{u32 magic 0xBA55ED50, u16 version, u16 header size, u64 size of the entries}`
//!   followed by entries, each `{u16 kind (1 PTX, 2 ELF), u16 version,
//!   u32 header size, u64 payload size, u32 compressed size, u32 options
//!   offset, u16 minor, u16 major, u32 arch, u32 name offset, u32 name length,
//!   u64 flags, u64 reserved, u64 uncompressed size}` then the payload.
//!   Flag bit 0x2000 marks an LZ4-compressed payload, 0x8000 a ZSTD one
//!   (what nvcc 13 writes by default for PTX; `-no-compress` turns it off).
//!
//! Nothing here trusts its input: every offset is bounds-checked, and
//! malformed bytes give an [`Error`], never a panic (fuzzed in `fuzz/`).
//! This file has no dependency on the rest of the crate so the fake driver
//! and the fuzz target can include it as is.

use std::fmt;

pub const WRAPPER_MAGIC: u32 = 0x466243B1;
pub const CONTAINER_MAGIC: u32 = 0xBA55ED50;
pub const CONTAINER_HEADER_SIZE: usize = 16;
/// The smallest entry header nvcc writes (64 bytes; PTX entries have 80).
const ENTRY_HEADER_MIN: usize = 64;
/// Containers bigger than this are rejected as corrupt (the largest real
/// ones, in PyTorch, are a few hundred MiB).
pub const MAX_CONTAINER_SIZE: u64 = 4 << 30;

pub const FLAG_COMPRESSED_LZ4: u64 = 0x2000;
pub const FLAG_COMPRESSED_ZSTD: u64 = 0x8000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// Fewer bytes than the header or entry needs.
    Truncated { need: u64, have: u64 },
    BadMagic(u32),
    BadHeaderSize(u64),
    TooLarge(u64),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Truncated { need, have } => write!(f, "fatbinary truncated: needs {need} bytes, has {have}"),
            Error::BadMagic(m) => write!(f, "not a fatbinary (magic {m:#010x})"),
            Error::BadHeaderSize(s) => write!(f, "fatbinary header size {s} is invalid"),
            Error::TooLarge(s) => write!(f, "fatbinary size {s} is implausible"),
        }
    }
}

impl std::error::Error for Error {}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Ptx,
    Elf,
    Other(u16),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    Lz4,
    Zstd,
}

/// One entry of a container.
#[derive(Debug, Clone)]
pub struct Entry<'a> {
    pub kind: Kind,
    /// The SM number: 90 for `sm_90` code or `compute_90` PTX.
    pub arch: u32,
    /// PTX ISA or ELF version as (major, minor).
    pub version: (u16, u16),
    pub flags: u64,
    pub compression: Compression,
    /// The payload as stored (possibly compressed, possibly padded).
    pub payload: &'a [u8],
    /// Size after decompression (0 when the entry is not compressed).
    pub uncompressed_size: u64,
}

impl Entry<'_> {
    /// The PTX text of an uncompressed PTX entry (without trailing NULs).
    pub fn ptx_text(&self) -> Option<&str> {
        if self.kind != Kind::Ptx || self.compression != Compression::None {
            return None;
        }
        let end = self.payload.iter().position(|&b| b == 0).unwrap_or(self.payload.len());
        std::str::from_utf8(&self.payload[..end]).ok()
    }
}

impl fmt::Display for Entry<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            Kind::Ptx => write!(f, "compute_{} PTX", self.arch)?,
            Kind::Elf => write!(f, "sm_{} ELF", self.arch)?,
            Kind::Other(k) => write!(f, "kind {k} arch {}", self.arch)?,
        }
        write!(f, " {} B", self.payload.len())?;
        match self.compression {
            Compression::None => Ok(()),
            Compression::Lz4 => write!(f, " (lz4, {} B)", self.uncompressed_size),
            Compression::Zstd => write!(f, " (zstd, {} B)", self.uncompressed_size),
        }
    }
}

/// A parsed container.
#[derive(Debug, Clone)]
pub struct Container<'a> {
    pub version: u16,
    /// Header plus entries: the bytes the container occupies.
    pub total_size: u64,
    pub entries: Vec<Entry<'a>>,
}

impl Container<'_> {
    /// Whether a device of compute capability `sm` (e.g. 90) can run this
    /// code: an ELF for exactly that SM (same major, minor not above: the
    /// driver runs sm_80 cubins on sm_86, not on sm_90), or PTX for an SM
    /// not above it (the driver JIT-compiles it).
    pub fn runs_on(&self, sm: u32) -> bool {
        self.entries.iter().any(|e| match e.kind {
            Kind::Elf => e.arch / 10 == sm / 10 && e.arch <= sm,
            Kind::Ptx => e.arch <= sm,
            Kind::Other(_) => false,
        })
    }

    /// "sm_90 ELF 8016 B, compute_90 PTX 1496 B" for logs and traces.
    pub fn summary(&self) -> String {
        let parts: Vec<String> = self.entries.iter().map(|e| e.to_string()).collect();
        parts.join(", ")
    }
}

fn u16_at(b: &[u8], off: usize) -> u16 {
    u16::from_le_bytes([b[off], b[off + 1]])
}
fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap_or([0; 4]))
}
fn u64_at(b: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(b[off..off + 8].try_into().unwrap_or([0; 8]))
}

fn need(b: &[u8], n: u64) -> Result<(), Error> {
    if (b.len() as u64) < n { Err(Error::Truncated { need: n, have: b.len() as u64 }) } else { Ok(()) }
}

/// The total size (header + entries) of the container at the start of `b`,
/// from its header alone: how many bytes to read from a raw pointer.
pub fn container_size(header: &[u8]) -> Result<u64, Error> {
    need(header, CONTAINER_HEADER_SIZE as u64)?;
    let magic = u32_at(header, 0);
    if magic != CONTAINER_MAGIC {
        return Err(Error::BadMagic(magic));
    }
    let hs = u16_at(header, 6) as u64;
    if hs < CONTAINER_HEADER_SIZE as u64 {
        return Err(Error::BadHeaderSize(hs));
    }
    let size = hs.checked_add(u64_at(header, 8)).ok_or(Error::TooLarge(u64::MAX))?;
    if size > MAX_CONTAINER_SIZE {
        return Err(Error::TooLarge(size));
    }
    Ok(size)
}

/// Parse the container at the start of `b` (trailing bytes are ignored).
pub fn parse(b: &[u8]) -> Result<Container<'_>, Error> {
    let total = container_size(b)?;
    need(b, total)?;
    let hs = u16_at(b, 6) as usize;
    let body = &b[hs..total as usize];
    let mut entries = Vec::new();
    let mut off = 0usize;
    while off < body.len() {
        let rest = &body[off..];
        need(rest, ENTRY_HEADER_MIN as u64)?;
        let kind = match u16_at(rest, 0) {
            1 => Kind::Ptx,
            2 => Kind::Elf,
            k => Kind::Other(k),
        };
        let ehs = u32_at(rest, 4) as u64;
        if ehs < ENTRY_HEADER_MIN as u64 {
            return Err(Error::BadHeaderSize(ehs));
        }
        let size = u64_at(rest, 8);
        let end = ehs.checked_add(size).ok_or(Error::TooLarge(u64::MAX))?;
        need(rest, end)?;
        let flags = u64_at(rest, 40);
        let compression = if flags & FLAG_COMPRESSED_ZSTD != 0 {
            Compression::Zstd
        } else if flags & FLAG_COMPRESSED_LZ4 != 0 {
            Compression::Lz4
        } else {
            Compression::None
        };
        let payload = &rest[ehs as usize..end as usize];
        // Compressed entries record the compressed length; the stored size
        // is padded to alignment.
        let compressed = u32_at(rest, 16) as usize;
        let payload = if compression != Compression::None && compressed > 0 && compressed <= payload.len() {
            &payload[..compressed]
        } else {
            payload
        };
        entries.push(Entry {
            kind,
            arch: u32_at(rest, 28),
            version: (u16_at(rest, 26), u16_at(rest, 24)),
            flags,
            compression,
            payload,
            uncompressed_size: u64_at(rest, 56),
        });
        off += end as usize;
    }
    Ok(Container { version: u16_at(b, 4), total_size: total, entries })
}

/// Parse the container at `p`, whose length is known only from its header.
///
/// # Safety
/// `p` must point to readable memory holding at least a container header,
/// and the size that header claims must be readable too (true for the
/// `.nv_fatbin` data an nvcc wrapper points to).
pub unsafe fn parse_ptr<'a>(p: *const u8) -> Result<Container<'a>, Error> {
    if p.is_null() {
        return Err(Error::Truncated { need: CONTAINER_HEADER_SIZE as u64, have: 0 });
    }
    // SAFETY: the caller guarantees the header is readable.
    let header = unsafe { std::slice::from_raw_parts(p, CONTAINER_HEADER_SIZE) };
    let size = container_size(header)?;
    // SAFETY: the caller guarantees the claimed size is readable.
    parse(unsafe { std::slice::from_raw_parts(p, size as usize) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(kind: u16, arch: u32, flags: u64, payload: &[u8], header: u32) -> Vec<u8> {
        let mut e = vec![0u8; header as usize];
        e[0..2].copy_from_slice(&kind.to_le_bytes());
        e[2..4].copy_from_slice(&0x0101u16.to_le_bytes());
        e[4..8].copy_from_slice(&header.to_le_bytes());
        e[8..16].copy_from_slice(&(payload.len() as u64).to_le_bytes());
        e[24..26].copy_from_slice(&0u16.to_le_bytes());
        e[26..28].copy_from_slice(&9u16.to_le_bytes());
        e[28..32].copy_from_slice(&arch.to_le_bytes());
        e[40..48].copy_from_slice(&flags.to_le_bytes());
        e.extend_from_slice(payload);
        e
    }

    fn container(entries: &[Vec<u8>]) -> Vec<u8> {
        let body: Vec<u8> = entries.concat();
        let mut c = Vec::new();
        c.extend_from_slice(&CONTAINER_MAGIC.to_le_bytes());
        c.extend_from_slice(&1u16.to_le_bytes());
        c.extend_from_slice(&16u16.to_le_bytes());
        c.extend_from_slice(&(body.len() as u64).to_le_bytes());
        c.extend_from_slice(&body);
        c
    }

    #[test]
    fn parses_entries_kinds_archs_and_compression() {
        let c = container(&[
            entry(2, 90, 0x11, b"\x7fELFcode", 64),
            entry(1, 90, 0x11, b".version 9.0\n.target sm_90\0\0\0", 80),
            entry(1, 100, 0x8011, b"zz", 80),
        ]);
        let p = parse(&c).unwrap();
        assert_eq!(p.entries.len(), 3);
        assert_eq!(p.entries[0].kind, Kind::Elf);
        assert_eq!(p.entries[0].arch, 90);
        assert_eq!(p.entries[0].payload, b"\x7fELFcode");
        assert_eq!(p.entries[1].ptx_text(), Some(".version 9.0\n.target sm_90"));
        assert_eq!(p.entries[2].compression, Compression::Zstd);
        assert_eq!(p.entries[2].ptx_text(), None);
        assert_eq!(p.total_size as usize, c.len());
        assert!(p.runs_on(90));
        assert!(!p.runs_on(80));
        assert!(p.runs_on(120), "PTX JIT-compiles on newer GPUs");
        assert_eq!(p.summary(), "sm_90 ELF 8 B, compute_90 PTX 29 B, compute_100 PTX 2 B (zstd, 0 B)");
    }

    #[test]
    fn elf_only_runs_on_same_major() {
        let c = container(&[entry(2, 80, 0x11, b"x", 64)]);
        let p = parse(&c).unwrap();
        assert!(p.runs_on(86));
        assert!(!p.runs_on(90));
        assert!(!p.runs_on(75));
    }

    #[test]
    fn malformed_input_is_an_error() {
        assert!(matches!(parse(&[]), Err(Error::Truncated { .. })));
        assert!(matches!(parse(&[0u8; 16]), Err(Error::BadMagic(0))));
        let mut c = container(&[entry(2, 90, 0, b"abc", 64)]);
        // Truncated entry.
        assert!(matches!(parse(&c[..c.len() - 1]), Err(Error::Truncated { .. })));
        // Entry size pointing past the end.
        c[16 + 8] = 0xff;
        assert!(parse(&c).is_err());
        // Header size too small.
        let mut c = container(&[entry(2, 90, 0, b"abc", 64)]);
        c[6] = 4;
        assert!(matches!(parse(&c), Err(Error::BadHeaderSize(4))));
        // Entry header size too small.
        let mut c = container(&[entry(2, 90, 0, b"abc", 64)]);
        c[16 + 4] = 8;
        assert!(matches!(parse(&c), Err(Error::BadHeaderSize(8))));
        // Huge claimed size.
        let mut c = container(&[]);
        c[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(parse(&c).is_err());
        // Every truncation of a valid container fails cleanly.
        let c = container(&[entry(2, 90, 0, b"abc", 64), entry(1, 90, 0, b"ptx", 80)]);
        for n in 0..c.len() {
            assert!(parse(&c[..n]).is_err(), "{n}");
        }
    }

    /// Real nvcc 13 output (`-gencode arch=compute_90,code=[sm_90,compute_90]`),
    /// shared with the fuzz corpus.
    #[test]
    fn parses_real_nvcc_fatbins() {
        let plain = include_bytes!("../fuzz/corpus/fatbin/nvcc_sm90_ptx_uncompressed.fatbin");
        let p = parse(plain).unwrap();
        assert_eq!(p.total_size as usize, plain.len());
        assert_eq!(p.entries.len(), 2);
        assert_eq!((p.entries[0].kind, p.entries[0].arch, p.entries[0].compression), (Kind::Elf, 90, Compression::None));
        assert!(p.entries[0].payload.starts_with(b"\x7fELF"));
        assert_eq!((p.entries[1].kind, p.entries[1].version), (Kind::Ptx, (9, 0)));
        assert!(p.entries[1].ptx_text().unwrap().contains(".entry _Z2k1idcPi"));

        let zstd = include_bytes!("../fuzz/corpus/fatbin/nvcc_sm90_ptx_zstd.fatbin");
        let p = parse(zstd).unwrap();
        assert_eq!(p.entries[0].compression, Compression::None, "nvcc 13 leaves ELF uncompressed by default");
        assert_eq!(p.entries[1].compression, Compression::Zstd);
        assert_eq!((p.entries[1].payload.len(), p.entries[1].uncompressed_size), (554, 1493));
        assert_eq!(p.summary(), "sm_90 ELF 8016 B, compute_90 PTX 554 B (zstd, 1493 B)");

        let all = include_bytes!("../fuzz/corpus/fatbin/nvcc_sm90_all_compressed.fatbin");
        let p = parse(all).unwrap();
        assert!(p.entries.iter().all(|e| e.compression == Compression::Zstd));
        assert!(p.runs_on(90) && !p.runs_on(80));
    }

    #[test]
    fn empty_container_has_no_entries() {
        let c = container(&[]);
        let p = parse(&c).unwrap();
        assert!(p.entries.is_empty());
        assert!(!p.runs_on(90));
    }
}
