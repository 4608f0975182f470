//! One place that turns failures into the contract's JSON error body (CONTRACT.md section 2).

use axum::body::Body;
use axum::http::{header, HeaderValue, Response, StatusCode};
use axum::response::IntoResponse;
use wayfarer_protocol::{ErrorBody, ErrorCode};

/// A REST failure: a contract code and a human message.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    pub retry_after_secs: Option<u64>,
}

impl ApiError {
    /// An error with this code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            retry_after_secs: None,
        }
    }

    /// 400 `bad_request`.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::BadRequest, message)
    }

    /// 404 `not_found`.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::NotFound, message)
    }

    /// 500 `internal`; the detail goes to the log, never to the client.
    pub fn internal(detail: impl std::fmt::Display) -> Self {
        tracing::error!(error = %detail, "internal error");
        Self::new(ErrorCode::Internal, "internal server error")
    }
}

impl From<wayfarer_store::StoreError> for ApiError {
    fn from(err: wayfarer_store::StoreError) -> Self {
        use wayfarer_store::StoreError;
        match err {
            StoreError::Conflict(m) => ApiError::new(ErrorCode::Conflict, m),
            StoreError::NotFound(m) => ApiError::not_found(m),
            other => ApiError::internal(other),
        }
    }
}

impl From<crate::characters::NameError> for ApiError {
    fn from(err: crate::characters::NameError) -> Self {
        ApiError::bad_request(format!("invalid name: {err}"))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> axum::response::Response {
        let status = StatusCode::from_u16(self.code.http_status())
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let body = ErrorBody {
            error: self.code,
            message: self.message,
            retry_after: self.retry_after_secs,
        };
        let mut response = (status, axum::Json(body)).into_response();
        if let Some(secs) = self.retry_after_secs {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        response
    }
}

/// The contract code for a status produced outside our handlers (router, body limit, the HTTP
/// layer's own answers to a request it could not read, …).
pub fn code_for_status(status: StatusCode) -> ErrorCode {
    match status.as_u16() {
        400 => ErrorCode::BadRequest,
        401 => ErrorCode::Unauthorized,
        403 => ErrorCode::Forbidden,
        404 => ErrorCode::NotFound,
        405 => ErrorCode::MethodNotAllowed,
        409 => ErrorCode::Conflict,
        413 => ErrorCode::PayloadTooLarge,
        414 => ErrorCode::UriTooLong,
        415 => ErrorCode::UnsupportedMediaType,
        429 => ErrorCode::RateLimited,
        431 => ErrorCode::HeadersTooLarge,
        503 => ErrorCode::ServiceUnavailable,
        _ if status.is_client_error() => ErrorCode::BadRequest,
        _ => ErrorCode::Internal,
    }
}

/// Middleware: any error response that is not already JSON (axum's 405, the body limit's 413, a
/// rejection's plain text, …) gets the contract's JSON body, keeping its status and headers.
pub async fn ensure_json_errors(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let response = next.run(request).await;
    let status = response.status();
    if status.as_u16() < 400 || status == StatusCode::SWITCHING_PROTOCOLS {
        return response;
    }
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json {
        return response;
    }
    let (mut parts, _) = response.into_parts();
    let code = code_for_status(status);
    let message = status
        .canonical_reason()
        .unwrap_or("request failed")
        .to_owned();
    let body = serde_json::to_vec(&ErrorBody::new(code, message)).unwrap_or_default();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Response::from_parts(parts, Body::from(body))
}

/// The router's fallback: every unknown route is a JSON 404.
pub async fn not_found(uri: axum::http::Uri) -> ApiError {
    ApiError::not_found(format!("no route for {}", uri.path()))
}

/// The panic handler: a 500 `internal` JSON body; the server keeps serving.
pub fn panic_response(panic: Box<dyn std::any::Any + Send + 'static>) -> axum::response::Response {
    let detail = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("unknown panic");
    metrics::counter!("http_handler_panics_total").increment(1);
    ApiError::internal(format_args!("handler panicked: {detail}")).into_response()
}
