//! Early dispatch: run each action's handler the moment the action completes,
//! while the response goes on streaming.
//!
//! A [`Dispatcher`] holds handlers by action name and the
//! [`DispatchOptions`]; [`Dispatcher::start`] opens a [`Session`] for one
//! response. Hand the session each [`Event`](crate::Event) (or each
//! [`Action`](crate::Action)) as the parser emits it; it starts the handler on a Tokio task
//! at once and reports a [`DispatchResult`] when the handler ends.
//!
//! **Order of results.** By default handlers run concurrently (at most
//! [`DispatchOptions::max_concurrent`] at once, started in the order the
//! actions were submitted) and results come in *completion order*. With
//! [`DispatchOptions::in_order`] handlers run one at a time in submission
//! order and results come in that same order.
//!
//! **Failures stay local.** A handler that returns an error, runs past its
//! timeout (default 30 s; the handler's task is then aborted) or panics gives
//! a result with `ok: false`; the other actions go on.
//!
//! **Dry run and approval.** With [`DispatchOptions::dry_run`] no handler
//! runs and each result says so. Actions whose names the
//! [`ApprovalPolicy`] lists wait in a queue ([`Session::pending`]) with a
//! [`Status::Queued`] result, until [`Session::approve`] runs them or
//! [`Session::reject`] drops them (each gives a second, final result).
//!
//! ```
//! use actionstream::dispatch::{handler_fn, Dispatcher, DispatchOptions};
//! use actionstream::{Event, Parser};
//! use serde_json::json;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let dispatcher = Dispatcher::new(DispatchOptions::default()).handler(
//!     "search",
//!     handler_fn(|action: actionstream::Action| async move {
//!         Ok(json!({"hits": 3, "query": action.arguments["query"]}))
//!     }),
//! );
//! let mut session = dispatcher.start();
//! let mut parser = Parser::default();
//! let mut events = Vec::new();
//! for chunk in ["Looking.\n```action\n{\"action\": \"search\", ", "\"query\": \"rust\"}\n```\n", "More text."] {
//!     parser.push(chunk, &mut events);
//!     for e in events.drain(..) {
//!         session.submit_event(&e); // the handler starts here, mid-stream
//!     }
//! }
//! parser.finish(&mut events);
//! let results = session.finish().await;
//! assert_eq!(results.len(), 1);
//! assert!(results[0].ok);
//! assert_eq!(results[0].output["query"], "rust");
//! # });
//! ```

mod builtin;
mod config;
mod file;
mod handler;
mod policy;
mod result;
mod session;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

pub use builtin::{ExecHandler, JsonlHandler, LogHandler};
pub use config::{DispatchConfig, DispatchConfigError, ExecSpec};
pub use file::{FileHandler, PathRefused};
pub use handler::{handler_fn, FnHandler, Handler, HandlerResult};
pub use policy::{ApprovalError, ApprovalPolicy, PendingAction};
pub use result::{DispatchResult, Status};
pub use session::Session;

/// The default number of handlers that run at once.
pub const DEFAULT_MAX_CONCURRENT: usize = 4;

/// The default time a handler may take.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// How a [`Dispatcher`] runs handlers.
///
/// ```
/// use actionstream::dispatch::DispatchOptions;
///
/// let o = DispatchOptions::default();
/// assert_eq!(o.max_concurrent, 4);
/// assert_eq!(o.timeout, std::time::Duration::from_secs(30));
/// assert!(!o.in_order && !o.dry_run && o.approval.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchOptions {
    /// Handlers that run at once at most (0 counts as 1).
    pub max_concurrent: usize,
    /// The time a handler may take, unless its registration says otherwise.
    pub timeout: Duration,
    /// Run handlers one at a time in action order; results in action order.
    pub in_order: bool,
    /// Run no handler; every result says it was a dry run.
    pub dry_run: bool,
    /// The action names that wait for approval.
    pub approval: ApprovalPolicy,
}

impl Default for DispatchOptions {
    fn default() -> Self {
        DispatchOptions {
            max_concurrent: DEFAULT_MAX_CONCURRENT,
            timeout: DEFAULT_TIMEOUT,
            in_order: false,
            dry_run: false,
            approval: ApprovalPolicy::default(),
        }
    }
}

/// A handler as registered: the handler, its own timeout and a label for
/// dry-run results (`builtin:log`, or `custom`).
#[derive(Clone)]
pub(crate) struct Registered {
    pub(crate) handler: Arc<dyn Handler>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) label: String,
}

/// Handlers by action name, and how to run them. Cheap to clone.
///
/// ```
/// use actionstream::dispatch::{Dispatcher, DispatchOptions, LogHandler};
///
/// let d = Dispatcher::new(DispatchOptions::default()).handler("note", LogHandler);
/// assert!(d.has_handler("note"));
/// assert!(!d.has_handler("deploy"));
/// ```
#[derive(Clone)]
pub struct Dispatcher {
    handlers: Arc<HashMap<String, Registered>>,
    options: DispatchOptions,
}

impl std::fmt::Debug for Dispatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut names: Vec<(&String, &str)> = self
            .handlers
            .iter()
            .map(|(k, r)| (k, r.label.as_str()))
            .collect();
        names.sort();
        f.debug_struct("Dispatcher")
            .field("handlers", &names)
            .field("options", &self.options)
            .finish()
    }
}

impl Dispatcher {
    /// A dispatcher with no handlers.
    pub fn new(options: DispatchOptions) -> Self {
        Dispatcher {
            handlers: Arc::new(HashMap::new()),
            options,
        }
    }

    /// Registers `handler` for actions named `name` (replacing any before).
    pub fn handler(self, name: impl Into<String>, handler: impl Handler) -> Self {
        self.register(name.into(), Arc::new(handler), None, "custom".into())
    }

    /// Registers `handler` for `name` with a timeout of its own.
    pub fn handler_with_timeout(
        self,
        name: impl Into<String>,
        handler: impl Handler,
        timeout: Duration,
    ) -> Self {
        self.register(
            name.into(),
            Arc::new(handler),
            Some(timeout),
            "custom".into(),
        )
    }

    pub(crate) fn register(
        mut self,
        name: String,
        handler: Arc<dyn Handler>,
        timeout: Option<Duration>,
        label: String,
    ) -> Self {
        Arc::make_mut(&mut self.handlers).insert(
            name,
            Registered {
                handler,
                timeout,
                label,
            },
        );
        self
    }

    /// Replaces the options.
    pub fn with_options(mut self, options: DispatchOptions) -> Self {
        self.options = options;
        self
    }

    /// The options.
    pub fn options(&self) -> &DispatchOptions {
        &self.options
    }

    /// The options, to change.
    pub fn options_mut(&mut self) -> &mut DispatchOptions {
        &mut self.options
    }

    /// Whether a handler is registered for `name`.
    pub fn has_handler(&self, name: &str) -> bool {
        self.handlers.contains_key(name)
    }

    /// The names with a handler, sorted.
    pub fn names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.handlers.keys().map(String::as_str).collect();
        v.sort_unstable();
        v
    }

    /// Opens a session for one response, on the current Tokio runtime.
    ///
    /// # Panics
    ///
    /// Outside a Tokio runtime; use [`Dispatcher::start_on`] there.
    pub fn start(&self) -> Session {
        self.start_on(tokio::runtime::Handle::current())
    }

    /// Opens a session whose handlers run on `runtime`. Its
    /// [`Session::submit`] may then be called from any thread.
    pub fn start_on(&self, runtime: tokio::runtime::Handle) -> Session {
        Session::new(self.handlers.clone(), self.options.clone(), runtime)
    }
}
