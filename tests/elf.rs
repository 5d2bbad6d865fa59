//! The library is a drop-in libcudart.so.13: SONAME, symbol versions, and
//! an export set drawn from NVIDIA's. The CUDA 12 library (cuda12/) is a
//! drop-in libcudart.so.12 with exactly 12.9's export list: module `abi12`.

mod common;
use common::*;
use std::collections::BTreeSet;
use std::process::Command;

fn readelf(args: &[&str]) -> String {
    readelf_of(&shim_lib(), args)
}

fn readelf_of(lib: &std::path::Path, args: &[&str]) -> String {
    let out = Command::new("readelf").args(args).arg(lib).output().expect("readelf (binutils) is needed");
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

/// Our defined dynamic symbols: name -> version ("" when unversioned).
fn exports() -> Vec<(String, String)> {
    exports_of(&shim_lib())
}

fn exports_of(lib: &std::path::Path) -> Vec<(String, String)> {
    readelf_of(lib, &["--dyn-syms", "-W"])
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
        .filter(|n| !nv.contains(n) && !n.starts_with("cudartShim") && n != "cudaGetExportTable" && n != "InitializeInjectionNvtx2")
        .collect();
    assert!(extra.is_empty(), "exports that are neither NVIDIA's nor cudartShim*: {extra:?}");
}

#[test]
fn drop_in_name_points_at_the_library() {
    let link = target_dir().join("libcudart.so.13");
    assert_eq!(std::fs::read_link(&link).unwrap(), std::path::Path::new("libcudart_shim.so"));
}

mod abi12 {
    use super::*;

    /// 12.9 exports the CUDA 12 library does not have yet. Each one must be on
    /// NVIDIA's 12.9 list and absent from ours; the list only shrinks.
    const MISSING: &[&str] = &[];

    fn readelf12(args: &[&str]) -> String {
        readelf_of(&shim12_lib(), args)
    }

    #[test]
    fn soname_is_libcudart_so_12() {
        let d = readelf12(&["-d"]);
        assert!(d.contains("Library soname: [libcudart.so.12]"), "{d}");
        assert!(!d.contains("libcudart.so.13"), "{d}");
    }

    #[test]
    fn version_node_is_libcudart_so_12_alone() {
        let v = readelf12(&["-V"]);
        assert!(v.contains("Name: libcudart.so.12"), "{v}");
        assert!(!v.contains("libcudart.so.13"), "{v}");
    }

    /// The project's own API (`cudartShim*`) of a library.
    fn own_api(lib: &std::path::Path) -> BTreeSet<String> {
        exports_of(lib).into_iter().map(|(n, _)| n).filter(|n| n.starts_with("cudartShim")).collect()
    }

    #[test]
    fn exports_are_exactly_nvidias_12_9_list_minus_the_missing_plus_our_own_api() {
        let nv: BTreeSet<String> = abi_list("libcudart12-exports.txt").into_iter().collect();
        assert_eq!(nv.len(), 435);
        let missing: BTreeSet<String> = MISSING.iter().map(|s| s.to_string()).collect();
        let not_nvidias: Vec<_> = missing.difference(&nv).collect();
        assert!(not_nvidias.is_empty(), "MISSING names that 12.9 does not export: {not_nvidias:?}");
        let ex = exports_of(&shim12_lib());
        let unversioned: Vec<_> = ex.iter().filter(|(_, v)| v != "libcudart.so.12").collect();
        assert!(unversioned.is_empty(), "exports not versioned libcudart.so.12: {unversioned:?}");
        let ours: BTreeSet<String> = ex.into_iter().map(|(n, _)| n).collect();
        // The same cudartShim* set as the 13 library (subscriber, counters,
        // flush, pool statistics, the driver interposer's hooks).
        let own = own_api(&shim_lib());
        assert!(own.len() >= 10 && own.contains("cudartShimInternalDriverHooks") && own.contains("cudartShimSubscribe"), "{own:?}");
        // Plus NVTX3's injection entry point (docs/NVTX.md), in both libraries.
        let expected: BTreeSet<String> =
            nv.difference(&missing).cloned().chain(own.iter().cloned()).chain(["InitializeInjectionNvtx2".to_owned()]).collect();
        let extra: Vec<_> = ours.difference(&expected).collect();
        let absent: Vec<_> = expected.difference(&ours).collect();
        assert!(extra.is_empty(), "exported but neither 12.9's nor the 13 library's cudartShim*, or listed MISSING: {extra:?}");
        assert!(absent.is_empty(), "12.9 exports or cudartShim* names we lack (and MISSING does not list): {absent:?}");
    }

    #[test]
    fn no_internal_abi_name_leaks_from_either_library() {
        for lib in [shim_lib(), shim12_lib()] {
            let leaked: Vec<_> = exports_of(&lib).into_iter().filter(|(n, _)| n.contains("__abi")).collect();
            assert!(leaked.is_empty(), "{}: {leaked:?}", lib.display());
        }
    }

    #[test]
    fn drop_in_name_points_at_the_library() {
        let link = target_dir().join("libcudart.so.12");
        assert_eq!(std::fs::read_link(&link).unwrap(), std::path::Path::new("libcudart_shim12.so"));
    }
}
