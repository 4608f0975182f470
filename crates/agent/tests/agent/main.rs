//! Agents against the real server, started in-process on port 0 by the shared harness
//! (`wayfarer-testkit`; one test binary for the crate, to keep link time low). Every test steps
//! the world in lockstep with its agents (`TestAgent::run_until`): a wait is counted in the
//! game's ticks, never in the machine's time.

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

/// A server on the manual clock, with the admin code agents use: it ticks when a test's agent
/// waits for something, one tick at a time in lockstep with its agents.
pub async fn stepped() -> TestApp {
    TestApp::for_agents(Clock::Manual).await
}
