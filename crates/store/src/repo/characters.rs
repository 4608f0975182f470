//! Characters: the record of specification 2.4 with a level and XP column for every skill.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use sqlx::any::AnyRow;
use sqlx::{Any, Row, Transaction};
use wayfarer_protocol::Skill;

use crate::repo::inventory::{replace_items, CharacterSnapshot, StoredSlot};
use crate::{new_id, now_ms, Store, StoreError};

/// A skill's stored level and XP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkillLevel {
    pub level: i64,
    pub xp: i64,
}

/// A stored character.
#[derive(Debug, Clone, PartialEq)]
pub struct Character {
    pub id: String,
    pub account_id: String,
    pub name: String,
    pub combat_level: i64,
    pub skills: BTreeMap<Skill, SkillLevel>,
    pub health: i64,
    pub max_health: i64,
    pub coins: i64,
    /// World position `[x, y, z]`; y is height.
    pub position: [f64; 3],
    pub combat_style: String,
    /// Prayer points left; `None` is full (the Prayer level).
    pub prayer_points: Option<i64>,
    pub created_at_ms: i64,
    pub last_login_at_ms: Option<i64>,
}

/// What a new character needs; everything else takes the record's defaults.
#[derive(Debug, Clone)]
pub struct NewCharacter {
    pub account_id: String,
    pub name: String,
    /// The spawn point; `None` keeps the record default (0, 10, 0).
    pub position: Option<[f64; 3]>,
}

/// The columns every read selects, built once from the skill list.
fn select_columns() -> &'static str {
    static COLUMNS: OnceLock<String> = OnceLock::new();
    COLUMNS.get_or_init(|| {
        let mut cols = String::from(
            r#"id, "accountId", name, "combatLevel", health, "maxHealth", coins, "positionX", "positionY", "positionZ", "combatStyle", "prayerPoints", "createdAt", "lastLoginAt""#,
        );
        for skill in Skill::ALL {
            cols.push_str(&format!(r#", "{s}Level", "{s}Xp""#, s = skill.as_str()));
        }
        cols
    })
}

fn from_row(row: &AnyRow) -> Result<Character, sqlx::Error> {
    let mut skills = BTreeMap::new();
    for skill in Skill::ALL {
        let level: i64 = row.try_get(format!("{}Level", skill.as_str()).as_str())?;
        let xp: i64 = row.try_get(format!("{}Xp", skill.as_str()).as_str())?;
        skills.insert(skill, SkillLevel { level, xp });
    }
    Ok(Character {
        id: row.try_get("id")?,
        account_id: row.try_get("accountId")?,
        name: row.try_get("name")?,
        combat_level: row.try_get("combatLevel")?,
        skills,
        health: row.try_get("health")?,
        max_health: row.try_get("maxHealth")?,
        coins: row.try_get("coins")?,
        // The record's REAL (4-byte on PostgreSQL) columns: the Any driver's type check only admits f32
        // for those, while its decoder widens either width to f64 exactly.
        position: [
            row.try_get_unchecked("positionX")?,
            row.try_get_unchecked("positionY")?,
            row.try_get_unchecked("positionZ")?,
        ],
        combat_style: row.try_get("combatStyle")?,
        prayer_points: row.try_get("prayerPoints")?,
        created_at_ms: row.try_get("createdAt")?,
        last_login_at_ms: row.try_get("lastLoginAt")?,
    })
}

/// The `characters` repository.
pub struct Characters<'a> {
    store: &'a Store,
}

impl<'a> Characters<'a> {
    pub(crate) fn new(store: &'a Store) -> Self {
        Self { store }
    }

