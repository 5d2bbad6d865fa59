//! The GPU check runner (scripts/gpu, gpu/runner.py) run for real without a
//! GPU: the stub checks of tests/gpu_runner/ (a pass with evidence, a crash,
//! a hang, a check with no rows, a SKIP with its reason, a check needing more
//! GPUs than there are) give the right table and tarball; and every real check
//! in gpu/checks/ loads and the suite fits two device calls.
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn gpu(args: &[&str], stubs: bool) -> Output {
    let mut c = Command::new("python3");
    c.arg(root().join("scripts/gpu")).args(args);
    if stubs {
        c.env("GPU_CHECKS_DIR", root().join("tests/gpu_runner"));
    } else {
        c.env_remove("GPU_CHECKS_DIR");
    }
    c.output().expect("python3 scripts/gpu")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn fresh(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("gpu-runner-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The stubs prepared into DIR/prep (no libraries: they run no CUDA).
fn prepared(name: &str) -> PathBuf {
    let d = fresh(name);
    let prep = d.join("prep");
    let o = gpu(&["prepare", prep.to_str().unwrap(), "--no-libs"], true);
    assert!(o.status.success(), "prepare: {}{}", text(&o.stdout), text(&o.stderr));
    d
}

fn table_rows(md: &str) -> Vec<Vec<String>> {
    md.lines()
        .skip_while(|l| !l.starts_with("| check | verdict"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.trim_matches('|').split(" | ").map(|c| c.trim().to_string()).collect())
        .collect()
}

#[test]
fn stub_checks_give_one_table_and_one_tarball() {
    let d = prepared("all");
    let out = d.join("out");
    let o = gpu(&["run", d.join("prep").to_str().unwrap(), "--out", out.to_str().unwrap()], true);
    let stdout = text(&o.stdout);
    // FAILs in the run: exit 1.
    assert_eq!(o.status.code(), Some(1), "{stdout}{}", text(&o.stderr));
    // Exactly the two files the device can return.
    let files: BTreeSet<String> = std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(files, BTreeSet::from(["raw.tar.gz".to_string(), "results.md".to_string()]));
    let md = std::fs::read_to_string(out.join("results.md")).unwrap();
    // The table is printed, then a summary ends the output (the device
    // returns only its tail): each check's counts and every row not a PASS.
    assert!(stdout.contains(md.trim_end()), "results.md is not in stdout:\n{stdout}");
    let tail = stdout.rsplit("== summary").next().unwrap();
    for want in ["crash: 1 PASS, 1 FAIL, 0 SKIP", "FAIL crash: crashed: RuntimeError: boom in the stub", "FAIL hang: timeout: killed after 3 s",
                 "SKIP twogpus: needs 64 GPU(s), this machine has 0"] {
        assert!(tail.contains(want), "{want:?} not in the summary:\n{tail}");
    }
    assert!(!tail.contains("PASS pass/sh"), "a PASS row in the summary:\n{tail}");
    assert!(stdout.trim_end().ends_with("== 5 PASS, 3 FAIL, 2 SKIP (a SKIP is not a pass)"), "{stdout}");
    assert!(md.starts_with("# GPU checks: 5 PASS, 3 FAIL, 2 SKIP (a SKIP is not a pass)"), "{md}");
    let rows = table_rows(&md);
    let want: Vec<[&str; 4]> = vec![
        ["crash/first", "PASS", "before the crash", ""],
        ["crash", "FAIL", "crashed: RuntimeError: boom in the stub", "raw.tar.gz:raw/crash/traceback.txt"],
        ["hang", "FAIL", "timeout: killed after 3 s", "raw.tar.gz:raw/hang/log.txt"],
        ["pass/sh", "PASS", "42 things", "raw.tar.gz:raw/pass/evidence.txt"],
        ["pass/yielded", "PASS", "a row yielded as a tuple", ""],
        ["pass/ratio within noise", "PASS", "1.02 \\| spread 3%", "raw.tar.gz:raw/pass/evidence.txt"],
        ["pass/static/saxpy", "PASS", "rc=0/0/0", "raw.tar.gz:raw/pass/evidence.txt"],
        ["silent", "FAIL", "recorded no result", "raw.tar.gz:raw/silent/log.txt"],
        ["skipping/optional", "SKIP", "PyTorch is not installed (stub)", ""],
        ["twogpus", "SKIP", "needs 64 GPU(s), this machine has 0", ""],
    ];
    let got: Vec<Vec<String>> = rows.iter().map(|r| r.iter().map(|c| c.to_string()).collect()).collect();
    let want: Vec<Vec<String>> = want.iter().map(|r| r.iter().map(|c| c.to_string()).collect()).collect();
    assert_eq!(got, want, "{md}");

    // The tarball holds each check's raw folder: evidence, traceback, logs.
    let x = d.join("x");
    std::fs::create_dir_all(&x).unwrap();
    let t = Command::new("tar").arg("xzf").arg(out.join("raw.tar.gz")).arg("-C").arg(&x).status().unwrap();
    assert!(t.success());
    assert_eq!(std::fs::read_to_string(x.join("raw/pass/evidence.txt")).unwrap(), "42 things\n");
    let tb = std::fs::read_to_string(x.join("raw/crash/traceback.txt")).unwrap();
    assert!(tb.starts_with("Traceback") && tb.contains("RuntimeError: boom in the stub"), "{tb}");
    assert!(std::fs::read_to_string(x.join("raw/pass/commands.log")).unwrap().contains("echo 42 things"));
    // The hung check's command was killed with it, not left running.
    let pid = std::fs::read_to_string(x.join("raw/hang/pid")).unwrap();
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())).unwrap_or_default();
    assert!(!stat.contains("(sleep)") || stat.contains(") Z "), "the hung check's sleep {} still runs: {stat}", pid.trim());
}

#[test]
fn named_checks_and_parts() {
    let d = prepared("named");
    let prep = d.join("prep");
    let out = d.join("out");
    // One check by name, after --out: only its rows; all PASS: exit 0.
    let o = gpu(&["run", prep.to_str().unwrap(), "--out", out.to_str().unwrap(), "pass"], true);
    assert_eq!(o.status.code(), Some(0), "{}{}", text(&o.stdout), text(&o.stderr));
    let md = std::fs::read_to_string(out.join("results.md")).unwrap();
    let checks: Vec<String> = table_rows(&md).into_iter().map(|r| r[0].clone()).collect();
    assert_eq!(checks, ["pass/sh", "pass/yielded", "pass/ratio within noise", "pass/static/saxpy"]);
    // Only SKIPs: nothing passed, exit 1.
    let o = gpu(&["run", prep.to_str().unwrap(), "--out", out.to_str().unwrap(), "skipping"], true);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stdout));
    // The two parts cover every check once, as `list --parts 2` says.
    let list = text(&gpu(&["list", "--parts", "2"], true).stdout);
    let mut seen = BTreeSet::new();
    for k in 1..=2 {
        let listed: BTreeSet<String> = list
            .lines()
            .find(|l| l.starts_with(&format!("part {k}/2:")))
            .unwrap()
            .split("expected:")
            .nth(1)
            .unwrap()
            .split_whitespace()
            .map(String::from)
            .collect();
        let o = gpu(&["run", prep.to_str().unwrap(), "--out", out.to_str().unwrap(), "--part", &format!("{k}/2")], true);
        let md = std::fs::read_to_string(out.join("results.md")).unwrap();
        let ran: BTreeSet<String> = table_rows(&md).into_iter().map(|r| r[0].split('/').next().unwrap().to_string()).collect();
        assert_eq!(ran, listed, "part {k}/2: {}", text(&o.stdout));
        assert!(seen.is_disjoint(&ran));
        seen.extend(ran);
    }
    assert_eq!(seen.len(), 6);
}

