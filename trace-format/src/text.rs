//! What every text table shares: the cap on its name column.
//!
//! Demangled kernel names run to thousands of characters (a PyTorch job's
//! templates), and a text table padded to its longest name is unreadable on
//! a terminal (issue #33). The text form shows a long name by its start and
//! its end (the namespace and the template arguments' tail) around `...`;
//! the CSV and JSON forms keep every name whole.

/// The most characters a name takes in a text table.
pub const NAME_WIDTH: usize = 100;

/// The line under a text table in which a name was shortened.
pub const SHORTENED_NOTE: &str =
    " (names over 100 characters are shortened in the middle here; the CSV and JSON forms have them whole)\n";

/// `name` as a text table shows it: whole when it fits [`NAME_WIDTH`]
/// characters, else its first 60 and last 37 characters around `...`
/// (characters, never a cut inside one).
pub fn fit_name(name: &str) -> String {
    let n = name.chars().count();
    if n <= NAME_WIDTH {
        return name.to_owned();
    }
    const HEAD: usize = 60;
    const TAIL: usize = NAME_WIDTH - HEAD - 3;
    let head: String = name.chars().take(HEAD).collect();
    let tail: String = name.chars().skip(n - TAIL).collect();
    format!("{head}...{tail}")
}

/// Whether any of `names` is shortened by [`fit_name`].
pub fn any_shortened<'a>(names: impl IntoIterator<Item = &'a str>) -> bool {
    names.into_iter().any(|n| n.chars().count() > NAME_WIDTH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_stay_whole_long_ones_keep_both_ends() {
        assert_eq!(fit_name("void fill<float>(float*, float)"), "void fill<float>(float*, float)");
        let exact = "x".repeat(NAME_WIDTH);
        assert_eq!(fit_name(&exact), exact);
        let long = format!("void at::native::elementwise_kernel<{}>(int, F)", "é".repeat(3000));
        let f = fit_name(&long);
        assert_eq!(f.chars().count(), NAME_WIDTH);
        assert!(f.starts_with("void at::native::elementwise_kernel<") && f.ends_with(">(int, F)") && f.contains("..."), "{f}");
        assert!(any_shortened([long.as_str()]) && !any_shortened([exact.as_str()]));
    }
}
