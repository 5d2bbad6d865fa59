//! Trace files: created only at the path named, mode 0600, never through a
//! symbolic link (`O_NOFOLLOW`), close-on-exec; and what each records about
//! the process that wrote it ([`process_record`]).
//!
//! Under `cudart-shim trace` (`CUDART_SHIM_TRACE_SESSION` names the run's
//! private folder) the processes of one run never write the same file: each
//! claims a file name in `<session>/claims` (`O_EXCL`) before creating it; a
//! process that finds its name taken by another writes `NAME.<pid>.EXT`
//! instead and says so. Each file written is listed in `<session>/outputs`,
//! one line per file (`what<TAB>pid<TAB>rank<TAB>absolute path`), for the
//! command to name them when the program ends.

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt;
use std::os::fd::AsRawFd;
use trace_format::process::Process;

/// Create (or truncate) `path` for writing. `append`: every write lands at
/// the end (`O_APPEND`), so lines written by many threads never overwrite
/// each other.
pub fn create(path: &str, append: bool) -> std::io::Result<File> {
    // O_APPEND as a raw flag: std refuses append + truncate together.
    let extra = if append { libc::O_APPEND } else { 0 };
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | extra)
        .open(path)
        .map_err(|e| explain(e, path))
}

/// `O_NOFOLLOW` on a link fails with ELOOP ("Too many levels of symbolic
/// links"), which says nothing of why: say it.
fn explain(e: std::io::Error, path: &str) -> std::io::Error {
    if e.raw_os_error() == Some(libc::ELOOP) && std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return std::io::Error::new(
            e.kind(),
            format!(
                "{path} is a symbolic link, and trace files are never written through one (a link planted in a shared folder could make the program overwrite another file); remove the link or name another file"
            ),
        );
    }
    e
}

/// Create a trace file as [`create`] does; inside a `cudart-shim trace`
/// run, first claim its name (see the module note). Returns the file and
/// the path actually written.
pub fn create_claimed(path: &str, append: bool, what: &str) -> std::io::Result<(File, String)> {
    let Some(session) = crate::config::trace_config().session.as_deref() else {
        return create(path, append).map(|f| (f, path.to_owned()));
    };
    let pid = std::process::id();
    let mut actual = path.to_owned();
    if let Err(holder) = claim(session, path) {
        actual = with_pid(path, pid);
        log::warn!(
            "the {what} file {path} is already written by another process of this run ({holder}); this process (pid {pid}) writes {actual} instead (put %p or %r in the name to choose)"
        );
        let _ = claim(session, &actual);
    }
    let f = create(&actual, append)?;
    list_output(session, what, &actual);
    Ok((f, actual))
}

/// Absolute form of `path` (relative to the current directory), the key
/// under which processes with different working directories meet.
fn absolute(path: &str) -> String {
    std::path::absolute(path).map_or_else(|_| path.to_owned(), |p| p.to_string_lossy().into_owned())
}

/// Claim `path` in the session; Err(who holds it) when another process did.
fn claim(session: &str, path: &str) -> Result<(), String> {
    use std::hash::{Hash, Hasher};
    let abs = absolute(path);
    // DefaultHasher::new() has fixed keys: every process of the run (one
    // library build) names a path's claim alike.
    let mut h = std::collections::hash_map::DefaultHasher::new();
    abs.hash(&mut h);
    let claim = format!("{session}/claims/{:016x}", h.finish());
    match OpenOptions::new().write(true).create_new(true).mode(0o600).custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC).open(&claim) {
        Ok(mut f) => {
            let _ = writeln!(f, "{}", std::process::id());
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let who = std::fs::read_to_string(&claim).unwrap_or_default();
            Err(format!("pid {}", who.trim()))
        }
        // No claims folder (not made by the command): nothing to coordinate.
        Err(_) => Ok(()),
    }
}

/// `dir/trace.json` -> `dir/trace.<pid>.json` (`trace` -> `trace.<pid>`).
pub fn with_pid(path: &str, pid: u32) -> String {
    let name_at = path.rfind('/').map_or(0, |i| i + 1);
    match path[name_at..].rfind('.').filter(|&i| i > 0) {
        Some(dot) => format!("{}.{pid}{}", &path[..name_at + dot], &path[name_at + dot..]),
        None => format!("{path}.{pid}"),
    }
}