#[test]
fn usage_errors_exit_2() {
    for args in [vec!["run", "x", "--out", "y", "--part", "3/2"], vec!["run", "x", "--out", "y", "no_such_check"], vec!["bogus"], vec![]] {
        let o = gpu(&args, true);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stderr));
        assert!(text(&o.stderr).contains("error:"), "{args:?}");
    }
    // prepare names what is missing: the release build.
    let d = fresh("nolibs");
    let o = gpu(&["prepare", d.join("prep").to_str().unwrap(), "--from", d.to_str().unwrap()], true);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("cargo build --release --workspace"), "{}", text(&o.stderr));
}

/// Every module in gpu/checks/ loads and keeps the contract (NAME = its file
/// name, DESCRIPTION, EXPECTED_S, run), `list` names it, and the three parts
/// each fit one device call (600 s, less the runner's margin). Three since
/// session 9: the measured seconds of the whole suite (1436 s on the H200,
/// 2026-11-28) no longer fit two calls.
#[test]
fn every_check_loads_and_the_suite_fits_three_device_calls() {
    let o = gpu(&["list", "--parts", "3"], false);
    let list = text(&o.stdout);
    assert!(o.status.success(), "{list}{}", text(&o.stderr));
    let mut n = 0;
    for e in std::fs::read_dir(root().join("gpu/checks")).unwrap() {
        let f = e.unwrap().file_name().into_string().unwrap();
        if let Some(name) = f.strip_suffix(".py").filter(|n| !n.starts_with('_')) {
            assert!(list.lines().any(|l| l.split_whitespace().next() == Some(name)), "{name} not listed:\n{list}");
            n += 1;
        }
    }
    assert!(n > 0);
    for k in 1..=3 {
        let line = list.lines().find(|l| l.starts_with(&format!("part {k}/3:"))).unwrap();
        let secs: f64 = line.split_whitespace().nth(2).unwrap().parse().unwrap();
        assert!(secs <= 520.0, "part {k}/3 expects {secs} s: over one device call (600 s, the run keeps 40 s for itself)\n{list}");
    }
}
