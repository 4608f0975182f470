//! Rate-limit middleware for REST routes and authentication attempts, with the RateLimit-* headers on
//! every limited response and 429 `rate_limited` + `Retry-After` when over.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use wayfarer_protocol::ErrorCode;

use crate::app::AppState;
use crate::auth::bearer_token;
use crate::characters::creation::Origin;
use crate::http::error::ApiError;
use crate::rate_limit::Decision;

/// The address a request comes from, honouring `TRUSTED_PROXIES`.
pub fn client_ip(state: &AppState, request: &Request) -> std::net::IpAddr {
    client_ip_of(state, request.extensions(), request.headers())
}

fn client_ip_of(
    state: &AppState,
    extensions: &axum::http::Extensions,
    headers: &HeaderMap,
) -> std::net::IpAddr {
    let peer = extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0)
        .unwrap_or_else(|| SocketAddr::from(([0, 0, 0, 0], 0)));
    state.config.trusted_proxies.client_ip(peer, headers)
}

/// A character creation's origin, for the per-address rule of starting grants: the client's
/// address, exempt from the rule exactly when it is exempt from the other per-address limits
/// (rate limits off, or the load-test key).
impl FromRequestParts<AppState> for Origin {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        Ok(Origin {
            ip: client_ip_of(state, &parts.extensions, &parts.headers),
            exempt: state.limits.disabled || carries_load_test_key(state, &parts.headers),
        })
    }
}

fn set_headers(headers: &mut HeaderMap, limit: u32, remaining: u32, reset_secs: u64) {
    headers.insert("ratelimit-limit", HeaderValue::from(limit));
    headers.insert("ratelimit-remaining", HeaderValue::from(remaining));
    headers.insert("ratelimit-reset", HeaderValue::from(reset_secs));
}

async fn apply(decision: Decision, request: Request, next: Next) -> Response {
    match decision {
        Decision::Allowed {
            limit,
            remaining,
            reset_secs,
        } => {
            let mut response = next.run(request).await;
            // Where two limits apply (authentication routes are REST routes too), the inner, stricter
            // one has already set its figures; keep them.
            if !response.headers().contains_key("ratelimit-limit") {
                set_headers(response.headers_mut(), limit, remaining, reset_secs);
            }
            response
        }
        Decision::Limited {
            limit,
            retry_after_secs,
        } => {
            metrics::counter!("rate_limited_total").increment(1);
            let mut response = ApiError {
                code: ErrorCode::RateLimited,
                message: format!("too many requests; try again in {retry_after_secs} s"),
                retry_after_secs: Some(retry_after_secs),
            }
            .into_response();
            set_headers(response.headers_mut(), limit, 0, retry_after_secs);
            response
        }
    }
}

/// Header a load-generator bot sends with the configured `LOAD_TEST_KEY`.
pub const LOAD_TEST_KEY_HEADER: &str = "x-load-test-key";

/// Whether the request carries the configured load-test key. Thousands of load-generator bots come
/// from one address, so such a request skips the per-address limits (authentication attempts, and
/// the REST limit per address); an account's own REST limit still applies to it.
fn has_load_test_key(state: &AppState, request: &Request) -> bool {
    carries_load_test_key(state, request.headers())
}

fn carries_load_test_key(state: &AppState, headers: &HeaderMap) -> bool {
    let Some(expected) = state.config.load_test_key.as_deref() else {
        return false;
    };
    headers
        .get(LOAD_TEST_KEY_HEADER)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|given| crate::auth::constant_time_eq(given.as_bytes(), expected.as_bytes()))
}

/// REST: 100 requests a minute per address and, for a request with a valid token, 100 a minute per
/// account; a request counts against both, and the stricter answers.
pub async fn limit_rest(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if state.limits.disabled {
        return next.run(request).await;
    }
    let account = match bearer_token(request.headers()) {
        Ok(token) => state
            .auth
            .verify(token)
            .await
            .ok()
            .map(|verified| verified.subject.rate_key()),
        Err(_) => None,
    };
    let skip_address = has_load_test_key(&state, &request);
    let ip = client_ip(&state, &request);
    match state.limits.check_rest(ip, account.as_ref(), skip_address) {
        Some(decision) => apply(decision, request, next).await,
        // A load-test bot without a token: no limit of its own applies.
        None => next.run(request).await,
    }
}

/// Authentication attempts: 10 a minute per address.
pub async fn limit_auth(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if state.limits.disabled || has_load_test_key(&state, &request) {
        return next.run(request).await;
    }
    let ip = client_ip(&state, &request);
    let decision = state.limits.check_auth(ip);
    if matches!(decision, Decision::Limited { .. }) {
        tracing::warn!(%ip, path = request.uri().path(), "authentication attempts rate-limited");
    }
    apply(decision, request, next).await
}

/// `/status`: [`crate::rate_limit::STATUS_PER_WINDOW`] a minute per address (public, so no
/// account to count against; the load generator's key skips it as it skips the other
/// per-address limits).
pub async fn limit_status(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if state.limits.disabled || has_load_test_key(&state, &request) {
        return next.run(request).await;
    }
    let ip = client_ip(&state, &request);
    let decision = state.limits.check_status(ip);
    apply(decision, request, next).await
}
