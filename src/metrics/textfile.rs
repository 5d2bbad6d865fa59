//! The textfile for node_exporter's textfile collector: Prometheus' text
//! format, rewritten every interval by a task of the service thread
//! (`crate::service`) and once more at exit. Each rewrite is written to a temporary file in the same folder
//! (`.NAME.<pid>.tmp`: not `*.prom`, so the collector never reads it) and
//! renamed over the file: a reader sees the old file or the new one,
//! never half of one. Mode 0644: node_exporter runs as another user.
//!
//! The exit write comes after the trace's final flush (its GPU records)
//! and is the last: the thread writes nothing after it (a rewrite that was
//! under way when exit began finishes first, under the same lock, so it
//! cannot rename an older file over the final one).

use parking_lot::Mutex;
use std::fs::OpenOptions;
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Duration;

/// The file written (the expanded path), once started.
static PATH: Mutex<Option<String>> = Mutex::new(None);
/// Set by the final write: nothing is written after it.
static FINAL: AtomicBool = AtomicBool::new(false);

/// Write the file now and have the service thread (`crate::service`, our
/// one ticking thread) rewrite it every `interval_s` seconds. A file that
/// cannot be written: one warning, no task, the program runs on.
pub fn start(path: &str, interval_s: f64) {
    // The name is claimed as every trace file's is (`trace::output`): a
    // name another process of a `cudart-shim trace` run, or this process's
    // other runtime, already writes becomes NAME.<pid>.prom (or
    // NAME.cudart12.prom), with a warning.
    let path = crate::trace::output::claim_for_rename(path, "metrics");
    let path = path.as_str();
    if let Err(e) = write(path) {
        log::warn!("metrics: cannot write {path:?} ({e}); no metrics textfile");
        return;
    }
    *PATH.lock() = Some(path.to_owned());
    if !crate::service::register(task, Duration::from_secs_f64(interval_s)) {
        log::warn!("metrics: no service thread; {path:?} is written at exit only");
    }
}

/// The service thread's task: one rewrite; unregistered after the final one.
fn task(_: crate::service::Tick) {
    if !tick() {
        crate::service::unregister(task);
    }
}

/// One periodic rewrite: false once the final write is done (stop ticking).
pub fn tick() -> bool {
    if FINAL.load(Relaxed) {
        return false;
    }
    let guard = PATH.lock();
    if FINAL.load(Relaxed) {
        return false;
    }
    if let Some(p) = guard.as_deref()
        && let Err(e) = write(p)
    {
        log_once(p, &e);
    }
    true
}

/// The final write, at exit.
pub fn last() {
    // A forked child (FINAL set) returns before the lock, which its
    // parent's thread may have held at the fork.
    if FINAL.load(Relaxed) {
        return;
    }
    let guard = PATH.lock();
    if FINAL.swap(true, Relaxed) {
        return;
    }
    if let Some(p) = guard.as_deref()
        && let Err(e) = write(p)
    {
        log_once(p, &e);
    }
}

fn log_once(path: &str, e: &std::io::Error) {
    static SAID: AtomicBool = AtomicBool::new(false);
    if !SAID.swap(true, Relaxed) {
        log::warn!("metrics: cannot rewrite {path:?} ({e}); it keeps its last contents");
    }
}

/// The temporary file of `path`: same folder, hidden, not `*.prom`.
fn temp_of(path: &str) -> String {
    let (dir, name) = match path.rfind('/') {
        Some(i) => (&path[..=i], &path[i + 1..]),
        None => ("", path),
    };
    format!("{dir}.{name}.{}.tmp", std::process::id())
}

/// Render and replace the file (temporary file, then rename).
fn write(path: &str) -> std::io::Result<()> {
    let text = super::render(false);
    let tmp = temp_of(path);
    let mut f = OpenOptions::new().write(true).create(true).truncate(true).mode(0o644).custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC).open(&tmp)?;
    let r = f.write_all(text.as_bytes()).and_then(|()| std::fs::rename(&tmp, path));
    if r.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    r
}

/// A forked child writes no textfile (the service thread, its parent's,
/// is not there, and the child's forgets the parent's tasks).
pub fn in_forked_child() {
    FINAL.store(true, Relaxed);
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_temporary_file_is_beside_and_never_a_prom_file() {
        let pid = std::process::id();
        assert_eq!(super::temp_of("/var/lib/t/a.prom"), format!("/var/lib/t/.a.prom.{pid}.tmp"));
        assert_eq!(super::temp_of("a.prom"), format!(".a.prom.{pid}.tmp"));
    }
}
