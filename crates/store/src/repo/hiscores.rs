//! Hiscores: a character's rank in each skill among all characters, by XP, ties going to whoever
//! reached that XP first (`skill_records."reachedAt"`, written with the record whenever a skill's
//! XP changed while online; a character with no row reached its XP when it was created).

use std::collections::BTreeMap;

use sqlx::Row;
use wayfarer_protocol::Skill;

use crate::{Store, StoreError};

/// One skill's standing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Standing {
    /// 1 for the best.
    pub rank: i64,
    pub level: i64,
    pub xp: i64,
}

/// The hiscores repository.
pub struct Hiscores<'a> {
    store: &'a Store,
}

impl<'a> Hiscores<'a> {
    pub(crate) fn new(store: &'a Store) -> Self {
        Self { store }
    }

    /// The standing of a character holding `skills` (its live state when online, else as stored)
    /// in every skill, against every other character as stored. `reached_at` gives the times of
    /// its own XP where known (live); otherwise the stored ones are used.
    pub async fn standings(
        &self,
        character_id: &str,
        skills: &BTreeMap<Skill, (i64, i64)>,
        reached_at: &BTreeMap<Skill, i64>,
    ) -> Result<BTreeMap<Skill, Standing>, StoreError> {
        let created: i64 = sqlx::query(r#"SELECT "createdAt" FROM characters WHERE id = $1"#)
            .bind(character_id)
            .fetch_optional(self.store.pool())
            .await?
            .map(|row| row.try_get("createdAt"))
            .transpose()?
            .ok_or_else(|| StoreError::NotFound(format!("character {character_id}")))?;
        // Its stored dates, all skills in one read.
        let mut stored: BTreeMap<String, i64> = BTreeMap::new();
        for row in
            sqlx::query(r#"SELECT skill, "reachedAt" FROM skill_records WHERE "characterId" = $1"#)
                .bind(character_id)
                .fetch_all(self.store.pool())
                .await?
        {
            stored.insert(row.try_get("skill")?, row.try_get("reachedAt")?);
        }
        let mut out = BTreeMap::new();
        for skill in Skill::ALL {
            let (level, xp) = skills.get(&skill).copied().unwrap_or((1, 0));
            let mine = reached_at
                .get(&skill)
                .or_else(|| stored.get(skill.as_str()))
                .copied()
                .unwrap_or(created);
            // Ahead of this character: more XP, or the same XP reached earlier (then the older
            // id, so that ranks are a strict order).
            let sql = format!(
                r#"SELECT COUNT(*) AS n FROM characters c
                   LEFT JOIN skill_records r ON r."characterId" = c.id AND r.skill = $1
                   WHERE c.id <> $2 AND (c."{s}Xp" > $3
                     OR (c."{s}Xp" = $3 AND COALESCE(r."reachedAt", c."createdAt") < $4)
                     OR (c."{s}Xp" = $3 AND COALESCE(r."reachedAt", c."createdAt") = $4 AND c.id < $2))"#,
                s = skill.as_str()
            );
            let ahead: i64 = sqlx::query(&sql)
                .bind(skill.as_str())
                .bind(character_id)
                .bind(xp)
                .bind(mine)
                .fetch_one(self.store.pool())
                .await?
                .try_get("n")?;
            out.insert(
                skill,
                Standing {
                    rank: ahead + 1,
                    level,
                    xp,
                },
            );
        }
        Ok(out)
    }
}
