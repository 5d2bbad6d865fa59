//! The one size grammar of every size cudart-shim reads: the memory limits
//! (`CUDART_SHIM_MEMORY_LIMIT`, `--memory-limit`) and the timeline's size
//! limit (`CUDART_SHIM_TRACE_TIMELINE_MAX_SIZE`, `trace --max-size`), so
//! the command refuses exactly what the library would warn about.
//!
//! A size is a whole number, optionally a space, and a unit: `B`, `KiB`,
//! `MiB`, `GiB`, `TiB`, or their short forms `K`, `M`, `G`, `T` (the same
//! binary multiples); case-insensitive; bare digits are bytes. `KB`, `MB`,
//! `GB`, `TB` are refused, with the binary unit suggested: whether they
//! mean powers of 1000 or of 1024 differs between tools, and a limit off
//! by 5% is worse than a clear error.
//!
//! Every error message ends with the accepted units; the caller adds the
//! flag or variable's name.

/// The accepted units, as every error message ends.
pub const UNITS: &str = "accepted units are B, KiB, MiB, GiB, TiB (binary; K, M, G, T for short), e.g. 64MiB";

/// The least timeline size limit (a piece of events and the file's own
/// frame must fit).
pub const TIMELINE_MIN: u64 = 4096;

/// `unit` (lowercase) as a multiple of bytes and its canonical spelling.
fn unit(lower: &str) -> Option<(u64, &'static str)> {
    Some(match lower {
        "" | "b" => (1, "B"),
        "k" | "kib" => (1 << 10, "KiB"),
        "m" | "mib" => (1 << 20, "MiB"),
        "g" | "gib" => (1 << 30, "GiB"),
        "t" | "tib" => (1 << 40, "TiB"),
        _ => return None,
    })
}

/// A size in bytes. Err says what is wrong, then [`UNITS`].
pub fn parse(s: &str) -> Result<u64, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err(format!("an empty size: {UNITS}"));
    }
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return Err(format!("{s:?} is not a size (a whole number and a unit): {UNITS}"));
    }
    let (num, rest) = s.split_at(digits);
    let u = rest.trim_start();
    if u.starts_with(['.', ',']) {
        return Err(format!("{s:?} is not a whole number (write it in a smaller unit, e.g. 1536MiB for 1.5GiB): {UNITS}"));
    }
    let lower = u.to_ascii_lowercase();
    let Some((mul, _)) = unit(&lower) else {
        // KB, MB, GB, TB: the binary unit of the same letter.
        let guess = lower.strip_suffix('b').filter(|p| p.len() == 1).and_then(unit);
        return Err(match guess {
            Some((_, canonical)) => format!("unknown unit {u:?} in {s:?}: did you mean {num}{canonical}? ({u} can mean a power of 1000 or of 1024): {UNITS}"),
            None => format!("unknown unit {u:?} in {s:?}: {UNITS}"),
        });
    };
    num.parse::<u64>().ok().and_then(|n| n.checked_mul(mul)).ok_or_else(|| format!("{s:?} is too large (more than 16 EiB): {UNITS}"))
}

/// The timeline's size limit: a size of at least [`TIMELINE_MIN`] bytes.
pub fn parse_timeline_max(s: &str) -> Result<u64, String> {
    let n = parse(s)?;
    if n < TIMELINE_MIN {
        return Err(format!("{:?} is less than the least timeline size, {TIMELINE_MIN} bytes (4KiB): {UNITS}", s.trim()));
    }
    Ok(n)
}

/// A size for people: `4.00 GiB`, `512 B`.
pub fn human(b: u64) -> String {
    const U: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if b < 1024 {
        return format!("{b} B");
    }
    let mut v = b as f64 / 1024.0;
    let mut i = 0;
    while v >= 1024.0 && i < U.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    format!("{v:.2} {}", U[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_unit_long_and_short_any_case_with_or_without_a_space() {
        assert_eq!(parse("17"), Ok(17));
        assert_eq!(parse("17B"), Ok(17));
        assert_eq!(parse(" 17 b "), Ok(17));
        assert_eq!(parse("3kib"), Ok(3 << 10));
        assert_eq!(parse("64K"), Ok(64 << 10));
        assert_eq!(parse("64MiB"), Ok(64 << 20));
        assert_eq!(parse("64M"), Ok(64 << 20));
        assert_eq!(parse("64m"), Ok(64 << 20));
        assert_eq!(parse("4 GiB"), Ok(4 << 30));
        assert_eq!(parse("2G"), Ok(2 << 30));
        assert_eq!(parse("1TiB"), Ok(1 << 40));
        assert_eq!(parse("3t"), Ok(3 << 40));
    }

    #[test]
    fn decimal_units_are_refused_with_the_binary_one_suggested() {
        for (bad, guess) in [("1MB", "1MiB"), ("4GB", "4GiB"), ("2 kb", "2KiB"), ("0TB", "0TiB")] {
            let e = parse(bad).unwrap_err();
            assert!(e.contains(&format!("did you mean {guess}?")), "{bad}: {e}");
            assert!(e.ends_with(UNITS), "{e}");
        }
        assert!(parse("1MB").unwrap_err().starts_with("unknown unit \"MB\" in \"1MB\""));
    }

    #[test]
    fn every_refusal_says_what_is_wrong_and_the_accepted_units() {
        for (bad, why) in [
            ("", "an empty size"),
            ("GiB", "\"GiB\" is not a size"),
            ("-1M", "\"-1M\" is not a size"),
            ("1.5GiB", "not a whole number"),
            ("10X", "unknown unit \"X\" in \"10X\""),
            ("10 MiBs", "unknown unit \"MiBs\""),
            ("99999999999999GiB", "too large"),
            ("99999999999999999999", "too large"),
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.starts_with(why) || e.contains(why), "{bad:?}: {e}");
            assert!(e.ends_with(UNITS), "{bad:?}: {e}");
        }
        assert!(!parse("10X").unwrap_err().contains("did you mean"));
    }

    #[test]
    fn the_timeline_limit_has_a_floor() {
        assert_eq!(parse_timeline_max("4K"), Ok(4096));
        assert_eq!(parse_timeline_max("64M"), Ok(64 << 20));
        assert!(parse_timeline_max("12").unwrap_err().contains("less than the least timeline size, 4096 bytes"));
        assert!(parse_timeline_max("64MB").unwrap_err().contains("did you mean 64MiB?"));
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human(512), "512 B");
        assert_eq!(human(4 << 30), "4.00 GiB");
        assert_eq!(human(1536), "1.50 KiB");
    }
}
