//! The size flags (`--max-size`, `--memory-limit`), checked by clap before
//! anything runs, in the grammar the library reads them with
//! (`trace_format::size`): a value the library would warn about and
//! ignore is refused here, naming the flag (`invalid value '...' for
//! '--max-size <SIZE>': ...`, exit status 2). The value goes on to the
//! library as given.

/// `--max-size`: the timeline's size limit.
pub fn timeline_max(s: &str) -> Result<String, String> {
    trace_format::size::parse_timeline_max(s).map(|_| s.to_owned())
}

/// `--memory-limit`: `64MiB` or `0=8GiB,1=4GiB`.
pub fn memory_limit(s: &str) -> Result<String, String> {
    trace_format::memory::parse_limit_spec(s).map(|_| s.to_owned())
}
