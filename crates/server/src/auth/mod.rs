//! Who is calling: server tokens (HS256), identity-provider tokens (ES256), bans and roles
//! (specification section 5, CONTRACT.md sections 2–4).

pub mod display_name;
pub mod idp;
pub mod revocation;
pub mod secret;
pub mod tokens;
pub mod voice;

use jsonwebtoken::Algorithm;
use wayfarer_protocol::ErrorCode;
use wayfarer_store::{NewUser, Store, StoreError, User};

use crate::service_errors::store_code;
use idp::IdpVerifier;
use revocation::{Revocations, TokenStamp};
use tokens::ServerTokens;

/// The role that may use admin routes and commands.
pub const ADMIN_ROLE: &str = "admin";

/// Why a bearer token was refused; all of these are 401 on the wire.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("missing bearer token")]
    Missing,
    /// The `Authorization` header is not `Bearer <token>`.
    #[error("the Authorization header must be `Bearer <token>`")]
    Malformed,
    #[error("the token is not valid: its algorithm is not accepted")]
    WrongAlgorithm,
    /// What is wrong with the token, in words ([`token_refusal`]).
    #[error("the token is not valid: {0}")]
    Invalid(String),
    #[error("the token has expired: log in again")]
    Expired,
    #[error(
        "identity-provider tokens are not accepted: identity-provider login is not configured"
    )]
    IdpDisabled,
    #[error("the account no longer exists")]
    UnknownAccount,
    #[error("this token was revoked (logged out)")]
    Revoked,
}

/// A token jsonwebtoken refused, in words: what is wrong with the token ("it has no expiry"),
/// never the library's or the JSON parser's text (`JSON error: missing field \`exp\` at line 1
/// column 80`).
pub fn token_refusal(err: &jsonwebtoken::errors::Error, token: &str) -> AuthError {
    use jsonwebtoken::errors::ErrorKind;
    let why = match err.kind() {
        ErrorKind::ExpiredSignature => return AuthError::Expired,
        ErrorKind::ImmatureSignature => "it is not valid yet (its `nbf` is in the future)".into(),
        ErrorKind::InvalidSignature => "its signature does not match".into(),
        // jsonwebtoken reports a required claim of the wrong type as missing. The signature was
        // checked before the claims were, so reading them unchecked to tell the two apart only
        // words the refusal; nothing is accepted on it.
        ErrorKind::MissingRequiredClaim(claim) if claim_present(token, claim) => {
            format!("its {} is not of the right type", claim_name(claim))
        }
        ErrorKind::MissingRequiredClaim(claim) => format!("it has no {}", claim_name(claim)),
        ErrorKind::InvalidClaimFormat(claim) => {
            format!("its {} is not of the right type", claim_name(claim))
        }
        ErrorKind::InvalidIssuer => "it was issued by someone else (`iss`)".into(),
        ErrorKind::InvalidAudience => "it is meant for someone else (`aud`)".into(),
        ErrorKind::InvalidSubject => "its subject (`sub`) is not accepted".into(),
        ErrorKind::InvalidAlgorithm | ErrorKind::MissingAlgorithm => {
            "its algorithm is not accepted".into()
        }
        ErrorKind::InvalidToken | ErrorKind::Base64(_) | ErrorKind::Utf8(_) => {
            "it is not a JWT (three base64url parts separated by dots)".into()
        }
        ErrorKind::Json(_) => {
            "its header or claims cannot be read (not JSON, or an algorithm this server does not know)"
                .into()
        }
        _ => "it could not be checked".into(),
    };
    AuthError::Invalid(why)
}

/// Whether the token's claims hold `claim` (not null), read without checking anything.
fn claim_present(token: &str, claim: &str) -> bool {
    jsonwebtoken::dangerous::insecure_decode::<serde_json::Value>(token)
        .is_ok_and(|data| data.claims.get(claim).is_some_and(|v| !v.is_null()))
}

/// A registered claim by what it means, with its name.
fn claim_name(claim: &str) -> String {
    match claim {
        "exp" => "expiry (`exp`)".into(),
        "nbf" => "start time (`nbf`)".into(),
        "iat" => "issue time (`iat`)".into(),
        "sub" => "subject (`sub`)".into(),
        "iss" => "issuer (`iss`)".into(),
        "aud" => "audience (`aud`)".into(),
        other => format!("`{other}` claim"),
    }
}

/// Reads a token's verified claims as `T`; a claim missing or of the wrong type is said in words.
pub fn read_claims<T: serde::de::DeserializeOwned>(
    claims: serde_json::Value,
) -> Result<T, AuthError> {
    wayfarer_protocol::strict::from_value(claims)
        .map_err(|err| AuthError::Invalid(format!("its {}", err.describe("claims"))))
}

impl AuthError {
    /// The contract code it is answered with: every refused token is `unauthorized`.
    pub fn code(&self) -> ErrorCode {
        ErrorCode::Unauthorized
    }
}

/// Why the account behind a token could not be had.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    /// The token is refused (its account is gone): `unauthorized`.
    #[error(transparent)]
    Refused(#[from] AuthError),
    /// `internal`: a concurrent first login won the insert, yet its account cannot be read.
    #[error("identity vanished after a conflicting insert")]
    IdentityVanished,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl AccountError {
    /// The contract code it is answered with.
    pub fn code(&self) -> ErrorCode {
        match self {
            AccountError::Refused(err) => err.code(),
            AccountError::IdentityVanished => ErrorCode::Internal,
            AccountError::Store(err) => store_code(err),
        }
    }
}

/// Verifies every kind of token the server accepts and resolves it to an account.
pub struct AuthService {
    pub tokens: ServerTokens,
    pub idp: Option<IdpVerifier>,
    /// Tokens revoked one by one (logged out) and not yet expired.
    pub revoked: Revocations,
}

/// A token whose signature and claims are valid (revocation is checked with the account).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedToken {
    pub subject: Subject,
    pub stamp: TokenStamp,
}

