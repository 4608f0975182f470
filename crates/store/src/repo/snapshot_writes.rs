//! Whole characters written in as few statements as their rows allow: the records in multi-row
//! UPDATEs, each item table cleared with one DELETE and filled with multi-row INSERTs, for all the
//! characters of a save at once (group commit passes a whole group's). On SQLite a save's cost is
//! its statements, not its rows: sqlx runs every statement on the connection's worker thread, two
//! thread switches a statement (perf of the `commits` bench before this: 72% of the process's time
//! in the kernel, switching threads), so a group of 30 trades went from ~400 statements to ~25.
//!
//! Statements are cut into power-of-two row counts (a DELETE's id list padded up to one with its
//! last id), so each statement shape has at most eight texts (1 … [`MAX_ROWS`] rows), built once
//! and kept in sqlx's cache of prepared statements. On SQLite their parameters are anonymous (`?`,
//! bound in order): sqlx looks up every numbered parameter's name, and SQLite finds a name by
//! walking the list of all of them, so a statement of n `$N` parameters cost n²/2 steps (perf:
//! 54% of the bench in `sqlite3_bind_parameter_name` with 128-row statements).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use sqlx::any::AnyArguments;
use sqlx::query::Query;
use sqlx::{Any, Transaction};
use wayfarer_protocol::Skill;

use crate::repo::characters::{Character, SkillLevel};
use crate::repo::inventory::CharacterSnapshot;
use crate::{Store, StoreError};

/// Rows in one statement at most: 128 records are 5,760 parameters, far below either engine's
/// limit (SQLite 32,766, PostgreSQL 65,535).
const MAX_ROWS: usize = 128;

/// One bound value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value<'a> {
    Text(&'a str),
    Owned(String),
    MaybeText(Option<&'a str>),
    Int(i64),
    MaybeInt(Option<i64>),
    Real(f64),
}

/// Writes `snapshots` (several may be of one character: the last is what the transaction leaves,
/// as if each had been written in turn): leases (when several worlds share the database), records,
/// items, bank, quests and skill records.
pub(crate) async fn write(
    tx: &mut Transaction<'static, Any>,
    store: &Store,
    snapshots: &[&CharacterSnapshot],
    now: i64,
) -> Result<(), StoreError> {
    if snapshots.is_empty() {
        return Ok(());
    }
    let latest = latest_of(snapshots);
    if let Some(world) = store.lease_world() {
        for snapshot in &latest {
            crate::repo::leases::check_held_in(tx, store.backend(), &snapshot.character.id, world)
                .await?;
        }
    }
    let records: Vec<&Character> = latest.iter().map(|s| &s.character).collect();
    update_records(tx, &records).await?;
    replace_items(tx, &latest, now).await?;
    record_skills(tx, snapshots).await
}

/// The last snapshot of each character, in the order the characters first appear.
fn latest_of<'s>(snapshots: &[&'s CharacterSnapshot]) -> Vec<&'s CharacterSnapshot> {
    let mut at: HashMap<&str, usize> = HashMap::with_capacity(snapshots.len());
    let mut latest: Vec<&CharacterSnapshot> = Vec::with_capacity(snapshots.len());
    for snapshot in snapshots {
        match at.get(snapshot.character.id.as_str()) {
            Some(&i) => latest[i] = snapshot,
            None => {
                at.insert(&snapshot.character.id, latest.len());
                latest.push(snapshot);
            }
        }
    }
    latest
}

/// A record's id and the values a save writes, in [`record_columns`]' order.
fn record_values(character: &Character) -> Vec<Value<'_>> {
    let mut values = vec![
        Value::Text(&character.id),
        Value::Int(character.combat_level),
        Value::Int(character.health),
        Value::Int(character.max_health),
        Value::Int(character.coins),
        Value::Real(character.position[0]),
        Value::Real(character.position[1]),
        Value::Real(character.position[2]),
        Value::Text(&character.combat_style),
        Value::MaybeInt(character.prayer_points),
        Value::Int(i64::from(character.auto_retaliate)),
        Value::MaybeInt(character.home_teleport_ready_at_ms),
    ];
    for skill in Skill::ALL {
        let s = character.skills.get(&skill).copied().unwrap_or(SkillLevel {
            level: i64::from(skill.starting_level()),
            xp: 0,
        });
        values.push(Value::Int(s.level));
        values.push(Value::Int(s.xp));
    }
    values
}

