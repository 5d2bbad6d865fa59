//! Which track an event is drawn on, and the track's name. Host threads
//! are tracks by OS thread id (< 2^22); NVTX push/pop ranges get one track
//! per thread and domain ([`nvtx_track`], 2^28 and up); each device
//! stream's GPU work gets one ([`gpu_track`], trace-format's, 2^30 and up,
//! which the protobuf reader inverts).

use super::names::{self, Kind};
use std::borrow::Cow;

/// The track of NVTX push/pop ranges of domain `domain` on thread `tid`.
pub fn nvtx_track(tid: i32, domain: u32) -> i32 {
    // Above every real thread id (< 2^22), below the GPU tracks (2^30).
    (1 << 28) + ((domain.min(63) as i32) << 22) + (tid & 0x3f_ffff)
}

/// The track of a device's stream (CUPTI's stream id).
pub fn gpu_track(device: u32, stream: u32) -> u32 {
    trace_format::perfetto::gpu_track_tid(device, stream)
}

/// A GPU track's name: `GPU D stream S`, with the names given through
/// NVTX (a stream named before its first GPU work shows; a device).
pub fn gpu_track_name(device: u32, stream: u32) -> String {
    let dev = names::name_of(Kind::Device, device as u64).map_or_else(|| format!("GPU {device}"), |n| format!("GPU {device} ({n})"));
    match names::stream_name(stream) {
        Some(n) => format!("{dev} stream {stream} ({n})"),
        None => format!("{dev} stream {stream}"),
    }
}

/// A host thread's track name: the name the program gave the thread
/// through NVTX wins over `os_name` (the thread's own).
pub fn thread_name(tid: i32, os_name: &str) -> Cow<'_, str> {
    match names::name_of(Kind::Thread, tid as u64) {
        Some(n) => Cow::Owned(n),
        None => Cow::Borrowed(os_name),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn nvtx_tracks_sit_between_threads_and_gpu() {
        let t = super::nvtx_track(4_000_000, 63);
        assert!(t > 4_194_304 && t < 1 << 30);
        assert_ne!(super::nvtx_track(5, 0), super::nvtx_track(5, 1));
    }
}
