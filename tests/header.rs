//! The C headers `include/cudart_shim.h` (the CUDA runtime API as we export
//! it) and `include/cudart_shim_ext.h` (the shim's own `cudartShim*` API):
//! how they are generated, and that they are fresh, valid C and C++, and
//! take code written for NVIDIA's headers.
//!
//! Generation lives here, not in build.rs, so that a build never writes
//! into the source tree (a read-only checkout and `cargo package` work) and
//! cbindgen is only a dev-dependency. `scripts/gen-header` rewrites the
//! committed headers (`CUDART_SHIM_WRITE_HEADERS=1` on the freshness test);
//! the freshness test fails when they differ from what the sources give.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// From the Rust sources to the two header texts.
mod generate {
    use super::*;

    /// Files cbindgen reads for the extension header; everything they
    /// define is left out of the main header, which includes the extension.
    const EXT_SOURCES: [&str; 2] = ["src/types/shim.rs", "src/api/shim.rs"];

    /// NVIDIA's enum tag where it differs from the type name (everywhere
    /// else `enum X` is `X`), from NVIDIA's driver_types.h; tests below
    /// check every tag against NVIDIA's headers.
    const ENUM_TAGS: &[(&str, &str)] = &[
        ("cudaError_t", "cudaError"),
        ("cudaGraphDependencyType", "cudaGraphDependencyType_enum"),
        ("cudaLogLevel", "CUDAlogLevel_enum"),
        ("cudaAsyncNotificationType", "cudaAsyncNotificationType_enum"),
        ("cudaDataType", "cudaDataType_t"),
        ("libraryPropertyType", "libraryPropertyType_t"),
        ("cudaEmulationStrategy", "cudaEmulationStrategy_t"),
        ("cudaEmulationMantissaControl", "cudaEmulationMantissaControl_t"),
        ("cudaEmulationSpecialValuesSupport", "cudaEmulationSpecialValuesSupport_t"),
    ];

    /// NVIDIA's struct tag where it differs from the typedef name
    /// (`struct cudaLaunchConfig_st`), from NVIDIA's headers; the type name
    /// stays, so both spellings work as they do with NVIDIA's.
    const STRUCT_TAGS: &[(&str, &str)] = &[
        ("cudaAsyncNotificationInfo_t", "cudaAsyncNotificationInfo"),
        ("cudaEglFrame", "cudaEglFrame_st"),
        ("cudaEglPlaneDesc", "cudaEglPlaneDesc_st"),
        ("cudaGraphEdgeData", "cudaGraphEdgeData_st"),
        ("cudaGraphExecUpdateResultInfo", "cudaGraphExecUpdateResultInfo_st"),
        ("cudaGraphInstantiateParams", "cudaGraphInstantiateParams_st"),
        ("cudaIpcEventHandle_t", "cudaIpcEventHandle_st"),
        ("cudaIpcMemHandle_t", "cudaIpcMemHandle_st"),
        ("cudaLaunchAttribute", "cudaLaunchAttribute_st"),
        ("cudaLaunchConfig_t", "cudaLaunchConfig_st"),
        ("cudaLaunchMemSyncDomainMap", "cudaLaunchMemSyncDomainMap_st"),
        ("cudaUUID_t", "CUuuid_st"),
    ];