/// The columns [`record_values`] sets, in its order after the id.
fn record_columns() -> Vec<String> {
    let mut columns: Vec<String> = [
        "\"combatLevel\"",
        "health",
        "\"maxHealth\"",
        "coins",
        "\"positionX\"",
        "\"positionY\"",
        "\"positionZ\"",
        "\"combatStyle\"",
        "\"prayerPoints\"",
        "\"autoRetaliate\"",
        "\"homeTeleportReadyAt\"",
    ]
    .map(String::from)
    .into();
    for skill in Skill::ALL {
        columns.push(format!("\"{}Level\"", skill.as_str()));
        columns.push(format!("\"{}Xp\"", skill.as_str()));
    }
    columns
}

/// Writes characters' mutable state (position, health, coins, skills, style, prayer points), one
/// record each; a character that does not exist is `NotFound` (and nothing is written, the
/// caller's transaction being rolled back).
pub(crate) async fn update_records(
    tx: &mut Transaction<'static, Any>,
    records: &[&Character],
) -> Result<(), StoreError> {
    for chunk in power_of_two_chunks(records) {
        let sql = cached_sql(tx, "update characters", chunk.len(), |rows, style| {
            let columns = record_columns();
            let set: Vec<String> = columns
                .iter()
                .enumerate()
                .map(|(i, c)| format!("{c} = v.column{}", i + 2))
                .collect();
            format!(
                "UPDATE characters SET {} FROM (VALUES {}) AS v WHERE characters.id = v.column1",
                set.join(", "),
                values_list(columns.len() + 1, rows, style)
            )
        });
        let values: Vec<Value> = chunk.iter().flat_map(|c| record_values(c)).collect();
        let done = bind_all(sqlx::query(&sql), &values)
            .execute(&mut **tx)
            .await?;
        if done.rows_affected() != chunk.len() as u64 {
            let ids: Vec<&str> = chunk.iter().map(|c| c.id.as_str()).collect();
            return Err(StoreError::NotFound(format!(
                "character {}",
                ids.join(", ")
            )));
        }
    }
    Ok(())
}

/// Rewrites the inventory, equipment, bank and quest rows of `snapshots` (one each).
pub(crate) async fn replace_items(
    tx: &mut Transaction<'static, Any>,
    snapshots: &[&CharacterSnapshot],
    now: i64,
) -> Result<(), StoreError> {
    let ids: Vec<&str> = snapshots.iter().map(|s| s.character.id.as_str()).collect();
    let mut inventory = Vec::new();
    let mut equipment = Vec::new();
    let mut bank = Vec::new();
    let mut quests = Vec::new();
    for s in snapshots {
        let id = s.character.id.as_str();
        for slot in &s.inventory {
            inventory.push([
                Value::Text(id),
                Value::Int(i64::from(slot.slot)),
                Value::Text(&slot.item_id),
                Value::Int(slot.quantity),
            ]);
        }
        for item in &s.equipment {
            equipment.push([
                Value::Text(id),
                Value::Text(&item.slot_type),
                Value::Text(&item.item_id),
                Value::Int(item.quantity),
            ]);
        }
        for (position, item) in s.bank.iter().enumerate() {
            bank.push([
                Value::Text(id),
                Value::Text(&item.item_id),
                Value::Int(item.quantity),
                Value::Int(position as i64),
            ]);
        }
        for quest in &s.quests {
            let data =
                serde_json::json!({"progress": quest.progress, "completions": quest.completions});
            quests.push([
                Value::Text(id),
                Value::Text(&quest.quest_id),
                Value::Text(&quest.status),
                Value::MaybeText(quest.stage.as_deref()),
                Value::Owned(data.to_string()),
                Value::Int(now),
            ]);
        }
    }
    for (table, into, rows) in [
        (
            "inventory",
            r#"inventory ("characterId", slot, "itemId", quantity)"#,
            &inventory,
        ),
        (
            "equipment",
            r#"equipment ("characterId", "slotType", "itemId", quantity)"#,
            &equipment,
        ),
        (
            "bank",
            r#"bank ("characterId", "itemId", quantity, position)"#,
            &bank,
        ),
    ] {
        delete_for(tx, table, &ids).await?;
        insert_rows(tx, into, "", rows).await?;
    }
    delete_for(tx, "quest_progress", &ids).await?;
    insert_rows(
        tx,
        r#"quest_progress ("characterId", "questId", status, stage, data, "updatedAt")"#,
        "",
        &quests,
    )
    .await
}

