//! Logging out across worlds. A token revoked on one world must be refused on every world, and
//! the sockets it opened closed wherever they are. The database is the truth: "log out
//! everywhere" is on the account row every world reads for each request, and single revocations
//! are in `revoked_tokens`. What each world holds in memory (the revoked token ids, the open
//! sockets) learns of a revocation in two ways:
//!
//! - at once, over NATS (`wayfarer.tokens.revoked`, [`SUBJECT_REVOCATIONS`]): the revoking world
//!   publishes it and every other applies it;
//! - and, for a world that missed the message (NATS down, or restarting), by reading what was
//!   revoked recently from the database every [`CATCH_UP_EVERY`]. So a revoked token is refused
//!   and its sockets closed everywhere within that time even without NATS.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{Cluster, HostHandles};

/// The subject revocations are published on.
pub const SUBJECT_REVOCATIONS: &str = "wayfarer.tokens.revoked";
/// How often a world reads the revocations of the last moments from the database: the longest a
/// revocation made while NATS was down takes to reach another world.
pub const CATCH_UP_EVERY: Duration = Duration::from_secs(10);
/// How far before its last read a world reads again: revocations are stamped with the revoking
/// world's clock and written by transactions that may commit late, so the windows overlap by
/// this much (applying one twice is harmless).
const CATCH_UP_OVERLAP_MS: i64 = 60_000;

/// One revocation, as applied on each world.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Revocation {
    /// One token, until it expires.
    Token {
        token_id: String,
        expires_at_ms: i64,
    },
    /// Every token of an account issued before `before_ms`.
    Account { account_id: String, before_ms: i64 },
}

/// What applies a revocation on this world: remembers a revoked token and closes the game
/// sockets the revoked tokens opened (4002), returning how many were asked to close. The
/// server's token service implements it (`auth::revocation`); applying one twice is harmless.
pub trait ApplyRevocation: Send + Sync {
    fn apply(&self, revocation: &Revocation) -> usize;
}

/// A revocation as published.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Published {
    /// The revoking world, which applied it already.
    from_world: i64,
    revocation: Revocation,
}

/// Tells the other worlds; a NATS that is away is caught up on by their reads of the database.
pub async fn publish(cluster: &Cluster, revocation: &Revocation) {
    let published = Published {
        from_world: cluster.world_id,
        revocation: revocation.clone(),
    };
    let Ok(payload) = serde_json::to_vec(&published) else {
        return;
    };
    if cluster
        .publish(SUBJECT_REVOCATIONS.to_owned(), payload)
        .await
        .is_err()
    {
        tracing::warn!(
            "a revocation could not be sent to the other worlds now (NATS unavailable); they read it from the database within {} s",
            CATCH_UP_EVERY.as_secs()
        );
    }
}

/// A revocation another world published.
pub fn heard(cluster: &Cluster, host: &HostHandles, payload: &[u8]) {
    match serde_json::from_slice::<Published>(payload) {
        Ok(published) if published.from_world != cluster.world_id => {
            let closed = host.revocations.apply(&published.revocation);
            tracing::info!(
                from_world = published.from_world,
                sockets_closed = closed,
                "revocation from another world applied"
            );
        }
        Ok(_) => {}
        Err(err) => tracing::warn!(error = %err, "bad revocation from another world"),
    }
}

/// Reads the recent revocations from the database every [`CATCH_UP_EVERY`] and applies them.
pub async fn catch_up_loop(cluster: Arc<Cluster>, host: HostHandles) {
    let mut last_read_ms = wayfarer_store::now_ms();
    let mut every = tokio::time::interval(CATCH_UP_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    every.tick().await;
    loop {
        every.tick().await;
        let reading_at = wayfarer_store::now_ms();
        let since = last_read_ms - CATCH_UP_OVERLAP_MS;
        match read_since(&host.store, since).await {
            Ok(revocations) => {
                let closed: usize = revocations.iter().map(|r| host.revocations.apply(r)).sum();
                if closed > 0 {
                    tracing::info!(
                        world = cluster.world_id,
                        sockets_closed = closed,
                        "revocations read from the database closed sockets here"
                    );
                }
                last_read_ms = reading_at;
            }
            // Read again next time from the same point.
            Err(err) => tracing::warn!(error = %err, "reading recent revocations failed"),
        }
    }
}

async fn read_since(
    store: &wayfarer_store::Store,
    since_ms: i64,
) -> Result<Vec<Revocation>, wayfarer_store::StoreError> {
    let tokens = store.revoked_tokens().revoked_since(since_ms).await?;
    let accounts = store.users().tokens_revoked_since(since_ms).await?;
    Ok(tokens
        .into_iter()
        .map(|t| Revocation::Token {
            token_id: t.token_id,
            expires_at_ms: t.expires_at_ms,
        })
        .chain(
            accounts
                .into_iter()
                .map(|(account_id, before_ms)| Revocation::Account {
                    account_id,
                    before_ms,
                }),
        )
        .collect())
}
