//! Agents in the server: what the game host's agents (`wayfarer_host::agents`: the control plane,
//! registration, the embedded agents; re-exported here for the routes and sockets that call them)
//! take from the server: its token signing and character creation (`registration`: also an
//! agent with a new character), and its configuration and HTTP client for the embedded agents
//! (`embedded::start`).
//!
//! An agent is an ordinary player on `/ws`: the server trusts it no more than any client.

pub use wayfarer_host::agents::{
    control, quick_actions, AgentHub, AgentPlane, KeptDecision, LastReport, KEPT_DECISIONS,
    KEPT_MESSAGES,
};

pub mod embedded;
pub mod registration;
