//! `POST /api/auth/guest`, `/api/auth/refresh` and `/api/auth/idp` (CONTRACT.md section 2).

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde::{Deserialize, Serialize};
use wayfarer_protocol::ErrorCode;
use wayfarer_store::NewUser;

use crate::app::AppState;
use crate::auth::{account_for_identity, AuthUser};
use crate::http::error::ApiError;
use crate::http::json::ApiJson;

/// Longest account display name.
const MAX_ACCOUNT_NAME_CHARS: usize = 32;

#[derive(Debug, Default, Deserialize)]
pub struct GuestRequest {
    #[serde(default)]
    pub name: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AccountToken {
    pub token: String,
    pub account_id: String,
    pub expires_at: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RefreshedToken {
    pub token: String,
    pub expires_at: String,
}

#[derive(Debug, Deserialize)]
pub struct IdpRequest {
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
        crate::http::health::iso8601_from_ms(issued.expires_at as i64 * 1000),
    ))
}

/// `POST /api/auth/guest`: a new persistent guest account and its token.
pub async fn guest(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<GuestRequest>,
) -> Result<(StatusCode, Json<AccountToken>), ApiError> {
    let name = match body.name {
        None => "Guest".to_owned(),
        Some(name) => {
            let name = name.trim();
            if name.is_empty()
                || name.chars().count() > MAX_ACCOUNT_NAME_CHARS
                || name.chars().any(char::is_control)
            {
                return Err(ApiError::bad_request(format!(
                    "name must be 1-{MAX_ACCOUNT_NAME_CHARS} printable characters"
                )));
            }
            name.to_owned()
        }
    };
    let user = state
        .store
        .users()
        .create(&NewUser {
            name,
            ..NewUser::default()
        })
        .await?;
    let (token, expires_at) = issue(&state, &user.id)?;
    tracing::info!(account = %user.id, "guest account created");
    Ok((
        StatusCode::CREATED,
        Json(AccountToken {
            token,
            account_id: user.id,
            expires_at,
        }),
    ))
}

/// `POST /api/auth/refresh`: a fresh token for the bearer's account.
pub async fn refresh(
    State(state): State<AppState>,
    auth: AuthUser,
) -> Result<Json<RefreshedToken>, ApiError> {
    let (token, expires_at) = issue(&state, auth.account_id())?;
    Ok(Json(RefreshedToken { token, expires_at }))
}

/// `POST /api/auth/idp`: exchanges an identity-provider token for a server token; the first valid
/// token of an identity creates its account.
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
    let identity = verifier.verify(&body.token).await?;
    let user = account_for_identity(&state.store, &identity).await?;
    state.store.users().touch_login(&user.id).await?;
    let (token, expires_at) = issue(&state, &user.id)?;
    Ok(Json(AccountToken {
        token,
        account_id: user.id,
        expires_at,
    }))
}
