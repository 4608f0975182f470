//! Benchmarks and load generation for the Wayfarer server.
//!
//! [`load`] is the library side of `wayfarer load`: many real WebSocket clients that behave like
//! players against a running server, and a report of what they measured.

pub mod load;
