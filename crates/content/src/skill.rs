//! Skill names: the one `Skill` type of the protocol crate, whose `parse` normalises the reference
//! format's spellings (`defence`/`defense`, `health`/`hitpoints` for constitution).

pub use wayfarer_protocol::Skill;
