//! `cudart-shim trace`: which API layers are traced.
//!
//! By default both: the runtime API through our runtime (LD_PRELOAD of
//! `libcudart_shim.so`) and the driver API through the driver interposer
//! (`driver/libcuda.so.1` beside the library, put first on
//! `LD_LIBRARY_PATH`, so every `dlopen("libcuda.so.1")` finds it: NVIDIA's
//! static runtime, CuPy, cuda-python, Triton, cuBLAS, our runtime). The
//! options name the API layer, never a library, so that nobody reads them as
//! choosing which driver runs.

use crate::library::Interposer;
use std::path::Path;
use std::process::Command;

#[derive(clap::Args, Debug, Clone, Copy)]
pub struct ApiLayers {
    /// Do not trace CUDA runtime API calls (cuda*): the program keeps the
    /// runtime it links (LD_PRELOAD is left as it was); only driver API
    /// calls are traced.
    #[arg(long)]
    pub no_runtime_api: bool,
    /// Do not trace CUDA driver API calls (cu*): the driver interposer is
    /// not put on the library path (the real driver runs either way).
    #[arg(long)]
    pub no_driver_api: bool,
}

impl ApiLayers {
    /// Set up `cmd`'s environment for the chosen layers. `lib`: our
    /// runtime library (already in `cmd`'s LD_PRELOAD); `private`: a
    /// folder of this run only, where an unlinked interposer (the wheel's)
    /// gets its `libcuda.so.1` link (see [`Interposer::folder`]).
    pub fn apply(&self, cmd: &mut Command, lib: &Path, private: &Path) {
        if self.no_runtime_api && self.no_driver_api {
            eprintln!("cudart-shim: --no-runtime-api and --no-driver-api together: nothing is traced");
        }
        if self.no_runtime_api {
            cmd.env("CUDART_SHIM_TRACE_RUNTIME", "0");
            match std::env::var("LD_PRELOAD") {
                Ok(p) if !p.is_empty() => cmd.env("LD_PRELOAD", p),
                _ => cmd.env_remove("LD_PRELOAD"),
            };
        }
        if self.no_driver_api {
            cmd.env("CUDART_SHIM_TRACE_DRIVER", "0");
            return;
        }
        cmd.env_remove("CUDART_SHIM_TRACE_DRIVER");
        let dir = match Interposer::of(lib).folder(private) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("cudart-shim: {e}: driver API calls are not traced (build it: cargo build --release -p cudart-shim-driver)");
                return;
            }
        };
        let path = match std::env::var("LD_LIBRARY_PATH") {
            Ok(p) if !p.is_empty() => format!("{}:{p}", dir.display()),
            _ => dir.display().to_string(),
        };
        cmd.env("LD_LIBRARY_PATH", path);
    }
}

/// Whether a timeline call event counts in a summary made from the
/// timeline, as in the live summary: a driver call made inside a runtime
/// call (depth above 0) is not the program's own.
pub fn counts_as_own(event: &serde_json::Value) -> bool {
    let name = event["name"].as_str().unwrap_or("");
    let driver = name.starts_with("cu") && !name.starts_with("cuda");
    !(driver && event["args"]["depth"].as_u64().unwrap_or(0) > 0)
}

/// Whether a result name is a success (runtime or driver).
pub fn is_success(result: &str) -> bool {
    result == "cudaSuccess" || result == "CUDA_SUCCESS"
}

/// `cudart-shim doctor`: whether the driver interposer beside `lib` was
/// built, and for the wheel's unlinked one, that its link can be made in a
/// private folder (made in `private` and removed by the caller).
pub fn doctor(lib: &Path, private: Option<&Path>) -> bool {
    let interposer = Interposer::of(lib);
    match (&interposer, private) {
        (Interposer::Built(d), _) => println!(
            "          driver interposer: {} (`trace` puts this folder first on LD_LIBRARY_PATH to trace driver API calls)",
            d.join("libcuda.so.1").display()
        ),
        (Interposer::Unlinked(f), Some(p)) => match interposer.folder(p) {
            Ok(_) => println!(
                "          driver interposer: {} (`trace` links it as libcuda.so.1 in a private folder of each run and puts that folder first on LD_LIBRARY_PATH; link checked)",
                f.display()
            ),
            Err(e) => {
                println!("          driver interposer: {e}: `trace` cannot trace driver API calls (is the temporary folder writable? TMPDIR)");
                return false;
            }
        },
        (Interposer::Unlinked(f), None) => println!(
            "          driver interposer: {} (no private folder to check its link in: `trace` may not trace driver API calls; TMPDIR)",
            f.display()
        ),
        (Interposer::Missing(p), _) => println!(
            "          driver interposer: not built ({}): driver API calls are not traced; build it: cargo build --release -p cudart-shim-driver",
            p.display()
        ),
    }
    true
}
