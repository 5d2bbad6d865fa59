//! Which cudart-shim libraries `trace` preloads and `doctor` checks.
//!
//! Two runtimes are built from one crate: `libcudart_shim.so` (SONAME
//! `libcudart.so.13`) and `libcudart_shim12.so` (SONAME `libcudart.so.12`),
//! side by side in `target/<profile>/` (and in the install layout's `lib/`).
//! A library's SONAME, read from its file, says which ABI it serves.
//!
//! Which to preload for a program ([`Needs`]): for an ELF program, the
//! dynamic loader's own list of its load closure (the program's
//! `PT_INTERP` run as `LD_TRACE_LOADED_OBJECTS=1 INTERP PROGRAM`, as ldd
//! does, never the program itself, so a static or setuid program is not
//! run by it: the loader resolves every
//! DT_NEEDED with the program's RPATH/RUNPATH, the library path and its
//! cache, and runs none of the program's code; reading DT_NEEDED here would
//! have to redo all of that). The closure names `libcudart.so.13`,
//! `libcudart.so.12` or both: exactly those are preloaded. A program whose
//! closure names neither (an interpreter: python, torchrun, a shell
//! script, which may load either later with dlopen), a static program (no
//! `PT_INTERP`: the loader is not run, and LD_PRELOAD does nothing there
//! anyway), or one that cannot be listed: both are preloaded. A preloaded
//! runtime that the process never calls stays inert (no thread, no output,
//! no driver).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Why no library: `exit_code` is what the command exits with.
pub struct NotFound {
    pub message: String,
    pub exit_code: ExitCode,
}

fn usage(message: String) -> NotFound {
    NotFound { message, exit_code: ExitCode::from(2) }
}

/// The two ABIs, by the SONAME a program asks for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Abi {
    V13,
    V12,
}

impl Abi {
    pub fn soname(self) -> &'static str {
        match self {
            Abi::V13 => "libcudart.so.13",
            Abi::V12 => "libcudart.so.12",
        }
    }

    /// The file name the build gives the library of this ABI.
    pub fn file_name(self) -> &'static str {
        match self {
            Abi::V13 => "libcudart_shim.so",
            Abi::V12 => "libcudart_shim12.so",
        }
    }

    fn other(self) -> Abi {
        match self {
            Abi::V13 => Abi::V12,
            Abi::V12 => Abi::V13,
        }
    }

    pub fn of_soname(s: &str) -> Option<Abi> {
        match s {
            "libcudart.so.13" => Some(Abi::V13),
            "libcudart.so.12" => Some(Abi::V12),
            _ => None,
        }
    }
}

/// The runtime libraries found: at least one.
#[derive(Debug)]
pub struct Libraries {
    pub v13: Option<PathBuf>,
    pub v12: Option<PathBuf>,
    /// The ABI of the library `--library` (or `$CUDART_SHIM_LIBRARY`) named.
    pub named: Option<Abi>,
}

impl Libraries {
    pub fn get(&self, abi: Abi) -> Option<&Path> {
        match abi {
            Abi::V13 => self.v13.as_deref(),
            Abi::V12 => self.v12.as_deref(),
        }
    }

    /// The library whose folder holds the driver interposer (`driver/`):
    /// the 13 one, else the 12 one (the build puts both in one folder).
    pub fn primary(&self) -> &Path {
        self.v13.as_deref().or(self.v12.as_deref()).expect("at least one library")
    }
}