    /// C++ default arguments of NVIDIA's cuda_runtime_api.h: the function
    /// and the defaults of its last parameters, in order. Checked against
    /// NVIDIA's header by `cxx_default_arguments_are_nvidias`.
    pub const CXX_DEFAULTS: &[(&str, &[&str])] = &[
        ("cudaStreamWaitEvent", &["0"]),
        ("cudaStreamAttachMemAsync", &["0", "cudaMemAttachSingle"]),
        ("cudaStreamGetCaptureInfo", &["0", "0", "0", "0", "0"]),
        ("cudaStreamUpdateCaptureDependencies", &["0"]),
        ("cudaEventRecord", &["0"]),
        ("cudaEventRecordWithFlags", &["0", "0"]),
        ("cudaStreamBeginRecaptureToGraph", &["0"]),
        ("cudaGraphCreate", &["0"]),
        ("cudaGraphConditionalHandleCreate_v2", &["NULL", "0", "0"]),
        ("cudaSignalExternalSemaphoresAsync", &["0"]),
        ("cudaWaitExternalSemaphoresAsync", &["0"]),
        ("cudaMallocManaged", &["cudaMemAttachGlobal"]),
        ("cudaMallocArray", &["0", "0"]),
        ("cudaMalloc3DArray", &["0"]),
        ("cudaMallocMipmappedArray", &["0"]),
        ("cudaMemcpy3DAsync", &["0"]),
        ("cudaMemcpy3DPeerAsync", &["0"]),
        ("cudaMemcpy2DArrayToArray", &["cudaMemcpyDeviceToDevice"]),
        ("cudaMemcpyToSymbol", &["0", "cudaMemcpyHostToDevice"]),
        ("cudaMemcpyFromSymbol", &["0", "cudaMemcpyDeviceToHost"]),
        ("cudaMemcpyAsync", &["0"]),
        ("cudaMemcpyPeerAsync", &["0"]),
        ("cudaMemcpy2DAsync", &["0"]),
        ("cudaMemcpy2DToArrayAsync", &["0"]),
        ("cudaMemcpy2DFromArrayAsync", &["0"]),
        ("cudaMemcpyToSymbolAsync", &["0"]),
        ("cudaMemcpyFromSymbolAsync", &["0"]),
        ("cudaMemsetAsync", &["0"]),
        ("cudaMemset2DAsync", &["0"]),
        ("cudaMemset3DAsync", &["0"]),
        ("cudaMemPrefetchAsync", &["0"]),
        ("cudaGraphicsMapResources", &["0"]),
        ("cudaGraphicsUnmapResources", &["0"]),
        ("cudaGraphInstantiate", &["0"]),
        ("cudaGraphInstantiateWithFlags", &["0"]),
        ("cudaUserObjectRetain", &["1"]),
        ("cudaUserObjectRelease", &["1"]),
        ("cudaGraphRetainUserObject", &["1", "0"]),
        ("cudaGraphReleaseUserObject", &["1"]),
        ("cudaGraphConditionalHandleCreate", &["0", "0"]),
        ("cudaGetDriverEntryPointByVersion", &["NULL"]),
        ("cudaMemcpyArrayToArray", &["cudaMemcpyDeviceToDevice"]),
        ("cudaMemcpyToArrayAsync", &["0"]),
        ("cudaMemcpyFromArrayAsync", &["0"]),
    ];

    /// Spellings NVIDIA's headers give every program; `@VERSION@` becomes
    /// what cudaRuntimeGetVersion reports.
    const AFTER_INCLUDES: &str = "
/* As in NVIDIA's cuda_runtime_api.h: the runtime version this header
 * describes (what cudaRuntimeGetVersion reports). */
#define CUDART_VERSION @VERSION@

/* The calling conventions of runtime calls and callbacks (empty on Linux). */
#define CUDARTAPI
#define CUDARTAPI_CDECL
#define CUDART_CB

/* A default argument in C++, nothing in C (NVIDIA's prototypes have the
 * same defaults). */
#if defined(__cplusplus)
#define CUDART_SHIM_DEFAULT(value) = value
#else
#define CUDART_SHIM_DEFAULT(value)
#endif";

    /// dim3 as NVIDIA's: in C++, constructible from 1 to 3 sizes that
    /// default to 1 (`dim3(4)`, `dim3(4, 2)`, `dim3()` = 1,1,1).
    const DIM3_CXX: &str = "#if defined(__cplusplus)
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
#endif
";

    /// Helpers NVIDIA's cuda_runtime.h gives: the make_* constructors in C
    /// and C++, and the C++ overloads that take typed pointers.
    const TAIL: &str = r#"
/* Other names NVIDIA's headers give to the same types and values. */
typedef cudaLaunchAttributeValue cudaStreamAttrValue;
typedef cudaLaunchAttributeValue cudaKernelNodeAttrValue;
typedef cudaLaunchAttributeID cudaKernelNodeAttrID;
#define cudaKernelNodeAttributeAccessPolicyWindow cudaLaunchAttributeAccessPolicyWindow
#define cudaKernelNodeAttributeCooperative cudaLaunchAttributeCooperative
#define cudaKernelNodeAttributePriority cudaLaunchAttributePriority
#define cudaKernelNodeAttributeClusterDimension cudaLaunchAttributeClusterDimension
#define cudaKernelNodeAttributeClusterSchedulingPolicyPreference cudaLaunchAttributeClusterSchedulingPolicyPreference
#define cudaKernelNodeAttributeMemSyncDomainMap cudaLaunchAttributeMemSyncDomainMap
#define cudaKernelNodeAttributeMemSyncDomain cudaLaunchAttributeMemSyncDomain
#define cudaKernelNodeAttributePreferredSharedMemoryCarveout cudaLaunchAttributePreferredSharedMemoryCarveout
#define cudaKernelNodeAttributeDeviceUpdatableKernelNode cudaLaunchAttributeDeviceUpdatableKernelNode
#define cudaKernelNodeAttributeNvlinkUtilCentricScheduling cudaLaunchAttributeNvlinkUtilCentricScheduling

/* Texture and surface object types (texture_types.h, surface_types.h). */
#define cudaTextureType1D 0x01
#define cudaTextureType2D 0x02
#define cudaTextureType3D 0x03
#define cudaTextureTypeCubemap 0x0C
#define cudaTextureType1DLayered 0xF1
#define cudaTextureType2DLayered 0xF2
#define cudaTextureTypeCubemapLayered 0xFC
#define cudaSurfaceType1D 0x01
#define cudaSurfaceType2D 0x02
#define cudaSurfaceType3D 0x03
#define cudaSurfaceTypeCubemap 0x0C
#define cudaSurfaceType1DLayered 0xF1
#define cudaSurfaceType2DLayered 0xF2
#define cudaSurfaceTypeCubemapLayered 0xFC

/* The constructors of driver_functions.h. */
static inline struct cudaPitchedPtr make_cudaPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz) {
  struct cudaPitchedPtr s;
  s.ptr = d;
  s.pitch = p;
  s.xsize = xsz;
  s.ysize = ysz;
  return s;
}

