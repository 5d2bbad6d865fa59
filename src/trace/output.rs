//! Trace files: created only at the path named, mode 0600, never through a
//! symbolic link (`O_NOFOLLOW`), close-on-exec; and what each records about
//! the process that wrote it ([`process_record`]).
//!
//! Under `cudart-shim trace` (`CUDART_SHIM_TRACE_SESSION` names the run's
//! private folder) the processes of one run never write the same file: each
//! claims a file name in `<session>/claims` (`O_EXCL`) before creating it; a
//! process that finds its name taken by another writes `NAME.<pid>.EXT`
//! instead and says so. Each file written is listed in `<session>/outputs`,
//! one line per file (`what<TAB>pid<TAB>rank<TAB>runtime<TAB>absolute
//! path`), for the command to name them when the program ends.

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt;
use std::os::fd::AsRawFd;
use std::ffi::CStr;
use std::sync::OnceLock;
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

/// Create a trace file as [`create`] does, first claiming its name (see
/// the module note): a name another cudart-shim runtime of this process
/// holds (a process that uses both libcudart.so.12 and .13) becomes
/// `NAME.cudart12.EXT` (this runtime's tag, [`runtime_tag`]); inside a
/// `cudart-shim trace` run, a name another process holds becomes
/// `NAME.<pid>.EXT`. Returns the file and the path actually written.
/// (The tagged name is not claimed in the process: only two runtimes exist.)
pub fn create_claimed(path: &str, append: bool, what: &str) -> std::io::Result<(File, String)> {
    let mut actual = path.to_owned();
    let mut other_runtime = claim_in_process(path).err();
    if let Some(session) = crate::config::trace_config().session.as_deref() {
        let pid = std::process::id();
        if other_runtime.is_none()
            && let Err((holder_pid, holder)) = claim(session, path)
        {
            if holder_pid == Some(pid) {
                // This process's other runtime, loaded where this one could
                // not see it (RTLD_LOCAL): the session's claim tells.
                other_runtime = Some(holder);
            } else {
                actual = with_tag(path, &pid.to_string());
                log::warn!(
                    "the {what} file {path} is already written by another process of this run ({holder}); this process (pid {pid}) writes {actual} instead (put %p or %r in the name to choose)"
                );
                let _ = claim(session, &actual);
            }
        }
        if other_runtime.is_some() {
            actual = with_tag(path, runtime_tag());
            let _ = claim(session, &actual);
        }
    } else if other_runtime.is_some() {
        actual = with_tag(path, runtime_tag());
    }
    if let Some(holder) = other_runtime {
        // The summaries `cudart-shim trace` collects in its folder are its
        // own business: it prints each under its runtime's name.
        let session_file = crate::config::trace_config().session.as_deref().is_some_and(|s| absolute(path).starts_with(&absolute(s)));
        if !session_file {
            log::warn!(
                "the {what} file {path} is written by this process's other cudart-shim runtime ({holder}); this runtime ({}) writes {actual}",
                runtime_soname().unwrap_or("?")
            );
        }
    }
    let f = create(&actual, append)?;
    if let Some(session) = crate::config::trace_config().session.as_deref() {
        list_output(session, what, &actual);
    }
    Ok((f, actual))
}

/// The tag this runtime puts in a file name another runtime of the process
/// holds: `cudart12` for libcudart.so.12, `cudart13` for .13.
fn runtime_tag() -> &'static str {
    match runtime_soname() {
        Some("libcudart.so.12") => "cudart12",
        Some("libcudart.so.13") => "cudart13",
        _ => "cudart",
    }
}

/// The file names this runtime writes (see [`claim_in_process`]).
static IN_PROCESS: parking_lot::Mutex<Vec<String>> = parking_lot::Mutex::new(Vec::new());

/// Whether this runtime writes `path` (made absolute): 1 if it does, else
/// 0. Every cudart-shim runtime library exports it; the other runtime of
/// the process asks it before taking a name (see [`claim_in_process`]).
///
/// # Safety
/// `path` is NULL or a NUL-terminated string.
///
/// cbindgen:ignore
#[unsafe(no_mangle)]
#[allow(non_snake_case)]
pub unsafe extern "C" fn cudartShimInternalWritesOutput(path: *const libc::c_char) -> libc::c_int {
    std::panic::catch_unwind(|| {
        if path.is_null() {
            return 0;
        }
        // SAFETY: per the contract.
        let p = unsafe { std::ffi::CStr::from_ptr(path) }.to_string_lossy();
        IN_PROCESS.lock().iter().any(|q| *q == p) as libc::c_int
    })
    .unwrap_or(0)
}

