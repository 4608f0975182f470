//! The `wayfarer` server: configuration, start-up and shutdown, HTTP routes, game sockets, auth,
//! rate limits, content from the CDN and the embedded agents, around the game host
//! (`wayfarer_host`: the world thread, saves, sessions, several worlds). `main.rs` is only the
//! command line around [`server`].

pub mod admin_cli;
pub mod agents;
pub mod app;
pub mod auth;
pub mod backup_cli;
pub mod bench_agents;
pub mod cdn;
pub mod characters;
pub mod client_addr;
pub mod config;
pub mod content_state;
pub mod content_sync;
pub mod gzip;
pub mod http;
pub mod local_postgres;
pub mod log_redaction;
pub mod memory_trim;
pub mod process_stats;
pub mod rate_limit;
pub mod server;
/// How services' failures are named: the game host's (`wayfarer_host::service_errors`), shared.
pub use wayfarer_host::service_errors;
pub mod telemetry;
/// Contract timestamps: the game host's (`wayfarer_host::timestamps`).
pub use wayfarer_host::timestamps;
pub mod world_lock;
pub mod world_seed;

pub use config::Config;
pub use server::RunningServer;