static inline struct cudaPos make_cudaPos(size_t x, size_t y, size_t z) {
  struct cudaPos p;
  p.x = x;
  p.y = y;
  p.z = z;
  return p;
}

static inline struct cudaExtent make_cudaExtent(size_t w, size_t h, size_t d) {
  struct cudaExtent e;
  e.width = w;
  e.height = h;
  e.depth = d;
  return e;
}

#if defined(__cplusplus)
/* C++ overloads, as cuda_runtime.h has them: allocations into any pointer
 * type, pinned allocation with flags, events with flags. */
template <class T> static inline cudaError_t cudaMalloc(T **devPtr, size_t size) {
  return ::cudaMalloc((void **)(void *)devPtr, size);
}
static inline cudaError_t cudaMallocHost(void **ptr, size_t size, unsigned int flags) {
  return ::cudaHostAlloc(ptr, size, flags);
}
template <class T> static inline cudaError_t cudaMallocHost(T **ptr, size_t size, unsigned int flags = 0) {
  return ::cudaMallocHost((void **)(void *)ptr, size, flags);
}
template <class T> static inline cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags) {
  return ::cudaHostAlloc((void **)(void *)ptr, size, flags);
}
template <class T> static inline cudaError_t cudaHostGetDevicePointer(T **pDevice, void *pHost, unsigned int flags) {
  return ::cudaHostGetDevicePointer((void **)(void *)pDevice, pHost, flags);
}
template <class T> static inline cudaError_t cudaMallocManaged(T **devPtr, size_t size, unsigned int flags = cudaMemAttachGlobal) {
  return ::cudaMallocManaged((void **)(void *)devPtr, size, flags);
}
template <class T> static inline cudaError_t cudaMallocPitch(T **devPtr, size_t *pitch, size_t width, size_t height) {
  return ::cudaMallocPitch((void **)(void *)devPtr, pitch, width, height);
}
template <class T> static inline cudaError_t cudaMallocAsync(T **devPtr, size_t size, cudaStream_t stream) {
  return ::cudaMallocAsync((void **)(void *)devPtr, size, stream);
}
template <class T> static inline cudaError_t cudaMallocAsync(T **devPtr, size_t size, cudaMemPool_t memPool, cudaStream_t stream) {
  return ::cudaMallocFromPoolAsync((void **)(void *)devPtr, size, memPool, stream);
}
template <class T> static inline cudaError_t cudaMallocFromPoolAsync(T **devPtr, size_t size, cudaMemPool_t memPool, cudaStream_t stream) {
  return ::cudaMallocFromPoolAsync((void **)(void *)devPtr, size, memPool, stream);
}
template <class T> static inline cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, T *devPtr, size_t length = 0, unsigned int flags = cudaMemAttachSingle) {
  return ::cudaStreamAttachMemAsync(stream, (void *)devPtr, length, flags);
}
static inline cudaError_t cudaEventCreate(cudaEvent_t *event, unsigned int flags) {
  return ::cudaEventCreateWithFlags(event, flags);
}
#endif

