//! The C examples in c_examples/ build against include/cudart_shim.h alone
//! and run on the shim over the fake driver.

mod common;
use common::*;

#[test]
fn device_query_prints_every_property() {
    use programs::device_query::*;
    let exe = PROGRAM.build(&scratch("device_query"), &[]);
    check(&run_on_fake(&exe, &[], KNOBS));
}

#[test]
fn hooks_count_bytes_per_kind_and_fail_large_allocations() {
    use programs::hooks::*;
    let exe = PROGRAM.build(&scratch("hooks"), &[]);
    check(&run_on_fake(&exe, &[], &[]));
}
