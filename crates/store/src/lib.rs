//! Persistence for Wayfarer: migrations for SQLite and PostgreSQL and the repositories that are the only
//! code in the project that writes SQL. One SQL text serves both engines through sqlx's `Any` driver:
//! parameters are `$1`-style (SQLite accepts them too), ids are text and times are epoch milliseconds.

pub mod backup;
mod database;
mod error;
mod migrations;
pub mod private_file;
pub mod repo;
mod sqlite_file;
#[cfg(feature = "testing")]
pub mod testing;

#[cfg(feature = "testing")]
pub use database::HeldConnections;
pub use database::{redact_url, Backend, PoolSettings, Store, SQLITE_CACHE_KIB};
pub use error::StoreError;
pub use migrations::{Migration, MIGRATIONS};
pub use repo::address_grants::AddressGrantSummary;
pub use repo::agents::AgentMapping;
pub use repo::arena::{ArenaFighter, ArenaResult, LadderEntry, StoredRating};
pub use repo::bans::Ban;
pub use repo::catalog::CatalogItem;
pub use repo::characters::{
    AccountLimits, Character, Creation, CreationGrant, GrantOrigin, NewCharacter, SkillLevel,
    Withheld, NEW_CHARACTER_HEALTH,
};
pub use repo::deaths::{DeathLock, DeathTake, LockedItem, NpcKill};
pub use repo::duels::DuelAudit;
pub use repo::economy::{Books, FlowDelta, Holdings};
pub use repo::friends::{Contact, ContactLists, RequestOutcome, MAX_FRIENDS};
pub use repo::group_commit::{GroupOutcome, GroupPolicy};
pub use repo::hiscores::Standing;
pub use repo::ignores::MAX_IGNORED;
pub use repo::inventory::{
    CharacterSnapshot, SaveBatch, StoredBankItem, StoredEquipment, StoredSlot, INVENTORY_SLOTS,
};
pub use repo::leases::{LeaseHolder, LeaseOutcome};
pub use repo::quests::StoredQuest;
pub use repo::revoked_tokens::RevokedToken;
pub use repo::sessions::PlayerSession;
pub use repo::skill_table::SkillTable;
pub use repo::trades::TradeAudit;
pub use repo::users::{NewUser, User};
pub use repo::world_chunks::{ChunkWrite, StoredChunk};

/// Milliseconds since the Unix epoch, the unit of every stored time.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// A fresh random id for a stored row.
pub fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}
