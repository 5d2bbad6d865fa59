//! Every struct, union and constant that include/cudart_shim.h declares is
//! ABI-identical to NVIDIA's CUDA 13.5 headers (the newest libcudart.so.13;
//! 13.0's types are a subset, checked by the same probe): one probe program, compiled
//! once against each header, prints sizeof/offsetof of every field and the
//! value of every constant, and the two outputs must be equal.

mod common;
use common::*;
use std::fmt::Write;

/// Types our header needs that NVIDIA's declares anonymously (nested unions
/// and structs); their enclosing types are checked field by field.
const SHIM_ONLY: &[&str] = &[
    "cudaAsyncNotificationInfoUnion",
    "cudaAsyncNotificationOverBudget",
    // Nested members of the texture, external-resource and EGL descriptors,
    // and the EGL types of cuda_egl_interop.h (which needs EGL headers):
    // checked member by member against NVIDIA's headers in tests/interop_layout.rs.
    "cudaResourceDescRes",
    "cudaResourceDescArray",
    "cudaResourceDescMipmap",
    "cudaResourceDescLinear",
    "cudaResourceDescPitch2D",
    "cudaResourceDescReserved",
    "cudaExternalWin32Handle",
    "cudaExternalMemoryHandleUnion",
    "cudaExternalSemaphoreHandleUnion",
    "cudaExternalSemaphoreFence",
    "cudaExternalSemaphoreNvSciSync",
    "cudaExternalSemaphoreSignalKeyedMutex",
    "cudaExternalSemaphoreSignalParamsParams",
    "cudaExternalSemaphoreWaitKeyedMutex",
    "cudaExternalSemaphoreWaitParamsParams",
    "cudaEglFrame",
    "cudaEglFrameUnion",
    "cudaEglPlaneDesc",
    // Named stand-ins for anonymous members of NVIDIA's memory structs.
    "cudaArraySparseTileExtent",
    "cudaMemcpy3DOperandPtr",
    "cudaMemcpy3DOperandArray",
    "cudaMemcpy3DOperandOp",
];

fn ours(name: &str) -> bool {
    name.starts_with("cudartShim") || name.starts_with("CUDART_SHIM") || SHIM_ONLY.contains(&name)
}

/// (type, fields) of every struct/union defined in the header.
fn records(h: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut lines = h.lines();
    while let Some(l) = lines.next() {
        let Some(rest) = l.strip_prefix("typedef struct ").or_else(|| l.strip_prefix("typedef union ")) else { continue };
        let Some(tag) = rest.strip_suffix(" {") else { continue };
        let mut name = tag.to_owned();
        let mut fields = Vec::new();
        for f in lines.by_ref() {
            if let Some(closing) = f.strip_prefix("} ") {
                // The typedef name (the tag may be NVIDIA's other spelling).
                name = closing.trim_end_matches(';').to_owned();
                break;
            }
            let decl = f.trim().trim_end_matches(';');
            // Comments, and dim3's C++ constructor with its #if lines.
            if decl.is_empty() || decl.starts_with("/*") || decl.starts_with('*') || decl.starts_with('#') || decl.starts_with("constexpr ") {
                continue;
            }
            // `type name[..]` or `type (*name)(...)`
            let ident = if let Some(p) = decl.find("(*") {
                decl[p + 2..].split(')').next().unwrap()
            } else {
                decl.split('[').next().unwrap().rsplit([' ', '*']).next().unwrap()
            };
            if ident.starts_with('_') {
                continue; // padding and private members
            }
            fields.push(ident.to_owned());
        }
        out.push((name, fields));
    }
    out
}

/// Every `#define` constant and every enumerator (`  NAME = value,` inside
/// an `enum TAG {` block).
fn constants(h: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_enum = false;
    for l in h.lines() {
        if l.starts_with("enum ") && l.ends_with(" {") {
            in_enum = true;
        } else if in_enum && l == "};" {
            in_enum = false;
        } else if in_enum {
            out.extend(l.trim().split(" = ").next().map(str::to_owned));
        } else if let Some(d) = l.strip_prefix("#define ") {
            // Not guards, function-like macros, or markers without a value (CUDART_CB).
            let mut words = d.split_whitespace();
            let (Some(n), Some(_value)) = (words.next(), words.next()) else { continue };
            if !n.ends_with("_H") && !n.contains('(') {
                out.push(n.to_owned());
            }
        }
    }
    out
}

fn probe(h: &str) -> String {
    let mut p = String::from("#include <stdio.h>\n#include <stddef.h>\n#include <stdint.h>\nint main(void) {\n");
    for (name, fields) in records(h).iter().filter(|(n, _)| !ours(n)) {
        writeln!(p, "  printf(\"sizeof {name} %zu\\n\", sizeof({name}));").unwrap();
        for f in fields {
            writeln!(p, "  printf(\"offsetof {name}.{f} %zu\\n\", offsetof({name}, {f}));").unwrap();
        }
    }
    for c in constants(h).iter().filter(|n| !ours(n)) {
        writeln!(p, "  printf(\"value {c} %lld\\n\", (long long)(uintptr_t)({c}));").unwrap();
    }
    p.push_str("  return 0;\n}\n");
    p
}

fn build_and_run(dir: &std::path::Path, tag: &str, include: &str, inc_dir: &std::path::Path, body: &str) -> String {
    let src = dir.join(format!("probe_{tag}.cpp"));
    std::fs::write(&src, format!("#include <{include}>\n{body}")).unwrap();
    let exe = dir.join(format!("probe_{tag}"));
    let out = std::process::Command::new("c++")
        .arg("-I")
        .arg(inc_dir)
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(out.status.success(), "probe against {include} does not compile:\n{}", String::from_utf8_lossy(&out.stderr));
    let out = std::process::Command::new(&exe).output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn structs_and_constants_match_nvidia_headers() {
    let h = std::fs::read_to_string(repo_root().join("include/cudart_shim.h")).unwrap();
    let body = probe(&h);
    let dir = scratch("abi_layout");
    // cuda_runtime.h: the header ours stands in for (it adds library_types.h
    // and the other enums of cuda_runtime_api.h's neighbours), CUDA 13.5's.
    let nv = build_and_run(&dir, "nvidia", "cuda_runtime.h", &cuda135().join("nvidia/cu13/include"), &body);
    let sh = build_and_run(&dir, "shim", "cudart_shim.h", &repo_root().join("include"), &body);
    assert!(nv.contains("sizeof cudaDeviceProp 1008"), "{nv}");
    for (a, b) in nv.lines().zip(sh.lines()) {
        assert_eq!(a, b, "left: NVIDIA's headers, right: include/cudart_shim.h");
    }
    assert_eq!(nv.lines().count(), sh.lines().count());
    eprintln!("{} checks", nv.lines().count());
}
