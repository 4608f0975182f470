//! Skill experience and levels: XP gains with the 200M cap and the combat level (the classic XP
//! table is `wayfarer_content::levels`, re-exported here). Pure functions and one small value type; nothing here touches the world.
//!
//! XP is kept in tenths of a point ([`Xp`]) because content grants fractional amounts (17.5 XP for
//! copper ore, 1.33 Constitution XP per damage) and the classic games keep exactly that precision.
//! Levels, the table and the cap are in whole XP, as players read them. Formulas and sources:
//! `docs/mechanics.md`.

use std::fmt;

// The XP table and its two readings are rules data, kept with the content (the agent reads them
// too, and depends on no sim); one definition, used here through these names.
pub use wayfarer_content::levels::{level_for_xp, xp_for_level, MAX_LEVEL, XP_TABLE};
use wayfarer_content::Skill;

/// The most XP a skill can hold, in whole points; gains beyond it are dropped.
pub const MAX_XP: u32 = 200_000_000;

/// Tenths of an XP point in one point.
pub const XP_TENTHS_PER_POINT: u32 = 10;

/// Constitution (hitpoints) level of a new character; every other skill starts at level 1.
pub const NEW_CHARACTER_CONSTITUTION_LEVEL: u8 = 10;

/// An amount of experience in tenths of a point, never above [`MAX_XP`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Xp(u32);

impl Xp {
    /// No XP.
    pub const ZERO: Xp = Xp(0);
    /// The cap: [`MAX_XP`] points.
    pub const MAX: Xp = Xp(MAX_XP * XP_TENTHS_PER_POINT);

    /// `points` whole points (capped at [`Xp::MAX`]).
    pub const fn from_points(points: u32) -> Xp {
        if points >= MAX_XP {
            Xp::MAX
        } else {
            Xp(points * XP_TENTHS_PER_POINT)
        }
    }

    /// `tenths` tenths of a point (capped at [`Xp::MAX`]).
    pub const fn from_tenths(tenths: u32) -> Xp {
        if tenths >= Xp::MAX.0 {
            Xp::MAX
        } else {
            Xp(tenths)
        }
    }

    /// A content amount such as `17.5`, rounded to the nearest tenth; negative or NaN is zero,
    /// anything above the cap is the cap.
    pub fn from_f64(points: f64) -> Xp {
        let tenths = (points * f64::from(XP_TENTHS_PER_POINT)).round();
        if tenths.is_nan() || tenths <= 0.0 {
            Xp::ZERO
        } else if tenths >= f64::from(Xp::MAX.0) {
            Xp::MAX
        } else {
            // In 0 < tenths < Xp::MAX.0 <= u32::MAX, so the cast is exact.
            Xp(tenths as u32)
        }
    }

    /// Whole points, rounded down: what players see and the store keeps.
    pub const fn points(self) -> u32 {
        self.0 / XP_TENTHS_PER_POINT
    }

    /// Tenths of a point.
    pub const fn tenths(self) -> u32 {
        self.0
    }

    /// The level this much XP reaches.
    pub fn level(self) -> u8 {
        level_for_xp(self.points())
    }

    /// The sum, capped at [`Xp::MAX`].
    pub const fn saturating_add(self, other: Xp) -> Xp {
        // Both are <= Xp::MAX.0 (2e9), so their sum fits in u64 and the min fits back in u32.
        let sum = self.0 as u64 + other.0 as u64;
        if sum >= Xp::MAX.0 as u64 {
            Xp::MAX
        } else {
            Xp(sum as u32)
        }
    }
}

impl fmt::Display for Xp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tenths = self.0 % XP_TENTHS_PER_POINT;
        if tenths == 0 {
            write!(f, "{}", self.points())
        } else {
            write!(f, "{}.{tenths}", self.points())
        }
    }
}

/// What one XP gain did to a skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct XpGain {
    /// XP actually added (less than asked when the cap was reached).
    pub gained: Xp,
    /// The new total.
    pub xp: Xp,
    /// The level before the gain.
    pub previous_level: u8,
    /// The level after the gain.
    pub level: u8,
    /// Whether the level rose (possibly by more than one).
    pub leveled_up: bool,
}

/// Adds `gained` to `current`, capping the total at [`Xp::MAX`].
pub fn add_xp(current: Xp, gained: Xp) -> XpGain {
    let xp = current.saturating_add(gained);
    let previous_level = current.level();
    let level = xp.level();
    XpGain {
        // xp >= current: saturating_add never lowers a value that is already <= the cap.
        gained: Xp(xp.0 - current.0),
        xp,
        previous_level,
        level,
        leveled_up: level > previous_level,
    }
}

