//! Talking to the upstream, for every client API alike: the tries before
//! the first byte (a connection refused, reset or past the connect timeout
//! is tried again on the route's next upstream, at most 2 more times, with
//! backoff; never once a byte came, never for a slow answer), and the
//! answer's body as a stream that ends with an error when the upstream is
//! silent too long or the drain deadline comes.

use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use futures::{Stream, StreamExt};

use super::exchange::Exchange;
use super::routes::Route;
use super::{ApiError, Shared};

/// Tries after the first.
const RETRIES: u32 = 2;

/// The pause before the first retry; doubled for the next.
const BACKOFF: Duration = Duration::from_millis(50);

/// Why an upstream's answer stopped before its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Break(pub(crate) String);

impl std::fmt::Display for Break {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// An upstream answer's body, as the handlers read it.
pub(crate) type Body = Pin<Box<dyn Stream<Item = Result<Bytes, Break>> + Send>>;

/// What kind of failure, before the first byte, a send error is.
fn kind(e: &reqwest::Error) -> &'static str {
    if e.is_connect() {
        if e.is_timeout() {
            "connect_timeout"
        } else {
            "refused"
        }
    } else {
        "reset"
    }
}

/// Sends a request built by `make` for one of the route's upstreams,
/// trying again as the module says. Records the time to first byte and the
/// tries in `exchange`, and every error and retry in the metrics.
///
/// # Errors
///
/// A 502 naming the last failure when every try fails.
pub(crate) async fn send(
    shared: &Shared,
    route: &Route,
    exchange: &Exchange,
    make: impl Fn(&super::routes::Target) -> reqwest::RequestBuilder,
) -> Result<reqwest::Response, ApiError> {
    let order = route.order();
    let mut last = String::new();
    for attempt in 0..=RETRIES {
        let target = order[attempt as usize % order.len()];
        if attempt > 0 {
            tokio::time::sleep(BACKOFF * 2u32.pow(attempt - 1)).await;
        }
        let sent = Instant::now();
        match make(target).send().await {
            Ok(response) => {
                exchange.answered(sent.elapsed(), attempt + 1);
                if !response.status().is_success() {
                    shared.metrics.upstream_error("status");
                }
                return Ok(response);
            }
            Err(e) => {
                let kind = kind(&e);
                if kind == "refused" {
                    target.refused();
                }
                shared.metrics.upstream_error(kind);
                last = describe(e);
                tracing::debug!(kind, error = %last, attempt, "upstream try failed");
                if attempt < RETRIES {
                    shared.metrics.retry(kind);
                }
            }
        }
    }
    Err(ApiError::bad_gateway(
        format!(
            "the upstream could not be reached after {} tries: {last}",
            RETRIES + 1
        ),
        "upstream_unreachable",
    ))
}

/// The answer's body: ends with a [`Break`] when it breaks off, when the
/// upstream is silent for the idle time while the gateway waits to read,
/// or when the drain deadline comes.
pub(crate) fn body(shared: &Arc<Shared>, response: reqwest::Response) -> Body {
    struct State {
        inner: Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>,
        shared: Arc<Shared>,
        deadline: Pin<Box<dyn std::future::Future<Output = ()> + Send>>,
        done: bool,
    }
    let state = State {
        inner: Box::pin(response.bytes_stream()),
        deadline: Box::pin(shared.drain.deadline()),
        shared: shared.clone(),
        done: false,
    };
    Box::pin(futures::stream::unfold(state, |mut s| async move {
        if s.done {
            return None;
        }
        let idle = s.shared.idle;
        let item = tokio::select! {
            biased;
            () = &mut s.deadline => {
                s.shared.metrics.upstream_error("drain");
                Err(Break("the gateway is shutting down and its drain time ran out".into()))
            }
            next = tokio::time::timeout(idle, s.inner.next()) => match next {
                Ok(Some(Ok(bytes))) => Ok(bytes),
                Ok(None) => return None,
                Ok(Some(Err(e))) => {
                    s.shared.metrics.upstream_error("broken");
                    Err(Break(format!("the upstream stream broke off: {}", describe(e))))
                }
                Err(_) => {
                    s.shared.metrics.upstream_error("idle");
                    Err(Break(format!(
                        "the upstream sent nothing for {} s (--upstream-idle-seconds)",
                        idle.as_secs_f64()
                    )))
                }
            },
        };
        s.done = item.is_err();
        Some((item, s))
    }))
}

/// An HTTP client error with its causes, without the URL (which could
/// carry credentials).
pub(crate) fn describe(e: reqwest::Error) -> String {
    let e = e.without_url();
    let mut text = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    text
}
