//! The `actionstream` command: a thin shell over the library.
#![deny(unsafe_code)]

use std::process::ExitCode;

use clap::{Parser as _, Subcommand};

mod artifacts;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod math;
mod output;
mod parse;
mod run;
#[cfg(feature = "serve")]
mod serve;

/// Read an LLM's response while it streams and pull out the actions in it.
#[derive(clap::Parser, Debug)]
#[command(name = "actionstream", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Only the subcommand that is run has its arguments built (`defer`): the
/// others' are not built for nothing at every start.
#[derive(Subcommand, Debug)]
#[command(defer = true)]
enum Command {
    /// Parse a response (a file or standard input) into JSON lines of events.
    Parse(parse::ParseArgs),
    /// Parse and dispatch each action to its handler as it completes.
    Run(run::RunArgs),
    /// Write the code blocks that name a file path.
    Artifacts(artifacts::ArtifactsArgs),
    /// An OpenAI-compatible gateway: forwards chat completions to an
    /// upstream server and answers with the tool calls its text holds.
    #[cfg(feature = "serve")]
    Serve(serve::ServeArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Parse(args) => parse::main(args),
        Command::Run(args) => run::main(args),
        Command::Artifacts(args) => artifacts::main(args),
        #[cfg(feature = "serve")]
        Command::Serve(args) => serve::main(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("actionstream: {message}");
            ExitCode::from(2)
        }
    }
}
