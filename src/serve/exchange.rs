//! One request's record, from its arrival to the end of its answer: what
//! the handler learns (route, model, calls) and what the upstream layer
//! measures (time to first byte, tries). When the last holder lets go (the
//! answer's body is sent or dropped), it writes the request's one log line
//! and its metrics, and frees its stream slot. Never a key, a prompt or an
//! answer.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::Shared;

#[derive(Default)]
struct Facts {
    route: Option<String>,
    model: Option<String>,
    dialect: String,
    calls: usize,
    invalid: usize,
    ttfb: Option<Duration>,
    tries: u32,
    status: u16,
}

struct Inner {
    shared: Arc<Shared>,
    api: &'static str,
    started: Instant,
    facts: Mutex<Facts>,
}

/// A request's record (cheap to clone; the handler takes it as an axum
/// `Extension`).
#[derive(Clone)]
pub(crate) struct Exchange(Arc<Inner>);

impl Exchange {
    /// A request of `api` begins: it holds one stream slot until its
    /// record ends.
    pub(crate) fn begin(shared: Arc<Shared>, api: &'static str) -> Exchange {
        shared.metrics.in_flight.inc();
        Exchange(Arc::new(Inner {
            shared,
            api,
            started: Instant::now(),
            facts: Mutex::new(Facts::default()),
        }))
    }

    fn with(&self, f: impl FnOnce(&mut Facts)) {
        if let Ok(mut facts) = self.0.facts.lock() {
            f(&mut facts);
        }
    }

    /// The route and model the request was sent to.
    pub(crate) fn route(&self, route: &str, model: Option<&str>, dialects: &[String]) {
        self.with(|f| {
            f.route = Some(route.to_owned());
            f.model = model.map(str::to_owned);
            f.dialect = dialects.join(",");
        });
    }

    /// The calls the answer held (complete and invalid), so far.
    pub(crate) fn calls(&self, complete: usize, invalid: usize) {
        self.with(|f| {
            f.calls = complete;
            f.invalid = invalid;
        });
    }

    /// The upstream's answer began after `ttfb`, at try `tries`.
    pub(crate) fn answered(&self, ttfb: Duration, tries: u32) {
        self.with(|f| {
            f.ttfb = Some(ttfb);
            f.tries = tries;
        });
    }

    /// The status sent to the client.
    pub(crate) fn status(&self, status: u16) {
        self.with(|f| f.status = status);
    }

    /// When the request arrived.
    pub(crate) fn started(&self) -> Instant {
        self.0.started
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        let duration = self.started.elapsed();
        let metrics = &self.shared.metrics;
        metrics.in_flight.dec();
        self.shared.streams.fetch_sub(1, Ordering::AcqRel);
        let facts = match self.facts.get_mut() {
            Ok(f) => std::mem::take(f),
            Err(_) => return,
        };
        let route = facts.route.as_deref().unwrap_or("-");
        metrics.request(self.api, route, facts.status);
        metrics.duration(route, duration.as_secs_f64());
        if let Some(ttfb) = facts.ttfb {
            metrics.ttfb(route, ttfb.as_secs_f64());
        }
        if !facts.dialect.is_empty() {
            metrics.calls(&facts.dialect, facts.calls, facts.invalid);
        }
        tracing::info!(
            target: "actionstream::access",
            api = self.api,
            route,
            model = facts.model.as_deref().unwrap_or("-"),
            status = facts.status,
            calls = facts.calls,
            invalid = facts.invalid,
            tries = facts.tries,
            ttfb_ms = facts.ttfb.map_or(-1.0, |t| t.as_secs_f64() * 1e3),
            ms = duration.as_secs_f64() * 1e3,
            "request"
        );
    }
}

/// The number of requests in flight, against `--max-streams`.
pub(crate) fn try_take_slot(streams: &AtomicUsize, max: usize) -> bool {
    if streams.fetch_add(1, Ordering::AcqRel) >= max {
        streams.fetch_sub(1, Ordering::AcqRel);
        return false;
    }
    true
}