type WritesFn = unsafe extern "C" fn(*const libc::c_char) -> libc::c_int;

/// The other cudart-shim runtimes of this process: every loaded object
/// named `libcudart.so.12` or `.13` that defines
/// [`cudartShimInternalWritesOutput`] at another address than ours, with
/// its name. Found by walking the loaded objects (`trace::loaded`, which
/// runs no initializer), so a copy loaded `RTLD_LOCAL` (a Python
/// extension module's libcudart) is found too, not only the global
/// scope's first.
fn other_runtimes() -> Vec<(WritesFn, String)> {
    let mine = cudartShimInternalWritesOutput as WritesFn as usize;
    let mut out: Vec<(WritesFn, String)> = Vec::new();
    for o in super::loaded::objects() {
        let name = match o.soname().map(CStr::to_bytes) {
            Some(b"libcudart.so.13") => "libcudart.so.13",
            Some(b"libcudart.so.12") => "libcudart.so.12",
            _ => continue,
        };
        let Some(f) = o.symbol(c"cudartShimInternalWritesOutput") else { continue };
        if f as usize == mine || out.iter().any(|x| x.0 as usize == f as usize) {
            continue;
        }
        // Keep that runtime loaded: we may call it again. (Its file is a
        // cudart-shim runtime, already initialized or harmless to
        // initialize: its initializers only set up its own statics.)
        let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
        // SAFETY: an address inside a loaded object; info is an out-struct.
        if unsafe { libc::dladdr(f, &mut info) } != 0 && !info.dli_fname.is_null() {
            unsafe { libc::dlopen(info.dli_fname, libc::RTLD_LAZY | libc::RTLD_NOLOAD | libc::RTLD_NODELETE) };
        }
        // SAFETY: the symbol has this type in every copy (defined above).
        out.push((unsafe { std::mem::transmute::<*const libc::c_void, WritesFn>(f) }, name.to_owned()));
    }
    out
}

/// Claim `path` among this process's cudart-shim runtimes (two copies of
/// this crate, each with its own statics): Err(holder) when another
/// runtime of the process writes it. Each runtime keeps the names it
/// writes and answers the others' question
/// ([`cudartShimInternalWritesOutput`]); claims are rare (one per output
/// file), so asking costs nothing that matters.
fn claim_in_process(path: &str) -> Result<(), String> {
    if runtime_soname().is_none() {
        return Ok(());
    }
    let abs = absolute(path);
    // Our table is not locked while the others are asked: two runtimes
    // asking each other at once would otherwise wait on each other. (Two
    // runtimes opening the same name at the same instant can both take it;
    // they open their outputs at their first call.)
    if let Ok(c) = std::ffi::CString::new(abs.as_str()) {
        for (writes, who) in other_runtimes() {
            // SAFETY: a C string alive for the call.
            if unsafe { writes(c.as_ptr()) } != 0 {
                return Err(who);
            }
        }
    }
    IN_PROCESS.lock().push(abs);
    Ok(())
}

/// Absolute form of `path` (relative to the current directory), the key
/// under which processes with different working directories meet.
fn absolute(path: &str) -> String {
    std::path::absolute(path).map_or_else(|_| path.to_owned(), |p| p.to_string_lossy().into_owned())
}

