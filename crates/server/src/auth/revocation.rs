//! Revoked tokens (logging out). Two rules, both checked on every authenticated request without a
//! database round trip of their own:
//!
//! - one token, by its id ([`TokenStamp::id`]): the ids revoked and not yet expired are held here in
//!   memory ([`Revocations`]), written to the store first (`revoked_tokens`, kept only until the
//!   token's own expiry) and loaded back at start, so a revocation survives a restart;
//! - every token of an account issued before a time (`users.tokensValidAfter`): read with the
//!   account's row, which `http::auth_user::authenticate` reads for every request anyway.
//!
//! With several worlds, a world that revokes tells the others over NATS at once
//! (`cluster::revocations`), and every world also reads what was revoked since it last looked every
//! [`wayfarer_host::cluster::revocations::CATCH_UP_EVERY`], so one that missed the message (NATS down) is
//! late by at most that long.

use std::collections::HashMap;
use std::sync::RwLock;

use sha2::{Digest, Sha256};
use wayfarer_store::{Store, StoreError};

use wayfarer_host::cluster::revocations::ApplyRevocation;
use wayfarer_host::connections::Revoked;

use crate::app::AppState;

/// What revocation needs to know of one token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenStamp {
    /// The token's `jti`; for a token without one (an identity provider's, or ours from before
    /// tokens had one) a digest of the whole token, which names it as well.
    pub id: String,
    /// When it was issued (epoch ms): our tokens say it to the millisecond (`iatMs`); otherwise
    /// `iat` in whole seconds, or 0 when the token does not say (it then predates any
    /// "log out everywhere").
    pub issued_at_ms: i64,
    /// When it expires (epoch ms): a revoked id is kept until then and no longer.
    pub expires_at_ms: i64,
}

impl TokenStamp {
    /// The stamp of `token`, from the claims it was verified with.
    pub fn new(token: &str, jti: Option<String>, iat_ms: Option<u64>, exp_secs: u64) -> Self {
        TokenStamp {
            id: jti.unwrap_or_else(|| digest(token)),
            issued_at_ms: iat_ms.map_or(0, |ms| i64::try_from(ms).unwrap_or(i64::MAX)),
            expires_at_ms: i64::try_from(exp_secs.saturating_mul(1000)).unwrap_or(i64::MAX),
        }
    }

    /// Whether "log out everywhere" at `valid_after_ms` revoked this token.
    pub fn issued_before(&self, valid_after_ms: Option<i64>) -> bool {
        valid_after_ms.is_some_and(|after| self.issued_at_ms < after)
    }
}

