//! The gateway's own errors, in the shape of the API the client speaks
//! ([`Api`]): OpenAI's `{"error": {"message", "type", "param", "code"}}`
//! for Chat Completions and Responses, Anthropic's `{"type": "error",
//! "error": {"type", "message"}}` for Messages.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

/// The client API a request came in by, which decides the shape of its
/// errors.
///
/// ```
/// use actionstream::serve::{Api, ApiError};
///
/// let e = ApiError::bad_request("`messages` is missing", Some("messages")).api(Api::Messages);
/// assert_eq!(e.body()["type"], "error");
/// assert_eq!(e.body()["error"]["type"], "invalid_request_error");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Api {
    /// OpenAI Chat Completions (`/v1/chat/completions`, `/v1/models`).
    #[default]
    Chat,
    /// Anthropic Messages (`/v1/messages`, `/v1/messages/count_tokens`).
    Messages,
    /// OpenAI Responses (`/v1/responses`).
    Responses,
}

impl Api {
    /// The API a request path belongs to (for errors answered before a
    /// handler runs, such as an unknown route or a refused key).
    ///
    /// ```
    /// use actionstream::serve::Api;
    /// assert_eq!(Api::for_path("/v1/messages/count_tokens"), Api::Messages);
    /// assert_eq!(Api::for_path("/v1/responses"), Api::Responses);
    /// assert_eq!(Api::for_path("/v1/chat/completions"), Api::Chat);
    /// ```
    pub fn for_path(path: &str) -> Api {
        if path.starts_with("/v1/messages") {
            Api::Messages
        } else if path.starts_with("/v1/responses") {
            Api::Responses
        } else {
            Api::Chat
        }
    }
}

/// An error the gateway answers itself (an upstream's error status is
/// passed on, its body in the client API's shape).
///
/// ```
/// use actionstream::serve::{Api, ApiError};
///
/// let e = ApiError::bad_request("the request body is not valid JSON", None);
/// assert_eq!(e.status.as_u16(), 400);
/// assert_eq!(e.body()["error"]["type"], "invalid_request_error");
/// let e = e.api(Api::Messages);
/// assert_eq!(e.body()["error"]["message"], "the request body is not valid JSON");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// `error.type` in OpenAI's shape: `invalid_request_error`,
    /// `upstream_error`, `server_error`. (Anthropic's type comes from the
    /// status: [`ApiError::anthropic_type`].)
    pub kind: &'static str,
    /// `error.message`, for people.
    pub message: String,
    /// `error.param`: the request field at fault, if one is.
    pub param: Option<String>,
    /// `error.code`.
    pub code: Option<&'static str>,
    /// The API whose shape the body takes.
    pub api: Api,
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
            api: Api::Chat,
        }
    }

    /// 400: the request cannot be read (or translated); `param` names the
    /// field at fault.
    pub fn bad_request(message: impl Into<String>, param: Option<&str>) -> Self {
        ApiError {
            param: param.map(str::to_owned),
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

    /// The same error, answered in `api`'s shape.
    pub fn api(mut self, api: Api) -> Self {
        self.api = api;
        self
    }

    /// Anthropic's `error.type` for this status: `invalid_request_error`
    /// (400, 422), `authentication_error` (401), `permission_error` (403),
    /// `not_found_error` (404), `request_too_large` (413),
    /// `rate_limit_error` (429), `overloaded_error` (503, 529), else
    /// `api_error`.
    ///
    /// ```
    /// use actionstream::serve::ApiError;
    /// use axum::http::StatusCode;
    /// let e = ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "server_error", "busy");
    /// assert_eq!(e.anthropic_type(), "overloaded_error");
    /// ```
    pub fn anthropic_type(&self) -> &'static str {
        match self.status.as_u16() {
            400 | 422 => "invalid_request_error",
            401 => "authentication_error",
            403 => "permission_error",
            404 => "not_found_error",
            413 => "request_too_large",
            429 => "rate_limit_error",
            503 | 529 => "overloaded_error",
            _ => "api_error",
        }
    }

    /// The body in the shape of [`ApiError::api`].
    pub fn body(&self) -> Value {
        match self.api {
            Api::Messages => json!({"type": "error", "error": {
                "type": self.anthropic_type(),
                "message": self.message,
            }}),
            Api::Chat | Api::Responses => json!({"error": {
                "message": self.message,
                "type": self.kind,
                "param": self.param,
                "code": self.code,
            }}),
        }
    }

    /// An upstream's error answer (`status`, `body`) in `api`'s shape: the
    /// upstream's own message where its body has one (`error.message`,
    /// `message`, `detail`), else its text.
    pub fn upstream(status: StatusCode, body: &[u8], api: Api) -> Self {
        let text = String::from_utf8_lossy(body);
        let value: Option<Value> = serde_json::from_slice(body).ok();
        let found = value.as_ref().and_then(|v| {
            [
                v.pointer("/error/message"),
                v.get("message"),
                v.get("detail"),
                v.get("error"),
            ]
            .into_iter()
            .flatten()
            .find_map(Value::as_str)
            .map(str::to_owned)
        });
        let message = found.unwrap_or_else(|| text.trim().to_owned());
        let kind = if status.is_client_error() {
            "invalid_request_error"
        } else {
            "upstream_error"
        };
        ApiError::new(
            status,
            kind,
            format!("the upstream answered {status}: {message}"),
        )
        .api(api)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_api_has_its_shape() {
        let e = ApiError::bad_request("no", Some("messages.0.content.1.type"));
        assert_eq!(
            e.body(),
            json!({"error": {"message": "no", "type": "invalid_request_error",
                             "param": "messages.0.content.1.type", "code": null}})
        );
        assert_eq!(e.clone().api(Api::Responses).body(), e.body());
        assert_eq!(
            e.api(Api::Messages).body(),
            json!({"type": "error", "error": {"type": "invalid_request_error", "message": "no"}})
        );
        let e = ApiError::bad_gateway("down", "upstream_unreachable").api(Api::Messages);
        assert_eq!(e.body()["error"]["type"], "api_error");
    }

    #[test]
    fn an_upstream_error_keeps_its_status_and_message() {
        let e = ApiError::upstream(
            StatusCode::BAD_REQUEST,
            br#"{"error":{"message":"context too long","type":"BadRequestError"}}"#,
            Api::Messages,
        );
        assert_eq!(e.status, StatusCode::BAD_REQUEST);
        assert_eq!(
            e.body()["error"]["message"],
            "the upstream answered 400 Bad Request: context too long"
        );
        let e = ApiError::upstream(StatusCode::SERVICE_UNAVAILABLE, b"busy", Api::Messages);
        assert_eq!(e.body()["error"]["type"], "overloaded_error");
        assert!(e.message.ends_with("busy"));
    }
}