/* The shim's own API (cudartShim*). */
#include "cudart_shim_ext.h"
"#;

    pub struct Headers {
        pub main: String,
        pub ext: String,
    }

    pub fn headers() -> Headers {
        let root = repo_root();
        let ext = cbindgen_text(
            EXT_SOURCES.iter().fold(cbindgen::Builder::new(), |b, s| b.with_src(root.join(s))),
            config(&root.join("cbindgen-ext.toml")),
        );
        let mut main_config = config(&root.join("cbindgen.toml"));
        for src in EXT_SOURCES {
            main_config.export.exclude.extend(defined_names(&read(&root.join(src))));
        }
        main_config.after_includes = Some(AFTER_INCLUDES.replace("@VERSION@", &runtime_version().to_string()));
        let main = cbindgen_text(cbindgen::Builder::new().with_crate(&root), main_config);
        Headers { main: nvidia_style(&main, &newtype_enums(&root.join("src/types"))), ext }
    }

    fn read(p: &Path) -> String {
        std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    fn config(p: &Path) -> cbindgen::Config {
        cbindgen::Config::from_file(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    fn cbindgen_text(b: cbindgen::Builder, c: cbindgen::Config) -> String {
        let bindings = b.with_config(c).generate().unwrap_or_else(|e| panic!("cbindgen: {e}"));
        let mut text = Vec::new();
        bindings.write(&mut text);
        String::from_utf8(text).unwrap()
    }

    /// The one version constant: what the library's cudaRuntimeGetVersion
    /// answers (it needs no driver).
    fn runtime_version() -> i32 {
        let mut v = 0;
        // SAFETY: a valid out-pointer.
        let r = unsafe { cudart_shim::api::version::cudaRuntimeGetVersion(&mut v) };
        assert_eq!(r, cudart_shim::types::cudaSuccess);
        v
    }

    /// Names of the public items a Rust file defines (types, constants,
    /// exported functions).
    fn defined_names(src: &str) -> Vec<String> {
        const PREFIXES: [&str; 5] = ["pub struct ", "pub union ", "pub type ", "pub const ", "pub unsafe extern \"C\" fn "];
        src.lines()
            .map(str::trim_start)
            .filter_map(|l| PREFIXES.iter().find_map(|p| l.strip_prefix(p)))
            .map(|rest| rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect())
            .collect()
    }

    /// A `#[repr(transparent)]` integer newtype of src/types (the form every
    /// C enum takes there) with its constants, in source order.
    struct NewtypeEnum {
        ty: String,
        values: Vec<(String, String)>,
    }

    impl NewtypeEnum {
        fn tag(&self) -> &str {
            ENUM_TAGS.iter().find(|(t, _)| *t == self.ty).map_or(&self.ty, |(_, tag)| tag)
        }
    }

    fn newtype_enums(dir: &Path) -> Vec<NewtypeEnum> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        let texts: Vec<String> = files.iter().filter(|p| p.extension().is_some_and(|e| e == "rs")).map(|p| read(p)).collect();
        let mut enums = Vec::new();
        for text in &texts {
            let lines: Vec<&str> = text.lines().collect();
            for (i, l) in lines.iter().enumerate() {
                let Some(ty) = l.strip_prefix("pub struct ").and_then(|r| r.strip_suffix("(pub c_int);")) else { continue };
                let transparent = lines[..i].iter().rev().take_while(|p| p.starts_with("#[")).any(|p| *p == "#[repr(transparent)]");
                if transparent {
                    enums.push(NewtypeEnum { ty: ty.to_owned(), values: Vec::new() });
                }
            }
        }
        // `pub const NAME: T = T(literal);` anywhere in src/types; a
        // constant defined as another constant (an alias) stays a #define.
        for text in &texts {
            for l in text.lines() {
                let Some(rest) = l.strip_prefix("pub const ") else { continue };
                let Some((name, rest)) = rest.split_once(": ") else { continue };
                let Some((ty, value)) = rest.split_once(" = ") else { continue };
                let Some(e) = enums.iter_mut().find(|e| e.ty == ty) else { continue };
                let Some(literal) = value.strip_prefix(&format!("{ty}(")).and_then(|v| v.strip_suffix(");")) else { continue };
                let literal = literal.replace('_', "");
                if literal.trim_start_matches('-').chars().all(|c| c.is_ascii_hexdigit() || c == 'x') {
                    e.values.push((name.to_owned(), literal));
                }
            }
        }
        enums
    }

    /// The steps after cbindgen that make the header take code written for
    /// NVIDIA's: integer typedefs with constants become C enums (usable as
    /// `enum cudaMemcpyKind`, and typed in C++), dim3 gets its constructor,
    /// prototypes their C++ default arguments, and the tail its helpers.
    fn nvidia_style(text: &str, enums: &[NewtypeEnum]) -> String {
        let enumerators: std::collections::HashSet<&str> =
            enums.iter().flat_map(|e| e.values.iter().map(|(n, _)| n.as_str())).collect();
        let mut out: Vec<String> = Vec::new();
        let mut lines = text.lines().peekable();
        while let Some(line) = lines.next() {
            if let Some(e) = line.strip_prefix("typedef int ").and_then(|r| r.strip_suffix(';')).and_then(|ty| enums.iter().find(|e| e.ty == ty && !e.values.is_empty())) {
                out.push(format!("enum {} {{", e.tag()));
                out.extend(e.values.iter().map(|(n, v)| format!("  {n} = {v},")));
                out.push("};".into());
                out.push(format!("typedef enum {} {};", e.tag(), e.ty));
                continue;
            }
            if line.strip_prefix("#define ").and_then(|r| r.split_whitespace().next()).is_some_and(|n| enumerators.contains(n)) {
                // Now an enumerator: drop the macro, its comment and the blank line after.
                if out.last().is_some_and(|l| l.trim_start() == "*/") {
                    while out.pop().is_some_and(|l| !l.starts_with("/**")) {}
                }
                if lines.peek() == Some(&"") {
                    lines.next();
                }
                continue;
            }
            if line == "} dim3;" {
                out.push(DIM3_CXX.trim_end().into());
            }
            out.push(with_defaults(line));
        }
        let mut text = with_struct_tags(&(out.join("\n") + "\n"));
        let guard_end = text.rfind("#endif  /* CUDART_SHIM_H */").expect("include guard");
        text.insert_str(guard_end, &format!("{}\n", TAIL.trim_start()));
        text
    }

    /// `struct NAME` becomes `struct TAG` wherever NVIDIA's tag differs.
    fn with_struct_tags(text: &str) -> String {
        let mut text = text.to_owned();
        for (name, tag) in STRUCT_TAGS {
            let from = format!("struct {name}");
            let mut out = String::with_capacity(text.len());
            let mut rest = text.as_str();
            while let Some(i) = rest.find(&from) {
                let after = &rest[i + from.len()..];
                let whole_word = !after.starts_with(|c: char| c.is_alphanumeric() || c == '_')
                    && !rest[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_');
                out.push_str(&rest[..i]);
                out.push_str(if whole_word { "struct " } else { &from });
                if whole_word {
                    out.push_str(tag);
                }
                rest = after;
            }
            out.push_str(rest);
            assert!(out.contains(&format!("typedef struct {tag} {{")), "no struct {name} in the header");
            text = out;
        }
        text
    }

    /// A prototype with NVIDIA's C++ default arguments, as
    /// `CUDART_SHIM_DEFAULT(value)` after each such parameter.
    fn with_defaults(line: &str) -> String {
        let Some((name, defaults)) = CXX_DEFAULTS.iter().find(|(n, _)| line.contains(&format!(" {n}(")) && line.ends_with(");")) else {
            return line.to_owned();
        };
        let open = line.find(&format!(" {name}(")).unwrap() + name.len() + 2;
        let params = split_params(&line[open..line.len() - 2]);
        assert!(params.len() >= defaults.len(), "{name}: fewer parameters than NVIDIA's defaults");
        let first = params.len() - defaults.len();
        let params: Vec<String> = params
            .iter()
            .enumerate()
            .map(|(i, p)| if i < first { p.clone() } else { format!("{p} CUDART_SHIM_DEFAULT({})", defaults[i - first]) })
            .collect();
        format!("{}{});", &line[..open], params.join(", "))
    }

    /// Parameters split at top-level commas (a function-pointer parameter
    /// has commas of its own).
    fn split_params(s: &str) -> Vec<String> {
        let (mut out, mut depth, mut cur) = (Vec::new(), 0, String::new());
        for c in s.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                ',' if depth == 0 => {
                    out.push(cur.trim().to_owned());
                    cur.clear();
                    continue;
                }
                _ => {}
            }
            cur.push(c);
        }
        out.push(cur.trim().to_owned());
        out
    }
}

