//! The crate's layers import only downward, and no two files import each
//! other (directly or around a longer loop).
//!
//! Layers, lowest first (a file may use its own layer and those below):
//!
//! | rank | layer                 | holds                                            |
//! |------|-----------------------|--------------------------------------------------|
//! | 0    | `types`, `fatbin`     | C types and constants; the fatbinary parser      |
//! | 1    | `config`              | the environment, read once; logging setup        |
//! | 2    | `driver`              | the driver API table, loaded at run time         |
//! | 3    | `trace`, `control`, `ledger` | observation; action (hooks, faults, params); accounting |
//! | 4    | `runtime`             | cudart semantics                                 |
//! | 5    | `intercept`, `entry`  | the pipeline; the one C boundary (`entry!`)      |
//! | 6    | `api`, `internals`    | the exports; the test-only re-exports            |
//!
//! `lib.rs` (the crate root, which declares the modules) is not checked.
//!
//! Each file's imports are read from its text: `use` trees and every
//! `crate::`/`$crate::`/`super::`/`self::` path in code (comments and
//! strings skipped), macro invocations of the crate's own `macro_rules!`
//! (`crate::name!` or bare `name!`), each resolved to the file that defines
//! the item where the module re-exports it (`pub use child::*`). A module
//! file's own declarations and re-exports of its children are structure,
//! not imports, so they make no edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Upward imports still owned by other work, each with who removes it. The
/// test fails when one of them is gone, so the list only shrinks.
const PENDING: &[(&str, &str, &str)] = &[
];

fn rank(file: &str) -> Option<u32> {
    let top = file.split('/').next().unwrap().trim_end_matches(".rs");
    Some(match top {
        "types" | "fatbin" => 0,
        "config" => 1,
        "driver" => 2,
        "trace" | "control" | "ledger" => 3,
        "runtime" => 4,
        "intercept" | "entry" => 5,
        "api" | "internals" => 6,
        "lib" => return None,
        other => panic!("src/{file}: layer {other:?} has no rank: add it to the table in tests/layers.rs"),
    })
}

struct Crate {
    /// Files by path relative to src/, with their code (comments and
    /// string literals blanked).
    files: BTreeMap<String, String>,
    /// Module path ("runtime::memory") -> file.
    modules: BTreeMap<String, String>,
    /// File -> names it defines (items and macros).
    defines: BTreeMap<String, BTreeSet<String>>,
    /// Macro name -> defining file.
    macros: BTreeMap<String, String>,
}

