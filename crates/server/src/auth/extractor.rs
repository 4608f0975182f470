//! `AuthUser`: the extractor every authenticated route takes. Missing or invalid token → 401
//! `unauthorized`; a banned account → 403 `forbidden` with the ban's reason and end.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use wayfarer_protocol::ErrorCode;
use wayfarer_store::User;

use super::{bearer_token, Subject, ADMIN_ROLE};
use crate::app::AppState;
use crate::http::error::ApiError;

/// The authenticated caller.
#[derive(Debug, Clone)]
pub struct AuthUser {
    pub user: User,
    pub subject: Subject,
}

impl AuthUser {
    /// The caller's account id.
    pub fn account_id(&self) -> &str {
        &self.user.id
    }

    /// Whether the account holds the admin role.
    pub fn is_admin(&self) -> bool {
        self.user.has_role(ADMIN_ROLE)
    }

    /// 403 unless the caller is an admin.
    pub fn require_admin(&self) -> Result<(), ApiError> {
        if self.is_admin() {
            Ok(())
        } else {
            Err(ApiError::new(
                ErrorCode::Forbidden,
                "this route is for admins",
            ))
        }
    }
}

impl FromRequestParts<AppState> for AuthUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        authenticate(state, bearer_token(&parts.headers)?).await
    }
}

/// The one check of a bearer token for REST and the game socket alike: a valid token (ours or the
/// identity provider's), its account, and no active ban (403 naming the ban's end and reason).
pub async fn authenticate(state: &AppState, token: &str) -> Result<AuthUser, ApiError> {
    let subject = state.auth.verify(token).await?;
    let user = state.auth.account(&state.store, &subject).await?;
    if let Some(ban) = state
        .store
        .bans()
        .active(&user.id, wayfarer_store::now_ms())
        .await?
    {
        let until = match ban.expires_at_ms {
            Some(ms) => format!("until {}", crate::http::health::iso8601_from_ms(ms)),
            None => "permanently".to_owned(),
        };
        return Err(ApiError::new(
            ErrorCode::Forbidden,
            format!("account banned {until}: {}", ban.reason),
        ));
    }
    Ok(AuthUser { user, subject })
}