const MAIN: &str = "include/cudart_shim.h";
const EXT: &str = "include/cudart_shim_ext.h";

#[test]
fn committed_headers_are_fresh() {
    let h = generate::headers();
    let root = repo_root();
    let write = std::env::var_os("CUDART_SHIM_WRITE_HEADERS").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for (path, text) in [(MAIN, &h.main), (EXT, &h.ext)] {
        let p = root.join(path);
        if std::fs::read_to_string(&p).ok().as_deref() == Some(text.as_str()) {
            continue;
        }
        if write {
            std::fs::write(&p, text).unwrap();
            eprintln!("wrote {path}");
        } else {
            stale.push(path);
        }
    }
    assert!(stale.is_empty(), "{stale:?} differ from what the sources give: run scripts/gen-header and commit them");
}

fn compile(compiler: &str, args: &[&str], src_text: &str, file: &str, includes: &[PathBuf]) -> std::process::Output {
    let dir = scratch("header");
    let src = dir.join(file);
    std::fs::write(&src, src_text).unwrap();
    Command::new(compiler)
        .args(["-fsyntax-only", "-Wall", "-Wextra", "-Werror"])
        .args(args)
        .args(includes.iter().map(|i| format!("-I{}", i.display())))
        .arg(&src)
        .output()
        .unwrap()
}

fn assert_compiles(compiler: &str, std: &str, src_text: &str, file: &str, includes: &[PathBuf]) {
    let out = compile(compiler, &[std], src_text, file, includes);
    assert!(out.status.success(), "{compiler} {std} {file}:\n{}", String::from_utf8_lossy(&out.stderr));
}

fn ours() -> PathBuf {
    repo_root().join("include")
}

