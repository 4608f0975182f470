//! Agent registrations (`agent_mappings`): which character an agent plays for which account, the id
//! of the one token currently valid for it, and the control state that must survive a reconnect or
//! a restart (the goal as JSON text, and whether the owner paused it). One agent per character.

use sqlx::any::AnyRow;
use sqlx::Row;

use crate::{new_id, now_ms, Store, StoreError};

/// One registered agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentMapping {
    pub agent_id: String,
    pub account_id: String,
    pub character_id: String,
    /// The character's name when the agent was registered.
    pub name: String,
    /// The id carried by the agent's valid token; a token with another id is refused.
    pub token_id: String,
    /// The current goal as JSON text (the server owns its shape); `None`: no goal.
    pub goal: Option<String>,
    pub paused: bool,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
}

const COLUMNS: &str = r#""agentId", "accountId", "characterId", name, "tokenId", goal, paused, "createdAt", "updatedAt""#;

fn from_row(row: &AnyRow) -> Result<AgentMapping, sqlx::Error> {
    Ok(AgentMapping {
        agent_id: row.try_get("agentId")?,
        account_id: row.try_get("accountId")?,
        character_id: row.try_get("characterId")?,
        name: row.try_get("name")?,
        token_id: row.try_get("tokenId")?,
        goal: row.try_get("goal")?,
        paused: row.try_get::<i64, _>("paused")? != 0,
        created_at_ms: row.try_get("createdAt")?,
        updated_at_ms: row.try_get("updatedAt")?,
    })
}

/// The `agent_mappings` repository.
pub struct Agents<'a> {
    store: &'a Store,
}

impl<'a> Agents<'a> {
    pub(crate) fn new(store: &'a Store) -> Self {
        Self { store }
    }

    /// Registers the agent of a character, or, when the character has one, gives it a new token id
    /// (older tokens stop working) and keeps its id, goal and pause. Returns the mapping as stored.
    pub async fn register(
        &self,
        account_id: &str,
        character_id: &str,
        name: &str,
    ) -> Result<AgentMapping, StoreError> {
        if let Some(rotated) = self.rotate(character_id).await? {
            return Ok(rotated);
        }
        let now = now_ms();
        let mapping = AgentMapping {
            agent_id: new_id(),
            account_id: account_id.to_owned(),
            character_id: character_id.to_owned(),
            name: name.to_owned(),
            token_id: new_id(),
            goal: None,
            paused: false,
            created_at_ms: now,
            updated_at_ms: now,
        };
        let inserted = sqlx::query(
            r#"INSERT INTO agent_mappings ("agentId", "accountId", "characterId", name, "tokenId", paused, "createdAt", "updatedAt")
               VALUES ($1, $2, $3, $4, $5, 0, $6, $6)"#,
        )
        .bind(&mapping.agent_id)
        .bind(&mapping.account_id)
        .bind(&mapping.character_id)
        .bind(&mapping.name)
        .bind(&mapping.token_id)
        .bind(now)
        .execute(self.store.writer())
        .await;
        match inserted {
            Ok(_) => Ok(mapping),
            // A registration of the same character won the race: rotate the one it made.
            Err(err) => match StoreError::from(err) {
                StoreError::Conflict(_) => self.rotate(character_id).await?.ok_or_else(|| {
                    StoreError::NotFound("the agent registered meanwhile is gone".into())
                }),
                other => Err(other),
            },
        }
    }

    /// A new token id for the character's agent, if it has one.
    async fn rotate(&self, character_id: &str) -> Result<Option<AgentMapping>, StoreError> {
        let done = sqlx::query(
            r#"UPDATE agent_mappings SET "tokenId" = $1, "updatedAt" = $2 WHERE "characterId" = $3"#,
        )
        .bind(new_id())
        .bind(now_ms())
        .bind(character_id)
        .execute(self.store.writer())
        .await?;
        if done.rows_affected() == 0 {
            return Ok(None);
        }
        self.for_character(character_id).await
    }

    /// An agent by id.
    pub async fn get(&self, agent_id: &str) -> Result<Option<AgentMapping>, StoreError> {
        let row = sqlx::query(&format!(
            r#"SELECT {COLUMNS} FROM agent_mappings WHERE "agentId" = $1"#
        ))
        .bind(agent_id)
        .fetch_optional(self.store.pool())
        .await?;
        Ok(row.as_ref().map(from_row).transpose()?)
    }

    /// The agent of a character, if it has one.
    pub async fn for_character(
        &self,
        character_id: &str,
    ) -> Result<Option<AgentMapping>, StoreError> {
        let row = sqlx::query(&format!(
            r#"SELECT {COLUMNS} FROM agent_mappings WHERE "characterId" = $1"#
        ))
        .bind(character_id)
        .fetch_optional(self.store.pool())
        .await?;
        Ok(row.as_ref().map(from_row).transpose()?)
    }

    /// An account's agents, oldest first.
    pub async fn list_for_account(
        &self,
        account_id: &str,
    ) -> Result<Vec<AgentMapping>, StoreError> {
        let rows = sqlx::query(&format!(
            r#"SELECT {COLUMNS} FROM agent_mappings WHERE "accountId" = $1 ORDER BY "createdAt", "agentId""#
        ))
        .bind(account_id)
        .fetch_all(self.store.pool())
        .await?;
        Ok(rows.iter().map(from_row).collect::<Result<_, _>>()?)
    }

    /// Sets (or with `None` clears) the goal. With `only_if_running` the goal is written only while
    /// the agent is not paused, in the same statement, so a stop racing a new goal cannot let the
    /// goal slip past the pause. `false` when nothing was written (unknown agent, or paused).
    pub async fn set_goal(
        &self,
        agent_id: &str,
        goal: Option<&str>,
        only_if_running: bool,
    ) -> Result<bool, StoreError> {
        let sql = if only_if_running {
            r#"UPDATE agent_mappings SET goal = $1, "updatedAt" = $2 WHERE "agentId" = $3 AND paused = 0"#
        } else {
            r#"UPDATE agent_mappings SET goal = $1, "updatedAt" = $2 WHERE "agentId" = $3"#
        };
        let done = sqlx::query(sql)
            .bind(goal)
            .bind(now_ms())
            .bind(agent_id)
            .execute(self.store.writer())
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Pauses or resumes the agent; `false` for an unknown agent.
    pub async fn set_paused(&self, agent_id: &str, paused: bool) -> Result<bool, StoreError> {
        let done = sqlx::query(
            r#"UPDATE agent_mappings SET paused = $1, "updatedAt" = $2 WHERE "agentId" = $3"#,
        )
        .bind(i64::from(paused))
        .bind(now_ms())
        .bind(agent_id)
        .execute(self.store.writer())
        .await?;
        Ok(done.rows_affected() > 0)
    }
}
