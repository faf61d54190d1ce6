//! `actionstream artifacts`: the code blocks that name a file, written under
//! a directory (or only listed), one JSON line each.

use std::io::{self, Write};
use std::path::PathBuf;

use actionstream::artifacts::{Artifacts, CodeBlocks, OutDir};
use actionstream::{wire, Parser};

use crate::parse::open_input;

#[derive(clap::Args, Debug)]
#[command(group(
    clap::ArgGroup::new("mode").required(true).multiple(false).args(["out", "dry_run"])
))]
pub struct ArtifactsArgs {
    /// The response (standard input when absent or `-`).
    input: Option<PathBuf>,
    /// Write the artifacts under DIR (created if needed); nothing is written outside it.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// List the artifacts without writing them.
    #[arg(long)]
    dry_run: bool,
}

pub fn main(args: ArtifactsArgs) -> Result<(), String> {
    let mut input = open_input(args.input.as_deref())?;
    let out_dir =
        match &args.out {
            Some(dir) => Some(OutDir::create(dir).map_err(|e| {
                format!("cannot use {} as the output directory: {e}", dir.display())
            })?),
            None => None,
        };

    let mut parser = Parser::default();
    let mut tracker = CodeBlocks::new();
    let mut artifacts = Artifacts::new();
    let (mut events, mut blocks) = (Vec::new(), Vec::new());
    crate::parse::read_each(&mut *input, |data| {
        parser.push_bytes(data, &mut events);
        for e in events.drain(..) {
            tracker.push_event(&e, &mut blocks);
        }
        for b in blocks.drain(..) {
            artifacts.add(&b);
        }
        Ok(())
    })?;
    parser.finish(&mut events);
    for e in events.drain(..) {
        tracker.push_event(&e, &mut blocks);
    }
    tracker.finish(&mut blocks);
    for b in blocks.drain(..) {
        artifacts.add(&b);
    }

    let stdout = io::stdout();
    let mut w = io::BufWriter::new(stdout.lock());
    for entry in artifacts.finish() {
        let line = match entry {
            Ok(a) => match &out_dir {
                None => wire::artifact_line(&a, false),
                Some(dir) => match dir.write(&a.path, &a.content) {
                    Ok(_) => wire::artifact_line(&a, true),
                    Err(e) => wire::artifact_error_line(&a.path, &e.to_string()),
                },
            },
            Err(refused) => wire::artifact_error_line(&refused.path, &refused.error.to_string()),
        };
        match writeln!(w, "{line}").and_then(|()| w.flush()) {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(()),
            Err(e) => return Err(format!("cannot write the output: {e}")),
            Ok(()) => {}
        }
    }
    Ok(())
}