/// Blank comments, string and char literals (keeping line structure), so
/// paths in documentation or messages are not taken for imports.
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let end = src[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            out.extend(src[i..end].chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
            i = end;
        } else if b[i] == b'"' || (b[i] == b'r' && (b[i..].starts_with(b"r\"") || b[i..].starts_with(b"r#\""))) && (i == 0 || !(b[i - 1] as char).is_alphanumeric()) {
            // Plain or raw string.
            let (hashes, start) = if b[i] == b'r' {
                let h = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                (h, i + 1 + h + 1)
            } else {
                (0, i + 1)
            };
            let close: String = format!("\"{}", "#".repeat(hashes));
            let mut j = start;
            loop {
                if j >= b.len() {
                    break;
                }
                if hashes == 0 && b[j] == b'\\' {
                    j += 2;
                    continue;
                }
                if src[j..].starts_with(&close) {
                    j += close.len();
                    break;
                }
                j += 1;
            }
            out.extend(src[i..j.min(b.len())].chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
            i = j;
        } else if b[i] == b'\'' && i + 2 < b.len() && (b[i + 2] == b'\'' || (b[i + 1] == b'\\')) {
            // A char literal (not a lifetime).
            let end = src[i + 1..].find('\'').map_or(b.len(), |e| i + 1 + e + 1);
            let end = if b[i + 1] == b'\\' { src[i + 3..].find('\'').map_or(b.len(), |e| i + 3 + e + 1) } else { end };
            out.extend(std::iter::repeat_n(' ', end - i));
            i = end;
        } else {
            let c = src[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

fn walk(dir: &Path, root: &Path, files: &mut BTreeMap<String, String>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, root, files);
        } else if p.extension().is_some_and(|x| x == "rs") {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            files.insert(rel, code_only(&std::fs::read_to_string(&p).unwrap()));
        }
    }
}

fn module_of(file: &str) -> String {
    let f = file.trim_end_matches(".rs");
    let f = f.strip_suffix("/mod").unwrap_or(f);
    if f == "lib" { String::new() } else { f.replace('/', "::") }
}

fn ident_at(s: &str) -> &str {
    let end = s.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(s.len());
    &s[..end]
}

impl Crate {
    fn load() -> Crate {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = BTreeMap::new();
        walk(&root, &root, &mut files);
        let modules = files.keys().map(|f| (module_of(f), f.clone())).collect();
        let item = regex_lite(r"(fn|struct|enum|const|static|type|trait|union|mod)\s+");
        let mut defines = BTreeMap::new();
        let mut macros = BTreeMap::new();
        for (f, code) in &files {
            let mut names = BTreeSet::new();
            for (kw_end, _) in item(code) {
                names.insert(ident_at(&code[kw_end..]).to_owned());
            }
            for (i, _) in code.match_indices("macro_rules!") {
                let n = ident_at(code[i + 12..].trim_start()).to_owned();
                macros.insert(n.clone(), f.clone());
                names.insert(n);
            }
            defines.insert(f.clone(), names);
        }
        Crate { files, modules, defines, macros }
    }

    /// The file an absolute path (`runtime::memory::malloc`) lands in:
    /// the deepest module file on the path, then, if that module does not
    /// define the last name itself, the child module file that does.
    fn resolve(&self, segs: &[&str]) -> Option<String> {
        let mut best = None;
        let mut depth = 0;
        for n in 1..=segs.len() {
            if let Some(f) = self.modules.get(&segs[..n].join("::")) {
                best = Some(f.clone());
                depth = n;
            }
        }
        let file = best?;
        if depth < segs.len() {
            let name = segs[depth];
            if !self.defines[&file].contains(name) {
                let prefix = format!("{}::", segs[..depth].join("::"));
                let child = self
                    .modules
                    .iter()
                    .filter(|(m, _)| m.starts_with(&prefix) && !m[prefix.len()..].contains("::"))
                    .find(|(_, f)| self.defines[*f].contains(name));
                if let Some((_, f)) = child {
                    return Some(f.clone());
                }
            }
        }
        Some(file)
    }

    /// Absolute module path of a path written in `file`'s module.
    fn absolute(&self, file: &str, segs: &[&str]) -> Option<Vec<String>> {
        let module = module_of(file);
        let mut base: Vec<String> = if module.is_empty() { vec![] } else { module.split("::").map(String::from).collect() };
        // A file that is not a mod.rs/lib.rs names its children `self::x`
        // but its siblings `super::x`, so `super` from `a/b.rs` is `a`.
        let mut rest = segs;
        match segs.first().copied() {
            Some("crate") | Some("$crate") => {
                base.clear();
                rest = &segs[1..];
            }
            Some("self") => rest = &segs[1..],
            Some("super") => {
                while rest.first() == Some(&"super") {
                    base.pop()?;
                    rest = &rest[1..];
                }
            }
            Some(first) => {
                // A child module of this one, else an outside crate or a
                // local name.
                let child = if base.is_empty() { first.to_string() } else { format!("{}::{first}", base.join("::")) };
                if !self.modules.contains_key(&child) {
                    return None;
                }
            }
            None => return None,
        }
        base.extend(rest.iter().map(|s| s.to_string()));
        Some(base)
    }

    fn edges(&self) -> BTreeSet<(String, String)> {
        let mut edges = BTreeSet::new();
        for (file, code) in &self.files {
            let module = module_of(file);
            let mut add = |target: Option<String>| {
                // The crate root declares and re-exports every module: all
                // structure, no import.
                if let Some(t) = target
                    && &t != file
                    && !module.is_empty()
                    && !module_of(&t).starts_with(&format!("{module}::"))
                {
                    edges.insert((file.clone(), t));
                }
            };
            for path in use_paths(code).into_iter().chain(inline_paths(code)) {
                let segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty() && *s != "*").collect();
                if let Some(abs) = self.absolute(file, &segs) {
                    let abs: Vec<&str> = abs.iter().map(String::as_str).collect();
                    add(self.resolve(&abs));
                }
            }
            for (name, def) in &self.macros {
                let bare = format!("{name}!");
                let used = code.match_indices(&bare).any(|(i, _)| {
                    i == 0 || !code[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':')
                        || code[..i].ends_with("crate::")
                });
                let defined_here = code.contains(&format!("macro_rules! {name}"));
                if used && !defined_here {
                    add(Some(def.clone()));
                }
            }
        }
        edges
    }
}

