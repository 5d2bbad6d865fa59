//! The `cudart-shim` command.

fn main() {
    eprintln!("cudart-shim: subcommands arrive with the tracing work (see README)");
    std::process::exit(2);
}