/// A verified token's subject, before any database lookup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// Our own token: the account id.
    Account(String),
    /// An identity-provider token: the provider's subject.
    Identity(String),
    /// Our agent token: an account's agent, limited to its character (`docs/agent-control.md`).
    Agent {
        account_id: String,
        claim: tokens::AgentClaim,
    },
}

impl Subject {
    /// A stable key for per-account rate limits. An agent's requests count against its account,
    /// like any other request the account makes.
    pub fn rate_key(&self) -> String {
        match self {
            Subject::Account(id) | Subject::Agent { account_id: id, .. } => {
                format!("account:{id}")
            }
            Subject::Identity(sub) => format!("identity:{sub}"),
        }
    }
}

impl AuthService {
    /// The service at start-up: the signing secret (`auth::secret`), the identity provider when
    /// configured, and the revocations of tokens not yet expired (logged-out tokens stay refused
    /// across a restart; rows of expired ones go).
    pub async fn start(
        config: &crate::config::Config,
        store: &Store,
    ) -> anyhow::Result<AuthService> {
        let secret = secret::resolve(config)?;
        let now = wayfarer_store::now_ms();
        let purged = store.revoked_tokens().purge_expired(now).await?;
        let revoked = Revocations::load(store, now).await?;
        tracing::info!(
            revoked_tokens = revoked.len(),
            expired_purged = purged,
            "token revocations loaded"
        );
        Ok(AuthService {
            tokens: ServerTokens::new(&secret),
            idp: IdpVerifier::from_config(config)?,
            revoked,
        })
    }

    /// Checks a token's signature and claims; the algorithm comes from our side, never the header
    /// alone (HS256 for our tokens, ES256 for the provider's), which defeats `alg:none` and
    /// algorithm confusion.
    pub async fn verify(&self, token: &str) -> Result<VerifiedToken, AuthError> {
        let header =
            jsonwebtoken::decode_header(token).map_err(|err| token_refusal(&err, token))?;
        let (subject, stamp) = match header.alg {
            Algorithm::HS256 => {
                let (verified, stamp) = self.tokens.verify(token)?;
                let subject = match verified {
                    tokens::Verified::Account(id) => Subject::Account(id),
                    tokens::Verified::Agent { account_id, claim } => {
                        Subject::Agent { account_id, claim }
                    }
                };
                (subject, stamp)
            }
            Algorithm::ES256 => match &self.idp {
                Some(idp) => {
                    let (identity, stamp) = idp.verify(token).await?;
                    (Subject::Identity(identity), stamp)
                }
                None => return Err(AuthError::IdpDisabled),
            },
            _ => return Err(AuthError::WrongAlgorithm),
        };
        Ok(VerifiedToken { subject, stamp })
    }

    /// 401 when the token was revoked: alone (logged out), or with every token of `user` issued
    /// before its "log out everywhere" time. Memory and the account row only: no query of its own.
    pub fn check_not_revoked(&self, stamp: &TokenStamp, user: &User) -> Result<(), AuthError> {
        if self.revoked.is_revoked(&stamp.id) || stamp.issued_before(user.tokens_valid_after_ms) {
            return Err(AuthError::Revoked);
        }
        Ok(())
    }

    /// The account behind a verified subject; an identity seen for the first time gets an account.
    pub async fn account(&self, store: &Store, subject: &Subject) -> Result<User, AccountError> {
        match subject {
            Subject::Account(id) | Subject::Agent { account_id: id, .. } => store
                .users()
                .get(id)
                .await?
                .ok_or_else(|| AuthError::UnknownAccount.into()),
            Subject::Identity(sub) => account_for_identity(store, sub).await,
        }
    }
}

/// Finds or creates the account of an identity-provider subject; a concurrent first login that loses
/// the race reads the winner's account.
pub async fn account_for_identity(store: &Store, identity: &str) -> Result<User, AccountError> {
    if let Some(user) = store.users().find_by_identity(identity).await? {
        return Ok(user);
    }
    let created = store
        .users()
        .create(&NewUser {
            name: "Adventurer".into(),
            identity_id: Some(identity.to_owned()),
            roles: Vec::new(),
        })
        .await;
    match created {
        Ok(user) => {
            tracing::info!(account = %user.id, "account created for a new identity");
            Ok(user)
        }
        Err(StoreError::Conflict(_)) => store
            .users()
            .find_by_identity(identity)
            .await?
            .ok_or(AccountError::IdentityVanished),
        Err(other) => Err(other.into()),
    }
}

/// The bearer token of a request, if the header is present and well-formed.
pub fn bearer_token(headers: &axum::http::HeaderMap) -> Result<&str, AuthError> {
    let value = headers
        .get(axum::http::header::AUTHORIZATION)
        .ok_or(AuthError::Missing)?
        .to_str()
        .map_err(|_| AuthError::Malformed)?;
    let (scheme, token) = value.split_once(' ').ok_or(AuthError::Malformed)?;
    if !scheme.eq_ignore_ascii_case("bearer") || token.trim().is_empty() {
        return Err(AuthError::Malformed);
    }
    Ok(token.trim())
}

/// Compares secrets without an early exit that would leak how much of them matched.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
