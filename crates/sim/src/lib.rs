//! The game itself: world state advanced in ticks. Deterministic and synchronous: no I/O, no clock reads
//! (the tick number is the clock), randomness only from the world's seeded generator. Commands go in,
//! events come out; the server crate connects it to sockets and the store.

pub mod world;

pub use world::World;