/// Both runtime libraries: the one `--library` (or `$CUDART_SHIM_LIBRARY`)
/// names, whose SONAME decides its ABI (a file that is neither
/// `libcudart.so.13` nor `.12` is a usage error), and the other ABI's
/// beside it; without one named, `libcudart_shim.so` and
/// `libcudart_shim12.so` in the first folder of [`search_dirs`] holding
/// either. A path named and missing is a usage error, exit 2: never a
/// silent fall back to another library.
pub fn find_all(explicit: Option<PathBuf>) -> Result<Libraries, NotFound> {
    let named = explicit.map(|p| (p, "--library")).or_else(|| std::env::var_os("CUDART_SHIM_LIBRARY").map(|p| (p.into(), "CUDART_SHIM_LIBRARY")));
    if let Some((p, by)) = named {
        if !p.is_file() {
            let why = if p.exists() { "is not a file" } else { "does not exist" };
            return Err(usage(format!("{by} {}: {why}", p.display())));
        }
        let p = std::fs::canonicalize(&p).map_err(|e| usage(format!("{}: {e}", p.display())))?;
        let abi = match soname(&p) {
            Some(s) => Abi::of_soname(&s).ok_or_else(|| {
                usage(format!("{by} {}: its SONAME is {s}, not a cudart-shim runtime (libcudart.so.13 or libcudart.so.12)", p.display()))
            })?,
            None => return Err(usage(format!("{by} {}: not a shared library with a SONAME (not a cudart-shim runtime)", p.display()))),
        };
        let other = p.parent().map(|d| d.join(abi.other().file_name())).filter(|o| o.is_file()).and_then(|o| std::fs::canonicalize(o).ok());
        let (v13, v12) = match abi {
            Abi::V13 => (Some(p), other),
            Abi::V12 => (other, Some(p)),
        };
        return Ok(Libraries { v13, v12, named: Some(abi) });
    }
    let exe = std::env::current_exe().ok();
    let dirs = search_dirs(exe.as_deref().and_then(Path::parent));
    for d in &dirs {
        let get = |abi: Abi| {
            let f = d.join(abi.file_name());
            if f.is_file() { std::fs::canonicalize(&f).ok() } else { None }
        };
        let (v13, v12) = (get(Abi::V13), get(Abi::V12));
        if v13.is_some() || v12.is_some() {
            return Ok(Libraries { v13, v12, named: None });
        }
    }
    let tried: Vec<String> = dirs.iter().map(|c| c.join("libcudart_shim.so").display().to_string()).collect();
    Err(NotFound {
        message: format!(
            "libcudart_shim.so not found (tried {}); build it with `cargo build --release`, install the wheel (`pip install cudart-shim-*.whl`), or pass --library",
            tried.join(", ")
        ),
        exit_code: ExitCode::from(127),
    })
}

/// Where the command looks for the two runtimes, in this order (the
/// first folder holding either wins); `exe_dir` is the folder of this
/// command, its links resolved (`/proc/self/exe`):
/// 1. `exe_dir` itself (the build: `target/<profile>/cudart-shim`);
/// 2. `exe_dir/../lib` (an install as `bin/` and `lib/`);
/// 3. the installed Python package `cudart_shim/lib` (the wheel: the
///    command is in the environment's `bin/`, the package in
///    `lib/pythonX.Y/site-packages`, `lib64/...` where platform packages
///    go there, or `dist-packages` on Debian's system Python; and
///    `exe_dir/../cudart_shim/lib` for `pip install --target DIR`, which
///    puts the command in `DIR/bin`), newest Python first;
/// 4. `target/release`, then `target/debug`, under the current folder.
pub fn search_dirs(exe_dir: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(d) = exe_dir {
        dirs.push(d.to_path_buf());
        dirs.push(d.join("../lib"));
        dirs.extend(package_dirs(d));
    }
    for prof in ["release", "debug"] {
        dirs.push(PathBuf::from("target").join(prof));
    }
    dirs
}

/// The `cudart_shim/lib` folders of a Python environment whose scripts
/// folder is `bin` (those that exist), newest Python first.
fn package_dirs(bin: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let prefix = bin.join("..");
    for lib in ["lib", "lib64"] {
        let Ok(entries) = std::fs::read_dir(prefix.join(lib)) else { continue };
        let mut pythons: Vec<(u32, u32, PathBuf)> = entries
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                let (major, minor) = name.strip_prefix("python")?.split_once('.')?;
                Some((major.parse().ok()?, minor.parse().ok()?, e.path()))
            })
            .collect();
        pythons.sort_by_key(|p| std::cmp::Reverse((p.0, p.1)));
        for (_, _, py) in pythons {
            for packages in ["site-packages", "dist-packages"] {
                let d = py.join(packages).join(PACKAGE_LIB);
                if d.is_dir() {
                    found.push(d);
                }
            }
        }
    }
    let target = prefix.join(PACKAGE_LIB);
    if target.is_dir() {
        found.push(target);
    }
    found
}

/// A fresh folder of this run only, `$TMPDIR/cudart-shim-WHAT-PID-NANOS`,
/// mode 0700. A fresh name (pid and clock): never an existing folder,
/// which create() refuses, so nothing planted in the temporary folder is
/// used. The caller removes it.
pub fn private_dir(what: &str) -> std::io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let mut tries = 0;
    loop {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        let dir = std::env::temp_dir().join(format!("cudart-shim-{what}-{}-{nanos:09}", std::process::id()));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && tries < 8 => tries += 1,
            r => return r.map(|()| dir),
        }
    }
}

/// The libraries' folder inside the Python package (python/cudart_shim).
pub const PACKAGE_LIB: &str = "cudart_shim/lib";