/// Start offsets (just past the keyword and its spaces) of matches of a
/// keyword alternative pattern "(a|b|c)\s+" at word boundaries.
fn regex_lite(pat: &str) -> impl Fn(&str) -> Vec<(usize, ())> {
    let words: Vec<String> = pat.trim_start_matches('(').split(')').next().unwrap().split('|').map(String::from).collect();
    move |code: &str| {
        let mut v = Vec::new();
        for w in &words {
            for (i, _) in code.match_indices(w.as_str()) {
                let before_ok = i == 0 || !code[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_');
                let after = &code[i + w.len()..];
                if before_ok && after.starts_with(char::is_whitespace) {
                    v.push((i + w.len() + (after.len() - after.trim_start().len()), ()));
                }
            }
        }
        v
    }
}

/// Every path a `use` tree names, its groups expanded.
fn use_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices("use ") {
        if i > 0 && code[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let Some(end) = code[i..].find(';') else { continue };
        expand("", &normalize(&code[i + 4..i + end]), &mut out);
    }
    out
}

/// One space between words, none around `::`, braces and commas.
fn normalize(tree: &str) -> String {
    let mut t = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    for p in ["::", "{", "}", ","] {
        t = t.replace(&format!(" {p}"), p).replace(&format!("{p} "), p);
    }
    t
}

fn expand(prefix: &str, tree: &str, out: &mut Vec<String>) {
    let join = |p: &str, s: &str| if p.is_empty() { s.to_owned() } else { format!("{p}::{s}") };
    let tree = tree.trim_start_matches("::");
    if let Some(open) = tree.find('{') {
        let head = tree[..open].trim_end_matches("::");
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let p = join(prefix, head);
        let mut depth = 0;
        let mut start = 0;
        for (j, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand(&p, &inner[start..j], out);
                    start = j + 1;
                }
                _ => {}
            }
        }
        expand(&p, &inner[start..], out);
    } else if !tree.is_empty() {
        let t = tree.split(" as ").next().unwrap();
        let t = if t == "self" { prefix.to_owned() } else { join(prefix, t) };
        out.push(t);
    }
}

/// `crate::a::b`, `$crate::a::b`, `super::a`, `self::a` paths in code.
fn inline_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for root in ["$crate::", "crate::", "super::", "self::"] {
        for (i, _) in code.match_indices(root) {
            if i > 0 && code[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$' || c == ':') {
                continue;
            }
            // `pub(in crate::a)` is a visibility, not an import.
            if code[..i].trim_end().strip_suffix("in").is_some_and(|b| b.trim_end().ends_with('(')) {
                continue;
            }
            let rest = &code[i..];
            let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':' || c == '$')).unwrap_or(rest.len());
            out.push(rest[..end].trim_end_matches(':').to_owned());
        }
    }
    out
}

