//! `POST /api/auth/guest`, `/api/auth/refresh` and `/api/auth/idp` (CONTRACT.md section 2), and
//! `POST /api/auth/logout`, which revokes the bearer token or every token of the account
//! (`auth::revocation`).

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde::{Deserialize, Serialize};
use wayfarer_protocol::ErrorCode;
use wayfarer_store::NewUser;

use crate::app::AppState;
use crate::auth::{account_for_identity, display_name, revocation};
use crate::http::auth_user::AuthUser;
use crate::http::error::ApiError;
use crate::http::json::ApiJson;
use crate::http::openapi::tags;
use wayfarer_protocol::ErrorBody;

/// `POST /api/auth/guest`'s body (may be empty).
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
pub struct GuestRequest {
    /// The account's display name (default `Guest`): invisible and control characters are taken
    /// out and the ends trimmed, then 1–32 characters without `<` or `>` and without a staff word
    /// (admin, mod, moderator, jmod, system) as a word of the name.
    #[serde(default)]
    #[schema(min_length = 1, max_length = 32)]
    pub name: Option<String>,
}

/// A new or existing account's token.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccountToken {
    /// The bearer token (7 days).
    pub token: String,
    pub account_id: String,
    /// ISO 8601 UTC.
    pub expires_at: String,
}

/// A fresh token for the same account.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefreshedToken {
    pub token: String,
    /// ISO 8601 UTC.
    pub expires_at: String,
}

/// `POST /api/auth/logout`'s body (may be empty).
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
pub struct LogoutRequest {
    /// `true`: every token of the account issued before now is revoked ("log out everywhere"),
    /// not only the bearer token.
    #[serde(default)]
    pub all: bool,
}

/// `POST /api/auth/idp`'s body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct IdpRequest {
    /// The identity provider's ES256 token.
    pub token: String,
}

fn issue(state: &AppState, account_id: &str) -> Result<(String, String), ApiError> {
    let issued = state
        .auth
        .tokens
        .issue(account_id)
        .map_err(ApiError::internal)?;
    Ok((
        issued.token,
        crate::timestamps::iso8601_from_ms(issued.expires_at as i64 * 1000),
    ))
}

/// A fresh token for the account, with the account's id: the answer of a sign-up and a login.
fn account_token(state: &AppState, account_id: String) -> Result<AccountToken, ApiError> {
    let (token, expires_at) = issue(state, &account_id)?;
    Ok(AccountToken {
        token,
        account_id,
        expires_at,
    })
}

/// `POST /api/auth/guest`: a new persistent guest account and its token.
#[utoipa::path(
    post,
    path = "/api/auth/guest",
    tag = tags::AUTH,
    summary = "Create a guest account",
    description = "Counts against the authentication limit (10 a minute per address).",
    request_body(content = GuestRequest, description = "Optional: an empty body is `{}`"),
    responses(
        (status = 201, description = "The new account and its token", body = AccountToken),
        (status = 400, description = "`bad_request`: a display name that is empty once invisible characters are taken out, longer than 32 characters, with `<` or `>`, or with a staff word", body = ErrorBody)
    )
)]
pub async fn guest(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<GuestRequest>,
) -> Result<(StatusCode, Json<AccountToken>), ApiError> {
    let name = match body.name {
        None => display_name::DEFAULT.to_owned(),
        Some(name) => display_name::parse(&name)
            .map_err(|err| ApiError::bad_request(format!("name: {err}")))?,
    };
    let user = state
        .store
        .users()
        .create(&NewUser {
            name,
            ..NewUser::default()
        })
        .await?;
    tracing::info!(account = %user.id, "guest account created");
    Ok((StatusCode::CREATED, Json(account_token(&state, user.id)?)))
}

/// `POST /api/auth/refresh`: a fresh token for the bearer's account.
#[utoipa::path(
    post,
    path = "/api/auth/refresh",
    tag = tags::AUTH,
    summary = "Refresh the bearer token",
    security(("bearer" = [])),
    responses((status = 200, description = "A fresh token", body = RefreshedToken))
)]
pub async fn refresh(
    State(state): State<AppState>,
    auth: AuthUser,
) -> Result<Json<RefreshedToken>, ApiError> {
    let (token, expires_at) = issue(&state, auth.account_id())?;
    Ok(Json(RefreshedToken { token, expires_at }))
}

/// `POST /api/auth/idp`: exchanges an identity-provider token for a server token; the first valid
/// token of an identity creates its account.
#[utoipa::path(
    post,
    path = "/api/auth/idp",
    tag = tags::AUTH,
    summary = "Exchange an identity-provider token for a server token",
    request_body = IdpRequest,
    responses(
        (status = 200, description = "The identity's account and a server token", body = AccountToken),
        (status = 401, description = "`unauthorized`: the identity-provider token is not valid", body = ErrorBody),
        (status = 503, description = "`idp_not_configured`: this server has no identity provider", body = ErrorBody)
    )
)]
pub async fn idp(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<IdpRequest>,
) -> Result<Json<AccountToken>, ApiError> {
    let Some(verifier) = &state.auth.idp else {
        return Err(ApiError::new(
            ErrorCode::IdpNotConfigured,
            "identity-provider login is not configured on this server",
        ));
    };
    let (identity, stamp) = verifier.verify(&body.token).await?;
    let user = account_for_identity(&state.store, &identity).await?;
    // A provider token logged out here is not exchanged for a fresh one either.
    state.auth.check_not_revoked(&stamp, &user)?;
    state.store.users().touch_login(&user.id).await?;
    Ok(Json(account_token(&state, user.id)?))
}

/// `POST /api/auth/logout`: revokes the bearer token, or with `{"all": true}` every token of the
/// account issued before now; the game sockets they opened close (4002).
#[utoipa::path(
    post,
    path = "/api/auth/logout",
    tag = tags::AUTH,
    summary = "Log out: revoke the bearer token, or every token of the account",
    description = "The revoked tokens answer 401 `unauthorized` everywhere from then on (REST and the WebSocket upgrade), on every world, and the game sockets they opened are closed with 4002. With `{\"all\": true}`, every token of the account issued before now is revoked, agent tokens included; tokens issued afterwards work.",
    security(("bearer" = [])),
    request_body(content = LogoutRequest, description = "Optional: an empty body is `{}`"),
    responses((status = 204, description = "Revoked"))
)]
pub async fn logout(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiJson(body): ApiJson<LogoutRequest>,
) -> Result<StatusCode, ApiError> {
    let account = auth.account_id();
    if body.all {
        let (_, closed) =
            revocation::revoke_account(&state, account, wayfarer_store::now_ms()).await?;
        // Named too: a token issued in the very millisecond of "now" is not "before" it.
        let closed_too = revocation::revoke_token(&state, account, &auth.stamp).await?;
        tracing::info!(
            account,
            sockets_closed = closed + closed_too,
            "logged out everywhere"
        );
    } else {
        let closed = revocation::revoke_token(&state, account, &auth.stamp).await?;
        tracing::info!(account, sockets_closed = closed, "logged out");
    }
    Ok(StatusCode::NO_CONTENT)
}
