//! Draining: once told to stop, the gateway says it is not ready
//! (`/ready` 503, new requests 503 with `Retry-After`), closes its
//! listener, lets the open answers run to their end, and at the deadline
//! ends those still open with their API's error event.

use std::time::Duration;

use tokio::sync::watch;

/// How long the listener stays open after the signal, answering 503, so
/// that a balancer's health check sees the gateway go unready (at most
/// the drain time).
pub(crate) const NOTICE: Duration = Duration::from_secs(1);

/// How long, after the deadline, the answers cut there get to write their
/// error event and end before the gateway stops anyway.
pub(crate) const LAST_WORDS: Duration = Duration::from_secs(2);

/// The drain state every request sees: running, draining, cut.
pub(crate) struct Drain {
    state: watch::Sender<u8>,
}

const DRAINING: u8 = 1;
const CUT: u8 = 2;

impl Drain {
    pub(crate) fn new() -> Drain {
        Drain {
            state: watch::channel(0).0,
        }
    }

    /// Whether the gateway is draining.
    pub(crate) fn draining(&self) -> bool {
        *self.state.borrow() >= DRAINING
    }

    /// The drain begins.
    pub(crate) fn begin(&self) {
        self.state.send_if_modified(|s| {
            let was = *s;
            *s = was.max(DRAINING);
            was != *s
        });
    }

    /// Waits until the drain begins.
    pub(crate) async fn begun(&self) {
        let mut rx = self.state.subscribe();
        let _ = rx.wait_for(|&s| s >= DRAINING).await;
    }

    /// The deadline came: open answers end now.
    pub(crate) fn cut(&self) {
        self.state.send_replace(CUT);
    }

    /// Waits until the deadline (for an answer's upstream reader).
    pub(crate) fn deadline(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut rx = self.state.subscribe();
        async move {
            let _ = rx.wait_for(|&s| s >= CUT).await;
        }
    }
}
