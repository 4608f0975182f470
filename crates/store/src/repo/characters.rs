//! Characters: the record of specification 2.4 with a level and XP column for every skill.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use sqlx::any::AnyRow;
use sqlx::{Any, Row, Transaction};
use wayfarer_protocol::Skill;

use crate::repo::economy::FlowDelta;
use crate::repo::inventory::{replace_items, CharacterSnapshot, StoredSlot};
use crate::repo::skill_table::SkillTable;
use crate::{new_id, now_ms, Backend, Store, StoreError};

/// A skill's stored level and XP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
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
    pub skills: SkillTable,
    pub health: i64,
    pub max_health: i64,
    pub coins: i64,
    /// World position `[x, y, z]`; y is height.
    pub position: [f64; 3],
    pub combat_style: String,
    /// Whether an attack on the idle character is answered (on unless switched off).
    pub auto_retaliate: bool,
    /// Prayer points left; `None` is full (the Prayer level).
    pub prayer_points: Option<i64>,
    /// When the home teleport may be cast again (Unix milliseconds); `None`: ready.
    pub home_teleport_ready_at_ms: Option<i64>,
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

/// A new character's health and maximum health: the Constitution level of the schema's default
/// Constitution XP (1,154 is level 10; `wayfarer_sim::skills::NEW_CHARACTER_CONSTITUTION_LEVEL`,
/// which a host test holds equal). The schema's own defaults (100) are older than this and
/// unchangeable in SQLite; migration 15 corrected the characters they made.
pub const NEW_CHARACTER_HEALTH: i64 = 10;

/// The limits a character is created under: how many characters its account may hold at once, and
/// for how many characters over the account's life it receives a [`CreationGrant`]. `None` is no
/// limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccountLimits {
    pub max_characters: Option<i64>,
    pub max_grants: Option<i64>,
}

impl AccountLimits {
    /// No limit at all.
    pub const NONE: AccountLimits = AccountLimits {
        max_characters: None,
        max_grants: None,
    };
}

/// What a new character receives while its account has grants left: its first items, and the
/// coins among them (the record's `coins` column).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CreationGrant {
    pub inventory: Vec<StoredSlot>,
    pub coins: i64,
    /// Why the items enter the world, in the economy's books (`starterKit`, `template`).
    pub reason: &'static str,
}

/// Where a creation request came from, for the rule of starting grants per address: at most
/// `max_accounts` accounts of one address receive [`CreationGrant`]s within `window_ms` before
/// `now_ms` (docs/mechanics.md, "Starting grants per address"). Every creation with an origin is
/// recorded (`address_grants`), so the economy report can show what each address received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantOrigin {
    /// The address's limit key as text: an IPv4 address, or an IPv6 address's /64 network.
    pub address: String,
    /// Accounts of this address that may receive grants within the window; `None` when the rule
    /// does not apply to this request (it is recorded as exempt and not counted).
    pub max_accounts: Option<i64>,
    pub window_ms: i64,
    /// The time of the creation (epoch milliseconds): the record's time and the window's end.
    pub now_ms: i64,
}

/// Why a character was created without its [`CreationGrant`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Withheld {
    /// The account has had its grants ([`AccountLimits::max_grants`]).
    Account,
    /// The address has given grants to its [`GrantOrigin::max_accounts`] accounts in the window.
    Address,
}

/// How a creation under [`AccountLimits`] ended.
// One value per creation request, moved once to the caller and never stored: boxing the
// character would cost an allocation for nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Creation {
    /// Made; `granted` says whether it received the [`CreationGrant`] (else it has no items or
    /// coins), and `withheld` why not.
    Created {
        character: Character,
        granted: bool,
        withheld: Option<Withheld>,
    },
    /// The account already holds `max_characters`: nothing was written.
    AccountFull,
}

