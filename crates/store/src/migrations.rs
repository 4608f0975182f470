//! Schema migrations: an ordered list of SQL texts, each applied once in its own transaction and recorded
//! in `schema_migrations`. The same text serves both engines (see the header of each file).

use sqlx::Row;

use crate::{Backend, Store, StoreError};

/// One schema change.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    pub version: i64,
    pub name: &'static str,
    pub sql: &'static str,
}

/// Every migration, oldest first. Never edit one that has shipped: add a new one.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "initial",
        sql: include_str!("../migrations/0001_initial.sql"),
    },
    Migration {
        version: 2,
        name: "death_pvp",
        sql: include_str!("../migrations/0002_death_pvp.sql"),
    },
    Migration {
        version: 3,
        name: "prayer_points",
        sql: include_str!("../migrations/0003_prayer_points.sql"),
    },
    Migration {
        version: 4,
        name: "skill_records",
        sql: include_str!("../migrations/0004_skill_records.sql"),
    },
    Migration {
        version: 5,
        name: "agent_control",
        sql: include_str!("../migrations/0005_agent_control.sql"),
    },
    Migration {
        version: 6,
        name: "character_leases",
        sql: include_str!("../migrations/0006_character_leases.sql"),
    },
    Migration {
        version: 7,
        name: "world_chunks_by_world",
        sql: include_str!("../migrations/0007_world_chunks_by_world.sql"),
    },
    Migration {
        version: 8,
        name: "death_locks_by_world",
        sql: include_str!("../migrations/0008_death_locks_by_world.sql"),
    },
    Migration {
        version: 9,
        name: "character_grants",
        sql: include_str!("../migrations/0009_character_grants.sql"),
    },
    Migration {
        version: 10,
        name: "token_revocation",
        sql: include_str!("../migrations/0010_token_revocation.sql"),
    },
    Migration {
        version: 11,
        name: "duels",
        sql: include_str!("../migrations/0011_duels.sql"),
    },
    Migration {
        version: 12,
        name: "auto_retaliate",
        sql: include_str!("../migrations/0012_auto_retaliate.sql"),
    },
    Migration {
        version: 13,
        name: "address_grants",
        sql: include_str!("../migrations/0013_address_grants.sql"),
    },
    Migration {
        version: 14,
        name: "economy_books",
        sql: include_str!("../migrations/0014_economy_books.sql"),
    },
    Migration {
        version: 15,
        name: "health_from_constitution",
        sql: include_str!("../migrations/0015_health_from_constitution.sql"),
    },
    Migration {
        version: 16,
        name: "home_teleport",
        sql: include_str!("../migrations/0016_home_teleport.sql"),
    },
    Migration {
        version: 17,
        name: "arena",
        sql: include_str!("../migrations/0017_arena.sql"),
    },
];

/// Any constant works; it only has to be the same in every server process sharing a database.
const PG_MIGRATION_LOCK_KEY: i64 = 0x5741_5946_4152_4552; // "WAYFARER"

pub(crate) async fn run(store: &Store) -> Result<Vec<i64>, StoreError> {
    let pool = store.writer();

    let mut applied_now = Vec::new();
    for migration in MIGRATIONS {
        let mut tx = pool.begin().await?;
        if store.backend() == Backend::Postgres {
            // Two servers starting together must not both apply the same migration.
            sqlx::query("SELECT pg_advisory_xact_lock($1)")
                .bind(PG_MIGRATION_LOCK_KEY)
                .execute(&mut *tx)
                .await?;
        }
        // Inside the locked transaction: concurrent `CREATE TABLE IF NOT EXISTS` can race on PostgreSQL.
        sqlx::raw_sql(
            "CREATE TABLE IF NOT EXISTS schema_migrations (\
                version BIGINT PRIMARY KEY, name TEXT NOT NULL, \"appliedAt\" BIGINT NOT NULL)",
        )
        .execute(&mut *tx)
        .await?;
        let done = sqlx::query("SELECT version FROM schema_migrations WHERE version = $1")
            .bind(migration.version)
            .fetch_optional(&mut *tx)
            .await?
            .map(|row| row.get::<i64, _>(0))
            .is_some();
        if done {
            tx.rollback().await?;
            continue;
        }
        let wrap = |source| StoreError::Migration {
            version: migration.version,
            name: migration.name,
            source,
        };
        sqlx::raw_sql(migration.sql)
            .execute(&mut *tx)
            .await
            .map_err(wrap)?;
        sqlx::query(
            "INSERT INTO schema_migrations (version, name, \"appliedAt\") VALUES ($1, $2, $3)",
        )
        .bind(migration.version)
        .bind(migration.name)
        .bind(crate::now_ms())
        .execute(&mut *tx)
        .await
        .map_err(wrap)?;
        tx.commit().await.map_err(wrap)?;
        tracing::info!(
            version = migration.version,
            name = migration.name,
            backend = store.backend().name(),
            "applied migration"
        );
        applied_now.push(migration.version);
    }
    Ok(applied_now)
}
