//! include/cudart_shim.h: fresh, and valid C and C++.

mod common;
use common::*;
use std::process::Command;

#[test]
fn committed_header_is_fresh() {
    // build.rs rewrote include/cudart_shim.h from the sources before this
    // test was built; a difference from the committed copy means someone
    // changed an export or type without committing the new header.
    let root = repo_root();
    if !root.join(".git").exists() {
        panic!("not a git checkout: cannot compare the header with the committed one");
    }
    let out = Command::new("git")
        .args(["diff", "--exit-code", "--stat", "--", "include/cudart_shim.h"])
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "include/cudart_shim.h differs from the committed copy; commit the regenerated header:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

fn compiles(compiler: &str, lang: &str) {
    let out = Command::new(compiler)
        .args(["-fsyntax-only", "-Wall", "-Werror", "-x", lang])
        .arg(repo_root().join("include/cudart_shim.h"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{compiler}: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn header_is_valid_c() {
    compiles("cc", "c");
}

#[test]
fn header_is_valid_cxx() {
    compiles("c++", "c++");
}