/// Add a line to `<session>/outputs` (made by the command; never created
/// here). One `write` of a short line with `O_APPEND`: lines of concurrent
/// processes never mix.
fn list_output(session: &str, what: &str, path: &str) {
    let Ok(f) = OpenOptions::new().append(true).custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC).open(format!("{session}/outputs")) else {
        return;
    };
    let rank = crate::config::rank(crate::config::env_var);
    let line = format!("{what}\t{}\t{rank}\t{}\n", std::process::id(), absolute(path).replace(['\t', '\n'], " "));
    write_all(f.as_raw_fd(), line.as_bytes());
}

/// Runtime ordinals of the devices the process used, for the record: set
/// by the runtime (this layer is below it).
static DEVICE_LISTER: std::sync::OnceLock<fn() -> Vec<i32>> = std::sync::OnceLock::new();

/// Register the function that lists the devices used (see [`DEVICE_LISTER`]).
pub fn set_device_lister(f: fn() -> Vec<i32>) {
    let _ = DEVICE_LISTER.set(f);
}

/// The record of this process for an output file, with the clock sample
/// taken at start and one taken now.
pub fn process_record() -> Process {
    let mut p = crate::config::process_identity(crate::config::env_var, std::process::id());
    p.devices = DEVICE_LISTER.get().map(|f| f()).unwrap_or_default();
    p.clock = super::clock::start_sample().into_iter().chain([super::clock::sample()]).collect();
    p
}

/// Where the summary or the call log goes.
pub enum Sink {
    Stderr,
    File(File, String),
}

impl Sink {
    pub fn open(path: Option<&str>, append: bool, what: &str) -> Sink {
        match path {
            None => Sink::Stderr,
            Some(p) => match create_claimed(p, append, what) {
                Ok((f, p)) => Sink::File(f, p),
                Err(e) => {
                    log::warn!("cannot create the {what} file {p:?} ({e}); writing the {what} to stderr instead");
                    Sink::Stderr
                }
            },
        }
    }

    pub fn fd(&self) -> i32 {
        match self {
            Sink::Stderr => 2,
            Sink::File(f, _) => f.as_raw_fd(),
        }
    }

    pub fn path(&self) -> Option<&str> {
        match self {
            Sink::Stderr => None,
            Sink::File(_, p) => Some(p),
        }
    }

    /// A `# cudart-shim WHEN: <process record>` line, in a file only.
    pub fn note_process(&self, when: &str) {
        if let Sink::File(f, _) = self {
            write_all(f.as_raw_fd(), format!("# cudart-shim {when}: {}\n", process_record().to_line()).as_bytes());
        }
    }
}

/// Write all of `buf` to `fd`. One `write` for a whole line in the common
/// case: with `O_APPEND` (files) or below `PIPE_BUF` (pipes) the kernel
/// keeps it in one piece, so lines from different threads never tear.
pub fn write_all(fd: i32, mut buf: &[u8]) {
    while !buf.is_empty() {
        // SAFETY: buf is a valid slice; fd is ours or stderr.
        let n = unsafe { libc::write(fd, buf.as_ptr().cast(), buf.len()) };
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        buf = &buf[n as usize..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pid_suffix_goes_before_the_extension() {
        assert_eq!(with_pid("out/trace.json", 7), "out/trace.7.json");
        assert_eq!(with_pid("a.d/trace", 7), "a.d/trace.7");
        assert_eq!(with_pid(".hidden", 7), ".hidden.7");
        assert_eq!(with_pid("calls.log.txt", 7), "calls.log.7.txt");
    }

    #[test]
    fn never_follows_a_planted_link_and_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let d = std::env::temp_dir().join(format!("cudart-shim-out-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let victim = d.join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let link = d.join("trace.json");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let e = create(link.to_str().unwrap(), false).unwrap_err().to_string();
        assert!(e.contains("is a symbolic link, and trace files are never written through one"), "{e}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        let p = d.join("new.json");
        let _ = std::fs::remove_file(&p);
        drop(create(p.to_str().unwrap(), false).unwrap());
        assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o600);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
