//! The agent runtime (issue 15): programs that play Wayfarer as ordinary players over the real
//! WebSocket. An agent keeps a model of what it sees ([`model`]), reads it through the
//! providers of specification section 1 ([`providers`]), acts only through one action table
//! ([`actions`]) whose every outcome is matched to its request by `ref` ([`outcome`]), and picks
//! its next action with the built-in [`planner`] or a language model ([`brain`]) towards a goal
//! ([`goals`]). [`runtime::spawn`] starts one; a host may start any number in one process and
//! steer each through [`runtime::Control`].

pub mod account;
pub mod actions;
pub mod brain;
pub mod cli;
pub mod commands;
pub mod control_plane;
pub mod docs;
pub mod goals;
pub mod in_view;
pub mod interned;
pub mod knowledge;
pub mod magic;
pub mod making;
pub mod model;
pub mod outcome;
pub mod planner;
pub mod procedure;
pub mod providers;
pub mod quests;
pub mod runtime;

pub use account::{Login, TokenMint};
pub use brain::{Brain, BrainChoice};
pub use goals::Goal;
pub use outcome::Outcome;
pub use runtime::{spawn, spawn_hosted, AgentConfig, AgentHandle, AgentStatus, Control, Host};
