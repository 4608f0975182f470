//! Repositories: one per stored entity, the only code that writes SQL.

pub mod address_grants;
pub mod agents;
pub mod arena;
pub mod bans;
pub mod catalog;
pub mod characters;
pub mod deaths;
pub mod duels;
pub mod economy;
pub mod friends;
pub mod group_commit;
pub mod hiscores;
pub mod ignores;
pub mod inventory;
pub mod leases;
pub mod quests;
pub mod revoked_tokens;
pub mod sessions;
pub mod skill_table;
pub mod snapshot_reads;
pub(crate) mod snapshot_writes;
pub mod trades;
pub mod users;
pub mod world_chunks;

/// A row type stored per character: the query of a character's rows (its id bound to `$1`) and
/// how one row reads.
pub(crate) trait PerCharacter: Sized {
    const SQL: &'static str;

    fn read(row: &sqlx::any::AnyRow) -> Result<Self, sqlx::Error>;
}

/// A character's rows of `T` on `executor` (the pool, or one connection or transaction for a
/// whole record: [`snapshot_reads`]).
pub(crate) async fn character_rows<'e, E, T: PerCharacter>(
    executor: E,
    character_id: &str,
) -> Result<Vec<T>, crate::StoreError>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    rows_of(executor, T::SQL, character_id, T::read).await
}

/// The rows `sql` selects for one id (bound to `$1`) on `executor`, each read by `read`.
pub(crate) async fn rows_of<'e, E, T>(
    executor: E,
    sql: &'static str,
    id: &str,
    read: impl Fn(&sqlx::any::AnyRow) -> Result<T, sqlx::Error>,
) -> Result<Vec<T>, crate::StoreError>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let rows = sqlx::query(sql).bind(id).fetch_all(executor).await?;
    rows.iter()
        .map(read)
        .collect::<Result<_, sqlx::Error>>()
        .map_err(Into::into)
}
