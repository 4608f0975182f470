//! Integration tests: each starts the real server on port 0 with a fresh world and talks HTTP to it.

#[path = "../common/mod.rs"]
mod common;
mod support;

mod agents;
mod auth;
mod bank;
mod bundled_quests;
mod cdn;
mod character_churn;
mod characters;
mod chat_limits;
mod clock;
mod config_errors;
mod connection_hygiene;
mod content;
mod cors;
mod death_crash;
mod descriptions;
mod embedded_agents;
mod errors;
mod friends;
mod health;
mod items;
mod load;
mod local_postgres;
mod logout;
mod names;
mod operations;
mod players;
mod prayer;
mod quests;
mod races;
mod rate_limits;
mod restart;
mod shops;
mod shutdown;
mod skills;
mod status_faults;
mod strict_input;
mod templates;
mod trade;
mod web;
mod world;
mod world_chunks;
mod world_files;