fn pending(from: &str, to: &str) -> bool {
    PENDING.iter().any(|(f, t, _)| *f == from && *t == to)
}

#[test]
fn imports_only_look_down() {
    let c = Crate::load();
    let edges = c.edges();
    let upward: Vec<String> = edges
        .iter()
        .filter(|(f, t)| matches!((rank(f), rank(t)), (Some(a), Some(b)) if b > a))
        .filter(|(f, t)| !pending(f, t))
        .map(|(f, t)| format!("src/{f} imports src/{t}"))
        .collect();
    assert!(upward.is_empty(), "imports from a higher layer:\n{}", upward.join("\n"));
    let stale: Vec<String> = PENDING
        .iter()
        .filter(|(f, t, _)| !edges.contains(&(f.to_string(), t.to_string())))
        .map(|(f, t, why)| format!("src/{f} -> src/{t} ({why})"))
        .collect();
    assert!(stale.is_empty(), "pending upward imports that are gone: remove them from PENDING:\n{}", stale.join("\n"));
}

#[test]
fn no_import_cycle_between_files() {
    let c = Crate::load();
    let edges: BTreeSet<(String, String)> = c.edges().into_iter().filter(|(f, t)| !pending(f, t)).collect();
    let report = cycles(&edges);
    assert!(report.is_empty(), "import cycles between files:\n{}", report.join("\n\n"));
}

/// The folder module a file belongs to: a module with a folder (`a/mod.rs`,
/// or `a.rs` beside `a/`) together with the files directly in that folder;
/// a file of src/ itself without a folder is its own module.
fn folder_module(c: &Crate, file: &str) -> String {
    let m = module_of(file);
    let stem = file.trim_end_matches(".rs");
    let has_folder = c.files.keys().any(|g| g.starts_with(&format!("{stem}/")));
    if file.ends_with("/mod.rs") || !file.contains('/') || has_folder {
        m
    } else {
        m.rsplit_once("::").map(|(a, _)| a.to_owned()).unwrap_or_default()
    }
}

/// The import graph between folder modules: an edge `a -> b` for each file
/// of `a` that imports a file of `b`, except where `b` is nested inside `a`.
fn module_edges(c: &Crate) -> BTreeSet<(String, String)> {
    c.edges()
        .into_iter()
        .map(|(f, t)| (folder_module(c, &f), folder_module(c, &t)))
        .filter(|(a, b)| a != b && !b.starts_with(&format!("{a}::")))
        .collect()
}

/// No cycle between the modules of src/ (the `farm-studio` rule).
///
/// Granularity: a node is a folder module ([`folder_module`]: `trace::gpu`
/// is trace/gpu/mod.rs with cupti.rs, mux.rs, ... beside it; `trace` is
/// trace/mod.rs with args.rs, driver.rs, output.rs, ...; `config` is
/// config.rs). An edge is any import, as [`Crate::edges`] reads them, from
/// a file of one node to a file of another, with one exception: a module's
/// use of a module nested inside it (trace/mod.rs driving trace/gpu) is
/// structure, as its `mod` declarations and re-exports are, so it makes no
/// edge. A nested module's use of its parent does count, so a parent's
/// helpers its parts use must not make the parent depend on anything that
/// depends on those parts (trace -> ledger -> trace is a cycle). Within
/// one node, [`no_import_cycle_between_files`] checks the files.
#[test]
fn no_import_cycle_between_modules() {
    let c = Crate::load();
    let report = cycles(&module_edges(&c));
    assert!(report.is_empty(), "import cycles between modules (folder granularity, see the test's note):\n{}", report.join("\n\n"));
}