    /// Creates a character with the record defaults; a name taken in any letter case is a `Conflict`.
    pub async fn create(&self, new: &NewCharacter) -> Result<Character, StoreError> {
        let id = new_id();
        let query = match new.position {
            Some([x, y, z]) => sqlx::query(
                r#"INSERT INTO characters (id, "accountId", name, "createdAt", "positionX", "positionY", "positionZ")
                   VALUES ($1, $2, $3, $4, $5, $6, $7)"#,
            )
            .bind(&id)
            .bind(&new.account_id)
            .bind(&new.name)
            .bind(now_ms())
            .bind(x)
            .bind(y)
            .bind(z),
            None => sqlx::query(
                r#"INSERT INTO characters (id, "accountId", name, "createdAt") VALUES ($1, $2, $3, $4)"#,
            )
            .bind(&id)
            .bind(&new.account_id)
            .bind(&new.name)
            .bind(now_ms()),
        };
        query.execute(self.store.pool()).await?;
        self.get(&id)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("character {id} after insert")))
    }

    /// The character with this id.
    pub async fn get(&self, id: &str) -> Result<Option<Character>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {} FROM characters WHERE id = $1",
            select_columns()
        ))
        .bind(id)
        .fetch_optional(self.store.pool())
        .await?;
        Ok(row.as_ref().map(from_row).transpose()?)
    }

    /// The character with this name, ignoring letter case.
    pub async fn find_by_name(&self, name: &str) -> Result<Option<Character>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {} FROM characters WHERE lower(name) = lower($1)",
            select_columns()
        ))
        .bind(name)
        .fetch_optional(self.store.pool())
        .await?;
        Ok(row.as_ref().map(from_row).transpose()?)
    }

    /// An account's characters, oldest first.
    pub async fn list_for_account(&self, account_id: &str) -> Result<Vec<Character>, StoreError> {
        let rows = sqlx::query(&format!(
            r#"SELECT {} FROM characters WHERE "accountId" = $1 ORDER BY "createdAt", id"#,
            select_columns()
        ))
        .bind(account_id)
        .fetch_all(self.store.pool())
        .await?;
        Ok(rows.iter().map(from_row).collect::<Result<_, _>>()?)
    }

    /// Renames a character; a taken name is a `Conflict`.
    pub async fn rename(&self, id: &str, name: &str) -> Result<(), StoreError> {
        let done = sqlx::query("UPDATE characters SET name = $1 WHERE id = $2")
            .bind(name)
            .bind(id)
            .execute(self.store.pool())
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!("character {id}")));
        }
        Ok(())
    }

    /// Deletes a character and everything that belongs to it (inventory, bank, …) by cascade.
    pub async fn delete(&self, id: &str) -> Result<(), StoreError> {
        let done = sqlx::query("DELETE FROM characters WHERE id = $1")
            .bind(id)
            .execute(self.store.pool())
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!("character {id}")));
        }
        Ok(())
    }

    /// Writes a character's mutable state (position, health, coins, skills, style, prayer points) in one statement.
    pub async fn save(&self, character: &Character) -> Result<(), StoreError> {
        let mut tx = self.store.begin_write().await?;
        save_in(&mut tx, character).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Creates a character with the record defaults and its first items (the starter kit), all in one
    /// transaction.
    pub async fn create_with_items(
        &self,
        new: &NewCharacter,
        inventory: Vec<StoredSlot>,
    ) -> Result<Character, StoreError> {
        self.create_with(new, inventory, |_| {}).await
    }

    /// Creates a character whose record `adjust` changes from the defaults (a template's skill
    /// levels, the coins of its kit), with its first items: the adjusted record and the items are
    /// written in one transaction, and a character whose write fails is removed again.
    pub async fn create_with(
        &self,
        new: &NewCharacter,
        inventory: Vec<StoredSlot>,
        adjust: impl FnOnce(&mut Character),
    ) -> Result<Character, StoreError> {
        let mut character = self.create(new).await?;
        adjust(&mut character);
        let snapshot = CharacterSnapshot {
            character: character.clone(),
            inventory,
            equipment: Vec::new(),
            bank: Vec::new(),
            quests: Vec::new(),
            xp_reached_at: Default::default(),
        };
        let mut tx = self.store.begin_write().await?;
        let written = match save_in(&mut tx, &character).await {
            Ok(()) => replace_items(&mut tx, &snapshot).await,
            Err(err) => Err(err),
        };
        if let Err(err) = written {
            drop(tx);
            // Without its kit the character must not exist: remove it again.
            let _ = self.delete(&character.id).await;
            return Err(err);
        }
        tx.commit().await?;
        Ok(character)
    }
}

/// Writes a character's mutable state inside `tx`.
pub(crate) async fn save_in(
    tx: &mut Transaction<'static, Any>,
    character: &Character,
) -> Result<(), StoreError> {
    let mut sql = String::from(
        r#"UPDATE characters SET "combatLevel" = $1, health = $2, "maxHealth" = $3, coins = $4,
           "positionX" = $5, "positionY" = $6, "positionZ" = $7, "combatStyle" = $8, "prayerPoints" = $9"#,
    );
    let mut n = 10;
    for skill in Skill::ALL {
        sql.push_str(&format!(
            r#", "{s}Level" = ${a}, "{s}Xp" = ${b}"#,
            s = skill.as_str(),
            a = n,
            b = n + 1
        ));
        n += 2;
    }
    sql.push_str(&format!(" WHERE id = ${n}"));
    let mut query = sqlx::query(&sql)
        .bind(character.combat_level)
        .bind(character.health)
        .bind(character.max_health)
        .bind(character.coins)
        .bind(character.position[0])
        .bind(character.position[1])
        .bind(character.position[2])
        .bind(&character.combat_style)
        .bind(character.prayer_points);
    for skill in Skill::ALL {
        let s = character.skills.get(&skill).copied().unwrap_or(SkillLevel {
            level: i64::from(skill.starting_level()),
            xp: 0,
        });
        query = query.bind(s.level).bind(s.xp);
    }
    let done = query.bind(&character.id).execute(&mut **tx).await?;
    if done.rows_affected() == 0 {
        return Err(StoreError::NotFound(format!("character {}", character.id)));
    }
    Ok(())
}