/// Claim `path` in the session; Err((its pid, who holds it)) when another
/// process, or another runtime of this one, did.
fn claim(session: &str, path: &str) -> Result<(), (Option<u32>, String)> {
    use std::hash::{Hash, Hasher};
    let abs = absolute(path);
    // DefaultHasher::new() has fixed keys: every process of the run (one
    // library build) names a path's claim alike.
    let mut h = std::collections::hash_map::DefaultHasher::new();
    abs.hash(&mut h);
    let claim = format!("{session}/claims/{:016x}", h.finish());
    match OpenOptions::new().write(true).create_new(true).mode(0o600).custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC).open(&claim) {
        Ok(mut f) => {
            let _ = writeln!(f, "{} {}", std::process::id(), runtime_soname().unwrap_or("cudart-shim"));
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let who = std::fs::read_to_string(&claim).unwrap_or_default();
            let mut w = who.split_whitespace();
            let pid = w.next().and_then(|p| p.parse().ok());
            let runtime = w.next().unwrap_or("?");
            Err((pid, format!("pid {} on {runtime}", pid.map_or_else(|| "?".to_owned(), |p: u32| p.to_string()))))
        }
        // No claims folder (not made by the command): nothing to coordinate.
        Err(_) => Ok(()),
    }
}

/// `dir/trace.json` -> `dir/trace.<tag>.json` (`trace` -> `trace.<tag>`).
pub fn with_tag(path: &str, tag: &str) -> String {
    let name_at = path.rfind('/').map_or(0, |i| i + 1);
    match path[name_at..].rfind('.').filter(|&i| i > 0) {
        Some(dot) => format!("{}.{tag}{}", &path[..name_at + dot], &path[name_at + dot..]),
        None => format!("{path}.{tag}"),
    }
}

/// Add a line to `<session>/outputs` (made by the command; never created
/// here). One `write` of a short line with `O_APPEND`: lines of concurrent
/// processes never mix.
fn list_output(session: &str, what: &str, path: &str) {
    let Ok(f) = OpenOptions::new().append(true).custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC).open(format!("{session}/outputs")) else {
        return;
    };
    // Empty for a process with no rank.
    let rank = crate::config::rank(crate::config::env_var).unwrap_or_default();
    let runtime = runtime_soname().unwrap_or("");
    let line = format!("{what}\t{}\t{rank}\t{runtime}\t{}\n", std::process::id(), absolute(path).replace(['\t', '\n'], " "));
    write_all(f.as_raw_fd(), line.as_bytes());
}

/// Runtime ordinals of the devices the process used, for the record: set
/// by the runtime (this layer is below it).
static DEVICE_LISTER: std::sync::OnceLock<fn() -> Vec<i32>> = std::sync::OnceLock::new();

/// Register the function that lists the devices used (see [`DEVICE_LISTER`]).
pub fn set_device_lister(f: fn() -> Vec<i32>) {
    let _ = DEVICE_LISTER.set(f);
}

/// The SONAME of the runtime library this code was linked into
/// (`libcudart.so.13` or `libcudart.so.12`), or None when it is neither
/// (the crate linked into a test program). The two libraries are links of
/// one crate, so the code cannot know at compile time: the `DT_SONAME` of
/// the object holding this function is the answer (read from the mapped
/// object, `trace::loaded`). Found once.
pub fn runtime_soname() -> Option<&'static str> {
    static SONAME: OnceLock<Option<&'static str>> = OnceLock::new();
    *SONAME.get_or_init(|| match super::loaded::object_of(runtime_soname as *const libc::c_void)?.soname()?.to_bytes() {
        b"libcudart.so.13" => Some("libcudart.so.13"),
        b"libcudart.so.12" => Some("libcudart.so.12"),
        _ => None,
    })
}

/// The record of this process for an output file, with the clock sample
/// taken at start and one taken now.
pub fn process_record() -> Process {
    let mut p = crate::config::process_identity(crate::config::env_var, std::process::id());
    p.runtime = runtime_soname().map(str::to_owned);
    // The devices whose primary context our runtime retained, and those
    // the memory ledger booked allocations on (driver-only programs: VMM,
    // cuMemAlloc through the interposer).
    let mut devices = DEVICE_LISTER.get().map(|f| f()).unwrap_or_default();
    devices.extend(crate::ledger::book::devices());
    devices.sort_unstable();
    devices.dedup();
    p.devices = devices;
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
        assert_eq!(with_tag("out/trace.json", "7"), "out/trace.7.json");
        assert_eq!(with_tag("a.d/trace", "7"), "a.d/trace.7");
        assert_eq!(with_tag(".hidden", "7"), ".hidden.7");
        assert_eq!(with_tag("calls.log.txt", "cudart12"), "calls.log.cudart12.txt");
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
