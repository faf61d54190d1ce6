//! What the dispatcher reports for each action it handled.

use serde::Serialize;
use serde_json::Value;

use crate::event::ActionId;

/// How a handled action ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The handler ran and returned an output.
    Done,
    /// The handler returned an error.
    Failed,
    /// The handler took longer than its timeout and was stopped.
    TimedOut,
    /// The handler panicked.
    Panicked,
    /// No handler is registered for the action's name.
    NoHandler,
    /// Dry run: the handler was not run.
    DryRun,
    /// The action waits for approval (see
    /// [`Session::approve`](super::Session::approve)); a second result follows
    /// once it is approved or rejected.
    Queued,
    /// The action was rejected while it waited for approval.
    Rejected,
}

impl Status {
    /// Whether results of this status have `ok: true` (done and dry run).
    pub fn is_ok(self) -> bool {
        matches!(self, Status::Done | Status::DryRun)
    }
}

/// The result of one handled action.
///
/// `ok` is true when the handler ran and succeeded, and for a dry run;
/// `error` says what went wrong otherwise. `output` is the handler's output,
/// or for the statuses without one a small object that says what happened
/// (`{"dry_run": true, "handler": "builtin:log"}`, `{"queued": true}`), else
/// null.
///
/// Its JSON line is [`wire::result_line`](crate::wire::result_line), the one
/// shape of a result (so it has no `Serialize` of its own).
///
/// ```
/// use actionstream::dispatch::{DispatchResult, Status};
/// use actionstream::ActionId;
///
/// let r = DispatchResult::new(ActionId(3), "note", Status::DryRun, serde_json::Value::Null, None);
/// assert!(r.ok && r.error.is_none());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct DispatchResult {
    /// The action's id.
    pub id: ActionId,
    /// The action's name.
    pub name: String,
    /// Whether it succeeded (see above).
    pub ok: bool,
    /// The handler's output.
    pub output: Value,
    /// What went wrong, if anything.
    pub error: Option<String>,
    /// How it ended, in more detail than `ok`.
    pub status: Status,
}

impl DispatchResult {
    /// A result; `ok` follows from `status`.
    pub fn new(
        id: ActionId,
        name: impl Into<String>,
        status: Status,
        output: Value,
        error: Option<String>,
    ) -> Self {
        DispatchResult {
            id,
            name: name.into(),
            ok: status.is_ok(),
            output,
            error,
            status,
        }
    }
}
