//! Agents against the real server, started in-process on port 0 by the shared harness
//! (`wayfarer-testkit`; one test binary for the crate, to keep link time low).

mod actions;
mod combat;
mod control_plane;
mod economy;
mod models;
mod planner;
mod skilling;
mod social;

pub use wayfarer_testkit::{
    code, goal, holds, level, position, slot_of, Clock, TestAgent, TestApp,
};

/// A server ticking every `tick_ms`, with the admin code agents use.
pub async fn ticking(tick_ms: u64) -> TestApp {
    TestApp::for_agents(Clock::Every(tick_ms)).await
}