/// The id of a token that carries no `jti`.
fn digest(token: &str) -> String {
    let hash = Sha256::digest(token.as_bytes());
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// The ids of tokens revoked one by one and not yet expired.
#[derive(Debug, Default)]
pub struct Revocations {
    /// Token id → when the token expires (epoch ms).
    revoked: RwLock<HashMap<String, i64>>,
}

impl Revocations {
    /// The revocations the store holds for tokens still alive at `now_ms`.
    pub async fn load(store: &Store, now_ms: i64) -> Result<Revocations, StoreError> {
        let revocations = Revocations::default();
        for token in store.revoked_tokens().unexpired(now_ms).await? {
            revocations.remember(token.token_id, token.expires_at_ms);
        }
        Ok(revocations)
    }

    /// Whether the token with this id was revoked.
    pub fn is_revoked(&self, id: &str) -> bool {
        self.revoked
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .contains_key(id)
    }

    /// Remembers a revocation (from this world, the store or another world) until `expires_at_ms`.
    pub fn remember(&self, id: String, expires_at_ms: i64) {
        self.revoked
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, expires_at_ms);
    }

    /// Forgets tokens expired by `now_ms`: they are refused as expired anyway.
    pub fn prune(&self, now_ms: i64) {
        self.revoked
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|_, expires_at_ms| *expires_at_ms > now_ms);
    }

    /// How many are held (tests, metrics).
    pub fn len(&self) -> usize {
        self.revoked.read().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One revocation, as applied on each world (defined beside the cluster glue that carries it
/// between worlds).
pub use wayfarer_host::cluster::revocations::Revocation;

/// Applies a revocation on this world: remembers a revoked token, and closes the game sockets
/// the revoked tokens opened (4002); how many were asked to close. Applying it twice is harmless.
impl wayfarer_host::cluster::revocations::ApplyRevocation for AppState {
    fn apply(&self, revocation: &Revocation) -> usize {
        match revocation {
            Revocation::Token {
                token_id,
                expires_at_ms,
            } => {
                self.auth.revoked.remember(token_id.clone(), *expires_at_ms);
                self.connections.close_revoked(Revoked::Token(token_id))
            }
            Revocation::Account {
                account_id,
                before_ms,
            } => self
                .connections
                .close_revoked(Revoked::AccountBefore(account_id, *before_ms)),
        }
    }
}

/// Logs out one token of `account_id`: stored first (it survives a restart), then refused here
/// and its sockets closed, then told to the other worlds. Returns how many sockets here closed.
pub async fn revoke_token(
    state: &AppState,
    account_id: &str,
    stamp: &TokenStamp,
) -> Result<usize, StoreError> {
    state
        .store
        .revoked_tokens()
        .revoke(&stamp.id, account_id, stamp.expires_at_ms)
        .await?;
    Ok(announce(
        state,
        Revocation::Token {
            token_id: stamp.id.clone(),
            expires_at_ms: stamp.expires_at_ms,
        },
    )
    .await)
}

/// Logs out every token of `account_id` issued before `at_ms` (the account's own "log out
/// everywhere", or an admin's). Returns the time in force (a later one may already have been set)
/// and how many sockets here closed. `NotFound` for an unknown account.
pub async fn revoke_account(
    state: &AppState,
    account_id: &str,
    at_ms: i64,
) -> Result<(i64, usize), StoreError> {
    let before_ms = state
        .store
        .users()
        .revoke_tokens_before(account_id, at_ms)
        .await?;
    let closed = announce(
        state,
        Revocation::Account {
            account_id: account_id.to_owned(),
            before_ms,
        },
    )
    .await;
    Ok((before_ms, closed))
}

async fn announce(state: &AppState, revocation: Revocation) -> usize {
    let closed = state.apply(&revocation);
    if let Some(cluster) = &state.cluster {
        wayfarer_host::cluster::revocations::publish(cluster, &revocation).await;
    }
    closed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_without_jti_is_named_by_its_digest() {
        let stamp = TokenStamp::new("a.b.c", None, None, 10);
        assert!(stamp.id.starts_with("sha256:") && stamp.id.len() == 7 + 64);
        assert_eq!(stamp.id, TokenStamp::new("a.b.c", None, None, 99).id);
        assert_ne!(stamp.id, TokenStamp::new("a.b.d", None, None, 10).id);
        assert_eq!((stamp.issued_at_ms, stamp.expires_at_ms), (0, 10_000));
        let ours = TokenStamp::new("x", Some("jti-1".into()), Some(1_234), 5);
        assert_eq!((ours.id.as_str(), ours.issued_at_ms), ("jti-1", 1_234));
    }

    #[test]
    fn log_out_everywhere_revokes_tokens_issued_strictly_before() {
        let stamp = TokenStamp::new("x", Some("j".into()), Some(5_000), 60);
        assert!(!stamp.issued_before(None));
        assert!(stamp.issued_before(Some(5_001)));
        assert!(
            !stamp.issued_before(Some(5_000)),
            "issued at that instant: after"
        );
        assert!(!stamp.issued_before(Some(4_999)));
    }

    #[test]
    fn revoked_ids_are_held_until_their_token_expires() {
        let revocations = Revocations::default();
        revocations.remember("a".into(), 1_000);
        revocations.remember("b".into(), 2_000);
        assert!(revocations.is_revoked("a") && !revocations.is_revoked("c"));
        revocations.prune(999);
        assert_eq!(revocations.len(), 2);
        revocations.prune(1_000);
        assert!(!revocations.is_revoked("a") && revocations.is_revoked("b"));
    }
}
