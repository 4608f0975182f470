//! Quest progress (`quest_progress`): one row per character and quest started or done. Rows are
//! written with the character's snapshot (`Inventories::save`), in the same transaction as its
//! items, so a quest's start items or rewards and its new status are stored together or not at all.

use sqlx::Row;

use crate::{Store, StoreError};

/// One quest of a character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredQuest {
    pub quest_id: String,
    /// `in_progress`, `ready_to_complete` or `completed`.
    pub status: String,
    /// The current stage's id while in progress.
    pub stage: Option<String>,
    /// Count towards the current stage.
    pub progress: i64,
    /// Times completed (replayable quests may be done again).
    pub completions: i64,
}

/// The `data` column's JSON.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Data {
    #[serde(default)]
    progress: i64,
    #[serde(default)]
    completions: i64,
}

/// The quest progress repository.
pub struct Quests<'a> {
    store: &'a Store,
}

impl<'a> Quests<'a> {
    pub(crate) fn new(store: &'a Store) -> Self {
        Self { store }
    }

    /// A character's quests, by quest id.
    pub async fn list(&self, character_id: &str) -> Result<Vec<StoredQuest>, StoreError> {
        crate::repo::character_rows(self.store.pool(), character_id).await
    }
}

impl crate::repo::PerCharacter for StoredQuest {
    const SQL: &'static str = r#"SELECT "questId", status, stage, data FROM quest_progress WHERE "characterId" = $1 ORDER BY "questId""#;

    fn read(row: &sqlx::any::AnyRow) -> Result<StoredQuest, sqlx::Error> {
        let data: String = row.try_get("data")?;
        // A row whose data cannot be read keeps its status; its counts start over.
        let data: Data = serde_json::from_str(&data).unwrap_or_default();
        Ok(StoredQuest {
            quest_id: row.try_get("questId")?,
            status: row.try_get("status")?,
            stage: row.try_get("stage")?,
            progress: data.progress,
            completions: data.completions,
        })
    }
}
