//! Friendships and friend requests (`friendships`, one row per direction; `friend_requests`).
//!
//! A request that meets a request the other way is an acceptance, and accepting writes both
//! directions and removes both requests in one transaction, so a friendship is never one-sided.
//!
//! One relationship per pair whatever the interleaving: every change between two characters
//! (a request, an answer, a removal) first takes the pair's lock ([`lock_pair`]), so two
//! requests sent each other at the same instant — from one world's two sockets or from two
//! worlds on one database — run one after the other, and the second finds the first and turns
//! both into the friendship. Without it, under PostgreSQL's READ COMMITTED each transaction
//! looked for the reverse request before the other had committed its own, both inserted, and
//! each player kept the other in both `incoming` and `outgoing` for good.

use sqlx::Row;

use crate::{now_ms, Backend, Store, StoreError};

/// The namespace of the pairs' advisory locks (the first of PostgreSQL's two 32-bit keys; the
/// two-key space never meets the one-key locks such as the migrations').
const PG_FRIEND_PAIR_LOCK_SPACE: i32 = 0x4652_4E44; // "FRND"

/// The most friends a character may have (and the most pending requests it may send).
pub const MAX_FRIENDS: usize = 99;

/// Another character, as lists show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contact {
    pub id: String,
    pub name: String,
}

impl Contact {
    /// A contact from a row's `id` and `name`.
    pub(crate) fn read(row: &sqlx::any::AnyRow) -> Result<Contact, sqlx::Error> {
        Ok(Contact {
            id: row.try_get("id")?,
            name: row.try_get("name")?,
        })
    }
}

/// A character's four lists at once (`Friends::lists`): its friends, the requests waiting for
/// its answer, those it sent, and whom it ignores, each by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContactLists {
    pub friends: Vec<Contact>,
    pub incoming: Vec<Contact>,
    pub outgoing: Vec<Contact>,
    pub ignored: Vec<Contact>,
}

/// What a friend request led to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestOutcome {
    /// The request waits for the other side.
    Sent,
    /// The other side had already asked: they are friends now.
    Befriended,
    /// They were already friends.
    AlreadyFriends,
    /// The same request was already waiting.
    AlreadySent,
}

/// The friends repository.
pub struct Friends<'a> {
    store: &'a Store,
}

impl<'a> Friends<'a> {
    pub(crate) fn new(store: &'a Store) -> Self {
        Self { store }
    }