/// The strongly connected components of two or more nodes (Tarjan), each
/// as its nodes and one cycle through them, printed `a -> b -> ... -> a`,
/// then the edges among them.
fn cycles(edges: &BTreeSet<(String, String)>) -> Vec<String> {
    let mut graph: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (f, t) in edges {
        graph.entry(f).or_default().push(t);
    }
    // Tarjan's strongly connected components: any with two or more files
    // is a cycle.
    struct T<'a> {
        g: &'a BTreeMap<&'a str, Vec<&'a str>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        sccs: Vec<Vec<&'a str>>,
    }
    impl<'a> T<'a> {
        fn visit(&mut self, v: &'a str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            self.on.insert(v);
            for &w in self.g.get(v).map(Vec::as_slice).unwrap_or(&[]) {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if self.on.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut scc = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on.remove(w);
                    scc.push(w);
                    if w == v {
                        break;
                    }
                }
                if scc.len() > 1 {
                    scc.sort();
                    self.sccs.push(scc);
                }
            }
        }
    }
    let mut t = T { g: &graph, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), on: BTreeSet::new(), sccs: Vec::new() };
    let nodes: Vec<&str> = graph.keys().copied().collect();
    for v in nodes {
        if !t.index.contains_key(v) {
            t.visit(v);
        }
    }
    t.sccs
        .iter()
        .map(|scc| {
            let inner: Vec<String> =
                edges.iter().filter(|(f, to)| scc.contains(&f.as_str()) && scc.contains(&to.as_str())).map(|(f, to)| format!("  {f} -> {to}")).collect();
            format!("{} in a cycle: {}\n  {}\n{}", scc.len(), scc.join(", "), one_cycle(&graph, scc), inner.join("\n"))
        })
        .collect()
}

