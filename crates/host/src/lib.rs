//! The game host: the world thread that owns the [`wayfarer_sim::World`] and drives its ticks
//! (admission, sessions, saves, trade commits, queries, the event path to each player's queue),
//! the save task, the online list, the registry of live connections, the agents' control plane
//! (`agents`) and, with several worlds, the cluster glue over NATS. It speaks no HTTP: `wayfarer-server` accepts the sockets and requests
//! and hands their inputs here (docs/architecture.md, "Crates").

pub mod agents;
pub mod character_state;
pub mod cluster;
pub mod connections;
pub mod deaths;
pub mod economy;
pub mod online;
pub mod outbound_queue;
pub mod player_view;
pub mod priority;
pub mod running;
pub mod saver;
pub mod service_errors;
pub mod tick_stats;
pub mod timestamps;
pub mod world_chunks;
pub mod world_thread;

#[cfg(test)]
mod layering;