#[test]
fn headers_are_valid_c_and_cxx() {
    for header in ["cudart_shim.h", "cudart_shim_ext.h"] {
        // The extension alone pulls in the main header's declarations from
        // cuda_runtime_api.h, which is NVIDIA's; with ours, include ours first.
        let text = if header == "cudart_shim.h" {
            "#include <cudart_shim.h>\n".to_owned()
        } else {
            "#include <cudart_shim.h>\n#include <cudart_shim_ext.h>\n".to_owned()
        };
        for (cc, std) in [("cc", "-std=c99"), ("cc", "-std=c11"), ("c++", "-std=c++11"), ("c++", "-std=c++17")] {
            assert_compiles(cc, std, &format!("{text}int main(void) {{ return 0; }}\n"), &format!("valid_{std}.{}", if cc == "cc" { "c" } else { "cpp" }), &[ours()]);
        }
    }
}

/// `cudart_shim_ext.h` next to NVIDIA's own headers: after
/// `cuda_runtime_api.h` or `cuda_runtime.h`, and alone (it includes
/// `cuda_runtime_api.h` itself), in C and C++, with no conflict.
#[test]
fn ext_header_compiles_with_nvidia_headers() {
    let use_it = "static cudaError_t counted(void) {\n  cudartShimCounter c;\n  uint64_t h = 0;\n  (void)h;\n  cudartShimPoolStats s;\n  (void)cudartShimGetPoolStats(0, 0, &s);\n  return cudartShimGetCounter(\"cudaMalloc\", &c);\n}\nint main(void) { return counted() == cudaSuccess ? 0 : 1; }\n";
    for first in ["#include <cuda_runtime_api.h>\n", "#include <cuda_runtime.h>\n", ""] {
        let text = format!("{first}#include <cudart_shim_ext.h>\n{use_it}");
        for (cc, std, ext) in [("cc", "-std=c11", "c"), ("c++", "-std=c++17", "cpp")] {
            assert_compiles(cc, std, &text, &format!("ext.{ext}"), &[cuda135_include(), ours()]);
        }
    }
}

