//! The one test harness of the server's and the agent's integration tests (`tests/api`,
//! `tests/worlds`, `crates/agent/tests/agent`):
//!
//! - [`TestApp`]: a real server started in-process on port 0 with a fresh world directory and
//!   database ([`AppOptions`]: the timed or the manual [`Clock`], admin code, world directory,
//!   database, any other setting), talked to over real HTTP (the zero2prod `spawn_app` pattern);
//! - accounts ([`player`], [`admin_token`]), game sockets ([`WsClient`]: `send` of a typed
//!   `ClientMessage`, `next`, `expect`; [`messages`] for chat lines), agents ([`TestAgent`]);
//! - the test clock: with [`Clock::Manual`] the world ticks only when the test steps it
//!   ([`TestApp::step`]); agents step in lockstep with it ([`TestAgent::run_until`]: after each
//!   tick every agent reads it, decides and sends before the next);
//! - both databases ([`both_databases!`]) and skips ([`skip`]), whose rules live in
//!   `wayfarer_store::testing` so the store's own tests share them.

mod agents;
mod app;
mod cdn;
mod faults;
mod game;
pub mod messages;
mod process;
pub mod socket;

pub use agents::{
    code, goal, holds, level, position, slot_of, TestAgent, ADMIN_TICKS, COMMAND_TICKS, VIEW_TICKS,
};
pub use app::{
    admin_token, assert_error, economy_report, economy_report_as, enter, player, player_on,
    AppOptions, Clock, StoppedApp, TestApp, ADMIN_CODE, TEST_TICK_MS, TEST_WORLD_SEED,
};
pub use cdn::Cdn;
pub use faults::FaultProxy;
pub use game::{admin_give, bandit_tile, die_to_a_bandit};
pub use process::{free_port, wait_healthy};
pub use socket::{Read, Stream, WsClient, WAIT};
pub use wayfarer_store::both_databases;
pub use wayfarer_store::testing::{in_ci, skip, FreshDatabase};
