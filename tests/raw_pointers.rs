//! C pointers become references only in `unsafe` code at the boundary.
//!
//! The conversions are `runtime::{as_out, as_in, out}`, all `unsafe
//! fn`, so every call is inside an `unsafe` block that says so. The exports
//! (src/api) call them on their arguments and hand the runtime `Option`s.
//! No runtime function converts a C pointer itself: the budget per file is
//! empty (2026-11-25), and a file may only get one with a reason.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// Conversions allowed inside runtime functions, per file: none.
const BUDGET: &[(&str, usize)] = &[
];

fn src(rel: &str) -> String {
    std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src").join(rel)).unwrap()
}

#[test]
fn the_conversions_are_unsafe_functions() {
    let m = src("runtime/mod.rs");
    for f in ["as_out", "as_in", "out"] {
        assert!(m.contains(&format!("pub unsafe fn {f}<")), "runtime::{f} must be an unsafe fn");
        assert!(!m.contains(&format!("pub fn {f}<")), "runtime::{f} must not be a safe fn");
    }
}

#[test]
fn runtime_functions_convert_no_more_c_pointers_than_their_budget() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/runtime");
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut stack = vec![dir.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") && !p.ends_with("mod.rs") {
                let text = std::fs::read_to_string(&p).unwrap();
                let n = ["out(", "input(", "as_out(", "as_in("]
                    .iter()
                    .map(|f| text.matches(&format!("unsafe {{ {f}")).count() + text.matches(&format!("unsafe {{ super::{f}")).count()
                        + text.matches(&format!("unsafe {{ crate::runtime::{f}")).count())
                    .sum::<usize>();
                if n > 0 {
                    counts.insert(p.strip_prefix(&dir).unwrap().to_string_lossy().into_owned(), n);
                }
            }
        }
    }
    let budget: BTreeMap<String, usize> = BUDGET.iter().map(|(f, n)| (f.to_string(), *n)).collect();
    let over: Vec<String> = counts
        .iter()
        .filter(|(f, n)| **n > budget.get(*f).copied().unwrap_or(0))
        .map(|(f, n)| format!("src/runtime/{f}: {n} conversions, budget {}", budget.get(f).copied().unwrap_or(0)))
        .collect();
    assert!(over.is_empty(), "runtime functions convert C pointers themselves: take Option<&T> from the export instead\n{}", over.join("\n"));
    let slack: Vec<String> = budget
        .iter()
        .filter(|(f, n)| counts.get(*f).copied().unwrap_or(0) < **n)
        .map(|(f, n)| format!("src/runtime/{f}: budget {n}, now {}", counts.get(f).copied().unwrap_or(0)))
        .collect();
    assert!(slack.is_empty(), "lower these budgets in tests/raw_pointers.rs:\n{}", slack.join("\n"));
}

/// C arrays the runtime reads or fills through the raw pointer, after
/// checking the count it was given (a slice made at the boundary from an
/// unchecked count would itself be undefined behaviour: cudaSetValidDevices
/// gets 2^31-1 in the bad-input suite). Each stays in an `unsafe` block
/// with its SAFETY note; the list may only shrink.
const C_ARRAYS: &[(&str, usize, &str)] = &[
    ("device.rs", 1, "cudaSetValidDevices: the list, after len <= device count"),
    ("interop.rs", 1, "cudaGLGetDevices: the devices array, up to the given size"),
    ("library.rs", 1, "cudaLibraryEnumerateKernels: the kernels the driver wrote"),
    ("pool.rs", 1, "cudaMemPoolSetAccess: the access list, after its NULL check"),
    ("stream_v2.rs", 2, "the recapture callback's trampoline: the two node parameter pointers the driver hands it (a C boundary of its own)"),
];

#[test]
fn runtime_functions_read_c_arrays_only_where_listed() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/runtime");
    let mut found: BTreeMap<String, usize> = BTreeMap::new();
    for e in std::fs::read_dir(&dir).unwrap().chain(std::fs::read_dir(dir.join("memory")).unwrap()).chain(std::fs::read_dir(dir.join("graph")).unwrap()) {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        // The registry and its table dereference their own leaked records.
        if p.extension().is_none_or(|x| x != "rs") || ["mod.rs", "registry.rs", "addr_map.rs"].contains(&name.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let n = text
            .lines()
            .filter(|l| {
                l.contains("unsafe {")
                    && (l.contains(".as_mut()") || l.contains(".as_ref()") || l.contains("from_raw_parts") || (l.contains(".add(") && l.contains("*")))
            })
            .count();
        if n > 0 {
            found.insert(name, n);
        }
    }
    let listed: BTreeMap<String, usize> = C_ARRAYS.iter().map(|(f, n, _)| (f.to_string(), *n)).collect();
    assert_eq!(found, listed, "raw reads of C pointers in runtime functions: take Option<&T> from the export, or list a C array with its reason");
}

