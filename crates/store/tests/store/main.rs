//! Repository tests, each run against SQLite and PostgreSQL.

mod bans;
mod characters;
mod deaths;
mod friends;
mod ignores;
mod inventory;
mod migrations;
mod sessions;
mod trades;
mod users;
