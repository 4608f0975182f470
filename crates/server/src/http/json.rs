//! `ApiJson<T>`: the JSON body extractor with the contract's errors (text that is not JSON → 400
//! `invalid_json`; valid JSON of the wrong shape, an array where an object is expected included →
//! 400 `bad_request`; over the body limit → 413 `payload_too_large`).

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use serde::de::DeserializeOwned;
use wayfarer_protocol::strict::{self, TextError};
use wayfarer_protocol::ErrorCode;

use super::error::ApiError;

/// A JSON request body of type `T`.
#[derive(Debug, Clone)]
pub struct ApiJson<T>(pub T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status().as_u16() == 413 {
                ApiError::new(
                    ErrorCode::PayloadTooLarge,
                    "request body is larger than 1 MiB",
                )
            } else {
                ApiError::bad_request(rejection.body_text())
            }
        })?;
        // An empty body reads as `{}` so that routes whose fields are all optional need no body.
        let bytes: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
            b"{}"
        } else {
            &bytes
        };
        // Read strictly (`protocol::strict`): a struct only from an object, never from an array.
        strict::from_slice(bytes)
            .map(ApiJson)
            .map_err(|err| match err {
                TextError::NotJson(err) => ApiError::new(
                    ErrorCode::InvalidJson,
                    format!("the request body is {}", strict::not_json(&err)),
                ),
                TextError::Shape(err) => ApiError::bad_request(err.describe("the request body")),
            })
    }
}