/// The driver interposer's file name, as built and as in the wheel.
pub const INTERPOSER_FILE: &str = "libcudart_shim_driver.so";

/// The driver interposer that goes with a runtime library.
pub enum Interposer {
    /// The build's `driver/` folder beside the library (its
    /// `libcuda.so.1` and `libcuda.so` link to `../libcudart_shim_driver.so`).
    Built(PathBuf),
    /// The interposer without its links, beside the library (the wheel: a
    /// wheel cannot hold links). [`Interposer::folder`] links it.
    Unlinked(PathBuf),
    /// Neither: the path where the build would have put it.
    Missing(PathBuf),
}

impl Interposer {
    pub fn of(lib: &Path) -> Interposer {
        let dir = lib.parent().unwrap_or(Path::new("."));
        let built = dir.join("driver");
        if built.join("libcuda.so.1").exists() {
            Interposer::Built(built)
        } else if dir.join(INTERPOSER_FILE).is_file() {
            Interposer::Unlinked(dir.join(INTERPOSER_FILE))
        } else {
            Interposer::Missing(built.join("libcuda.so.1"))
        }
    }

    /// The folder to put first on `LD_LIBRARY_PATH`, where every
    /// `dlopen("libcuda.so.1")` finds the interposer: the build's
    /// `driver/`, or for an unlinked interposer `private/driver/`, made
    /// now with `libcuda.so.1` and `libcuda.so` linking to the
    /// interposer's absolute path. `private` is a folder of this run only
    /// (mode 0700, removed when the run ends), never the package's own:
    /// nothing is written into an installed package at run time. The
    /// interposer finds the runtimes beside its real file (it resolves its
    /// links), so nothing else needs a link: `trace` preloads the runtimes
    /// by path, and the loader matches a preloaded library's SONAME
    /// (`libcudart.so.13`) to every later request for that name.
    pub fn folder(&self, private: &Path) -> Result<PathBuf, String> {
        match self {
            Interposer::Built(d) => Ok(d.clone()),
            Interposer::Missing(p) => Err(format!("the driver interposer {} is missing", p.display())),
            Interposer::Unlinked(file) => {
                let dir = private.join("driver");
                let made = std::fs::create_dir(&dir).and_then(|()| {
                    for name in ["libcuda.so.1", "libcuda.so"] {
                        std::os::unix::fs::symlink(file, dir.join(name))?;
                    }
                    Ok(())
                });
                made.map(|()| dir.clone()).map_err(|e| format!("cannot link the driver interposer {} in {}: {e}", file.display(), dir.display()))
            }
        }
    }
}

/// Which runtimes a program's load closure asks for.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Needs {
    pub v13: bool,
    pub v12: bool,
}

impl Needs {
    pub const BOTH: Needs = Needs { v13: true, v12: true };

    pub fn has(self, abi: Abi) -> bool {
        match abi {
            Abi::V13 => self.v13,
            Abi::V12 => self.v12,
        }
    }
}

/// What `program`'s load closure names, and how that was found (for the
/// message when something cannot be preloaded). No libcudart in the
/// closure, or no closure to list: both (see the module note).
pub fn needs(program: &Path) -> (Needs, String) {
    // The ELF header, the program headers and PT_INTERP's string sit at
    // the start of the file (the linkers put them in the first page).
    let mut elf = Vec::new();
    let read = std::fs::File::open(program).and_then(|f| {
        use std::io::Read;
        f.take(64 << 10).read_to_end(&mut elf)
    });
    if read.is_err() {
        return (Needs::BOTH, "cannot be read".into());
    }
    if elf.starts_with(b"#!") {
        return (Needs::BOTH, "a script".into());
    }
    let Some(interp) = elf_interp(&elf) else { return (Needs::BOTH, "not a dynamically linked ELF program".into()) };
    // The interpreter runs only for a program we are about to run anyway
    // (which runs it too): never for a file we may not execute.
    use std::os::unix::fs::PermissionsExt;
    if !std::fs::metadata(program).is_ok_and(|m| m.permissions().mode() & 0o111 != 0) {
        return (Needs::BOTH, "not executable".into());
    }
    // The loader in list mode (LD_TRACE_LOADED_OBJECTS, as ldd runs it;
    // `--list` stops at the first library not found, where this lists it
    // as "not found") maps the closure without running the program's code,
    // and, started this way, without its setuid privileges. The
    // environment is the caller's: the library path it gives the program.
    let out = std::process::Command::new(&interp)
        .arg(program)
        .env("LD_TRACE_LOADED_OBJECTS", "1")
        .env_remove("LD_PRELOAD")
        .stdin(std::process::Stdio::null())
        .output();
    let Some(out) = out.ok().filter(|o| o.status.success()) else { return (Needs::BOTH, format!("its loader {interp} could not list it")) };
    let listed = closure_needs(&String::from_utf8_lossy(&out.stdout));
    if listed == Needs::default() { (Needs::BOTH, "no libcudart in its load closure".into()) } else { (listed, "its load closure".into()) }
}

