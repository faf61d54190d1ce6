//! The approval policy: actions of chosen names wait in a queue for a person
//! (or a program) to approve or reject them, instead of running at once.

use std::collections::BTreeSet;
use std::sync::Mutex;

use serde_json::Value;

use crate::event::{Action, ActionId};

/// Which action names wait for approval.
///
/// The name `*` stands for every action.
///
/// ```
/// use actionstream::dispatch::ApprovalPolicy;
///
/// let policy = ApprovalPolicy::names(["deploy", "delete_file"]);
/// assert!(policy.requires("deploy"));
/// assert!(!policy.requires("search"));
/// assert!(ApprovalPolicy::names(["*"]).requires("anything"));
/// assert!(!ApprovalPolicy::default().requires("deploy"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApprovalPolicy {
    names: BTreeSet<String>,
}

impl ApprovalPolicy {
    /// A policy that queues the actions of these names (`*`: all).
    pub fn names<I, S>(names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        ApprovalPolicy {
            names: names.into_iter().map(Into::into).collect(),
        }
    }

    /// Whether an action of this name waits for approval.
    pub fn requires(&self, name: &str) -> bool {
        self.names.contains(name) || self.names.contains("*")
    }

    /// Whether no action waits for approval.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// An action waiting for approval, as [`Session::pending`](super::Session::pending)
/// lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingAction {
    /// The action's id.
    pub id: ActionId,
    /// Its name.
    pub name: String,
    /// Its arguments, for the person who decides.
    pub arguments: Value,
}

/// Why an approval or rejection could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApprovalError {
    /// No action of this id is waiting (never queued, or already decided).
    #[error("no action #{0} is waiting for approval")]
    NotPending(ActionId),
}

/// The queue of actions waiting for approval, in the order they arrived.
#[derive(Debug, Default)]
pub(crate) struct ApprovalQueue {
    pending: Mutex<Vec<Action>>,
}

impl ApprovalQueue {
    pub(crate) fn push(&self, action: Action) {
        self.lock().push(action);
    }

    pub(crate) fn list(&self) -> Vec<PendingAction> {
        self.lock()
            .iter()
            .map(|a| PendingAction {
                id: a.id,
                name: a.name.clone(),
                arguments: a.arguments.clone(),
            })
            .collect()
    }

    pub(crate) fn take(&self, id: ActionId) -> Result<Action, ApprovalError> {
        let mut pending = self.lock();
        let at = pending
            .iter()
            .position(|a| a.id == id)
            .ok_or(ApprovalError::NotPending(id))?;
        Ok(pending.remove(at))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Action>> {
        // A panic while the lock was held cannot leave the list half-changed
        // (every change is one Vec call), so a poisoned lock is still usable.
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }
}
