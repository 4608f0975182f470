//! The arena's ladder (issue 55, CONTRACT §15): ratings (`arena_ratings`) and finished fights
//! (`arena_fights`). A fight's row and both fighters' new ratings are written by
//! [`insert_in`] inside the transaction that writes the fight's duel result
//! ([`DuelAudit::arena`](super::duels::DuelAudit)), so a result is in the database wholly (both
//! records, the duel's row, the fight's row and both ratings) or not at all, and exactly once: the
//! fight id is the primary key of `arena_fights`, and a second write of it is refused whole.

use sqlx::{Any, Row, Transaction};

use crate::{Store, StoreError};

/// A Glicko-2 rating as stored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StoredRating {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
}

/// One fighter of a finished fight.
#[derive(Debug, Clone, PartialEq)]
pub struct ArenaFighter {
    pub id: String,
    pub name: String,
    pub before: StoredRating,
    pub after: StoredRating,
}

/// A finished ladder fight, written with its duel's result.
#[derive(Debug, Clone, PartialEq)]
pub struct ArenaResult {
    /// The fight id (the sim's; wagers reference it).
    pub fight_id: String,
    /// The duel it was fought as.
    pub duel_id: String,
    /// Side a and side b, in the order of the match.
    pub fighters: [ArenaFighter; 2],
    pub winner_id: String,
    pub loser_id: String,
    /// Which pit it was fought in.
    pub pit: i64,
    pub started_at_ms: i64,
    pub ended_at_ms: i64,
}

/// One row of the leaderboard.
#[derive(Debug, Clone, PartialEq)]
pub struct LadderEntry {
    pub character_id: String,
    pub name: String,
    pub is_agent: bool,
    pub rating: StoredRating,
    pub wins: i64,
    pub losses: i64,
}

/// The `arena_*` tables' reader.
pub struct Arena<'a> {
    store: &'a Store,
}

impl<'a> Arena<'a> {
    pub(crate) fn new(store: &'a Store) -> Self {
        Self { store }
    }

    /// A character's rating, `None` before its first finished fight.
    pub async fn rating(&self, character_id: &str) -> Result<Option<StoredRating>, StoreError> {
        let row = sqlx::query(
            r#"SELECT rating, deviation, volatility FROM arena_ratings WHERE "characterId" = $1"#,
        )
        .bind(character_id)
        .fetch_optional(self.store.pool())
        .await?;
        row.as_ref().map(read_rating).transpose()
    }

