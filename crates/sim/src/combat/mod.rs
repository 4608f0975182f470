//! Combat. [`formulas`] holds the pure arithmetic (accuracy, max hit, hit chance, XP per damage,
//! style effects); the rest wires it into the world, one concern a module:
//!
//! - `engage`: a player's swings (melee and ranged, arrows, timers, XP, who sees the hit);
//! - `npc_ai`: NPCs fighting back (in melee, shooting or casting from their `combatRange`),
//!   aggression, chasing, leashing home and respawning;
//! - `drops`: an NPC's death and its loot table;
//! - `death`: a player's death, the items it spills and their restoration after a restart;
//! - `flee`: running away from an attacker;
//! - `retaliate`: auto-retaliate, turning on an attacker when idle or skilling;
//! - `magic` (the spell formulas) and `spells`: casting once or on every attack, runes.
//!
//! Which areas allow PvP, and which are safe: `crate::zones`.
//!
//! Rules and their sources: `docs/mechanics.md`.

mod death;
mod drops;
mod engage;
mod flee;
pub mod formulas;
pub mod magic;
mod npc_ai;
mod retaliate;
mod spells;

pub(crate) use death::Killer;
pub use death::{GRAVESTONE_TICKS, KEPT_ON_DEATH};
pub use drops::roll_drops;
pub(crate) use engage::Shown;
pub use engage::UNARMED_ATTACK_SPEED_TICKS;
pub use flee::FLEE_DISTANCE_TILES;
pub use magic::CASTING_RANGE_TILES;
pub(crate) use npc_ai::NpcFight;
pub use npc_ai::{
    aggressive_towards, npc_attack_style, npc_reach_tiles, NpcAttackStyle, AGGRESSION_LEVEL_FACTOR,
    NPC_ARROW, NPC_MAGIC, NPC_MAX_REACH_TILES, NPC_MELEE_REACH_TILES,
};
pub(crate) use spells::MagicChoice;
