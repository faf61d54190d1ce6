//! `actionstream run`: placeholder until the dispatcher lands (issue 4).

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// The configuration file with the handlers.
    #[arg(long)]
    config: std::path::PathBuf,
    /// The response (standard input when absent or `-`).
    input: Option<std::path::PathBuf>,
}

pub fn main(_args: RunArgs) -> Result<(), String> {
    Err("`run` is not built yet".into())
}
