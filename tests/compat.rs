//! docs/COMPATIBILITY.md is true: generated from docs/compat/*.tsv, one row
//! per NVIDIA export, and every row that claims an implementation is
//! exported by the library.

mod common;
use common::*;
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// name -> status of every row in the `.tsv` files of `docs/<dir>`.
fn rows_in(dir: &str) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for e in std::fs::read_dir(repo_root().join("docs").join(dir)).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "tsv") {
            continue;
        }
        for l in std::fs::read_to_string(&p).unwrap().lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
            let mut f = l.split('\t');
            let (name, status) = (f.next().unwrap().to_owned(), f.next().unwrap_or("").to_owned());
            assert!(m.insert(name.clone(), status).is_none(), "{name} has two rows in docs/{dir}");
        }
    }
    m
}

fn rows() -> BTreeMap<String, String> {
    rows_in("compat")
}

#[test]
fn every_nvidia_export_has_one_row() {
    let nv: BTreeSet<String> = abi_list("libcudart13.5-exports.txt").into_iter().collect();
    let have: BTreeSet<String> = rows().into_keys().collect();
    assert_eq!(nv.difference(&have).collect::<Vec<_>>(), Vec::<&String>::new(), "exports without a row");
    assert_eq!(have.difference(&nv).collect::<Vec<_>>(), Vec::<&String>::new(), "rows that are not NVIDIA exports");
}

#[test]
fn claimed_exports_exist() {
    let out = Command::new("nm").args(["-D", "--defined-only"]).arg(shim_lib()).output().unwrap();
    let syms: BTreeSet<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .map(|s| s.split('@').next().unwrap().to_owned())
        .collect();
    let wrong: Vec<_> = rows().into_iter().filter(|(n, s)| s != "missing" && !syms.contains(n)).collect();
    assert!(wrong.is_empty(), "rows claim an implementation the library does not export: {wrong:?}");
    let unclaimed: Vec<_> = rows().into_iter().filter(|(n, s)| s == "missing" && syms.contains(n)).collect();
    assert!(unclaimed.is_empty(), "exported but marked missing in docs/compat: {unclaimed:?}");
}

#[test]
fn compatibility_md_is_generated_from_the_tables() {
    let before = std::fs::read_to_string(repo_root().join("docs/COMPATIBILITY.md")).unwrap();
    let out = Command::new("python3").arg(repo_root().join("scripts/gen-compat.py")).arg("--stdout").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let after = String::from_utf8(out.stdout).unwrap();
    assert_eq!(before, after, "docs/COMPATIBILITY.md is stale: run scripts/gen-compat.py and commit");
}

/// docs/compat/abi12/*.tsv: the rows whose 12 status is the 12 library's own.
fn rows12() -> BTreeMap<String, String> {
    rows_in("compat/abi12")
}

/// Every export written as a 12 form, and every export only 12.9 has, has
/// its own 12 row: its status cannot be inherited from a 13 export that is
/// a different function.
#[test]
fn every_12_form_has_its_own_row() {
    let src = std::fs::read_to_string(repo_root().join("src/api/abi12.rs")).unwrap();
    let forms: BTreeSet<String> = src
        .split("export_name = \"")
        .skip(1)
        .filter_map(|s| s.split('"').next()?.strip_suffix("__abi12").map(str::to_owned))
        .collect();
    assert!(forms.len() > 60, "found only {} 12 forms in src/api/abi12.rs", forms.len());
    let own: BTreeSet<String> = rows12().into_keys().collect();
    let nv12: BTreeSet<String> = abi_list("libcudart12-exports.txt").into_iter().collect();
    let nv13: BTreeSet<String> = abi_list("libcudart13.5-exports.txt").into_iter().collect();
    let only12: BTreeSet<String> = nv12.difference(&nv13).cloned().collect();
    let need: BTreeSet<String> = forms.union(&only12).cloned().collect();
    assert_eq!(need.difference(&own).collect::<Vec<_>>(), Vec::<&String>::new(), "12 forms without a 12 row");
    assert_eq!(own.difference(&nv12).collect::<Vec<_>>(), Vec::<&String>::new(), "12 rows that are not 12.9 exports");
}

#[test]
fn claimed_12_exports_exist() {
    let out = Command::new("nm").args(["-D", "--defined-only"]).arg(shim12_lib()).output().unwrap();
    assert!(out.status.success(), "nm {}", shim12_lib().display());
    let syms: BTreeSet<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .map(|s| s.split('@').next().unwrap().to_owned())
        .collect();
    let wrong: Vec<_> = rows12().into_iter().filter(|(n, s)| s != "missing" && !syms.contains(n)).collect();
    assert!(wrong.is_empty(), "12 rows claim an implementation the 12 library does not export: {wrong:?}");
}