/// The columns every read selects, built once from the skill list.
/// The character with this id, read on `executor`.
pub(crate) async fn get_on<'e, E>(executor: E, id: &str) -> Result<Option<Character>, StoreError>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let row = sqlx::query(&format!(
        "SELECT {} FROM characters WHERE id = $1",
        select_columns()
    ))
    .bind(id)
    .fetch_optional(executor)
    .await?;
    Ok(row.as_ref().map(from_row).transpose()?)
}

fn select_columns() -> &'static str {
    static COLUMNS: OnceLock<String> = OnceLock::new();
    COLUMNS.get_or_init(|| {
        let mut cols = String::from(
            r#"id, "accountId", name, "combatLevel", health, "maxHealth", coins, "positionX", "positionY", "positionZ", "combatStyle", "prayerPoints", "autoRetaliate", "homeTeleportReadyAt", "createdAt", "lastLoginAt""#,
        );
        for skill in Skill::ALL {
            cols.push_str(&format!(r#", "{s}Level", "{s}Xp""#, s = skill.as_str()));
        }
        cols
    })
}

fn from_row(row: &AnyRow) -> Result<Character, sqlx::Error> {
    let mut skills = SkillTable::new();
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
        // Stored as 0 or 1 (one column type for both engines).
        auto_retaliate: row.try_get::<i64, _>("autoRetaliate")? != 0,
        home_teleport_ready_at_ms: row.try_get("homeTeleportReadyAt")?,
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
        let mut tx = self.store.begin_write().await?;
        let id = insert_in(&mut tx, new).await?;
        tx.commit().await?;
        self.get(&id)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("character {id} after insert")))
    }

    /// The character with this id.
    pub async fn get(&self, id: &str) -> Result<Option<Character>, StoreError> {
        get_on(self.store.pool(), id).await
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
            .execute(self.store.writer())
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!("character {id}")));
        }
        Ok(())
    }

    /// Deletes a character and everything that belongs to it (inventory, bank, …) by cascade, and
    /// returns what it held: units per item id over its inventory, equipment and bank, read in the
    /// transaction that deletes it, so no save can land between the reading and the deleting.
    pub async fn delete(&self, id: &str) -> Result<BTreeMap<String, i64>, StoreError> {
        let mut tx = self.store.begin_write().await?;
        let mut held: BTreeMap<String, i64> = BTreeMap::new();
        for table in ["inventory", "equipment", "bank"] {
            let rows = sqlx::query(&format!(
                r#"SELECT "itemId", quantity FROM {table} WHERE "characterId" = $1"#
            ))
            .bind(id)
            .fetch_all(&mut *tx)
            .await?;
            for row in &rows {
                *held.entry(row.try_get("itemId")?).or_default() +=
                    row.try_get::<i64, _>("quantity")?;
            }
        }
        let done = sqlx::query("DELETE FROM characters WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!("character {id}")));
        }
        let gone: Vec<FlowDelta> = held
            .iter()
            .map(|(item_id, units)| FlowDelta {
                item_id: item_id.clone(),
                entered: false,
                reason: "deleted".to_owned(),
                units: *units,
            })
            .collect();
        crate::repo::economy::record_in(&mut tx, &gone.iter().collect::<Vec<_>>()).await?;
        tx.commit().await?;
        Ok(held)
    }

    /// Writes a character's mutable state (position, health, coins, skills, style, prayer points) in one statement.
    pub async fn save(&self, character: &Character) -> Result<(), StoreError> {
        let mut tx = self.store.begin_write().await?;
        save_in(&mut tx, character).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Creates a character with the record defaults and its first items, all in one transaction,
    /// with no account limit (fixtures; the server creates under [`AccountLimits`]).
    pub async fn create_with_items(
        &self,
        new: &NewCharacter,
        inventory: Vec<StoredSlot>,
    ) -> Result<Character, StoreError> {
        let grant = CreationGrant {
            inventory,
            coins: 0,
            reason: "fixture",
        };
        match self
            .create_for_account(new, AccountLimits::NONE, grant, |_| {})
            .await?
        {
            Creation::Created { character, .. } => Ok(character),
            // AccountLimits::NONE has no character limit, so this is never the answer.
            Creation::AccountFull => Err(StoreError::Conflict("account full".into())),
        }
    }

    /// Creates a character for its account under `limits`, in one transaction with the account row
    /// locked: the counts of the account's characters and of its grants are read and the character
    /// inserted while no other creation for the account can run, so concurrent requests cannot
    /// exceed either limit (on PostgreSQL the row lock, `SELECT … FOR UPDATE`; on SQLite the write
    /// transaction, `BEGIN IMMEDIATE`, already excludes every other writer). The record is the
    /// defaults changed by `adjust` (a template's skill levels); while the account has grants left
    /// the character starts with `grant` and the account's count of grants goes up by one,
    /// otherwise it starts with no items and no coins. The new character becomes the account's
    /// active one in the same transaction (one commit, one sync of the log, per creation). A taken
    /// name is a `Conflict` and writes nothing.
    pub async fn create_for_account(
        &self,
        new: &NewCharacter,
        limits: AccountLimits,
        grant: CreationGrant,
        adjust: impl FnOnce(&mut Character),
    ) -> Result<Creation, StoreError> {
        self.create_from(new, limits, None, grant, adjust).await
    }

    /// [`Characters::create_for_account`] for a request from `origin`: the grant also needs the
    /// address to have given grants to fewer than `max_accounts` other accounts within the
    /// window (an account it already gave one to in the window may have its next characters'),
    /// and the creation is recorded in `address_grants`. The address's count is taken in the same
    /// transaction as the insert, under a lock of the address (PostgreSQL: a transaction-scoped
    /// advisory lock keyed by the address, since two accounts' row locks do not exclude each
    /// other; SQLite: the write transaction already excludes every other writer), so concurrent
    /// sign-ups from one address cannot beat it.
    pub async fn create_from(
        &self,
        new: &NewCharacter,
        limits: AccountLimits,
        origin: Option<&GrantOrigin>,
        grant: CreationGrant,
        adjust: impl FnOnce(&mut Character),
    ) -> Result<Creation, StoreError> {
        let mut tx = self.store.begin_write().await?;
        let lock = match self.store.backend() {
            Backend::Postgres => " FOR UPDATE",
            Backend::Sqlite => "",
        };
        let grants: i64 = sqlx::query(&format!(
            r#"SELECT "characterGrants" FROM users WHERE id = $1{lock}"#
        ))
        .bind(&new.account_id)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("user {}", new.account_id)))?
        .try_get(0)?;
        if let Some(max) = limits.max_characters {
            // A statement after the lock: under PostgreSQL's READ COMMITTED it sees every
            // character committed by a creation that held the lock before this one.
            let held: i64 =
                sqlx::query(r#"SELECT COUNT(*) FROM characters WHERE "accountId" = $1"#)
                    .bind(&new.account_id)
                    .fetch_one(&mut *tx)
                    .await?
                    .try_get(0)?;
            if held >= max {
                return Ok(Creation::AccountFull);
            }
        }
        let mut withheld = limits
            .max_grants
            .is_some_and(|max| grants >= max)
            .then_some(Withheld::Account);
        if let Some(origin) = origin {
            // Taken even when the account rule already withholds: the record below must be
            // written in the address's order too.
            if self.store.backend() == Backend::Postgres {
                sqlx::query("SELECT pg_advisory_xact_lock($1)")
                    .bind(crate::repo::address_grants::lock_key(&origin.address))
                    .execute(&mut *tx)
                    .await?;
            }
            if let (None, Some(max)) = (withheld, origin.max_accounts) {
                let since = origin.now_ms.saturating_sub(origin.window_ms);
                let accounts = crate::repo::address_grants::accounts_granted_in(
                    &mut tx,
                    &origin.address,
                    since,
                )
                .await?;
                if !accounts.contains(&new.account_id) && accounts.len() as i64 >= max {
                    withheld = Some(Withheld::Address);
                }
            }
        }
        let granted = withheld.is_none();
        let id = insert_in(&mut tx, new).await?;
        let mut character = get_in(&mut tx, &id)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("character {id} after insert")))?;
        adjust(&mut character);
        let grant_coins = grant.coins;
        if granted {
            let entered: Vec<FlowDelta> = grant
                .inventory
                .iter()
                .map(|slot| FlowDelta {
                    item_id: slot.item_id.clone(),
                    entered: true,
                    reason: grant.reason.to_owned(),
                    units: slot.quantity,
                })
                .collect();
            crate::repo::economy::record_in(&mut tx, &entered.iter().collect::<Vec<_>>()).await?;
        }
        let inventory = if granted {
            character.coins = grant.coins;
            grant.inventory
        } else {
            character.coins = 0;
            Vec::new()
        };
        save_in(&mut tx, &character).await?;
        replace_items(
            &mut tx,
            &CharacterSnapshot {
                character: character.clone(),
                inventory,
                equipment: Vec::new(),
                bank: Vec::new(),
                quests: Vec::new(),
                xp_reached_at: Default::default(),
            },
        )
        .await?;
        sqlx::query(
            r#"UPDATE users SET "activeCharacterId" = $1, "characterGrants" = "characterGrants" + $2 WHERE id = $3"#,
        )
        .bind(&id)
        .bind(i64::from(granted))
        .bind(&new.account_id)
        .execute(&mut *tx)
        .await?;
        if let Some(origin) = origin {
            crate::repo::address_grants::record_in(
                &mut tx,
                origin,
                &new.account_id,
                &id,
                granted,
                if granted { grant_coins } else { 0 },
            )
            .await?;
        }
        tx.commit().await?;
        Ok(Creation::Created {
            character,
            granted,
            withheld,
        })
    }
}