    /// A character's wins and losses.
    pub async fn record(&self, character_id: &str) -> Result<(i64, i64), StoreError> {
        let row = sqlx::query(r#"SELECT wins, losses FROM arena_ratings WHERE "characterId" = $1"#)
            .bind(character_id)
            .fetch_optional(self.store.pool())
            .await?;
        match row {
            Some(r) => Ok((r.try_get("wins")?, r.try_get("losses")?)),
            None => Ok((0, 0)),
        }
    }

    /// The best `limit` ratings, highest first (ties: more wins, then the character id).
    pub async fn leaderboard(&self, limit: i64) -> Result<Vec<LadderEntry>, StoreError> {
        let rows = sqlx::query(
            r#"SELECT r."characterId", c.name, r.rating, r.deviation, r.volatility, r.wins, r.losses,
                      (SELECT COUNT(*) FROM agent_mappings a WHERE a."characterId" = r."characterId") AS agents
               FROM arena_ratings r JOIN characters c ON c.id = r."characterId"
               ORDER BY r.rating DESC, r.wins DESC, r."characterId"
               LIMIT $1"#,
        )
        .bind(limit)
        .fetch_all(self.store.pool())
        .await?;
        rows.iter()
            .map(|r| {
                let agents: i64 = r.try_get("agents")?;
                Ok(LadderEntry {
                    character_id: r.try_get("characterId")?,
                    name: r.try_get("name")?,
                    is_agent: agents > 0,
                    rating: read_rating(r)?,
                    wins: r.try_get("wins")?,
                    losses: r.try_get("losses")?,
                })
            })
            .collect()
    }

    /// The last `limit` finished fights, newest first.
    pub async fn fights(&self, limit: i64) -> Result<Vec<ArenaResult>, StoreError> {
        let rows = sqlx::query(
            r#"SELECT id, "duelId", "aId", "aName", "bId", "bName", "winnerId", "loserId",
                      "aBefore", "aAfter", "bBefore", "bAfter", pit, "startedAt", "endedAt"
               FROM arena_fights ORDER BY "endedAt" DESC, id DESC LIMIT $1"#,
        )
        .bind(limit)
        .fetch_all(self.store.pool())
        .await?;
        rows.iter().map(read_fight).collect()
    }

    /// One finished fight.
    pub async fn fight(&self, fight_id: &str) -> Result<Option<ArenaResult>, StoreError> {
        let row = sqlx::query(
            r#"SELECT id, "duelId", "aId", "aName", "bId", "bName", "winnerId", "loserId",
                      "aBefore", "aAfter", "bBefore", "bAfter", pit, "startedAt", "endedAt"
               FROM arena_fights WHERE id = $1"#,
        )
        .bind(fight_id)
        .fetch_optional(self.store.pool())
        .await?;
        row.as_ref().map(read_fight).transpose()
    }

    /// How many fights are recorded.
    pub async fn count(&self) -> Result<i64, StoreError> {
        let row = sqlx::query("SELECT COUNT(*) AS n FROM arena_fights")
            .fetch_one(self.store.pool())
            .await?;
        Ok(row.try_get("n")?)
    }
}

fn float(r: &sqlx::any::AnyRow, column: &str) -> Result<f64, StoreError> {
    Ok(r.try_get_unchecked::<f64, _>(column)?)
}

fn read_rating(r: &sqlx::any::AnyRow) -> Result<StoredRating, StoreError> {
    Ok(StoredRating {
        rating: float(r, "rating")?,
        deviation: float(r, "deviation")?,
        volatility: float(r, "volatility")?,
    })
}

fn read_fight(r: &sqlx::any::AnyRow) -> Result<ArenaResult, StoreError> {
    // Only the ratings (not the deviations) are kept per fight.
    let rated = |rating: f64| StoredRating {
        rating,
        deviation: 0.0,
        volatility: 0.0,
    };
    let fighter = |side: &str| -> Result<ArenaFighter, StoreError> {
        Ok(ArenaFighter {
            id: r.try_get(format!("{side}Id").as_str())?,
            name: r.try_get(format!("{side}Name").as_str())?,
            before: rated(float(r, &format!("{side}Before"))?),
            after: rated(float(r, &format!("{side}After"))?),
        })
    };
    Ok(ArenaResult {
        fight_id: r.try_get("id")?,
        duel_id: r.try_get("duelId")?,
        fighters: [fighter("a")?, fighter("b")?],
        winner_id: r.try_get("winnerId")?,
        loser_id: r.try_get("loserId")?,
        pit: r.try_get("pit")?,
        started_at_ms: r.try_get("startedAt")?,
        ended_at_ms: r.try_get("endedAt")?,
    })
}

/// Writes the fight's row and both fighters' new ratings inside `tx` (the duel result's).
pub(crate) async fn insert_in(
    tx: &mut Transaction<'static, Any>,
    fight: &ArenaResult,
) -> Result<(), StoreError> {
    let [a, b] = &fight.fighters;
    sqlx::query(
        r#"INSERT INTO arena_fights (id, "duelId", "aId", "aName", "bId", "bName", "winnerId",
               "loserId", "aBefore", "aAfter", "bBefore", "bAfter", pit, "startedAt", "endedAt")
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)"#,
    )
    .bind(&fight.fight_id)
    .bind(&fight.duel_id)
    .bind(&a.id)
    .bind(&a.name)
    .bind(&b.id)
    .bind(&b.name)
    .bind(&fight.winner_id)
    .bind(&fight.loser_id)
    .bind(a.before.rating)
    .bind(a.after.rating)
    .bind(b.before.rating)
    .bind(b.after.rating)
    .bind(fight.pit)
    .bind(fight.started_at_ms)
    .bind(fight.ended_at_ms)
    .execute(&mut **tx)
    .await?;
    for fighter in [a, b] {
        let won = i64::from(fighter.id == fight.winner_id);
        sqlx::query(
            r#"INSERT INTO arena_ratings ("characterId", rating, deviation, volatility, wins, losses, "updatedAt")
               VALUES ($1, $2, $3, $4, $5, $6, $7)
               ON CONFLICT ("characterId") DO UPDATE SET rating = excluded.rating,
                   deviation = excluded.deviation, volatility = excluded.volatility,
                   wins = arena_ratings.wins + excluded.wins,
                   losses = arena_ratings.losses + excluded.losses,
                   "updatedAt" = excluded."updatedAt""#,
        )
        .bind(&fighter.id)
        .bind(fighter.after.rating)
        .bind(fighter.after.deviation)
        .bind(fighter.after.volatility)
        .bind(won)
        .bind(1 - won)
        .bind(fight.ended_at_ms)
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}