/// One cycle through the first node of a strongly connected component
/// (breadth-first back to it, inside the component).
fn one_cycle(graph: &BTreeMap<&str, Vec<&str>>, scc: &[&str]) -> String {
    let start = scc[0];
    let mut from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in graph.get(v).map(Vec::as_slice).unwrap_or(&[]) {
            if !scc.contains(&w) {
                continue;
            }
            if w == start {
                let mut path = vec![start, v];
                let mut x = v;
                while x != start {
                    x = from[x];
                    path.push(x);
                }
                path.reverse();
                return path.join(" -> ");
            }
            if !from.contains_key(w) {
                from.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    String::new()
}

/// The checker itself: it must see an upward import, a cycle and a
/// re-exported item, or the tests above pass for nothing.
#[test]
fn the_checker_sees_what_it_must() {
    let mut c = Crate::load();
    c.files.insert("types/probe_a.rs".into(), code_only("use crate::runtime::memory::malloc;\n// use crate::api::x;\nfn f() { let s = \"crate::api::y\"; }\n"));
    c.modules.insert("types::probe_a".into(), "types/probe_a.rs".into());
    c.defines.insert("types/probe_a.rs".into(), BTreeSet::new());
    let e = c.edges();
    // `malloc` is defined in runtime/memory/alloc.rs and re-exported by
    // runtime/memory.rs: the edge lands in the defining file.
    assert!(e.contains(&("types/probe_a.rs".into(), "runtime/memory/alloc.rs".into())), "{e:?}");
    assert!(!e.iter().any(|(f, t)| f == "types/probe_a.rs" && t.starts_with("api")), "comments and strings are not imports");
    assert_eq!(expand_all("crate::a::{b, c::{d, self}, e as f}"), ["crate::a::b", "crate::a::c::d", "crate::a::c", "crate::a::e"]);
}

fn expand_all(tree: &str) -> Vec<String> {
    let mut v = Vec::new();
    expand("", &normalize(tree), &mut v);
    v
}

/// The module check must see a cycle that only shows at its granularity
/// (no two files import each other): the issue-33 circle, rebuilt from
/// probe files, with the test's own rules.
#[test]
fn the_module_check_sees_a_folder_cycle() {
    let mut c = Crate::load();
    for (file, module, code) in [
        ("trace/probe_g/mod.rs", "trace::probe_g", "pub mod x; use crate::trace::probe_t::push;"),
        ("trace/probe_g/x.rs", "trace::probe_g::x", "pub fn launches() {}"),
        ("trace/probe_t/mod.rs", "trace::probe_t", "pub mod w; pub fn push() {}"),
        ("trace/probe_t/w.rs", "trace::probe_t::w", "fn f() { crate::trace::probe_n::names(); }"),
        ("trace/probe_n/mod.rs", "trace::probe_n", "pub fn names() { super::probe_g::x::launches(); }"),
    ] {
        c.files.insert(file.into(), code_only(code));
        c.modules.insert(module.into(), file.into());
        let mut names = BTreeSet::new();
        for (kw_end, _) in regex_lite(r"(fn|mod)\s+")(code) {
            names.insert(ident_at(&code[kw_end..]).to_owned());
        }
        c.defines.insert(file.into(), names);
    }
    let files: BTreeSet<(String, String)> = c.edges().into_iter().filter(|(f, _)| f.contains("probe")).collect();
    assert!(cycles(&files).is_empty(), "no file cycle among the probes: {files:?}");
    let report = cycles(&module_edges(&c)).join("\n");
    assert!(report.contains("trace::probe_g -> trace::probe_t -> trace::probe_n -> trace::probe_g"), "{report}");
    // A parent driving its parts is structure, not a cycle.
    assert!(!module_edges(&c).iter().any(|(a, b)| a == "trace" && b.starts_with("trace::")));
}

/// A writer's imports of a producer file still allowed, each with why. The
/// test fails when one is gone, so the list only shrinks.
const WRITER_PENDING: &[(&str, &str, &str)] = &[(
    "trace/recorder/dump.rs",
    "trace/mod.rs",
    "the call log's line format (write_call_line) and gettid, shared with the call log, live beside the runtime-call producer",
)];

/// Producers and writers meet only in the event model (trace/event):
/// writers (the timeline's formats, the recorder's dump) import no producer
/// (runtime calls: entry.rs, trace/mod.rs; driver calls: trace/driver.rs;
/// trace/gpu, trace/nvtx, the ledger), and the event model imports nothing
/// of trace/ outside itself, nor the ledger.
#[test]
fn writers_and_producers_meet_in_the_event_model() {
    let c = Crate::load();
    let edges = c.edges();
    let producer = |f: &str| {
        f.starts_with("trace/gpu/")
            || f.starts_with("trace/nvtx/")
            || f.starts_with("ledger/")
            || ["trace/driver.rs", "trace/mod.rs", "entry.rs"].contains(&f)
    };
    let allowed = |f: &str, t: &str| WRITER_PENDING.iter().any(|(a, b, _)| *a == f && *b == t);
    let writer = |f: &str| (f.starts_with("trace/timeline/") && f != "trace/timeline/mod.rs") || f == "trace/recorder/dump.rs";
    let mut bad: Vec<String> =
        edges.iter().filter(|(f, t)| writer(f) && producer(t) && !allowed(f, t)).map(|(f, t)| format!("writer src/{f} imports producer src/{t}")).collect();
    bad.extend(
        WRITER_PENDING
            .iter()
            .filter(|(f, t, _)| !edges.contains(&(f.to_string(), t.to_string())))
            .map(|(f, t, why)| format!("src/{f} -> src/{t} is gone ({why}): remove it from WRITER_PENDING")),
    );
    bad.extend(
        edges
            .iter()
            .filter(|(f, t)| f.starts_with("trace/event/") && !t.starts_with("trace/event/") && (t.starts_with("trace/") || t.starts_with("ledger/")))
            .map(|(f, t)| format!("the event model's src/{f} imports src/{t}")),
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(edges.iter().any(|(f, t)| writer(f) && t.starts_with("trace/event/")), "the writers read the event model");
}
