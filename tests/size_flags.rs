//! The size flags of `cudart-shim` (`trace --max-size`, `trace` and `run
//! --memory-limit`) read the one size grammar of `trace_format::size`, the
//! library's: a bad value is refused before anything runs, with one
//! message naming the flag and the accepted units, exit status 2; a good
//! one reaches the program's environment as given.

mod common;
use common::*;

fn cli(args: &[&str]) -> (Option<i32>, String, String) {
    let o = cli_on_fake().args(args).output().unwrap();
    let (out, err) = output_text(&o);
    (o.status.code(), out, err)
}

#[test]
fn a_bad_size_is_refused_naming_the_flag_and_the_units() {
    let cases: [(&[&str], &str); 6] = [
        (&["trace", "--timeline", "t.json", "--max-size", "10X", "--", "/bin/true"], "unknown unit \"X\""),
        (&["trace", "--timeline", "t.json", "--max-size", "64MB", "--", "/bin/true"], "did you mean 64MiB?"),
        (&["trace", "--timeline", "t.json", "--max-size", "1K", "--", "/bin/true"], "less than the least timeline size"),
        (&["trace", "--memory-limit", "1MB", "--", "/bin/true"], "did you mean 1MiB?"),
        (&["run", "--memory-limit", "0=2GB", "--", "/bin/true"], "did you mean 2GiB?"),
        (&["run", "--memory-limit", "1.5GiB", "--", "/bin/true"], "not a whole number"),
    ];
    for (args, why) in cases {
        let (code, out, err) = cli(args);
        let flag = args.iter().find(|a| a.starts_with("--m")).unwrap();
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: nothing runs: {out}");
        assert!(err.contains(&format!("'{flag} <")) && err.contains(why), "{args:?}: {err}");
        assert!(err.contains(trace_format::size::UNITS), "{args:?}: {err}");
    }
}

#[test]
fn a_good_size_reaches_the_program_as_given() {
    let dir = scratch("size_flags_good");
    for (args, var, value) in [
        (vec!["trace", "--timeline", "t.json", "--max-size", "64M"], "CUDART_SHIM_TRACE_TIMELINE_MAX_SIZE", "64M"),
        (vec!["trace", "--timeline", "t.json", "--max-size", "2 gib"], "CUDART_SHIM_TRACE_TIMELINE_MAX_SIZE", "2 gib"),
        (vec!["run", "--memory-limit", "0=8G,1=4GiB"], "CUDART_SHIM_MEMORY_LIMIT", "0=8G,1=4GiB"),
    ] {
        let o = cli_on_fake().current_dir(&dir).args(&args).args(["--", "/bin/sh", "-c", &format!("printf '%s' \"${var}\"")]).output().unwrap();
        let (out, err) = output_text(&o);
        assert!(o.status.success(), "{args:?}: {err}");
        assert_eq!(out, value, "{args:?}: {err}");
    }
}
