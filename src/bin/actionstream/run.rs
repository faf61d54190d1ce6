//! `actionstream run`: parse as `parse` does and dispatch each action to its
//! handler the moment it completes; results are printed as they come.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use actionstream::dispatch::{DispatchConfig, Dispatcher};
use actionstream::{wire, ConfigFile};
use tokio::sync::mpsc;

use crate::output::{Style, Writer};
use crate::parse::{self, AnyParser, Item, ParseOptions, Sink};

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// The configuration file with the handlers.
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    /// The response (standard input when absent or `-`).
    #[arg(value_name = "INPUT")]
    file: Option<PathBuf>,
    #[command(flatten)]
    options: ParseOptions,
    /// Run no handler; each result says it was a dry run.
    #[arg(long)]
    dry_run: bool,
    /// Run handlers one at a time in action order (results in that order).
    #[arg(long)]
    in_order: bool,
    /// Handlers that run at once at most (default: the configuration's, else 4).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_concurrent: Option<u64>,
    /// Seconds a handler may take (default: the configuration's, else 30).
    #[arg(long, value_name = "SECS")]
    timeout_secs: Option<u64>,
    /// For people: narrative as plain text, actions as short coloured lines.
    #[arg(long)]
    pretty: bool,
}

pub fn main(args: RunArgs) -> Result<(), String> {
    let file = ConfigFile::load(&args.config).map_err(|e| e.to_string())?;
    let config = parse::build_config(&args.options, Some(&file))?;
    let base = match args.config.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    // The defaults, then the file, then the flags.
    let mut dispatch = file.dispatch_config(DispatchConfig::default());
    let o = &mut dispatch.options;
    o.dry_run |= args.dry_run;
    o.in_order |= args.in_order;
    if let Some(n) = args.max_concurrent {
        o.max_concurrent = usize::try_from(n).unwrap_or(usize::MAX);
    }
    if let Some(s) = args.timeout_secs {
        o.timeout = Duration::from_secs(s);
    }
    let dispatcher = Dispatcher::from_config(&dispatch, base)
        .map_err(|e| format!("{}: {e}", args.config.display()))?;
    let input = parse::open_input(args.file.as_deref())?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    let style = if args.pretty {
        Style::Pretty
    } else {
        Style::Json
    };
    let parser = AnyParser::new(args.options.input, config);
    let result = runtime.block_on(run(input, args.options, parser, dispatcher, style));
    match result {
        // A closed pipe downstream is not our failure.
        Err(m) if m.contains("Broken pipe") => Ok(()),
        other => other,
    }
}

/// The reader thread parses the input as it arrives and hands each batch of
/// items over; this loop writes them, submits each complete action, and
/// writes results as handlers end, then waits for the last handlers.
async fn run(
    input: Box<dyn io::Read + Send>,
    options: ParseOptions,
    parser: AnyParser,
    dispatcher: Dispatcher,
    style: Style,
) -> Result<(), String> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<Item>>();
    let reader = std::thread::spawn(move || {
        let mut batches = Batches {
            items: Vec::new(),
            tx,
        };
        parse::drive(input, &options, parser, &mut batches)
    });
    let stdout = io::stdout();
    let mut writer = Writer::new(stdout.lock(), style);
    let mut session = dispatcher.start();
    let write_err = |e: io::Error| format!("cannot write the output: {e}");
    loop {
        tokio::select! {
            batch = rx.recv() => {
                let Some(items) = batch else { break };
                for item in items {
                    match item {
                        Item::Event(e) => {
                            writer.event(&e).map_err(write_err)?;
                            session.submit_event(&e);
                        }
                        Item::Error(m) => writer.error(&m).map_err(write_err)?,
                    }
                }
                writer.flush().map_err(write_err)?;
            }
            Some(r) = session.next() => writer.line(&wire::result_line(&r)).map_err(write_err)?,
        }
    }
    session.close();
    while let Some(r) = session.next().await {
        writer.line(&wire::result_line(&r)).map_err(write_err)?;
    }
    writer.finish().map_err(write_err)?;
    let _ = io::stdout().flush();
    match reader.join() {
        Ok(r) => r,
        Err(_) => Err("the input reader failed".into()),
    }
}

/// The reader thread's sink: each batch of items, sent whole to the loop
/// that writes them and submits the actions.
struct Batches {
    items: Vec<Item>,
    tx: mpsc::UnboundedSender<Vec<Item>>,
}

impl Sink for Batches {
    fn take_event(&mut self, e: actionstream::Event) -> io::Result<()> {
        self.items.push(Item::Event(e));
        Ok(())
    }

    fn take_error(&mut self, message: String) -> io::Result<()> {
        self.items.push(Item::Error(message));
        Ok(())
    }

    fn end_batch(&mut self) -> io::Result<()> {
        self.tx
            .send(std::mem::take(&mut self.items))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "Broken pipe"))
    }
}
