//! A C program drives streams, events, callbacks and capture through
//! include/cudart_shim.h alone, on the shim over the fake driver: the
//! header's callback and enum types work from C.

mod common;
use common::*;

#[test]
fn streams_from_c() {
    use programs::streams_fake::*;
    let exe = PROGRAM.build(&scratch("streams_fake"), &[]);
    assert_eq!(run_on_fake(&exe, &[], &[]), OUTPUT);
}