/// The libcudart SONAMEs in a loader listing (`NAME => PATH (ADDR)`, or
/// `NAME => not found`: still asked for, and a preload answers it).
fn closure_needs(listing: &str) -> Needs {
    let mut n = Needs::default();
    for l in listing.lines() {
        match l.split_whitespace().next().and_then(Abi::of_soname) {
            Some(Abi::V13) => n.v13 = true,
            Some(Abi::V12) => n.v12 = true,
            None => {}
        }
    }
    n
}

/// Little-endian ELF64 fields.
fn u16_at(b: &[u8], o: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(o..o + 2)?.try_into().ok()?))
}
fn u32_at(b: &[u8], o: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(o..o + 4)?.try_into().ok()?))
}
fn u64_at(b: &[u8], o: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(o..o + 8)?.try_into().ok()?))
}

/// The program headers of a little-endian ELF64 file: (type, offset,
/// vaddr, filesz).
fn program_headers(b: &[u8]) -> Option<Vec<(u32, u64, u64, u64)>> {
    if b.get(0..4)? != b"\x7fELF" || *b.get(4)? != 2 || *b.get(5)? != 1 {
        return None;
    }
    let (phoff, phentsize, phnum) = (u64_at(b, 32)? as usize, u16_at(b, 54)? as usize, u16_at(b, 56)? as usize);
    (0..phnum)
        .map(|i| {
            let o = phoff.checked_add(i.checked_mul(phentsize)?)?;
            Some((u32_at(b, o)?, u64_at(b, o + 8)?, u64_at(b, o + 16)?, u64_at(b, o + 32)?))
        })
        .collect()
}

/// `PT_INTERP` of an ELF64 program: its dynamic loader.
fn elf_interp(b: &[u8]) -> Option<String> {
    const PT_INTERP: u32 = 3;
    let &(_, off, _, size) = program_headers(b)?.iter().find(|h| h.0 == PT_INTERP)?;
    let s = b.get(off as usize..(off as usize).checked_add(size as usize)?)?;
    let s = s.split(|&c| c == 0).next()?;
    (!s.is_empty()).then(|| String::from_utf8_lossy(s).into_owned())
}

/// The SONAME of a shared library file (ELF64, little-endian).
pub fn soname(path: &Path) -> Option<String> {
    const PT_LOAD: u32 = 1;
    const PT_DYNAMIC: u32 = 2;
    const DT_STRTAB: u64 = 5;
    const DT_SONAME: u64 = 14;
    let b = std::fs::read(path).ok()?;
    let phs = program_headers(&b)?;
    let &(_, dyn_off, _, dyn_size) = phs.iter().find(|h| h.0 == PT_DYNAMIC)?;
    let (mut strtab, mut name) = (None, None);
    let mut o = dyn_off as usize;
    while o + 16 <= (dyn_off + dyn_size) as usize {
        match u64_at(&b, o)? {
            0 => break,
            DT_STRTAB => strtab = u64_at(&b, o + 8),
            DT_SONAME => name = u64_at(&b, o + 8),
            _ => {}
        }
        o += 16;
    }
    // DT_STRTAB is an address: the file offset is in the PT_LOAD holding it.
    let addr = strtab?;
    let &(_, off, vaddr, _) = phs.iter().find(|h| h.0 == PT_LOAD && h.2 <= addr && addr < h.2 + h.3)?;
    let at = (addr - vaddr + off + name?) as usize;
    let s = b.get(at..)?.split(|&c| c == 0).next()?;
    Some(String::from_utf8_lossy(s).into_owned())
}

