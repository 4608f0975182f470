//! Login and logout records (`playerSessions`).

use std::sync::{Arc, OnceLock};

use sqlx::any::AnyRow;
use sqlx::Row;
use tokio::sync::{mpsc, oneshot};

use crate::{new_id, now_ms, Store, StoreError};

/// Logins written in one transaction at most.
const MAX_OPENINGS: usize = 256;

/// A login waiting to be written, and who waits for its session id.
pub(crate) struct Opening {
    character_id: String,
    account_id: String,
    address: Option<String>,
    reply: oneshot::Sender<Result<String, StoreError>>,
}

/// The queue of logins to the task that writes them; started by the first login of a store
/// (shared by its clones).
pub(crate) type Openings = Arc<OnceLock<mpsc::UnboundedSender<Opening>>>;

/// One stay in the world, from login to logout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerSession {
    pub id: String,
    pub character_id: String,
    pub account_id: String,
    pub address: Option<String>,
    pub login_at_ms: i64,
    pub logout_at_ms: Option<i64>,
    /// Why the session closed: `logout`, `replaced`, `shutdown`, `crash_recovered`, …
    pub close_reason: Option<String>,
}

fn from_row(row: &AnyRow) -> Result<PlayerSession, sqlx::Error> {
    Ok(PlayerSession {
        id: row.try_get("id")?,
        character_id: row.try_get("characterId")?,
        account_id: row.try_get("accountId")?,
        address: row.try_get("address")?,
        login_at_ms: row.try_get("loginAt")?,
        logout_at_ms: row.try_get("logoutAt")?,
        close_reason: row.try_get("closeReason")?,
    })
}

/// The `playerSessions` repository.
pub struct Sessions<'a> {
    store: &'a Store,
}

impl<'a> Sessions<'a> {
    pub(crate) fn new(store: &'a Store) -> Self {
        Self { store }
    }

    /// Records a login and the account's last login; returns the session id to close later, once
    /// the row is committed. The logins arriving together are written together: every login
    /// queued while the last ones were written goes into the next transaction, one multi-row
    /// INSERT and one log sync for all (a restart's reconnect storm opened 10,000 sessions one
    /// sync each). When that transaction fails, they are written one by one, so a login the
    /// database refuses (a character since deleted) fails alone.
    pub async fn open(
        &self,
        character_id: &str,
        account_id: &str,
        address: Option<&str>,
    ) -> Result<String, StoreError> {
        let (reply, answer) = oneshot::channel();
        let opening = Opening {
            character_id: character_id.to_owned(),
            account_id: account_id.to_owned(),
            address: address.map(str::to_owned),
            reply,
        };
        let queue = self
            .store
            .session_openings()
            .get_or_init(|| start_openings(self.store));
        if queue.send(opening).is_err() {
            return Err(StoreError::Database(sqlx::Error::PoolClosed));
        }
        answer
            .await
            .unwrap_or(Err(StoreError::Database(sqlx::Error::PoolClosed)))
    }

    /// Records a logout; closing an already closed session changes nothing.
    pub async fn close(&self, id: &str, reason: &str) -> Result<(), StoreError> {
        sqlx::query(
            r#"UPDATE "playerSessions" SET "logoutAt" = $1, "closeReason" = $2 WHERE id = $3 AND "logoutAt" IS NULL"#,
        )
        .bind(now_ms())
        .bind(reason)
        .bind(id)
        .execute(self.store.writer())
        .await?;
        Ok(())
    }

