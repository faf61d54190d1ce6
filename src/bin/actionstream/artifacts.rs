//! `actionstream artifacts`: placeholder until artifacts land (issue 6).

#[derive(clap::Args, Debug)]
pub struct ArtifactsArgs {
    /// The response (standard input when absent or `-`).
    input: Option<std::path::PathBuf>,
}

pub fn main(_args: ArtifactsArgs) -> Result<(), String> {
    Err("`artifacts` is not built yet".into())
}
