//! The error vocabulary shared by REST and WebSocket (CONTRACT.md sections 2 and 3).

use serde::{Deserialize, Serialize};

/// A machine-readable error code; lower snake_case on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    BadRequest,
    InvalidJson,
    Unauthorized,
    Forbidden,
    NotFound,
    MethodNotAllowed,
    Conflict,
    PayloadTooLarge,
    /// 414: a request target longer than the HTTP layer reads.
    UriTooLong,
    UnsupportedMediaType,
    RateLimited,
    /// 431: more header fields, or a longer request head, than the HTTP layer reads.
    HeadersTooLarge,
    Internal,
    ServiceUnavailable,
    IdpNotConfigured,
    VoiceNotConfigured,
    /// 503: several worlds run and the link between them (NATS) is down.
    CrossWorldUnavailable,
    /// 503: the server is saturated (its database's connections are all busy); `Retry-After`
    /// says when to try again. On the socket, the same code tells an entry waiting its turn.
    ServerBusy,
}

impl ErrorCode {
    /// The code exactly as it appears on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::InvalidJson => "invalid_json",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::NotFound => "not_found",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::Conflict => "conflict",
            ErrorCode::PayloadTooLarge => "payload_too_large",
            ErrorCode::UriTooLong => "uri_too_long",
            ErrorCode::UnsupportedMediaType => "unsupported_media_type",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::HeadersTooLarge => "headers_too_large",
            ErrorCode::Internal => "internal",
            ErrorCode::ServiceUnavailable => "service_unavailable",
            ErrorCode::IdpNotConfigured => "idp_not_configured",
            ErrorCode::VoiceNotConfigured => "voice_not_configured",
            ErrorCode::CrossWorldUnavailable => "cross_world_unavailable",
            ErrorCode::ServerBusy => "server_busy",
        }
    }

    /// The HTTP status a REST response with this code carries.
    pub fn http_status(self) -> u16 {
        match self {
            ErrorCode::BadRequest | ErrorCode::InvalidJson => 400,
            ErrorCode::Unauthorized => 401,
            ErrorCode::Forbidden => 403,
            ErrorCode::NotFound => 404,
            ErrorCode::MethodNotAllowed => 405,
            ErrorCode::Conflict => 409,
            ErrorCode::PayloadTooLarge => 413,
            ErrorCode::UriTooLong => 414,
            ErrorCode::UnsupportedMediaType => 415,
            ErrorCode::RateLimited => 429,
            ErrorCode::HeadersTooLarge => 431,
            ErrorCode::Internal => 500,
            ErrorCode::ServiceUnavailable
            | ErrorCode::IdpNotConfigured
            | ErrorCode::VoiceNotConfigured
            | ErrorCode::CrossWorldUnavailable
            | ErrorCode::ServerBusy => 503,
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The JSON body of every REST response with status >= 400.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    pub error: ErrorCode,
    pub message: String,
    /// Seconds until a client may try again: 429 `rate_limited` and 503 `server_busy`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after: Option<u64>,
}

impl ErrorBody {
    /// An error body without a retry hint.
    pub fn new(error: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            error,
            message: message.into(),
            retry_after: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_body_serialises_to_the_contract_shape() {
        let body = ErrorBody::new(ErrorCode::InvalidJson, "bad");
        assert_eq!(
            serde_json::to_value(&body).unwrap(),
            serde_json::json!({"error": "invalid_json", "message": "bad"})
        );
        let limited = ErrorBody {
            retry_after: Some(42),
            ..ErrorBody::new(ErrorCode::RateLimited, "slow down")
        };
        assert_eq!(
            serde_json::to_value(&limited).unwrap(),
            serde_json::json!({"error": "rate_limited", "message": "slow down", "retryAfter": 42})
        );
    }

    #[test]
    fn as_str_matches_serde_for_every_code() {
        for code in [
            ErrorCode::BadRequest,
            ErrorCode::InvalidJson,
            ErrorCode::Unauthorized,
            ErrorCode::Forbidden,
            ErrorCode::NotFound,
            ErrorCode::MethodNotAllowed,
            ErrorCode::Conflict,
            ErrorCode::PayloadTooLarge,
            ErrorCode::UriTooLong,
            ErrorCode::UnsupportedMediaType,
            ErrorCode::RateLimited,
            ErrorCode::HeadersTooLarge,
            ErrorCode::Internal,
            ErrorCode::ServiceUnavailable,
            ErrorCode::IdpNotConfigured,
            ErrorCode::VoiceNotConfigured,
            ErrorCode::CrossWorldUnavailable,
            ErrorCode::ServerBusy,
        ] {
            assert_eq!(
                serde_json::to_value(code).unwrap(),
                serde_json::Value::String(code.as_str().to_owned())
            );
        }
    }
}
