//! Driver function names: the base name `cuGetProcAddress` is asked for
//! and the version a name carries. Used by the driver table's loading
//! (`real`) and by the entry points handed out (`proc_address`).

/// The name without its version and stream suffixes (`cuMemcpyHtoD_v2_ptds`
/// -> `cuMemcpyHtoD`): what `cuGetProcAddress` is asked for.
pub fn base_name(name: &str) -> &str {
    let n = name.strip_suffix("_ptds").or_else(|| name.strip_suffix("_ptsz")).unwrap_or(name);
    match n.rfind("_v") {
        Some(i) if n[i + 2..].bytes().all(|b| b.is_ascii_digit()) && i + 2 < n.len() => &n[..i],
        _ => n,
    }
}

/// The version number a name carries (`_v3` -> 3; none: 1).
pub fn version(name: &str) -> u32 {
    let n = name.strip_suffix("_ptds").or_else(|| name.strip_suffix("_ptsz")).unwrap_or(name);
    n.rfind("_v").and_then(|i| n[i + 2..].parse().ok()).unwrap_or(1)
}

#[cfg(test)]
mod tests {
    #[test]
    fn base_names() {
        assert_eq!(super::base_name("cuMemcpyHtoD_v2_ptds"), "cuMemcpyHtoD");
        assert_eq!(super::base_name("cuMemcpyHtoDAsync_v2_ptsz"), "cuMemcpyHtoDAsync");
        assert_eq!(super::base_name("cuCtxCreate_v4"), "cuCtxCreate");
        assert_eq!(super::base_name("cuLaunchKernel_ptsz"), "cuLaunchKernel");
        assert_eq!(super::base_name("cuInit"), "cuInit");
        // "_v" not followed by digits only is part of the name.
        assert_eq!(super::base_name("cuMemAdvise_vX"), "cuMemAdvise_vX");
    }

    #[test]
    fn versions() {
        assert_eq!(super::version("cuCtxCreate_v4"), 4);
        assert_eq!(super::version("cuMemcpyHtoD_v2_ptds"), 2);
        assert_eq!(super::version("cuInit"), 1);
    }
}