/// Inserts a character with the record defaults inside `tx`; returns its id.
async fn insert_in(
    tx: &mut Transaction<'static, Any>,
    new: &NewCharacter,
) -> Result<String, StoreError> {
    let id = new_id();
    let query = match new.position {
        Some([x, y, z]) => sqlx::query(
            r#"INSERT INTO characters (id, "accountId", name, "createdAt", health, "maxHealth", "positionX", "positionY", "positionZ")
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"#,
        )
        .bind(&id)
        .bind(&new.account_id)
        .bind(&new.name)
        .bind(now_ms())
        .bind(NEW_CHARACTER_HEALTH)
        .bind(NEW_CHARACTER_HEALTH)
        .bind(x)
        .bind(y)
        .bind(z),
        None => sqlx::query(
            r#"INSERT INTO characters (id, "accountId", name, "createdAt", health, "maxHealth") VALUES ($1, $2, $3, $4, $5, $6)"#,
        )
        .bind(&id)
        .bind(&new.account_id)
        .bind(&new.name)
        .bind(now_ms())
        .bind(NEW_CHARACTER_HEALTH)
        .bind(NEW_CHARACTER_HEALTH),
    };
    query.execute(&mut **tx).await?;
    Ok(id)
}

/// The character with this id, read inside `tx`.
async fn get_in(
    tx: &mut Transaction<'static, Any>,
    id: &str,
) -> Result<Option<Character>, StoreError> {
    let row = sqlx::query(&format!(
        "SELECT {} FROM characters WHERE id = $1",
        select_columns()
    ))
    .bind(id)
    .fetch_optional(&mut **tx)
    .await?;
    Ok(row.as_ref().map(from_row).transpose()?)
}

/// Writes a character's mutable state inside `tx`.
pub(crate) async fn save_in(
    tx: &mut Transaction<'static, Any>,
    character: &Character,
) -> Result<(), StoreError> {
    crate::repo::snapshot_writes::update_records(tx, &[character]).await
}
