//! `AuthUser`: the extractor every authenticated route takes. Missing or invalid token → 401
//! `unauthorized`; a banned account → 403 `forbidden` with the ban's reason and end; an agent token
//! → 403 `forbidden` (it acts for one character, on the socket and the agent routes only, which
//! take [`AccountOrAgent`]).

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use wayfarer_protocol::ErrorCode;
use wayfarer_store::User;

use crate::app::AppState;
use crate::auth::revocation::TokenStamp;
use crate::auth::tokens::AgentClaim;
use crate::auth::{bearer_token, AuthError, Subject, VerifiedToken, ADMIN_ROLE};
use crate::http::error::ApiError;

/// The authenticated caller.
#[derive(Debug, Clone)]
pub struct AuthUser {
    pub user: User,
    pub subject: Subject,
    /// The token it came with (logging out revokes it; a socket remembers it).
    pub stamp: TokenStamp,
}

/// The caller of a route an agent token may use too: the account, or one of its agents.
#[derive(Debug, Clone)]
pub struct AccountOrAgent(pub AuthUser);

impl AccountOrAgent {
    /// The agent the token is limited to, when it is an agent token.
    pub fn agent(&self) -> Option<&AgentClaim> {
        match &self.0.subject {
            Subject::Agent { claim, .. } => Some(claim),
            _ => None,
        }
    }
}

impl FromRequestParts<AppState> for AccountOrAgent {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        authenticate_scoped(state, bearer_token(&parts.headers)?)
            .await
            .map(AccountOrAgent)
    }
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

/// The one check of a bearer token for REST: a valid token (ours or the identity provider's) of
/// the account itself, its account, and no active ban (403 naming the ban's end and reason). An
/// agent token is refused with 403: it cannot act as the account.
pub async fn authenticate(state: &AppState, token: &str) -> Result<AuthUser, ApiError> {
    let caller = authenticate_scoped(state, token).await?;
    if matches!(caller.subject, Subject::Agent { .. }) {
        return Err(ApiError::new(
            ErrorCode::Forbidden,
            "an agent token is limited to its character: it opens /ws and the agent routes only",
        ));
    }
    Ok(caller)
}

/// [`authenticate`] that also accepts an agent token, for the game socket and the agent routes:
/// the token's agent must still be registered with this token id (registering again, or deleting
/// the character, revokes it: 401), for the same account and character. A token logged out, alone
/// or with all of its account's, is 401 (`auth::revocation`).
pub async fn authenticate_scoped(state: &AppState, token: &str) -> Result<AuthUser, ApiError> {
    let VerifiedToken { subject, stamp } = state.auth.verify(token).await?;
    if let Subject::Agent { account_id, claim } = &subject {
        let current = state.store.agents().get(&claim.agent_id).await?;
        let valid = current.is_some_and(|m| {
            m.account_id == *account_id
                && m.character_id == claim.character_id
                && crate::auth::constant_time_eq(m.token_id.as_bytes(), claim.token_id.as_bytes())
        });
        if !valid {
            return Err(AuthError::Invalid(
                "this agent token was revoked (the agent was registered again or removed)".into(),
            )
            .into());
        }
    }
    let user = state.auth.account(&state.store, &subject).await?;
    state.auth.check_not_revoked(&stamp, &user)?;
    if let Some(ban) = state
        .store
        .bans()
        .active(&user.id, wayfarer_store::now_ms())
        .await?
    {
        let until = match ban.expires_at_ms {
            Some(ms) => format!("until {}", crate::timestamps::iso8601_from_ms(ms)),
            None => "permanently".to_owned(),
        };
        return Err(ApiError::new(
            ErrorCode::Forbidden,
            format!("account banned {until}: {}", ban.reason),
        ));
    }
    Ok(AuthUser {
        user,
        subject,
        stamp,
    })
}