/// The levels the combat level is computed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CombatSkillLevels {
    /// Attack level.
    pub attack: u8,
    /// Strength level.
    pub strength: u8,
    /// Defence level.
    pub defence: u8,
    /// Constitution (hitpoints) level.
    pub constitution: u8,
    /// Ranged level.
    pub ranged: u8,
    /// Magic level.
    pub magic: u8,
    /// Prayer level.
    pub prayer: u8,
}

/// Weight of the base part of the combat level, as a fraction: 1/4.
const COMBAT_BASE_WEIGHT: (u32, u32) = (1, 4);
/// Weight of the best attack part of the combat level, as a fraction: 13/40 (0.325).
const COMBAT_OFFENCE_WEIGHT: (u32, u32) = (13, 40);

/// The combat level (3 for a new character, 126 at all 99s).
///
/// Classic formula (Old School RuneScape Wiki, "Combat level"):
/// `base = ¼ × (Defence + Hitpoints + ⌊Prayer / 2⌋)`, `melee = 0.325 × (Attack + Strength)`,
/// `range = 0.325 × ⌊3 × Ranged / 2⌋`, `magic = 0.325 × ⌊3 × Magic / 2⌋`, and the level is
/// `⌊base + max(melee, range, magic)⌋`. Computed in integers over the common denominator 40, so
/// no rounding error can move a boundary.
pub fn combat_level(levels: CombatSkillLevels) -> u8 {
    let l = |level: u8| u32::from(level);
    let base = l(levels.defence) + l(levels.constitution) + l(levels.prayer) / 2;
    let melee = l(levels.attack) + l(levels.strength);
    let range = 3 * l(levels.ranged) / 2;
    let magic = 3 * l(levels.magic) / 2;
    let offence = melee.max(range).max(magic);
    let denominator = COMBAT_OFFENCE_WEIGHT.1;
    let base_numerator = COMBAT_BASE_WEIGHT.0 * denominator / COMBAT_BASE_WEIGHT.1;
    let total = (base_numerator * base + COMBAT_OFFENCE_WEIGHT.0 * offence) / denominator;
    // At most (10 × 247 + 13 × 382) / 40 = 185 for levels of 255, so it fits in u8.
    total as u8
}

/// The XP of every skill of one character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skills {
    xp: [Xp; Skill::ALL.len()],
}

impl Default for Skills {
    fn default() -> Self {
        Skills::new()
    }
}

impl Skills {
    /// A new character: every skill at level 1, Constitution at
    /// [`NEW_CHARACTER_CONSTITUTION_LEVEL`].
    pub fn new() -> Skills {
        let mut skills = Skills {
            xp: [Xp::ZERO; Skill::ALL.len()],
        };
        skills.set_xp(
            Skill::Constitution,
            Xp::from_points(xp_for_level(NEW_CHARACTER_CONSTITUTION_LEVEL)),
        );
        skills
    }

    /// The XP of `skill`.
    pub fn xp(&self, skill: Skill) -> Xp {
        // Skill's discriminants are its positions in Skill::ALL (tested below), so this is in range.
        self.xp[skill as usize]
    }

    /// The level of `skill` (from its XP; boosts and drains are not skills' business).
    pub fn level(&self, skill: Skill) -> u8 {
        self.xp(skill).level()
    }

    /// Replaces the XP of `skill`, as when loading a character.
    pub fn set_xp(&mut self, skill: Skill, xp: Xp) {
        self.xp[skill as usize] = xp;
    }

    /// Adds XP to `skill` (capped) and says whether it levelled up.
    pub fn add_xp(&mut self, skill: Skill, gained: Xp) -> XpGain {
        let gain = add_xp(self.xp(skill), gained);
        self.set_xp(skill, gain.xp);
        gain
    }

    /// The levels the combat level needs.
    pub fn combat_skill_levels(&self) -> CombatSkillLevels {
        CombatSkillLevels {
            attack: self.level(Skill::Attack),
            strength: self.level(Skill::Strength),
            defence: self.level(Skill::Defense),
            constitution: self.level(Skill::Constitution),
            ranged: self.level(Skill::Ranged),
            magic: self.level(Skill::Magic),
            prayer: self.level(Skill::Prayer),
        }
    }

    /// The combat level.
    pub fn combat_level(&self) -> u8 {
        combat_level(self.combat_skill_levels())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skill_discriminants_follow_the_all_list() {
        for (index, skill) in Skill::ALL.into_iter().enumerate() {
            assert_eq!(skill as usize, index, "{skill}");
        }
    }
}
