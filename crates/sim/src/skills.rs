//! Skill experience and levels: the classic XP table, XP gains with the 200M cap, and the combat
//! level. Pure functions and one small value type; nothing here touches the world.
//!
//! XP is kept in tenths of a point ([`Xp`]) because content grants fractional amounts (17.5 XP for
//! copper ore, 1.33 Constitution XP per damage) and the classic games keep exactly that precision.
//! Levels, the table and the cap are in whole XP, as players read them. Formulas and sources:
//! `docs/mechanics.md`.

use std::fmt;

use wayfarer_content::Skill;

/// The highest level a skill reaches.
pub const MAX_LEVEL: u8 = 99;

/// The most XP a skill can hold, in whole points; gains beyond it are dropped.
pub const MAX_XP: u32 = 200_000_000;

/// Tenths of an XP point in one point.
pub const XP_TENTHS_PER_POINT: u32 = 10;

/// Constitution (hitpoints) level of a new character; every other skill starts at level 1.
pub const NEW_CHARACTER_CONSTITUTION_LEVEL: u8 = 10;

/// XP needed for each level: `XP_TABLE[level - 1]` is the XP at which `level` is reached.
///
/// The classic table (Old School RuneScape Wiki, "Experience"): `xp(L) = floor(¼ · Σ_{n=1}^{L-1}
/// floor(n + 300 · 2^(n/7)))`. Written out rather than computed so it is a `const` and reads like
/// the wiki's table; `xp_table_matches_the_formula` recomputes it from the formula.
pub const XP_TABLE: [u32; MAX_LEVEL as usize] = [
    0, 83, 174, 276, 388, 512, //
    650, 801, 969, 1_154, 1_358, 1_584, //
    1_833, 2_107, 2_411, 2_746, 3_115, 3_523, //
    3_973, 4_470, 5_018, 5_624, 6_291, 7_028, //
    7_842, 8_740, 9_730, 10_824, 12_031, 13_363, //
    14_833, 16_456, 18_247, 20_224, 22_406, 24_815, //
    27_473, 30_408, 33_648, 37_224, 41_171, 45_529, //
    50_339, 55_649, 61_512, 67_983, 75_127, 83_014, //
    91_721, 101_333, 111_945, 123_660, 136_594, 150_872, //
    166_636, 184_040, 203_254, 224_466, 247_886, 273_742, //
    302_288, 333_804, 368_599, 407_015, 449_428, 496_254, //
    547_953, 605_032, 668_051, 737_627, 814_445, 899_257, //
    992_895, 1_096_278, 1_210_421, 1_336_443, 1_475_581, 1_629_200, //
    1_798_808, 1_986_068, 2_192_818, 2_421_087, 2_673_114, 2_951_373, //
    3_258_594, 3_597_792, 3_972_294, 4_385_776, 4_842_295, 5_346_332, //
    5_902_831, 6_517_253, 7_195_629, 7_944_614, 8_771_558, 9_684_577, //
    10_692_629, 11_805_606, 13_034_431,
];

/// The level reached with `xp` whole points (1 ..= [`MAX_LEVEL`]).
pub fn level_for_xp(xp: u32) -> u8 {
    // XP_TABLE[0] is 0, so at least one entry is <= xp and the count is 1..=99.
    let reached = XP_TABLE.partition_point(|&needed| needed <= xp);
    reached as u8
}

/// The whole XP at which `level` is reached; levels below 1 read as 1 and above
/// [`MAX_LEVEL`] as [`MAX_LEVEL`].
pub fn xp_for_level(level: u8) -> u32 {
    let level = level.clamp(1, MAX_LEVEL);
    XP_TABLE[usize::from(level) - 1]
}

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
    fn xp_table_matches_the_formula() {
        let mut points = 0u64;
        for level in 2..=u32::from(MAX_LEVEL) {
            let n = f64::from(level - 1);
            points += (n + 300.0 * 2f64.powf(n / 7.0)).floor() as u64;
            assert_eq!(
                u64::from(XP_TABLE[level as usize - 1]),
                points / 4,
                "level {level}"
            );
        }
    }

    #[test]
    fn skill_discriminants_follow_the_all_list() {
        for (index, skill) in Skill::ALL.into_iter().enumerate() {
            assert_eq!(skill as usize, index, "{skill}");
        }
    }
}
