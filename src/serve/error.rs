//! The gateway's own errors, in OpenAI's shape:
//! `{"error": {"message", "type", "param", "code"}}`.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// An error the gateway answers itself (an upstream's errors are passed on
/// as they are).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// `error.type`: `invalid_request_error`, `upstream_error`,
    /// `server_error`.
    pub kind: &'static str,
    /// `error.message`, for people.
    pub message: String,
    /// `error.param`: the request field at fault, if one is.
    pub param: Option<&'static str>,
    /// `error.code`.
    pub code: Option<&'static str>,
}

impl ApiError {
    /// An error of this status and type.
    pub fn new(status: StatusCode, kind: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            kind,
            message: message.into(),
            param: None,
            code: None,
        }
    }

    /// 400: the request cannot be read.
    pub fn bad_request(message: impl Into<String>, param: Option<&'static str>) -> Self {
        ApiError {
            param,
            ..ApiError::new(StatusCode::BAD_REQUEST, "invalid_request_error", message)
        }
    }

    /// 502: the upstream cannot be reached, or its answer cannot be read.
    pub fn bad_gateway(message: impl Into<String>, code: &'static str) -> Self {
        ApiError {
            code: Some(code),
            ..ApiError::new(StatusCode::BAD_GATEWAY, "upstream_error", message)
        }
    }

    /// 500: the gateway itself failed.
    pub fn internal(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "server_error", message)
    }

    /// The body, `{"error": {...}}`.
    pub fn body(&self) -> serde_json::Value {
        json!({"error": {
            "message": self.message,
            "type": self.kind,
            "param": self.param,
            "code": self.code,
        }})
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (
            self.status,
            [(axum::http::header::CONTENT_TYPE, "application/json")],
            self.body().to_string(),
        )
            .into_response()
    }
}
