//! Repositories: one per stored entity, the only code that writes SQL.

pub mod address_grants;
pub mod agents;
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
