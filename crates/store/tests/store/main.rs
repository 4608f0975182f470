//! Repository tests, each run against SQLite and PostgreSQL.

mod characters;
mod migrations;
mod sessions;
mod users;