/// A host program written for NVIDIA's cuda_runtime.h, compiled against
/// NVIDIA's headers, then, with only the include line changed, against
/// ours, linked to the shim and run over the fake driver.
fn nvidia_program_runs_on_ours(src: &str, compiler: &str, std: &str, expect: &[&str]) {
    let dir = scratch("header_nvidia_style");
    let text = std::fs::read_to_string(repo_root().join(src)).unwrap();
    assert!(text.contains("#include <cuda_runtime.h>\n"), "{src} must include <cuda_runtime.h>");
    let ext = if compiler == "cc" { "c" } else { "cpp" };
    assert_compiles(compiler, std, &text, &format!("nvidia.{ext}"), &[cuda135_include()]);
    let ours_text = text.replace("#include <cuda_runtime.h>\n", "#include <cudart_shim.h>\n");
    let src_ours = dir.join(format!("ours.{ext}"));
    std::fs::write(&src_ours, ours_text).unwrap();
    let exe = dir.join(format!("ours_{ext}"));
    let t = target_dir();
    let out = Command::new(compiler)
        .args([std, "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(ours())
        .arg(&src_ours)
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", t.display()))
        .arg(format!("-Wl,-rpath,{}", t.display()))
        .arg("-lcudart_shim")
        .output()
        .unwrap();
    assert!(out.status.success(), "{compiler} {std} against ours:\n{}", String::from_utf8_lossy(&out.stderr));
    // The program checks cudaRuntimeGetVersion == CUDART_VERSION, which
    // holds where the driver serves the header's version: our header says
    // 13.5, and ours answers no more than the driver (docs/COMPATIBILITY.md),
    // so the fake driver plays a 13.5 one here.
    let out = run_on_fake(&exe, &[], &[("FAKE_CUDA_DRIVER_VERSION", "13050")]);
    for line in expect.iter().chain(&["all checks passed"]) {
        assert!(out.lines().any(|l| l == *line), "no line {line:?} in:\n{out}");
    }
}

#[test]
fn nvidia_style_c11_program_compiles_and_runs_on_ours() {
    nvidia_program_runs_on_ours(
        "tests/c/nvidia_style.c",
        "cc",
        "-std=c11",
        &[
            "devices=1 name=Fake CUDA Device 0 warp=32",
            // cudaLaunchHostFunc adds 1, the stream callback 10.
            "stream query=cudaSuccess callbacks=11 timed=1 same=1",
            "capturing=0",
            "pitched pitch_ok=1 wrapped=64 origin=0",
            "pointer type device=1",
            "grid=4,2,1",
            "bad device=cudaErrorInvalidDevice last=cudaErrorInvalidDevice",
        ],
    );
}

#[test]
fn nvidia_style_cxx17_program_compiles_and_runs_on_ours() {
    nvidia_program_runs_on_ours(
        "tests/c/nvidia_style.cpp",
        "c++",
        "-std=c++17",
        &[
            "runtime matches header=1 name=Fake CUDA Device 0 zero=0",
            // dim3(), dim3(4), dim3(32, 2): missing sizes are 1.
            "dim3 1,1,1 4,1,1 32,2,1",
            "copied HostToDevice/DeviceToHost same=1 host_calls=1",
            "capture none=1",
            "cfg grid=4 block=128,1 pointer device=1",
            "bad=cudaErrorInvalidDevice last=invalid device ordinal",
        ],
    );
}

/// Every C enum of our header is NVIDIA's: the same `enum TAG` and typedef
/// name, each compiles in a declaration against NVIDIA's headers too.
#[test]
fn every_enum_tag_is_nvidias() {
    let h = std::fs::read_to_string(repo_root().join(MAIN)).unwrap();
    let typedefs: Vec<(&str, &str)> = h
        .lines()
        .filter_map(|l| l.strip_prefix("typedef enum ")?.strip_suffix(';')?.split_once(' '))
        .collect();
    assert!(typedefs.len() > 50, "{} enums", typedefs.len());
    // NVIDIA's C declares most enums as tags alone (`enum cudaDeviceAttr`);
    // ours adds the typedef name. In C++ both spellings name the type.
    let mut c_body = String::new();
    let mut cxx_body = String::new();
    for (i, (tag, name)) in typedefs.iter().enumerate() {
        c_body += &format!("  enum {tag} a{i} = (enum {tag})0; (void)a{i};\n");
        cxx_body += &format!("  enum {tag} a{i} = ({name})0; {name} b{i} = a{i}; (void)b{i};\n");
    }
    let text = |inc: &str, body: &str| format!("#include <{inc}>\nint main(void) {{\n{body}  return 0;\n}}\n");
    for (cc, std, ext, body) in [("cc", "-std=c11", "c", &c_body), ("c++", "-std=c++17", "cpp", &cxx_body)] {
        assert_compiles(cc, std, &text("cuda_runtime.h", body), &format!("tags_nvidia.{ext}"), &[cuda135_include()]);
        assert_compiles(cc, std, &text("cudart_shim.h", body), &format!("tags_ours.{ext}"), &[ours()]);
    }
}

/// Every enum that NVIDIA's cuda_runtime.h declares (after the
/// preprocessor) has its tag in ours, with one exception: the flags of
/// `cudaGetDriverEntryPoint*`, whose constants stay `#define`s because the
/// runtime declares them as the `unsigned long long` the calls take.
#[test]
fn every_nvidia_enum_is_declared() {
    const NOT_AN_ENUM_HERE: &[&str] = &["cudaGetDriverEntryPointFlags"];
    let tags = |text: &str| -> std::collections::BTreeSet<String> {
        let flat = text.replace('\n', " ");
        flat.split("enum ")
            .skip(1)
            .filter_map(|rest| {
                let (tag, after) = rest.trim_start().split_once(|c: char| !(c.is_alphanumeric() || c == '_'))?;
                (after.trim_start().starts_with('{') && !tag.is_empty()).then(|| tag.to_owned())
            })
            .collect()
    };
    let src = scratch("header").join("cuda_runtime_only.c");
    std::fs::write(&src, "#include <cuda_runtime.h>\n").unwrap();
    let out = Command::new("cc").arg("-E").arg(format!("-I{}", cuda135_include().display())).arg(&src).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let theirs = tags(&String::from_utf8_lossy(&out.stdout));
    let ours = tags(&std::fs::read_to_string(repo_root().join(MAIN)).unwrap());
    assert!(theirs.len() > 70, "{theirs:?}");
    let missing: Vec<&String> = theirs.iter().filter(|t| !ours.contains(*t) && !NOT_AN_ENUM_HERE.contains(&t.as_str())).collect();
    assert!(missing.is_empty(), "enums of NVIDIA's cuda_runtime.h missing from include/cudart_shim.h: {missing:?}");
}

/// Every object-like `cuda*`/`CUDA*` macro of NVIDIA's cuda_runtime.h is
/// in ours, as a macro, an enumerator or a type name (abi_layout.rs checks
/// the values). `CUDART_DEVICE` marks device code, which a host header has
/// none of.
#[test]
fn every_nvidia_macro_is_declared() {
    let macros = |include: &Path, header: &str| -> Vec<String> {
        let src = scratch("header").join(format!("macros_{header}.c"));
        std::fs::write(&src, format!("#include <{header}>\n")).unwrap();
        let out = Command::new("cc").args(["-E", "-dM"]).arg(format!("-I{}", include.display())).arg(&src).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.strip_prefix("#define ")?.split_whitespace().next().map(str::to_owned))
            .filter(|n| (n.starts_with("cuda") || n.starts_with("CUDA")) && !n.contains('('))
            .collect()
    };
    let theirs = macros(&cuda135_include(), "cuda_runtime.h");
    assert!(theirs.len() > 90, "{theirs:?}");
    let ours = macros(&ours(), "cudart_shim.h");
    let h = std::fs::read_to_string(repo_root().join(MAIN)).unwrap();
    let declared = |n: &str| {
        ours.iter().any(|m| m == n) || h.contains(&format!("\n  {n} = ")) || h.contains(&format!(" {n};\n"))
    };
    let missing: Vec<&String> = theirs.iter().filter(|n| *n != "CUDART_DEVICE" && !declared(n)).collect();
    assert!(missing.is_empty(), "macros of NVIDIA's cuda_runtime.h missing from include/cudart_shim.h: {missing:?}");
}

/// Every struct and union of the header is zero-initialisable in C++ with
/// `T v{}` and `T v = {}`, as NVIDIA's are.
#[test]
fn every_struct_zero_initialises_in_cxx() {
    let h = std::fs::read_to_string(repo_root().join(MAIN)).unwrap();
    let names: Vec<&str> = h
        .lines()
        .filter_map(|l| l.strip_prefix("typedef struct ").or_else(|| l.strip_prefix("typedef union "))?.strip_suffix(" {"))
        .collect();
    assert!(names.len() > 70, "{} structs", names.len());
    let mut body = String::new();
    for (i, n) in names.iter().enumerate() {
        body += &format!("  {n} a{i}{{}}; {n} b{i} = {{}}; (void)a{i}; (void)b{i};\n");
    }
    assert_compiles("c++", "-std=c++17", &format!("#include <cudart_shim.h>\nint main() {{\n{body}  return 0;\n}}\n"), "zero.cpp", &[ours()]);
}

/// CUDART_VERSION is what cudaRuntimeGetVersion reports, and NVIDIA's
/// header for the same version agrees.
#[test]
fn cudart_version_is_the_runtime_version() {
    let mut v = 0;
    // SAFETY: a valid out-pointer.
    unsafe { cudart_shim::api::version::cudaRuntimeGetVersion(&mut v) };
    let h = std::fs::read_to_string(repo_root().join(MAIN)).unwrap();
    assert!(h.contains(&format!("\n#define CUDART_VERSION {v}\n")), "CUDART_VERSION is not {v}");
    let nv = std::fs::read_to_string(cuda135_include().join("cuda_runtime_api.h")).unwrap();
    let nv_version: i32 = nv.lines().find_map(|l| l.strip_prefix("#define CUDART_VERSION")).unwrap().trim().parse().unwrap();
    assert_eq!(nv_version / 1000, v / 1000, "NVIDIA's headers of the wheel are for another major version");
}

/// The C++ default arguments the generator adds are NVIDIA's, function by
/// function (read from the wheel's cuda_runtime_api.h).
#[test]
fn cxx_default_arguments_are_nvidias() {
    let nv = std::fs::read_to_string(cuda135_include().join("cuda_runtime_api.h")).unwrap();
    // Comments and preprocessor lines out, then one declaration per `;`.
    let mut code = String::new();
    let mut rest = nv.as_str();
    while let Some(i) = rest.find("/*") {
        code.push_str(&rest[..i]);
        rest = rest[i..].split_once("*/").map_or("", |(_, r)| r);
    }
    code.push_str(rest);
    let code: String = code.lines().filter(|l| !l.trim_start().starts_with('#')).collect::<Vec<_>>().join("\n");
    let default_of = |p: &str| -> Option<String> {
        let v = p.split_once("__dv(").map(|(_, v)| v).or_else(|| p.split_once(" = ").map(|(_, v)| v))?;
        Some(v.split(')').next().unwrap().trim().to_owned())
    };
    let mut theirs: Vec<(String, Vec<String>)> = Vec::new();
    for decl in code.split(';').filter(|d| d.contains("extern __host__")) {
        let Some(open) = decl.find('(') else { continue };
        let name = decl[..open].split_whitespace().last().unwrap().to_owned();
        let defaults: Vec<String> = decl[open..].split(',').filter_map(default_of).collect();
        if !defaults.is_empty() && !theirs.iter().any(|(n, _)| *n == name) {
            theirs.push((name, defaults));
        }
    }
    let ours: Vec<(String, Vec<String>)> =
        generate::CXX_DEFAULTS.iter().map(|(n, d)| (n.to_string(), d.iter().map(|s| s.to_string()).collect())).collect();
    let mut a = theirs.clone();
    let mut b = ours.clone();
    a.sort();
    b.sort();
    assert_eq!(a, b, "left: NVIDIA's cuda_runtime_api.h, right: CXX_DEFAULTS in tests/header.rs");
}
