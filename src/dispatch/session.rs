//! One response's dispatch: submit actions, receive results.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};
use tokio::runtime::Handle;
use tokio::sync::{mpsc, Notify, Semaphore};

use super::policy::{ApprovalError, ApprovalQueue, PendingAction};
use super::result::{DispatchResult, Status};
use super::{DispatchOptions, Registered};
use crate::event::{Action, ActionId, Event};

/// What the session does with a submitted action.
enum Job {
    /// Run its handler (or report a dry run or a missing handler).
    Run(Action),
    /// Only report this result.
    Emit(DispatchResult),
}

/// What the tasks share: handlers, options, the result channel and the count
/// of jobs not yet reported.
struct Core {
    handlers: Arc<HashMap<String, Registered>>,
    options: DispatchOptions,
    tx: mpsc::UnboundedSender<DispatchResult>,
    /// Jobs submitted whose result is not yet in the channel.
    running: AtomicUsize,
    /// Woken when `running` drops to zero.
    idle: Notify,
}

impl Core {
    /// Sends a job's result, then counts the job done.
    fn report(&self, result: DispatchResult) {
        // The receiver lives in the session; if the session is gone, nobody
        // wants the result.
        let _ = self.tx.send(result);
        if self.running.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.idle.notify_waiters();
        }
    }

    async fn run(&self, job: Job) -> DispatchResult {
        let action = match job {
            Job::Emit(r) => return r,
            Job::Run(a) => a,
        };
        let (id, name) = (action.id, action.name.clone());
        let Some(reg) = self.handlers.get(&name) else {
            let msg = format!("no handler for action '{name}'");
            return DispatchResult::new(id, name, Status::NoHandler, Value::Null, Some(msg));
        };
        if self.options.dry_run {
            let out = json!({"dry_run": true, "handler": reg.label});
            return DispatchResult::new(id, name, Status::DryRun, out, None);
        }
        let timeout = reg.timeout.unwrap_or(self.options.timeout);
        let handler = reg.handler.clone();
        // Its own task, so that a panic (also one in `call` itself) ends up
        // in the JoinError and an abort on timeout stops it.
        let mut task = tokio::spawn(async move { handler.call(action).await });
        match tokio::time::timeout(timeout, &mut task).await {
            Ok(Ok(Ok(output))) => DispatchResult::new(id, name, Status::Done, output, None),
            Ok(Ok(Err(e))) => DispatchResult::new(id, name, Status::Failed, Value::Null, Some(e)),
            Ok(Err(e)) if e.is_panic() => {
                let msg = panic_message(e.into_panic());
                let msg = format!("handler panicked: {msg}");
                DispatchResult::new(id, name, Status::Panicked, Value::Null, Some(msg))
            }
            Ok(Err(_)) => {
                let msg = "handler was cancelled".to_string();
                DispatchResult::new(id, name, Status::Failed, Value::Null, Some(msg))
            }
            Err(_) => {
                task.abort();
                let msg = format!("handler timed out after {}", secs(timeout));
                DispatchResult::new(id, name, Status::TimedOut, Value::Null, Some(msg))
            }
        }
    }
}

fn secs(d: std::time::Duration) -> String {
    if d.subsec_nanos() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.3} s", d.as_secs_f64())
    }
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".to_string()
    }
}

/// One response's dispatch, opened by
/// [`Dispatcher::start`](super::Dispatcher::start).
///
/// Submit each completed action ([`Session::submit`], or
/// [`Session::submit_event`] with every parser event) as it arrives; the
/// handler starts at once on the session's runtime. Take results with
/// [`Session::next`] while submitting, and after [`Session::close`] until it
/// returns `None`; or [`Session::finish`] to close and collect the rest.
///
/// Dropping a session drops results not yet taken; handlers already running
/// run to their end (or timeout).
pub struct Session {
    core: Arc<Core>,
    rx: mpsc::UnboundedReceiver<DispatchResult>,
    /// The in-order worker's queue.
    ordered: Option<mpsc::UnboundedSender<Job>>,
    semaphore: Arc<Semaphore>,
    queue: ApprovalQueue,
    runtime: Handle,
    closed: bool,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("running", &self.core.running.load(Ordering::Acquire))
            .field("pending", &self.queue.list().len())
            .field("closed", &self.closed)
            .finish()
    }
}