/// What `trace` preloads for a program: the libraries of the ABIs it
/// needs. Err: a message for an explicit library of the wrong ABI (a 12
/// library named for a program that loads only libcudart.so.13, or the
/// reverse: nothing of ours would run, so the trace would be empty).
/// A needed ABI whose library was not built is left out with a warning.
pub fn to_preload(libs: &Libraries, program: &Path) -> Result<Vec<PathBuf>, String> {
    let (need, why) = needs(program);
    if let Some(named) = libs.named
        && !need.has(named)
    {
        let other = named.other();
        return Err(format!(
            "the library named ({}) is {}, but {} loads only {} ({why}): pass a {} library (`{}`), or leave --library out",
            libs.get(named).map_or_else(String::new, |p| p.display().to_string()),
            named.soname(),
            program.display(),
            other.soname(),
            other.soname(),
            other.file_name()
        ));
    }
    let mut out = Vec::new();
    for abi in [Abi::V13, Abi::V12] {
        if !need.has(abi) {
            continue;
        }
        match libs.get(abi) {
            Some(p) => out.push(p.to_path_buf()),
            None => eprintln!(
                "cudart-shim: {} is not built beside {}: {} calls of {} are not traced (build it: cargo build --release)",
                abi.file_name(),
                libs.primary().display(),
                abi.soname(),
                program.display()
            ),
        }
    }
    if out.is_empty() {
        return Err(format!("no cudart-shim library for {} ({why})", program.display()));
    }
    Ok(out)
}

/// `program` as the shell would run it: a name without `/` is looked up
/// on `PATH`.
pub fn resolve_program(program: &str) -> PathBuf {
    if program.contains('/') {
        return PathBuf::from(program);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| {
            use std::os::unix::fs::PermissionsExt;
            p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .unwrap_or_else(|| PathBuf::from(program))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_names_the_runtimes_of_the_closure() {
        let l = "\tlinux-vdso.so.1 (0x00007ffd)\n\tlibcudart.so.12 => /x/libcudart.so.12 (0x7f)\n\tlibc.so.6 => /lib/libc.so.6 (0x7f)\n";
        assert_eq!(closure_needs(l), Needs { v13: false, v12: true });
        assert_eq!(closure_needs("\tlibcudart.so.13 => not found\n"), Needs { v13: true, v12: false });
        assert_eq!(closure_needs("\tlibcudart.so.13 => a\n\tlibcudart.so.12 => b\n"), Needs::BOTH);
        assert_eq!(closure_needs("\tlibcudart_shim.so => a\n"), Needs::default());
    }

    #[test]
    fn the_installed_package_is_searched_after_the_commands_folder_and_links_are_private() {
        let root = private_dir("library-test").unwrap();
        let bin = root.join("venv/bin");
        let pkg = |py: &str, packages: &str| root.join("venv/lib").join(py).join(packages).join(PACKAGE_LIB);
        for d in [bin.clone(), pkg("python3.9", "site-packages"), pkg("python3.12", "site-packages"), pkg("python3.12", "dist-packages")] {
            std::fs::create_dir_all(d).unwrap();
        }
        let dirs = search_dirs(Some(&bin));
        assert_eq!(dirs[0], bin);
        assert_eq!(dirs[1], bin.join("../lib"));
        // Newest Python first; then target/ under the current folder.
        assert_eq!(dirs[2].canonicalize().unwrap(), pkg("python3.12", "site-packages"));
        assert_eq!(dirs[3].canonicalize().unwrap(), pkg("python3.12", "dist-packages"));
        assert_eq!(dirs[4].canonicalize().unwrap(), pkg("python3.9", "site-packages"));
        assert_eq!(dirs[5..], [PathBuf::from("target/release"), PathBuf::from("target/debug")]);

        // The wheel's interposer has no links: the run's folder gets them.
        let lib = pkg("python3.12", "site-packages");
        std::fs::write(lib.join("libcudart_shim.so"), b"").unwrap();
        assert!(matches!(Interposer::of(&lib.join("libcudart_shim.so")), Interposer::Missing(_)));
        std::fs::write(lib.join(INTERPOSER_FILE), b"").unwrap();
        let interposer = Interposer::of(&lib.join("libcudart_shim.so"));
        let run = root.join("run");
        std::fs::create_dir(&run).unwrap();
        let folder = interposer.folder(&run).unwrap();
        assert_eq!(folder, run.join("driver"));
        for name in ["libcuda.so.1", "libcuda.so"] {
            assert_eq!(std::fs::read_link(folder.join(name)).unwrap(), lib.join(INTERPOSER_FILE));
        }
        assert_eq!(std::fs::read_dir(&lib).unwrap().count(), 2, "nothing written beside the package's files");
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn this_test_binary_is_dynamic_and_needs_no_runtime() {
        let exe = std::env::current_exe().unwrap();
        let b = std::fs::read(&exe).unwrap();
        assert!(elf_interp(&b).is_some_and(|i| i.contains("ld-linux")), "{:?}", elf_interp(&b));
        assert_eq!(needs(&exe).0, Needs::BOTH, "no libcudart in the closure: both");
        assert!(needs(&exe).1.contains("no libcudart"), "{}", needs(&exe).1);
    }
}
