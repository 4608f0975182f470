//! Wire types shared by the server, the agent, the load generator and the tests: every JSON shape of
//! the REST API and the WebSocket channel is defined here once (see docs/protocol.md).

pub mod agent;
pub mod arena;
pub mod duel;
pub mod error;
pub mod rest;
#[cfg(feature = "schema")]
pub mod schema;
pub mod skills;
pub mod strict;
pub mod text;
pub mod trade;
pub mod ws;

pub use error::{ErrorBody, ErrorCode};
pub use skills::Skill;
