//! One place that turns failures into the contract's JSON error body (CONTRACT.md section 2): the
//! services' own errors (`service_errors`) become an [`ApiError`] here, with the code each names.

use axum::body::Body;
use axum::http::{header, HeaderValue, Response, StatusCode};
use axum::response::IntoResponse;
use wayfarer_protocol::{ErrorBody, ErrorCode};
use wayfarer_store::StoreError;

use crate::agents::control::ControlError;
use crate::agents::registration::{NewAgentError, RegistrationError};
use crate::auth::{AccountError, AuthError};
use crate::characters::creation::CreationError;
use crate::characters::deletion::DeletionError;
use crate::characters::{NameError, NoCharacter};
use crate::service_errors::{store_code, BUSY_RETRY_AFTER_SECS};
use wayfarer_host::world_thread::NoAnswer;

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

impl From<StoreError> for ApiError {
    fn from(err: StoreError) -> Self {
        let code = store_code(&err);
        match err {
            StoreError::Conflict(m) | StoreError::NotFound(m) => ApiError::new(code, m),
            StoreError::Busy(detail) => ApiError::busy(detail),
            other => ApiError::internal(other),
        }
    }
}

impl ApiError {
    /// A service's failure with the code it names: in its own words, or, when `internal`, with
    /// the detail logged and never shown, or, when `server_busy`, as back-pressure.
    fn service(code: ErrorCode, err: impl std::fmt::Display) -> Self {
        match code {
            ErrorCode::Internal => ApiError::internal(err),
            ErrorCode::ServerBusy => ApiError::busy(err),
            code => ApiError::new(code, err.to_string()),
        }
    }

    /// 503 `server_busy` with `Retry-After`: the store is saturated (its detail is logged). The
    /// call did nothing and may be made again as it was.
    pub fn busy(detail: impl std::fmt::Display) -> Self {
        tracing::warn!(error = %detail, "store saturated: answered 503 server_busy");
        metrics::counter!("http_busy_total").increment(1);
        Self {
            code: ErrorCode::ServerBusy,
            message: format!("the server is busy; try again in {BUSY_RETRY_AFTER_SECS} s"),
            retry_after_secs: Some(BUSY_RETRY_AFTER_SECS),
        }
    }
}

impl From<NameError> for ApiError {
    fn from(err: NameError) -> Self {
        ApiError::bad_request(format!("invalid name: {err}"))
    }
}

impl From<CreationError> for ApiError {
    fn from(err: CreationError) -> Self {
        match err {
            CreationError::Store(err) => err.into(),
            other => ApiError::service(other.code(), other),
        }
    }
}

impl From<DeletionError> for ApiError {
    fn from(err: DeletionError) -> Self {
        match err {
            DeletionError::Store(err) => err.into(),
            other => ApiError::service(other.code(), other),
        }
    }
}

impl From<NoCharacter> for ApiError {
    fn from(err: NoCharacter) -> Self {
        ApiError::service(ErrorCode::Conflict, err)
    }
}

impl From<RegistrationError> for ApiError {
    fn from(err: RegistrationError) -> Self {
        match err {
            RegistrationError::Store(err) => err.into(),
            other => ApiError::service(other.code(), other),
        }
    }
}

impl From<NewAgentError> for ApiError {
    fn from(err: NewAgentError) -> Self {
        match err {
            NewAgentError::Creation(err) => err.into(),
            NewAgentError::Registration(err) => err.into(),
            NewAgentError::Store(err) => err.into(),
            other => ApiError::service(other.code(), other),
        }
    }
}

impl From<ControlError> for ApiError {
    fn from(err: ControlError) -> Self {
        match err {
            ControlError::Store(err) => err.into(),
            other => ApiError::service(other.code(), other),
        }
    }
}

impl From<AuthError> for ApiError {
    fn from(err: AuthError) -> Self {
        ApiError::service(err.code(), err)
    }
}

impl From<AccountError> for ApiError {
    fn from(err: AccountError) -> Self {
        match err {
            AccountError::Store(err) => err.into(),
            other => ApiError::service(other.code(), other),
        }
    }
}

impl From<NoAnswer> for ApiError {
    fn from(err: NoAnswer) -> Self {
        ApiError::service(err.code(), err)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(err: impl Into<ApiError>) -> (ErrorCode, String) {
        let err = err.into();
        (err.code, err.message)
    }

    #[test]
    fn service_failures_keep_their_code_and_words_and_hide_internal_detail() {
        let internal = (ErrorCode::Internal, "internal server error".to_owned());
        assert_eq!(
            answer(CreationError::UnknownTemplate("mage".into())),
            (
                ErrorCode::BadRequest,
                "templateId: no template `mage` (GET /api/template lists them)".into()
            )
        );
        assert_eq!(
            answer(CreationError::NameTaken),
            (ErrorCode::Conflict, "that name is taken".into())
        );
        assert_eq!(
            answer(NewAgentError::Creation(CreationError::AccountFull)),
            (
                ErrorCode::Conflict,
                "an account has at most 3 characters".into()
            )
        );
        assert_eq!(
            answer(NewAgentError::UnknownAccount),
            (
                ErrorCode::Unauthorized,
                "the account no longer exists".into()
            )
        );
        assert_eq!(
            answer(RegistrationError::NoSuchCharacter),
            (ErrorCode::NotFound, "no such character".into())
        );
        assert_eq!(
            answer(DeletionError::Online),
            (
                ErrorCode::Conflict,
                "cannot delete a character while it is online".into()
            )
        );
        assert_eq!(
            answer(ControlError::InvalidGoal(
                "target.itemId: no item `x`".into()
            )),
            (ErrorCode::BadRequest, "target.itemId: no item `x`".into())
        );
        assert_eq!(answer(ControlError::NoSuchAgent).0, ErrorCode::NotFound);
        assert_eq!(answer(ControlError::Paused).0, ErrorCode::Conflict);
        assert_eq!(
            answer(AuthError::Revoked),
            (
                ErrorCode::Unauthorized,
                "this token was revoked (logged out)".into()
            )
        );
        assert_eq!(answer(AccountError::IdentityVanished), internal);
        assert_eq!(
            answer(NoAnswer),
            (
                ErrorCode::ServiceUnavailable,
                "the world did not answer".into()
            )
        );
        // A store failure a service passes on is answered as the store's own: a conflict or a
        // missing row in its words, anything else without its detail.
        assert_eq!(
            answer(DeletionError::Store(StoreError::NotFound(
                "no character c1".into()
            ))),
            (ErrorCode::NotFound, "no character c1".into())
        );
        assert_eq!(
            answer(ControlError::Store(StoreError::Corrupt(
                "goal column".into()
            ))),
            internal
        );
        assert_eq!(
            answer(AccountError::Store(StoreError::Conflict("taken".into()))),
            (ErrorCode::Conflict, "taken".into())
        );
        // Every service error names the same code it is answered with.
        assert_eq!(
            CreationError::Store(StoreError::Corrupt(String::new())).code(),
            ErrorCode::Internal
        );
        assert_eq!(
            NewAgentError::Creation(CreationError::NameTaken).code(),
            ErrorCode::Conflict
        );
    }
}
