//! The library is a drop-in libcudart.so.13: SONAME, symbol versions, and
//! an export set drawn from NVIDIA's.

mod common;
use common::*;
use std::collections::BTreeSet;
use std::process::Command;

fn readelf(args: &[&str]) -> String {
    let out = Command::new("readelf").args(args).arg(shim_lib()).output().expect("readelf (binutils) is needed");
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

/// Our defined dynamic symbols: name -> version ("" when unversioned).
fn exports() -> Vec<(String, String)> {
    readelf(&["--dyn-syms", "-W"])
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            // Num: Value Size Type Bind Vis Ndx Name
            if f.len() < 8 || f[6] == "UND" || f[3] != "FUNC" || f[4] != "GLOBAL" {
                return None;
            }
            let (name, ver) = f[7].split_once('@').map_or((f[7], ""), |(n, v)| (n, v.trim_start_matches('@')));
            Some((name.to_owned(), ver.to_owned()))
        })
        .collect()
}

fn nvidia_exports() -> BTreeSet<String> {
    abi_list("libcudart13.5-exports.txt").into_iter().collect()
}

#[test]
fn soname_is_libcudart_so_13() {
    let d = readelf(&["-d"]);
    assert!(d.contains("Library soname: [libcudart.so.13]"), "{d}");
}

#[test]
fn version_node_is_defined() {
    let v = readelf(&["-V"]);
    let def = v.split("Version definition section").nth(1).expect("no version definitions");
    assert!(def.contains("Name: libcudart.so.13"), "{v}");
}

#[test]
fn every_cuda_export_is_versioned() {
    let ex = exports();
    let cuda: Vec<_> = ex.iter().filter(|(n, _)| n.starts_with("cuda") || n.starts_with("__cuda")).collect();
    assert!(cuda.len() >= 30, "too few exports: {cuda:?}");
    let bad: Vec<_> = cuda.iter().filter(|(_, v)| v != "libcudart.so.13").collect();
    assert!(bad.is_empty(), "exports without version libcudart.so.13: {bad:?}");
}

#[test]
fn exports_are_nvidias_or_our_own_api() {
    let nv = nvidia_exports();
    let extra: Vec<_> = exports()
        .into_iter()
        .map(|(n, _)| n)
        .filter(|n| !nv.contains(n) && !n.starts_with("cudartShim") && n != "cudaGetExportTable")
        .collect();
    assert!(extra.is_empty(), "exports that are neither NVIDIA's nor cudartShim*: {extra:?}");
}

#[test]
fn drop_in_name_points_at_the_library() {
    let link = target_dir().join("libcudart.so.13");
    assert_eq!(std::fs::read_link(&link).unwrap(), std::path::Path::new("libcudart_shim.so"));
}
