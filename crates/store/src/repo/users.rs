//! Accounts (`users`): guests and identity-provider accounts.

use sqlx::any::AnyRow;
use sqlx::Row;

use crate::{new_id, now_ms, Store, StoreError};

/// A stored account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    pub id: String,
    pub name: String,
    /// The identity provider's subject, for provider accounts; `None` for guests.
    pub identity_id: Option<String>,
    /// Stored roles, e.g. `["admin"]`.
    pub roles: Vec<String>,
    pub active_character_id: Option<String>,
    pub created_at_ms: i64,
    pub last_login_at_ms: Option<i64>,
    /// Tokens of the account issued before this time (epoch ms) are revoked ("log out
    /// everywhere"); `None`: never asked.
    pub tokens_valid_after_ms: Option<i64>,
}

impl User {
    /// Whether the account holds `role`.
    pub fn has_role(&self, role: &str) -> bool {
        self.roles.iter().any(|r| r == role)
    }
}

/// What a new account needs.
#[derive(Debug, Clone, Default)]
pub struct NewUser {
    pub name: String,
    pub identity_id: Option<String>,
    pub roles: Vec<String>,
}

const COLUMNS: &str = r#"id, name, "identityId", roles, "activeCharacterId", "createdAt", "lastLoginAt", "tokensValidAfter""#;

fn from_row(row: &AnyRow) -> Result<User, sqlx::Error> {
    let roles: String = row.try_get("roles")?;
    Ok(User {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        identity_id: row.try_get("identityId")?,
        roles: roles
            .split(',')
            .filter(|r| !r.is_empty())
            .map(str::to_owned)
            .collect(),
        active_character_id: row.try_get("activeCharacterId")?,
        created_at_ms: row.try_get("createdAt")?,
        last_login_at_ms: row.try_get("lastLoginAt")?,
        tokens_valid_after_ms: row.try_get("tokensValidAfter")?,
    })
}

/// The `users` repository.
pub struct Users<'a> {
    store: &'a Store,
}

impl<'a> Users<'a> {
    pub(crate) fn new(store: &'a Store) -> Self {
        Self { store }
    }

    /// Creates an account; a taken identity id is a `Conflict`.
    pub async fn create(&self, new: &NewUser) -> Result<User, StoreError> {
        let user = User {
            id: new_id(),
            name: new.name.clone(),
            identity_id: new.identity_id.clone(),
            roles: new.roles.clone(),
            active_character_id: None,
            created_at_ms: now_ms(),
            last_login_at_ms: None,
            tokens_valid_after_ms: None,
        };
        sqlx::query(
            r#"INSERT INTO users (id, name, "identityId", roles, "createdAt") VALUES ($1, $2, $3, $4, $5)"#,
        )
        .bind(&user.id)
        .bind(&user.name)
        .bind(&user.identity_id)
        .bind(user.roles.join(","))
        .bind(user.created_at_ms)
        .execute(self.store.writer())
        .await?;
        Ok(user)
    }

    /// The account with this id.
    pub async fn get(&self, id: &str) -> Result<Option<User>, StoreError> {
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM users WHERE id = $1"))
            .bind(id)
            .fetch_optional(self.store.pool())
            .await?;
        Ok(row.as_ref().map(from_row).transpose()?)
    }

    /// The account linked to an identity-provider subject.
    pub async fn find_by_identity(&self, identity_id: &str) -> Result<Option<User>, StoreError> {
        let row = sqlx::query(&format!(
            r#"SELECT {COLUMNS} FROM users WHERE "identityId" = $1"#
        ))
        .bind(identity_id)
        .fetch_optional(self.store.pool())
        .await?;
        Ok(row.as_ref().map(from_row).transpose()?)
    }

    /// Replaces the account's stored roles.
    pub async fn set_roles(&self, id: &str, roles: &[String]) -> Result<(), StoreError> {
        let query = sqlx::query("UPDATE users SET roles = $1 WHERE id = $2").bind(roles.join(","));
        self.update(query, id).await
    }

    /// Makes `character_id` the account's active character (or clears it).
    pub async fn set_active_character(
        &self,
        id: &str,
        character_id: Option<&str>,
    ) -> Result<(), StoreError> {
        let query = sqlx::query(r#"UPDATE users SET "activeCharacterId" = $1 WHERE id = $2"#)
            .bind(character_id);
        self.update(query, id).await
    }

    /// Runs `query`, an update of account `id` with its value bound (the id is `$2`); `NotFound`
    /// when no account has that id.
    async fn update<'q>(
        &self,
        query: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>,
        id: &'q str,
    ) -> Result<(), StoreError> {
        let done = query.bind(id).execute(self.store.writer()).await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!("user {id}")));
        }
        Ok(())
    }

    /// Revokes every token of the account issued before `at_ms` ("log out everywhere"). The time
    /// only moves forward: a late request with an older time does not bring tokens back. `NotFound`
    /// for an unknown account.
    pub async fn revoke_tokens_before(&self, id: &str, at_ms: i64) -> Result<i64, StoreError> {
        let done = sqlx::query(
            r#"UPDATE users SET "tokensValidAfter" = $1
               WHERE id = $2 AND ("tokensValidAfter" IS NULL OR "tokensValidAfter" < $1)"#,
        )
        .bind(at_ms)
        .bind(id)
        .execute(self.store.writer())
        .await?;
        if done.rows_affected() == 1 {
            return Ok(at_ms);
        }
        // Unknown, or already revoked at a later time: that time stands.
        self.get(id)
            .await?
            .and_then(|user| user.tokens_valid_after_ms)
            .ok_or_else(|| StoreError::NotFound(format!("user {id}")))
    }

    /// Accounts whose "log out everywhere" time is at or after `since_ms`, with that time (other
    /// worlds catching up on revocations they did not hear of).
    pub async fn tokens_revoked_since(
        &self,
        since_ms: i64,
    ) -> Result<Vec<(String, i64)>, StoreError> {
        let rows = sqlx::query(
            r#"SELECT id, "tokensValidAfter" FROM users
               WHERE "tokensValidAfter" IS NOT NULL AND "tokensValidAfter" >= $1"#,
        )
        .bind(since_ms)
        .fetch_all(self.store.pool())
        .await?;
        rows.iter()
            .map(|row| Ok((row.try_get(0)?, row.try_get(1)?)))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(Into::into)
    }

    /// Stamps the last login time.
    pub async fn touch_login(&self, id: &str) -> Result<(), StoreError> {
        sqlx::query(r#"UPDATE users SET "lastLoginAt" = $1 WHERE id = $2"#)
            .bind(now_ms())
            .bind(id)
            .execute(self.store.writer())
            .await?;
        Ok(())
    }

    /// How many accounts exist.
    pub async fn count(&self) -> Result<i64, StoreError> {
        let row = sqlx::query("SELECT COUNT(*) FROM users")
            .fetch_one(self.store.pool())
            .await?;
        Ok(row.try_get(0)?)
    }
}
