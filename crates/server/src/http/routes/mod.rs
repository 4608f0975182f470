//! REST route handlers, one module per area.

pub mod admin;
pub mod auth;
pub mod config;
pub mod content;
pub mod player;
pub mod players;
pub mod templates;
pub mod voice;
pub mod worlds;
