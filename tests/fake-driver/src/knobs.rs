//! Configuration from the environment, call counting and failure injection.

use std::collections::HashMap;
use std::ffi::c_int;
use std::sync::OnceLock;

pub struct Knobs {
    pub devices: c_int,
    pub driver_version: c_int,
    pub init_result: c_int,
    pub missing: Vec<String>,
    pub old: Vec<String>,
    pub attrs: HashMap<c_int, c_int>,
}

fn list(var: &str) -> Vec<String> {
    std::env::var(var).unwrap_or_default().split(',').filter(|s| !s.is_empty()).map(str::to_owned).collect()
}

fn num(var: &str, default: c_int) -> c_int {
    std::env::var(var).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

static KNOBS: OnceLock<Knobs> = OnceLock::new();

pub fn get() -> &'static Knobs {
    KNOBS.get_or_init(|| {
        let attrs = list("FAKE_CUDA_ATTR")
            .iter()
            .filter_map(|kv| kv.split_once('='))
            .filter_map(|(k, v)| Some((k.parse().ok()?, v.parse().ok()?)))
            .collect();
        for rule in list("FAKE_CUDA_FAIL") {
            let parts: Vec<&str> = rule.split(':').collect();
            if let [name, nth, code] = parts[..]
                && let (Ok(nth), Ok(code)) = (nth.parse(), code.parse())
            {
                add_failure(name.to_owned(), nth, code);
            }
        }
        Knobs {
            devices: num("FAKE_CUDA_DEVICES", 1),
            driver_version: num("FAKE_CUDA_DRIVER_VERSION", 13000),
            init_result: num("FAKE_CUDA_INIT_RESULT", 0),
            missing: list("FAKE_CUDA_MISSING"),
            old: list("FAKE_CUDA_OLD"),
            attrs,
        }
    })
}

struct Failure {
    /// Calls of the function seen when the rule was added.
    base: u64,
    nth: u64,
    code: c_int,
}

#[derive(Default)]
struct Book {
    counts: HashMap<String, u64>,
    failures: HashMap<String, Failure>,
}

/// A std (futex) mutex: calls made from pthread key destructors count
/// here, and a parking_lot wait there would register a thread-local
/// destructor glibc never runs, which tests/sanitizers.rs would report as
/// a leak of the fake driver.
static BOOK: std::sync::Mutex<Option<Book>> = std::sync::Mutex::new(None);

fn book() -> std::sync::MutexGuard<'static, Option<Book>> {
    BOOK.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub fn add_failure(name: String, nth: u64, code: c_int) {
    let mut g = book();
    let book = g.get_or_insert_with(Book::default);
    if code == 0 {
        book.failures.remove(&name);
        return;
    }
    let base = *book.counts.get(&name).unwrap_or(&0);
    book.failures.insert(name, Failure { base, nth, code });
}

/// Count a call; the injected result, if this call must fail.
pub fn on_call(name: &str) -> Option<c_int> {
    get();
    let mut g = book();
    let book = g.get_or_insert_with(Book::default);
    let n = book.counts.entry(name.to_owned()).or_insert(0);
    *n += 1;
    let n = *n;
    let f = book.failures.get(name)?;
    (f.nth == 0 || n - f.base == f.nth).then_some(f.code)
}

pub fn calls(name: &str) -> u64 {
    book().as_ref().and_then(|b| b.counts.get(name).copied()).unwrap_or(0)
}

pub fn reset_counts() {
    if let Some(b) = book().as_mut() {
        b.counts.clear();
    }
}

/// `FAKE_CUDA_HANG_KERNEL=name[@nth][:ms]` (the crate note): how long this
/// launch of kernel `name` keeps its stream busy (None: it completes at
/// once; Some(None): for ever).
pub fn hang(name: &str) -> Option<Option<u64>> {
    static RULE: OnceLock<Option<(String, u64, Option<u64>)>> = OnceLock::new();
    static SEEN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let rule = RULE.get_or_init(|| {
        let v = std::env::var("FAKE_CUDA_HANG_KERNEL").ok()?;
        let (spec, ms) = match v.split_once(':') {
            Some((s, ms)) => (s.to_owned(), Some(ms.parse().ok()?)),
            None => (v.clone(), None),
        };
        let (name, nth) = match spec.split_once('@') {
            Some((n, k)) => (n.to_owned(), k.parse().ok()?),
            None => (spec, 0),
        };
        Some((name, nth, ms))
    });
    let (n, nth, ms) = rule.as_ref()?;
    if n != name {
        return None;
    }
    let k = SEEN.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
    (*nth == 0 || k == *nth).then_some(*ms)
}
