//! Combat. [`formulas`] holds the pure arithmetic (accuracy, max hit, hit chance, XP per damage,
//! style effects); the fight loop that uses it (targets, timers, retaliation, death) is wired into
//! the world separately. Formulas and their sources: `docs/mechanics.md`.

mod engage;
pub mod formulas;
