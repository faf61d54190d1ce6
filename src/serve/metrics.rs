//! `GET /metrics`: the gateway's counters in Prometheus' text format,
//! kept and written by `prometheus-client` (no hand-written exposition).
//!
//! | metric | type | labels |
//! |---|---|---|
//! | `actionstream_requests_total` | counter | `api`, `route`, `status` |
//! | `actionstream_streams_in_flight` | gauge | |
//! | `actionstream_calls_total` | counter | `dialect`, `outcome` (`complete`, `invalid`) |
//! | `actionstream_upstream_ttfb_seconds` | histogram | `route` |
//! | `actionstream_answer_duration_seconds` | histogram | `route` |
//! | `actionstream_upstream_errors_total` | counter | `kind` |
//! | `actionstream_upstream_retries_total` | counter | `kind` |
//!
//! An upstream error's `kind`: `refused`, `connect_timeout`, `reset`
//! (before the first byte), `status` (an error status passed on),
//! `broken` (after the first byte), `idle` (silent past
//! `--upstream-idle-seconds`), `drain` (cut at the drain deadline).

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    api: String,
    route: String,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    dialect: String,
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    route: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabels {
    kind: &'static str,
}

type Seconds = Family<RouteLabels, Histogram, fn() -> Histogram>;

/// The gateway's metrics and their registry.
pub(crate) struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    pub(crate) in_flight: Gauge,
    calls: Family<CallLabels, Counter>,
    ttfb: Seconds,
    duration: Seconds,
    errors: Family<KindLabels, Counter>,
    retries: Family<KindLabels, Counter>,
}

fn ttfb_histogram() -> Histogram {
    // 1 ms to about 65 s.
    Histogram::new(exponential_buckets(0.001, 2.0, 17))
}

fn duration_histogram() -> Histogram {
    // 10 ms to about 22 min.
    Histogram::new(exponential_buckets(0.01, 2.0, 18))
}

impl Metrics {
    pub(crate) fn new() -> Metrics {
        let mut registry = Registry::with_prefix("actionstream");
        let requests = Family::<RequestLabels, Counter>::default();
        let in_flight = Gauge::default();
        let calls = Family::<CallLabels, Counter>::default();
        let ttfb: Seconds = Family::new_with_constructor(ttfb_histogram);
        let duration: Seconds = Family::new_with_constructor(duration_histogram);
        let errors = Family::<KindLabels, Counter>::default();
        let retries = Family::<KindLabels, Counter>::default();
        registry.register(
            "requests",
            "Requests answered, by client API, route and status sent",
            requests.clone(),
        );
        registry.register(
            "streams_in_flight",
            "Requests being answered now",
            in_flight.clone(),
        );
        registry.register(
            "calls",
            "Calls read from answers, by dialect and outcome",
            calls.clone(),
        );
        registry.register(
            "upstream_ttfb_seconds",
            "Upstream time to first byte, one observation per answered request",
            ttfb.clone(),
        );
        registry.register(
            "answer_duration_seconds",
            "Time from the request to the end of its answer",
            duration.clone(),
        );
        registry.register(
            "upstream_errors",
            "Upstream errors, by kind",
            errors.clone(),
        );
        registry.register(
            "upstream_retries",
            "Upstream tries made again, by the kind of error that caused them",
            retries.clone(),
        );
        Metrics {
            registry,
            requests,
            in_flight,
            calls,
            ttfb,
            duration,
            errors,
            retries,
        }
    }

    pub(crate) fn request(&self, api: &str, route: &str, status: u16) {
        self.requests
            .get_or_create(&RequestLabels {
                api: api.to_owned(),
                route: route.to_owned(),
                status,
            })
            .inc();
    }

    pub(crate) fn calls(&self, dialect: &str, complete: usize, invalid: usize) {
        for (outcome, n) in [("complete", complete), ("invalid", invalid)] {
            if n > 0 {
                self.calls
                    .get_or_create(&CallLabels {
                        dialect: dialect.to_owned(),
                        outcome,
                    })
                    .inc_by(n as u64);
            }
        }
    }

    pub(crate) fn ttfb(&self, route: &str, seconds: f64) {
        self.ttfb
            .get_or_create(&RouteLabels {
                route: route.to_owned(),
            })
            .observe(seconds);
    }

    pub(crate) fn duration(&self, route: &str, seconds: f64) {
        self.duration
            .get_or_create(&RouteLabels {
                route: route.to_owned(),
            })
            .observe(seconds);
    }

    pub(crate) fn upstream_error(&self, kind: &'static str) {
        self.errors.get_or_create(&KindLabels { kind }).inc();
    }

    pub(crate) fn retry(&self, kind: &'static str) {
        self.retries.get_or_create(&KindLabels { kind }).inc();
    }

    /// The exposition, in Prometheus' text format.
    pub(crate) fn encode(&self) -> String {
        let mut out = String::new();
        if prometheus_client::encoding::text::encode(&mut out, &self.registry).is_err() {
            out.clear();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exposition_names_every_metric() {
        let m = Metrics::new();
        m.request("chat", "*", 200);
        m.calls("qwen3_coder", 2, 1);
        m.ttfb("*", 0.01);
        m.duration("*", 0.5);
        m.upstream_error("refused");
        m.retry("refused");
        let text = m.encode();
        for name in [
            "actionstream_requests_total{api=\"chat\",route=\"*\",status=\"200\"} 1",
            "actionstream_streams_in_flight 0",
            "actionstream_calls_total{dialect=\"qwen3_coder\",outcome=\"complete\"} 2",
            "actionstream_upstream_ttfb_seconds_count{route=\"*\"} 1",
            "actionstream_answer_duration_seconds_bucket",
            "actionstream_upstream_errors_total{kind=\"refused\"} 1",
            "actionstream_upstream_retries_total{kind=\"refused\"} 1",
        ] {
            assert!(text.contains(name), "{name} missing in\n{text}");
        }
    }
}