impl Session {
    pub(crate) fn new(
        handlers: Arc<HashMap<String, Registered>>,
        options: DispatchOptions,
        runtime: Handle,
    ) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        let semaphore = Arc::new(Semaphore::new(options.max_concurrent.max(1)));
        let in_order = options.in_order;
        let core = Arc::new(Core {
            handlers,
            options,
            tx,
            running: AtomicUsize::new(0),
            idle: Notify::new(),
        });
        let ordered = in_order.then(|| {
            let (jtx, mut jrx) = mpsc::unbounded_channel::<Job>();
            let core = core.clone();
            // Ends when the session (the only sender) is dropped.
            runtime.spawn(async move {
                while let Some(job) = jrx.recv().await {
                    let r = core.run(job).await;
                    core.report(r);
                }
            });
            jtx
        });
        Session {
            core,
            rx,
            ordered,
            semaphore,
            queue: ApprovalQueue::default(),
            runtime,
            closed: false,
        }
    }

    /// Submits a completed action: its handler starts now (or, in order, after
    /// the actions before it), unless the approval policy queues it.
    pub fn submit(&self, action: Action) {
        if self.core.options.approval.requires(&action.name) {
            let (id, name) = (action.id, action.name.clone());
            self.queue.push(action);
            let msg = "awaiting approval".to_string();
            let out = json!({"queued": true});
            let r = DispatchResult::new(id, name, Status::Queued, out, Some(msg));
            self.enqueue(Job::Emit(r));
        } else {
            self.enqueue(Job::Run(action));
        }
    }

    /// Submits the action of an [`Event::ActionComplete`]; other events are
    /// ignored. Returns whether an action was submitted.
    pub fn submit_event(&self, event: &Event) -> bool {
        match event {
            Event::ActionComplete(a) => {
                self.submit((**a).clone());
                true
            }
            _ => false,
        }
    }

    fn enqueue(&self, job: Job) {
        self.core.running.fetch_add(1, Ordering::AcqRel);
        if let Some(ordered) = &self.ordered {
            if let Err(mpsc::error::SendError(job)) = ordered.send(job) {
                // The worker is gone only if the runtime shut down; report
                // the job as failed rather than lose it.
                self.core.report(not_run(job));
            }
            return;
        }
        if let Job::Emit(r) = job {
            self.core.report(r);
            return;
        }
        let core = self.core.clone();
        let semaphore = self.semaphore.clone();
        self.runtime.spawn(async move {
            // The semaphore is never closed; FIFO, so handlers start in
            // submission order.
            let permit = semaphore.acquire_owned().await.ok();
            let r = core.run(job).await;
            drop(permit);
            core.report(r);
        });
    }

    /// The actions waiting for approval, in the order they arrived.
    pub fn pending(&self) -> Vec<PendingAction> {
        self.queue.list()
    }

    /// Approves a waiting action: its handler runs now (its result follows
    /// through [`Session::next`], also after the session was closed).
    pub fn approve(&self, id: ActionId) -> Result<(), ApprovalError> {
        let action = self.queue.take(id)?;
        self.enqueue(Job::Run(action));
        Ok(())
    }

    /// Rejects a waiting action: it never runs, and its final result has
    /// status [`Status::Rejected`] with the reason as its error.
    pub fn reject(&self, id: ActionId, reason: &str) -> Result<(), ApprovalError> {
        let action = self.queue.take(id)?;
        let msg = if reason.is_empty() {
            "rejected".to_string()
        } else {
            format!("rejected: {reason}")
        };
        let r = DispatchResult::new(
            action.id,
            action.name,
            Status::Rejected,
            Value::Null,
            Some(msg),
        );
        self.enqueue(Job::Emit(r));
        Ok(())
    }

    /// Says that no more actions come. [`Session::next`] then returns `None`
    /// once every handler has reported (actions still waiting for approval
    /// are not waited for).
    pub fn close(&mut self) {
        self.closed = true;
    }

    /// The next result: in completion order, or in action order with
    /// [`DispatchOptions::in_order`]. Waits while handlers run; `None` once
    /// the session is closed and every result has been taken. Cancel-safe,
    /// so it can sit in a `tokio::select!` beside the input.
    pub async fn next(&mut self) -> Option<DispatchResult> {
        loop {
            let idle = self.core.idle.notified();
            tokio::pin!(idle);
            // Registers the waiter before `running` is read, so a drop to
            // zero in between is not missed.
            idle.as_mut().enable();
            if let Ok(r) = self.rx.try_recv() {
                return Some(r);
            }
            if self.closed && self.core.running.load(Ordering::Acquire) == 0 {
                // Results are sent before the count drops: all are in.
                return self.rx.try_recv().ok();
            }
            tokio::select! {
                r = self.rx.recv() => return r,
                _ = &mut idle => {}
            }
        }
    }

    /// A result that is ready now, without waiting.
    pub fn try_next(&mut self) -> Option<DispatchResult> {
        self.rx.try_recv().ok()
    }

    /// Closes the session and waits for the results not yet taken.
    pub async fn finish(mut self) -> Vec<DispatchResult> {
        self.close();
        let mut all = Vec::new();
        while let Some(r) = self.next().await {
            all.push(r);
        }
        all
    }
}

fn not_run(job: Job) -> DispatchResult {
    match job {
        Job::Emit(r) => r,
        Job::Run(a) => {
            let msg = "the dispatcher's runtime is shut down".to_string();
            DispatchResult::new(a.id, a.name, Status::Failed, Value::Null, Some(msg))
        }
    }
}
