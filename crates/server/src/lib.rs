//! The `wayfarer` server: configuration, HTTP and WebSocket routes, and the world thread that drives the
//! sim and bridges it to sockets and the store. `main.rs` is only the command line around [`server`].

pub mod admin_cli;
pub mod agents;
pub mod app;
pub mod auth;
pub mod backup_cli;
pub mod bench_agents;
pub mod cdn;
pub mod character_state;
pub mod characters;
pub mod client_addr;
pub mod cluster;
pub mod config;
pub mod connections;
pub mod content_state;
pub mod content_sync;
pub mod deaths;
pub mod economy;
pub mod gzip;
pub mod http;
pub mod local_postgres;
pub mod log_redaction;
pub mod memory_trim;
pub mod online;
pub mod outbound_queue;
pub mod player_view;
pub mod priority;
pub mod process_stats;
pub mod rate_limit;
pub mod saver;
pub mod server;
pub mod service_errors;
pub mod telemetry;
pub mod tick_stats;
pub mod timestamps;
pub mod world_chunks;
pub mod world_lock;
pub mod world_seed;
pub mod world_thread;

pub use config::Config;
pub use server::RunningServer;
