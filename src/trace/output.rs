//! Trace files: created only at the path named, mode 0600, never through a
//! symbolic link (`O_NOFOLLOW`), close-on-exec.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::os::fd::AsRawFd;

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
            Some(p) => match create(p, append) {
                Ok(f) => Sink::File(f, p.to_owned()),
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
    fn never_follows_a_planted_link_and_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let d = std::env::temp_dir().join(format!("cudart-shim-out-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let victim = d.join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let link = d.join("trace.json");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        assert!(create(link.to_str().unwrap(), false).is_err());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        let p = d.join("new.json");
        let _ = std::fs::remove_file(&p);
        drop(create(p.to_str().unwrap(), false).unwrap());
        assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o600);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
