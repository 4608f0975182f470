//! Benchmarks and load generation for the Wayfarer server.
//!
//! [`load`] is the library side of `wayfarer load`: many real WebSocket clients that behave like
//! players against a running server, and a report of what they measured. [`chaos`] plays the
//! whole economy at once while killing the server process, and checks after every kill that no
//! item was lost or made twice (`wayfarer-chaos`, `scripts/chaos.sh`).
//!
//! The baselines read the game server's figures against the least the same stack can do:
//! [`echo`] is the floor server (a bare `/health` and a WebSocket echo), [`http_bench`] measures
//! HTTP requests per second and latency, and [`echo_bench`] measures WebSocket round trips, against
//! the floor (echo) or the game server (`player:sync`). The `floor` and `compare` examples run them
//! from the command line.

pub mod chaos;
pub mod echo;
pub mod echo_bench;
pub mod http_bench;
pub mod load;