    /// `from` asks `to` to be friends. Refused with `Conflict` when `from` already has
    /// [`MAX_FRIENDS`] friends (or as many pending requests).
    pub async fn request(&self, from: &str, to: &str) -> Result<RequestOutcome, StoreError> {
        let mut tx = self.store.begin_write().await?;
        lock_pair(self.store, &mut tx, from, to).await?;
        let exists = |sql: &'static str, a: &str, b: &str| {
            sqlx::query(sql).bind(a.to_owned()).bind(b.to_owned())
        };
        let friends = exists(
            r#"SELECT 1 FROM friendships WHERE "characterId" = $1 AND "friendId" = $2"#,
            from,
            to,
        )
        .fetch_optional(&mut *tx)
        .await?;
        if friends.is_some() {
            return Ok(RequestOutcome::AlreadyFriends);
        }
        let count: i64 =
            sqlx::query(r#"SELECT COUNT(*) AS n FROM friendships WHERE "characterId" = $1"#)
                .bind(from)
                .fetch_one(&mut *tx)
                .await?
                .try_get("n")?;
        if count as usize >= MAX_FRIENDS {
            return Err(StoreError::Conflict(format!(
                "a character may have at most {MAX_FRIENDS} friends"
            )));
        }
        let reverse = exists(
            r#"SELECT 1 FROM friend_requests WHERE "fromId" = $1 AND "toId" = $2"#,
            to,
            from,
        )
        .fetch_optional(&mut *tx)
        .await?;
        if reverse.is_some() {
            let other: i64 =
                sqlx::query(r#"SELECT COUNT(*) AS n FROM friendships WHERE "characterId" = $1"#)
                    .bind(to)
                    .fetch_one(&mut *tx)
                    .await?
                    .try_get("n")?;
            if other as usize >= MAX_FRIENDS {
                return Err(StoreError::Conflict(format!(
                    "they already have {MAX_FRIENDS} friends"
                )));
            }
            befriend(&mut tx, from, to).await?;
            tx.commit().await?;
            return Ok(RequestOutcome::Befriended);
        }
        let already_sent = exists(
            r#"SELECT 1 FROM friend_requests WHERE "fromId" = $1 AND "toId" = $2"#,
            from,
            to,
        )
        .fetch_optional(&mut *tx)
        .await?;
        if already_sent.is_some() {
            return Ok(RequestOutcome::AlreadySent);
        }
        let pending: i64 =
            sqlx::query(r#"SELECT COUNT(*) AS n FROM friend_requests WHERE "fromId" = $1"#)
                .bind(from)
                .fetch_one(&mut *tx)
                .await?
                .try_get("n")?;
        if pending as usize >= MAX_FRIENDS {
            return Err(StoreError::Conflict(format!(
                "at most {MAX_FRIENDS} friend requests may wait at once"
            )));
        }
        sqlx::query(
            r#"INSERT INTO friend_requests ("fromId", "toId", "createdAt") VALUES ($1, $2, $3)"#,
        )
        .bind(from)
        .bind(to)
        .bind(now_ms())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(RequestOutcome::Sent)
    }

    /// `to` answers `from`'s request. Accepting makes them friends (both directions, one
    /// transaction); declining forgets the request. `NotFound` when there was no such request.
    pub async fn respond(&self, to: &str, from: &str, accept: bool) -> Result<(), StoreError> {
        let mut tx = self.store.begin_write().await?;
        lock_pair(self.store, &mut tx, to, from).await?;
        let removed =
            sqlx::query(r#"DELETE FROM friend_requests WHERE "fromId" = $1 AND "toId" = $2"#)
                .bind(from)
                .bind(to)
                .execute(&mut *tx)
                .await?
                .rows_affected();
        if removed == 0 {
            return Err(StoreError::NotFound("no such friend request".into()));
        }
        if accept {
            for (a, b) in [(to, from), (from, to)] {
                let n: i64 = sqlx::query(
                    r#"SELECT COUNT(*) AS n FROM friendships WHERE "characterId" = $1"#,
                )
                .bind(a)
                .fetch_one(&mut *tx)
                .await?
                .try_get("n")?;
                let already = sqlx::query(
                    r#"SELECT 1 FROM friendships WHERE "characterId" = $1 AND "friendId" = $2"#,
                )
                .bind(a)
                .bind(b)
                .fetch_optional(&mut *tx)
                .await?
                .is_some();
                if !already && n as usize >= MAX_FRIENDS {
                    return Err(StoreError::Conflict(format!(
                        "a character may have at most {MAX_FRIENDS} friends"
                    )));
                }
            }
            befriend(&mut tx, to, from).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Ends a friendship (both directions) and any requests between the two.
    pub async fn remove(&self, a: &str, b: &str) -> Result<bool, StoreError> {
        let mut tx = self.store.begin_write().await?;
        lock_pair(self.store, &mut tx, a, b).await?;
        let mut removed = 0;
        for (x, y) in [(a, b), (b, a)] {
            removed += sqlx::query(
                r#"DELETE FROM friendships WHERE "characterId" = $1 AND "friendId" = $2"#,
            )
            .bind(x)
            .bind(y)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            sqlx::query(r#"DELETE FROM friend_requests WHERE "fromId" = $1 AND "toId" = $2"#)
                .bind(x)
                .bind(y)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(removed > 0)
    }

    /// A character's friends, by name.
    pub async fn list(&self, character_id: &str) -> Result<Vec<Contact>, StoreError> {
        self.contacts(
            r#"SELECT c.id, c.name FROM friendships f JOIN characters c ON c.id = f."friendId"
               WHERE f."characterId" = $1 ORDER BY c.name"#,
            character_id,
        )
        .await
    }

    /// Requests waiting for this character's answer.
    pub async fn incoming(&self, character_id: &str) -> Result<Vec<Contact>, StoreError> {
        self.contacts(
            r#"SELECT c.id, c.name FROM friend_requests r JOIN characters c ON c.id = r."fromId"
               WHERE r."toId" = $1 ORDER BY c.name"#,
            character_id,
        )
        .await
    }

    /// Requests this character sent that wait for an answer.
    pub async fn outgoing(&self, character_id: &str) -> Result<Vec<Contact>, StoreError> {
        self.contacts(
            r#"SELECT c.id, c.name FROM friend_requests r JOIN characters c ON c.id = r."toId"
               WHERE r."fromId" = $1 ORDER BY c.name"#,
            character_id,
        )
        .await
    }

    /// The four lists in one statement: entering the world needs them all (the ignore list for
    /// the sim, the rest for `friend:list` and whom to tell it came online), and a restart's
    /// thousands of entries queue for the pool one round trip at a time.
    pub async fn lists(&self, character_id: &str) -> Result<ContactLists, StoreError> {
        let rows = sqlx::query(
            r#"SELECT 'friend' AS list, c.id AS id, c.name AS name
                 FROM friendships f JOIN characters c ON c.id = f."friendId" WHERE f."characterId" = $1
               UNION ALL
               SELECT 'incoming', c.id, c.name
                 FROM friend_requests r JOIN characters c ON c.id = r."fromId" WHERE r."toId" = $2
               UNION ALL
               SELECT 'outgoing', c.id, c.name
                 FROM friend_requests r JOIN characters c ON c.id = r."toId" WHERE r."fromId" = $3
               UNION ALL
               SELECT 'ignored', c.id, c.name
                 FROM ignore_lists i JOIN characters c ON c.id = i."ignoredId" WHERE i."characterId" = $4
               ORDER BY list, name"#,
        )
        .bind(character_id)
        .bind(character_id)
        .bind(character_id)
        .bind(character_id)
        .fetch_all(self.store.pool())
        .await?;
        let mut lists = ContactLists::default();
        for r in &rows {
            let contact = Contact {
                id: r.try_get("id")?,
                name: r.try_get("name")?,
            };
            let list: String = r.try_get("list")?;
            match list.as_str() {
                "friend" => lists.friends.push(contact),
                "incoming" => lists.incoming.push(contact),
                "outgoing" => lists.outgoing.push(contact),
                _ => lists.ignored.push(contact),
            }
        }
        Ok(lists)
    }

    async fn contacts(&self, sql: &'static str, id: &str) -> Result<Vec<Contact>, StoreError> {
        crate::repo::rows_of(self.store.pool(), sql, id, Contact::read).await
    }
}

/// Holds the pair `a`–`b` (either order) until the transaction ends, so changes between the two
/// run one at a time and each statement after the lock sees what the one before committed
/// (READ COMMITTED reads per statement). On PostgreSQL a transaction-scoped advisory lock keyed
/// by the pair: it blocks nothing else (character saves write the same characters' rows, and a
/// row lock on those would queue saves behind friend requests, or deadlock with a save taking
/// them in the other order); two pairs sharing a key merely wait for each other. On SQLite the
/// write transaction (`BEGIN IMMEDIATE`) already excludes every other writer.
async fn lock_pair(
    store: &Store,
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    a: &str,
    b: &str,
) -> Result<(), StoreError> {
    if store.backend() != Backend::Postgres {
        return Ok(());
    }
    sqlx::query("SELECT pg_advisory_xact_lock($1, $2)")
        .bind(PG_FRIEND_PAIR_LOCK_SPACE)
        .bind(pair_key(a, b))
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// The pair's lock key, the same for `a`–`b` and `b`–`a` in every process: FNV-1a (32-bit) of
/// the two ids in order with a separator no id contains.
fn pair_key(a: &str, b: &str) -> i32 {
    let (low, high) = if a <= b { (a, b) } else { (b, a) };
    let mut hash: u32 = 0x811C_9DC5;
    for byte in low.bytes().chain([0u8]).chain(high.bytes()) {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash as i32
}

/// Both directions of a friendship, and no requests left between the two.
async fn befriend(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    a: &str,
    b: &str,
) -> Result<(), StoreError> {
    let now = now_ms();
    for (x, y) in [(a, b), (b, a)] {
        sqlx::query(
            r#"INSERT INTO friendships ("characterId", "friendId", "createdAt") VALUES ($1, $2, $3)
               ON CONFLICT ("characterId", "friendId") DO NOTHING"#,
        )
        .bind(x)
        .bind(y)
        .bind(now)
        .execute(&mut **tx)
        .await?;
        sqlx::query(r#"DELETE FROM friend_requests WHERE "fromId" = $1 AND "toId" = $2"#)
            .bind(x)
            .bind(y)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_has_one_key_in_either_order() {
        assert_eq!(pair_key("ann", "bob"), pair_key("bob", "ann"));
        assert_ne!(pair_key("ann", "bob"), pair_key("ann", "bo"));
        // The separator keeps ("ab", "c") and ("a", "bc") apart.
        assert_ne!(pair_key("ab", "c"), pair_key("a", "bc"));
    }
}