    /// Records many logouts in one transaction (one log sync, not one a session: a mass leave,
    /// after a restart or a network cut, closes thousands at once); closing an already closed
    /// session changes nothing.
    pub async fn close_many(&self, sessions: &[(String, &str)]) -> Result<(), StoreError> {
        if sessions.is_empty() {
            return Ok(());
        }
        let now = now_ms();
        let mut tx = self.store.begin_write().await?;
        for (id, reason) in sessions {
            sqlx::query(
                r#"UPDATE "playerSessions" SET "logoutAt" = $1, "closeReason" = $2 WHERE id = $3 AND "logoutAt" IS NULL"#,
            )
            .bind(now)
            .bind(*reason)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// At start-up, closes the sessions a crash left open (reason `crash_recovered`); returns how many.
    pub async fn close_dangling(&self) -> Result<u64, StoreError> {
        let done = sqlx::query(
            r#"UPDATE "playerSessions" SET "logoutAt" = $1, "closeReason" = 'crash_recovered' WHERE "logoutAt" IS NULL"#,
        )
        .bind(now_ms())
        .execute(self.store.writer())
        .await?;
        Ok(done.rows_affected())
    }

    /// [`Sessions::close_dangling`] for one world of several on a database: leaves open the
    /// sessions of characters that another world holds a lease of (they are that world's, and it
    /// is alive or its leases will expire).
    pub async fn close_dangling_of_world(&self, world_id: i64) -> Result<u64, StoreError> {
        let done = sqlx::query(
            r#"UPDATE "playerSessions" SET "logoutAt" = $1, "closeReason" = 'crash_recovered'
               WHERE "logoutAt" IS NULL AND "characterId" NOT IN
                 (SELECT "characterId" FROM character_leases WHERE "worldId" <> $2)"#,
        )
        .bind(now_ms())
        .bind(world_id)
        .execute(self.store.writer())
        .await?;
        Ok(done.rows_affected())
    }

    /// A character's sessions, newest first.
    pub async fn for_character(
        &self,
        character_id: &str,
    ) -> Result<Vec<PlayerSession>, StoreError> {
        let rows = sqlx::query(
            r#"SELECT id, "characterId", "accountId", address, "loginAt", "logoutAt", "closeReason"
               FROM "playerSessions" WHERE "characterId" = $1 ORDER BY "loginAt" DESC, id DESC"#,
        )
        .bind(character_id)
        .fetch_all(self.store.pool())
        .await?;
        Ok(rows.iter().map(from_row).collect::<Result<_, _>>()?)
    }
}

/// Starts the task that writes a store's logins; it ends when every clone of the store is gone.
fn start_openings(store: &Store) -> mpsc::UnboundedSender<Opening> {
    let (queue, mut openings) = mpsc::unbounded_channel::<Opening>();
    // Its own handle holds no queue: the task must not keep itself alive.
    let store = store.without_session_openings();
    tokio::spawn(async move {
        let mut queued = Vec::with_capacity(MAX_OPENINGS);
        while openings.recv_many(&mut queued, MAX_OPENINGS).await > 0 {
            let batch = std::mem::take(&mut queued);
            let now = now_ms();
            let ids: Vec<String> = batch.iter().map(|_| new_id()).collect();
            match write_openings(&store, &batch, &ids, now).await {
                Ok(()) => {
                    for (opening, id) in batch.into_iter().zip(ids) {
                        let _ = opening.reply.send(Ok(id));
                    }
                }
                Err(err) => {
                    tracing::warn!(logins = batch.len(), error = %err, "writing logins together failed; writing them one by one");
                    for (opening, id) in batch.into_iter().zip(ids) {
                        let written = write_openings(
                            &store,
                            std::slice::from_ref(&opening),
                            std::slice::from_ref(&id),
                            now,
                        )
                        .await
                        .map(|()| id);
                        let _ = opening.reply.send(written);
                    }
                }
            }
        }
    });
    queue
}

/// Writes `openings` with their session `ids` in one transaction: the session rows in as few
/// statements as they allow, then each account's last login.
async fn write_openings(
    store: &Store,
    openings: &[Opening],
    ids: &[String],
    now: i64,
) -> Result<(), StoreError> {
    use crate::repo::snapshot_writes::{insert_rows, Value};
    let rows: Vec<[Value; 5]> = openings
        .iter()
        .zip(ids)
        .map(|(o, id)| {
            [
                Value::Text(id),
                Value::Text(&o.character_id),
                Value::Text(&o.account_id),
                Value::MaybeText(o.address.as_deref()),
                Value::Int(now),
            ]
        })
        .collect();
    let mut accounts: Vec<&str> = openings.iter().map(|o| o.account_id.as_str()).collect();
    accounts.sort_unstable();
    accounts.dedup();
    let mut tx = store.begin_write().await?;
    insert_rows(
        &mut tx,
        r#""playerSessions" (id, "characterId", "accountId", address, "loginAt")"#,
        "",
        &rows,
    )
    .await?;
    for account in accounts {
        sqlx::query(r#"UPDATE users SET "lastLoginAt" = $1 WHERE id = $2"#)
            .bind(now)
            .bind(account)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    store.note_session_batch();
    Ok(())
}
