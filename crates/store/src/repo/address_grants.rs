//! Starting grants per client address (`address_grants`): a row for every character created
//! through a request whose address is known, written by
//! [`Characters::create_from`](super::characters::Characters::create_from) in the transaction
//! that inserts the character, and read back by the economy report (top addresses by grants).

use std::collections::BTreeSet;

use sqlx::{Any, Row, Transaction};
use wayfarer_protocol::rest::GrantCounts;

use crate::repo::characters::GrantOrigin;
use crate::{Store, StoreError};

/// What one address received within a window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddressGrantSummary {
    /// The limit key: an IPv4 address, or an IPv6 address's /64 network.
    pub address: String,
    pub counts: GrantCounts,
    /// The latest creation from the address (epoch milliseconds).
    pub last_at_ms: i64,
}

/// The key of the PostgreSQL advisory lock that serialises creations from one address: an FNV-1a
/// hash of the address under a prefix of its own. Two addresses sharing a key only wait for each
/// other; they never share a count.
pub(crate) fn lock_key(address: &str) -> i64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in b"address_grants:".iter().chain(address.as_bytes()) {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash as i64
}

/// The accounts `address` gave a counted grant to since `since_ms`, read inside `tx`.
pub(crate) async fn accounts_granted_in(
    tx: &mut Transaction<'static, Any>,
    address: &str,
    since_ms: i64,
) -> Result<BTreeSet<String>, StoreError> {
    let rows = sqlx::query(
        r#"SELECT DISTINCT "accountId" FROM address_grants
           WHERE address = $1 AND "createdAt" >= $2 AND granted = 1 AND exempt = 0"#,
    )
    .bind(address)
    .bind(since_ms)
    .fetch_all(&mut **tx)
    .await?;
    rows.iter()
        .map(|row| row.try_get::<String, _>(0).map_err(StoreError::from))
        .collect()
}

/// Records one creation from `origin` inside `tx`.
pub(crate) async fn record_in(
    tx: &mut Transaction<'static, Any>,
    origin: &GrantOrigin,
    account_id: &str,
    character_id: &str,
    granted: bool,
    coins: i64,
) -> Result<(), StoreError> {
    sqlx::query(
        r#"INSERT INTO address_grants ("characterId", address, "accountId", granted, exempt, coins, "createdAt")
           VALUES ($1, $2, $3, $4, $5, $6, $7)"#,
    )
    .bind(character_id)
    .bind(&origin.address)
    .bind(account_id)
    .bind(i64::from(granted))
    .bind(i64::from(origin.max_accounts.is_none()))
    .bind(coins)
    .bind(origin.now_ms)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// The `address_grants` reader.
pub struct AddressGrants<'a> {
    store: &'a Store,
}

impl<'a> AddressGrants<'a> {
    pub(crate) fn new(store: &'a Store) -> Self {
        Self { store }
    }

    /// The `limit` addresses with the most grants since `since_ms` (then the most withheld, then
    /// by address), each with what it received.
    pub async fn top_since(
        &self,
        since_ms: i64,
        limit: i64,
    ) -> Result<Vec<AddressGrantSummary>, StoreError> {
        // PostgreSQL sums BIGINTs to NUMERIC, which the `Any` driver cannot read: every figure is
        // cast back to BIGINT (a no-op on SQLite).
        let rows = sqlx::query(
            r#"SELECT address,
                      COUNT(DISTINCT CASE WHEN granted = 1 THEN "accountId" END) AS accounts,
                      CAST(SUM(granted) AS BIGINT) AS grants,
                      CAST(SUM(CASE WHEN granted = 1 THEN coins ELSE 0 END) AS BIGINT) AS coins,
                      CAST(SUM(1 - granted) AS BIGINT) AS withheld,
                      CAST(SUM(granted * exempt) AS BIGINT) AS exempt,
                      CAST(MAX("createdAt") AS BIGINT) AS last_at
               FROM address_grants WHERE "createdAt" >= $1
               GROUP BY address
               ORDER BY grants DESC, withheld DESC, address
               LIMIT $2"#,
        )
        .bind(since_ms)
        .bind(limit)
        .fetch_all(self.store.pool())
        .await?;
        rows.iter()
            .map(|row| {
                Ok(AddressGrantSummary {
                    address: row.try_get("address")?,
                    counts: GrantCounts {
                        accounts: row.try_get("accounts")?,
                        grants: row.try_get("grants")?,
                        coins: row.try_get("coins")?,
                        withheld: row.try_get("withheld")?,
                        exempt: row.try_get("exempt")?,
                    },
                    last_at_ms: row.try_get("last_at")?,
                })
            })
            .collect()
    }
}