/// When each changed skill's XP was reached (`skill_records`, the hiscores' tie-break), the last
/// snapshot's word for each character and skill.
async fn record_skills(
    tx: &mut Transaction<'static, Any>,
    snapshots: &[&CharacterSnapshot],
) -> Result<(), StoreError> {
    let mut reached: BTreeMap<(&str, Skill), (i64, i64)> = BTreeMap::new();
    for s in snapshots {
        for (skill, at) in &s.xp_reached_at {
            let xp = s.character.skills.get(skill).map_or(0, |l| l.xp);
            reached.insert((s.character.id.as_str(), *skill), (xp, *at));
        }
    }
    let rows: Vec<[Value; 4]> = reached
        .into_iter()
        .map(|((id, skill), (xp, at))| {
            [
                Value::Text(id),
                Value::Text(skill.as_str()),
                Value::Int(xp),
                Value::Int(at),
            ]
        })
        .collect();
    insert_rows(
        tx,
        r#"skill_records ("characterId", skill, xp, "reachedAt")"#,
        r#" ON CONFLICT ("characterId", skill) DO UPDATE SET xp = excluded.xp, "reachedAt" = excluded."reachedAt""#,
        &rows,
    )
    .await
}

/// Deletes the rows of `table` whose `"characterId"` is one of `ids`.
async fn delete_for(
    tx: &mut Transaction<'static, Any>,
    table: &'static str,
    ids: &[&str],
) -> Result<(), StoreError> {
    for chunk in ids.chunks(MAX_ROWS) {
        // Padded with the last id up to a power of two: one statement, and few texts.
        let rows = chunk.len().next_power_of_two();
        let sql = cached_sql(tx, table, rows, |rows, style| {
            let list = values_list(rows, 1, style);
            // `($1, $2, …)`: one row of `rows` values is the list.
            format!(r#"DELETE FROM {table} WHERE "characterId" IN {list}"#)
        });
        let mut query = sqlx::query(&sql);
        for n in 0..rows {
            query = query.bind(chunk[n.min(chunk.len() - 1)]);
        }
        query.execute(&mut **tx).await?;
    }
    Ok(())
}

/// `INSERT INTO <into> VALUES … <suffix>` of `rows`, in as few statements as
/// [`power_of_two_chunks`] cuts them into.
pub(crate) async fn insert_rows<const N: usize>(
    tx: &mut Transaction<'static, Any>,
    into: &'static str,
    suffix: &'static str,
    rows: &[[Value<'_>; N]],
) -> Result<(), StoreError> {
    for chunk in power_of_two_chunks(rows) {
        let sql = cached_sql(tx, into, chunk.len(), |rows, style| {
            format!(
                "INSERT INTO {into} VALUES {}{suffix}",
                values_list(N, rows, style)
            )
        });
        bind_all(sqlx::query(&sql), chunk.iter().flatten())
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

fn bind_all<'q, 'v: 'q>(
    mut query: Query<'q, Any, AnyArguments<'q>>,
    values: impl IntoIterator<Item = &'q Value<'v>>,
) -> Query<'q, Any, AnyArguments<'q>> {
    for value in values {
        query = match value {
            Value::Text(s) => query.bind(*s),
            Value::Owned(s) => query.bind(s.as_str()),
            Value::MaybeText(s) => query.bind(*s),
            Value::Int(n) => query.bind(*n),
            Value::MaybeInt(n) => query.bind(*n),
            Value::Real(x) => query.bind(*x),
        };
    }
    query
}

/// `rows` cut, in order, into runs whose lengths are powers of two of at most [`MAX_ROWS`]
/// (45 rows: 32, 8, 4, 1).
pub(crate) fn power_of_two_chunks<T>(rows: &[T]) -> impl Iterator<Item = &[T]> {
    let mut rest = rows;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let n = rest.len().min(MAX_ROWS);
        let (chunk, tail) = rest.split_at(1 << n.ilog2());
        rest = tail;
        Some(chunk)
    })
}

/// How a statement's parameters are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Placeholders {
    /// `$1`, `$2`, … (PostgreSQL).
    Numbered,
    /// `?`, bound in order (SQLite; see the module's note).
    Anonymous,
}

/// `($1, $2), ($3, $4)` (or `(?, ?), (?, ?)`) for `rows` rows of `columns` values, numbered row
/// by row.
fn values_list(columns: usize, rows: usize, style: Placeholders) -> String {
    let mut sql = String::new();
    for row in 0..rows {
        if row > 0 {
            sql.push_str(", ");
        }
        sql.push('(');
        for column in 0..columns {
            if column > 0 {
                sql.push_str(", ");
            }
            match style {
                Placeholders::Numbered => sql.push_str(&format!("${}", row * columns + column + 1)),
                Placeholders::Anonymous => sql.push('?'),
            }
        }
        sql.push(')');
    }
    sql
}

/// A statement text by shape, row count and the engine of `tx`, built once: building the texts
/// took a tenth of a save's instructions (callgrind of the `commits` bench).
fn cached_sql(
    tx: &Transaction<'static, Any>,
    shape: &'static str,
    rows: usize,
    build: impl FnOnce(usize, Placeholders) -> String,
) -> Arc<str> {
    type Texts = HashMap<(&'static str, usize, Placeholders), Arc<str>>;
    let style = if tx.backend_name() == <sqlx::Sqlite as sqlx::Database>::NAME {
        Placeholders::Anonymous
    } else {
        Placeholders::Numbered
    };
    static TEXTS: OnceLock<Mutex<Texts>> = OnceLock::new();
    let mut texts = TEXTS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    texts
        .entry((shape, rows, style))
        .or_insert_with(|| build(rows, style).into())
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_cut_into_powers_of_two_in_order() {
        let rows: Vec<usize> = (0..45).collect();
        let lengths: Vec<usize> = power_of_two_chunks(&rows).map(<[usize]>::len).collect();
        assert_eq!(lengths, [32, 8, 4, 1]);
        let again: Vec<usize> = power_of_two_chunks(&rows).flatten().copied().collect();
        assert_eq!(again, rows);
        let many: Vec<usize> = (0..300).collect();
        let lengths: Vec<usize> = power_of_two_chunks(&many).map(<[usize]>::len).collect();
        assert_eq!(lengths, [128, 128, 32, 8, 4]);
        assert_eq!(power_of_two_chunks::<usize>(&[]).count(), 0);
    }

    #[test]
    fn a_values_list_numbers_its_parameters_row_by_row() {
        assert_eq!(
            values_list(2, 3, Placeholders::Numbered),
            "($1, $2), ($3, $4), ($5, $6)"
        );
        assert_eq!(values_list(2, 2, Placeholders::Anonymous), "(?, ?), (?, ?)");
    }
}
