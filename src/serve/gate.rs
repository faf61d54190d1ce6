//! The one layer in front of every client API: drain (503 with
//! `Retry-After`), client keys (401), the body limit (413), the stream
//! limit (503 with `Retry-After`), and the request's record (its log line
//! and metrics, see [`Exchange`]). Each refusal is in the client API's own
//! error shape. `GET /health`, `GET /ready` and `GET /metrics` are outside
//! it: no key, no count, no log line.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;

use super::exchange::{try_take_slot, Exchange};
use super::{Api, ApiError, Shared};

/// Seconds a client is told to wait (`Retry-After`) when the gateway is
/// full or draining.
const RETRY_AFTER: &str = "1";

/// The client API a path belongs to: its label in logs and metrics, and
/// the shape of its errors.
pub(crate) fn api_of(path: &str) -> &'static str {
    if path.starts_with("/v1/messages") {
        "messages"
    } else if path.starts_with("/v1/responses") {
        "responses"
    } else if path.starts_with("/v1/models") {
        "models"
    } else {
        "chat"
    }
}

/// `e` in the shape of the API `path` belongs to ([`Api::for_path`]),
/// with `Retry-After` on a 503.
pub(crate) fn shaped(path: &str, e: ApiError) -> Response {
    let status = e.status;
    let mut response = e.api(Api::for_path(path)).into_response();
    if status == StatusCode::SERVICE_UNAVAILABLE {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static(RETRY_AFTER));
    }
    response
}

/// A request refused by the layer: counted, logged, answered.
fn refuse(shared: &Shared, path: &str, e: ApiError) -> Response {
    let api = api_of(path);
    shared.metrics.request(api, "-", e.status.as_u16());
    tracing::info!(
        target: "actionstream::access",
        api,
        route = "-",
        model = "-",
        status = e.status.as_u16(),
        calls = 0usize,
        message = %e.message,
        "request"
    );
    shaped(path, e)
}

/// The middleware around the client APIs.
pub(crate) async fn gate(
    State(shared): State<Arc<Shared>>,
    request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path().to_owned();
    let api = api_of(&path);
    if shared.drain.draining() {
        return refuse(
            &shared,
            &path,
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "overloaded_error",
                "the gateway is shutting down; try another replica",
            ),
        );
    }
    if !shared.keys.allows(request.headers()) {
        return refuse(
            &shared,
            &path,
            ApiError::new(
                StatusCode::UNAUTHORIZED,
                "authentication_error",
                "a client key is required (as `Authorization: Bearer KEY` or `x-api-key: KEY`)",
            ),
        );
    }
    let too_large = || {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "invalid_request_error",
            format!(
                "the request body is larger than the gateway takes ({} bytes, --max-body-bytes)",
                shared.max_body
            ),
        )
    };
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > shared.max_body as u64) {
        return refuse(&shared, &path, too_large());
    }
    let (mut parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, shared.max_body).await {
        Ok(bytes) => bytes,
        Err(e) => {
            let e = if e.to_string().contains("length limit") {
                too_large()
            } else {
                ApiError::bad_request(format!("the request body could not be read: {e}"), None)
            };
            return refuse(&shared, &path, e);
        }
    };
    if !try_take_slot(&shared.streams, shared.max_streams) {
        return refuse(
            &shared,
            &path,
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "overloaded_error",
                format!(
                    "the gateway is answering {} requests, its most (--max-streams); try again",
                    shared.max_streams
                ),
            ),
        );
    }
    let exchange = Exchange::begin(shared.clone(), api);
    parts.extensions.insert(exchange.clone());
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    exchange.status(response.status().as_u16());
    let (parts, body) = response.into_parts();
    // The record ends when the body has been sent or dropped.
    let body = body.into_data_stream().map(move |chunk| {
        let _ = &exchange;
        chunk
    });
    Response::from_parts(parts, Body::from_stream(body))
}

/// `GET /health`: 200 while the process runs.
pub(crate) async fn health() -> Response {
    (StatusCode::OK, "ok\n").into_response()
}

/// `GET /ready`: 200 while requests are taken, 503 while draining.
pub(crate) async fn ready(State(shared): State<Arc<Shared>>) -> Response {
    if shared.drain.draining() {
        (StatusCode::SERVICE_UNAVAILABLE, "draining\n").into_response()
    } else {
        (StatusCode::OK, "ready\n").into_response()
    }
}

/// `GET /metrics`: the Prometheus exposition.
pub(crate) async fn metrics(State(shared): State<Arc<Shared>>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        shared.metrics.encode(),
    )
        .into_response()
}
