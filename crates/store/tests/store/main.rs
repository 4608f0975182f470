//! Repository tests, each run against SQLite and PostgreSQL.

mod bans;
mod characters;
mod migrations;
mod sessions;
mod users;
