//! A C program drives streams, events, callbacks and capture through
//! include/cudart_shim.h alone, on the shim over the fake driver: the
//! header's callback and enum types work from C.

mod common;
use common::*;

#[test]
fn streams_from_c() {
    let dir = scratch("streams_fake");
    let exe = compile_c_shim(&repo_root().join("tests/c/streams_fake.c"), &dir.join("streams_fake"), &[]);
    let out = run_on_fake(&exe, &[], &[]);
    let want = "\
priority -1
host work in order, callback ok
elapsed with a no-timing event: cudaErrorInvalidResourceHandle
elapsed same event: 0.0
capturing 1, dependencies 2, edge type 0
b joined: 1
synchronize in capture: cudaErrorStreamCaptureUnsupported
end capture: cudaErrorStreamCaptureInvalidated, graph NULL
last error: cudaErrorStreamCaptureInvalidated
previous mode 0
destroyed stream query: cudaErrorInvalidResourceHandle
PASS
";
    assert_eq!(out, want);
}
