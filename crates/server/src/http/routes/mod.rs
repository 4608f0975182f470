//! REST route handlers, one module per area.

pub mod admin;
pub mod agent_bodies;
pub mod agents;
pub mod arena;
pub mod auth;
pub mod character_bodies;
pub mod config;
pub mod content;
pub mod map;
pub mod player;
pub mod players;
pub mod templates;
pub mod voice;
pub mod worlds;
