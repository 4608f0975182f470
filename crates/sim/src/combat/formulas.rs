//! The classic melee and ranged formulas (Old School RuneScape Wiki: "Maximum melee hit",
//! "Maximum ranged hit", "Combat styles", "Damage per second/Melee"), in integers wherever the
//! originals are, so a boundary never moves by a rounding error.
//!
//! One attack: effective level = ⌊level × prayer⌋ + style bonus + 8; max roll = effective level ×
//! (equipment bonus + 64); the attacker hits when a uniform draw from `0..=attack roll` beats one
//! from `0..=defence roll`; a hit deals a uniform `0..=max hit`. Magic weapons (staves) fight in
//! melee here: there are no spells yet.

use rand::Rng;
use wayfarer_content::{AttackStyle, Bonuses, NpcStats, Prayer, Skill, WeaponStats};

use crate::skills::Xp;

/// Added to every effective level (the "+8" of the wiki formulas).
pub const EFFECTIVE_LEVEL_BASE: u32 = 8;

/// Added to an NPC's level instead of a player's style bonus and base: monsters fight as if on a
/// +1 style (Old School RuneScape Wiki: "Monster attack roll", "Monster defence roll").
pub const NPC_EFFECTIVE_LEVEL_BASE: u32 = 9;

/// Added to every equipment bonus in a max roll or max hit (the "+64").
pub const EQUIPMENT_BONUS_BASE: i64 = 64;

/// Max hit: `⌊(effective strength × (bonus + 64) + MAX_HIT_ROUNDING) / MAX_HIT_DIVISOR⌋`,
/// the wiki's `⌊0.5 + e × (b + 64) / 640⌋` in integers.
pub const MAX_HIT_DIVISOR: i64 = 640;

/// Half of [`MAX_HIT_DIVISOR`]: rounds the max hit to the nearest integer.
pub const MAX_HIT_ROUNDING: i64 = MAX_HIT_DIVISOR / 2;

/// Prayer multipliers are whole percentages; 100 is no prayer.
pub const PRAYER_PERCENT_NONE: u32 = 100;

/// Invisible level bonus of a style that trains one skill (accurate, aggressive, defensive;
/// accurate and longrange for ranged).
pub const FOCUSED_STYLE_BONUS: u32 = 3;

/// Invisible level bonus the controlled style gives to each of attack, strength and defence.
pub const CONTROLLED_STYLE_BONUS: u32 = 1;

/// Ticks the rapid style takes off a ranged weapon's attack interval.
pub const RAPID_SPEED_BONUS_TICKS: u32 = 1;

/// The shortest attack interval.
pub const MIN_ATTACK_SPEED_TICKS: u32 = 1;

/// Tiles the longrange style adds to a ranged weapon's reach.
pub const LONGRANGE_EXTRA_RANGE_TILES: u32 = 2;

/// The longest reach any attack has (the genre's cap on longrange reach).
pub const MAX_ATTACK_RANGE_TILES: u32 = 10;

/// XP for each point of damage, in tenths of a point, per `per_damage` points of damage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct XpRate {
    /// Tenths of a point granted…
    pub tenths: u32,
    /// …for this much damage.
    pub per_damage: u32,
}

/// 4 XP per damage to the one skill a focused style trains.
pub const FOCUSED_XP_RATE: XpRate = XpRate {
    tenths: 40,
    per_damage: 1,
};

/// 4/3 (1.33) XP per damage to each of attack, strength and defence on the controlled style.
pub const CONTROLLED_XP_RATE: XpRate = XpRate {
    tenths: 40,
    per_damage: 3,
};

/// 2 XP per damage to each of ranged and defence on the longrange style.
pub const LONGRANGE_XP_RATE: XpRate = XpRate {
    tenths: 20,
    per_damage: 1,
};

/// 4/3 (1.33) Constitution XP per damage, whatever the style.
pub const CONSTITUTION_XP_RATE: XpRate = XpRate {
    tenths: 40,
    per_damage: 3,
};

impl XpRate {
    /// The XP `damage` earns at this rate, rounded down to a tenth.
    pub fn for_damage(self, damage: u32) -> Xp {
        let tenths = u64::from(damage) * u64::from(self.tenths) / u64::from(self.per_damage.max(1));
        Xp::from_tenths(u32::try_from(tenths).unwrap_or(u32::MAX))
    }
}

/// A combat style, as `player:action {action: "combat_style"}` names it (CONTRACT.md section 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CombatStyle {
    /// Melee: +3 attack, trains attack. Ranged: +3 ranged accuracy and strength, trains ranged.
    #[default]
    Accurate,
    /// Melee: +3 strength, trains strength.
    Aggressive,
    /// Melee: +3 defence, trains defence.
    Defensive,
    /// Melee: +1 attack, strength and defence, trains all three.
    Controlled,
    /// Ranged: attacks one tick sooner, trains ranged.
    Rapid,
    /// Ranged: +3 defence and +2 tiles of reach, trains ranged and defence.
    Longrange,
}

impl CombatStyle {
    /// Every style.
    pub const ALL: [CombatStyle; 6] = [
        CombatStyle::Accurate,
        CombatStyle::Aggressive,
        CombatStyle::Defensive,
        CombatStyle::Controlled,
        CombatStyle::Rapid,
        CombatStyle::Longrange,
    ];

    /// The wire name (`"longrange"`).
    pub fn as_str(self) -> &'static str {
        match self {
            CombatStyle::Accurate => "accurate",
            CombatStyle::Aggressive => "aggressive",
            CombatStyle::Defensive => "defensive",
            CombatStyle::Controlled => "controlled",
            CombatStyle::Rapid => "rapid",
            CombatStyle::Longrange => "longrange",
        }
    }

    /// Parses a wire name (exact, lower case).
    pub fn parse(name: &str) -> Option<CombatStyle> {
        CombatStyle::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// Whether a weapon of this family can use the style: accurate works with everything,
    /// aggressive, defensive and controlled only in melee (staves included), rapid and longrange
    /// only with ranged weapons.
    pub fn suits(self, weapon: AttackStyle) -> bool {
        match self {
            CombatStyle::Accurate => true,
            CombatStyle::Aggressive | CombatStyle::Defensive | CombatStyle::Controlled => {
                weapon != AttackStyle::Ranged
            }
            CombatStyle::Rapid | CombatStyle::Longrange => weapon == AttackStyle::Ranged,
        }
    }

    /// The invisible level bonuses of this style with a weapon of `weapon`'s family.
    pub fn level_bonus(self, weapon: AttackStyle) -> StyleBonus {
        let focused = FOCUSED_STYLE_BONUS;
        let (attack, strength, defence) = match (self, weapon == AttackStyle::Ranged) {
            (CombatStyle::Accurate, false) => (focused, 0, 0),
            // Ranged accurate raises the ranged level for both accuracy and damage.
            (CombatStyle::Accurate, true) => (focused, focused, 0),
            (CombatStyle::Aggressive, _) => (0, focused, 0),
            (CombatStyle::Defensive, _) => (0, 0, focused),
            (CombatStyle::Controlled, _) => (
                CONTROLLED_STYLE_BONUS,
                CONTROLLED_STYLE_BONUS,
                CONTROLLED_STYLE_BONUS,
            ),
            (CombatStyle::Rapid, _) => (0, 0, 0),
            (CombatStyle::Longrange, _) => (0, 0, focused),
        };
        StyleBonus {
            attack,
            strength,
            defence,
        }
    }

    /// Ticks between attacks with a weapon of `weapon_ticks` (rapid is one tick faster).
    pub fn attack_speed_ticks(self, weapon_ticks: u32) -> u32 {
        let ticks = match self {
            CombatStyle::Rapid => weapon_ticks.saturating_sub(RAPID_SPEED_BONUS_TICKS),
            _ => weapon_ticks,
        };
        ticks.max(MIN_ATTACK_SPEED_TICKS)
    }

    /// Reach in tiles with a weapon of `weapon_tiles` (longrange adds
    /// [`LONGRANGE_EXTRA_RANGE_TILES`], up to [`MAX_ATTACK_RANGE_TILES`]).
    pub fn attack_range_tiles(self, weapon_tiles: u32) -> u32 {
        match self {
            CombatStyle::Longrange => weapon_tiles
                .saturating_add(LONGRANGE_EXTRA_RANGE_TILES)
                .min(MAX_ATTACK_RANGE_TILES.max(weapon_tiles)),
            _ => weapon_tiles,
        }
    }
}

/// The invisible levels a style adds. With a ranged weapon `attack` and `strength` are ranged
/// accuracy and ranged strength.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StyleBonus {
    /// Added to the effective attack (or ranged accuracy) level.
    pub attack: u32,
    /// Added to the effective strength (or ranged strength) level.
    pub strength: u32,
    /// Added to the effective defence level.
    pub defence: u32,
}

/// What an attack is, for picking the attacker's and the defender's equipment bonuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttackType {
    /// Daggers, spears.
    Stab,
    /// Swords, axes, scimitars.
    Slash,
    /// Maces, hammers, staves, fists.
    Crush,
    /// Bows and thrown weapons.
    Ranged,
}

/// Attack type of an NPC's melee attacks: content gives NPCs no attack type, and slash is what
/// the genre's common low-level monsters (goblins, guards, bandits) swing.
pub const NPC_MELEE_ATTACK_TYPE: AttackType = AttackType::Slash;

impl AttackType {
    /// The attack type of a wielded weapon, or of bare fists (crush) when there is none.
    ///
    /// Content names weapon types (`SWORD`, `DAGGER`, …) but not stab/slash/crush; each type gets
    /// the one its default style uses in the genre, and unknown types slash.
    pub fn of_weapon(weapon: Option<&WeaponStats>) -> AttackType {
        let Some(weapon) = weapon else {
            return AttackType::Crush;
        };
        if weapon.attack_style == AttackStyle::Ranged {
            return AttackType::Ranged;
        }
        match weapon.weapon_type.to_ascii_uppercase().as_str() {
            "DAGGER" | "SPEAR" | "RAPIER" | "HASTA" => AttackType::Stab,
            "MACE" | "HAMMER" | "WARHAMMER" | "MAUL" | "STAFF" | "WAND" | "CLAWS" => {
                AttackType::Crush
            }
            _ => AttackType::Slash,
        }
    }

    /// Whether this is a melee attack.
    pub fn is_melee(self) -> bool {
        self != AttackType::Ranged
    }

    /// The attacker's accuracy bonus for this attack (content has one melee accuracy bonus).
    pub fn attack_bonus(self, bonuses: &Bonuses) -> i32 {
        match self {
            AttackType::Ranged => bonuses.attack_ranged,
            _ => bonuses.attack_melee,
        }
    }

    /// The attacker's strength bonus for this attack.
    pub fn strength_bonus(self, bonuses: &Bonuses) -> i32 {
        match self {
            AttackType::Ranged => bonuses.strength_ranged,
            _ => bonuses.strength_melee,
        }
    }

    /// The defender's defence bonus against this attack.
    pub fn defence_bonus(self, bonuses: &Bonuses) -> i32 {
        match self {
            AttackType::Stab => bonuses.defense_stab,
            AttackType::Slash => bonuses.defense_slash,
            AttackType::Crush => bonuses.defense_crush,
            AttackType::Ranged => bonuses.defense_ranged,
        }
    }
}

/// Active prayers' boosts, as whole percentages ([`PRAYER_PERCENT_NONE`] = none). Percentages
/// rather than `f64` factors so `⌊level × 1.15⌋` cannot come out one short (`20 × 1.15` is
/// `22.999…` in floating point).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrayerBoosts {
    /// Attack (melee accuracy) percentage.
    pub attack_percent: u32,
    /// Strength (melee damage) percentage.
    pub strength_percent: u32,
    /// Defence percentage.
    pub defence_percent: u32,
}

impl Default for PrayerBoosts {
    fn default() -> Self {
        PrayerBoosts::NONE
    }
}

impl PrayerBoosts {
    /// No prayer active.
    pub const NONE: PrayerBoosts = PrayerBoosts {
        attack_percent: PRAYER_PERCENT_NONE,
        strength_percent: PRAYER_PERCENT_NONE,
        defence_percent: PRAYER_PERCENT_NONE,
    };

    /// The boosts of the active prayers: the strongest of each kind (content makes prayers of a
    /// kind conflict, so normally there is one).
    pub fn of<'a>(active: impl IntoIterator<Item = &'a Prayer>) -> PrayerBoosts {
        let mut boosts = PrayerBoosts::NONE;
        for prayer in active {
            boosts.attack_percent = boosts
                .attack_percent
                .max(multiplier_percent(prayer.attack_multiplier));
            boosts.strength_percent = boosts
                .strength_percent
                .max(multiplier_percent(prayer.strength_multiplier));
            boosts.defence_percent = boosts
                .defence_percent
                .max(multiplier_percent(prayer.defense_multiplier));
        }
        boosts
    }
}

/// A content multiplier (`1.05`) as a whole percentage (`105`); nonsense (NaN, negative) is none.
fn multiplier_percent(multiplier: f64) -> u32 {
    let percent = (multiplier * f64::from(PRAYER_PERCENT_NONE)).round();
    if percent.is_finite() && percent >= 0.0 {
        // Clamped into u32's range first, so the cast is exact.
        percent.min(f64::from(u32::MAX)) as u32
    } else {
        PRAYER_PERCENT_NONE
    }
}

/// Effective level: `⌊level × prayer_percent / 100⌋ + style_bonus + 8`.
pub fn effective_level(level: u32, prayer_percent: u32, style_bonus: u32) -> u32 {
    let prayed = u64::from(level) * u64::from(prayer_percent) / u64::from(PRAYER_PERCENT_NONE);
    u32::try_from(prayed)
        .unwrap_or(u32::MAX)
        .saturating_add(style_bonus)
        .saturating_add(EFFECTIVE_LEVEL_BASE)
}

/// A maximum attack or defence roll: `effective level × (equipment bonus + 64)`, never below 0
/// (bonuses can be negative).
pub fn max_roll(effective_level: u32, equipment_bonus: i32) -> u64 {
    let roll = i64::from(effective_level) * (i64::from(equipment_bonus) + EQUIPMENT_BONUS_BASE);
    u64::try_from(roll).unwrap_or(0)
}

/// Max hit: `⌊(effective strength × (strength bonus + 64) + 320) / 640⌋`, never below 0.
pub fn max_hit(effective_strength: u32, strength_bonus: i32) -> u32 {
    let scaled = i64::from(effective_strength) * (i64::from(strength_bonus) + EQUIPMENT_BONUS_BASE);
    let hit = (scaled + MAX_HIT_ROUNDING).div_euclid(MAX_HIT_DIVISOR);
    u32::try_from(hit.max(0)).unwrap_or(u32::MAX)
}

/// The chance that an attack roll of `attack` beats a defence roll of `defence`:
/// `1 − (D + 2) / (2(A + 1))` when `A > D`, else `A / (2(D + 1))`. It is exactly the chance that
/// [`rolls_hit`] returns true.
pub fn hit_chance(attack: u64, defence: u64) -> f64 {
    let a = attack as f64;
    let d = defence as f64;
    if attack > defence {
        1.0 - (d + 2.0) / (2.0 * (a + 1.0))
    } else {
        a / (2.0 * (d + 1.0))
    }
}

/// Whether an attack lands: a uniform draw from `0..=attack` beats one from `0..=defence`.
pub fn rolls_hit<R: Rng + ?Sized>(rng: &mut R, attack: u64, defence: u64) -> bool {
    let attack_draw = rng.random_range(0..=attack);
    let defence_draw = rng.random_range(0..=defence);
    attack_draw > defence_draw
}

/// The damage of a landed hit: uniform in `0..=max_hit`.
pub fn roll_damage<R: Rng + ?Sized>(rng: &mut R, max_hit: u32) -> u32 {
    rng.random_range(0..=max_hit)
}

/// One attack's damage: 0 on a miss, else a uniform `0..=max_hit`.
pub fn roll_attack<R: Rng + ?Sized>(rng: &mut R, attack: u64, defence: u64, max_hit: u32) -> u32 {
    if rolls_hit(rng, attack, defence) {
        roll_damage(rng, max_hit)
    } else {
        0
    }
}

/// A player's side of a fight: current (boosted or drained) levels, prayers, worn equipment's
/// summed bonuses, style and the wielded weapon's attack type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayerCombatant {
    /// Current attack level.
    pub attack_level: u32,
    /// Current strength level.
    pub strength_level: u32,
    /// Current defence level.
    pub defence_level: u32,
    /// Current ranged level.
    pub ranged_level: u32,
    /// Active prayers (melee only: content has no ranged prayers).
    pub prayer: PrayerBoosts,
    /// Summed bonuses of everything worn.
    pub bonuses: Bonuses,
    /// The selected combat style.
    pub style: CombatStyle,
    /// What the player attacks with (see [`AttackType::of_weapon`]).
    pub attack_type: AttackType,
}

impl PlayerCombatant {
    fn style_bonus(&self) -> StyleBonus {
        let family = if self.is_ranged() {
            AttackStyle::Ranged
        } else {
            AttackStyle::Melee
        };
        self.style.level_bonus(family)
    }

    fn is_ranged(&self) -> bool {
        self.attack_type == AttackType::Ranged
    }

    /// Effective attack level (ranged accuracy level with a ranged weapon).
    pub fn effective_attack(&self) -> u32 {
        if self.is_ranged() {
            effective_level(
                self.ranged_level,
                PRAYER_PERCENT_NONE,
                self.style_bonus().attack,
            )
        } else {
            effective_level(
                self.attack_level,
                self.prayer.attack_percent,
                self.style_bonus().attack,
            )
        }
    }

    /// Effective strength level (ranged strength level with a ranged weapon).
    pub fn effective_strength(&self) -> u32 {
        if self.is_ranged() {
            effective_level(
                self.ranged_level,
                PRAYER_PERCENT_NONE,
                self.style_bonus().strength,
            )
        } else {
            effective_level(
                self.strength_level,
                self.prayer.strength_percent,
                self.style_bonus().strength,
            )
        }
    }

    /// Effective defence level.
    pub fn effective_defence(&self) -> u32 {
        effective_level(
            self.defence_level,
            self.prayer.defence_percent,
            self.style_bonus().defence,
        )
    }

    /// Maximum attack roll.
    pub fn attack_roll(&self) -> u64 {
        max_roll(
            self.effective_attack(),
            self.attack_type.attack_bonus(&self.bonuses),
        )
    }

    /// Max hit.
    pub fn max_hit(&self) -> u32 {
        max_hit(
            self.effective_strength(),
            self.attack_type.strength_bonus(&self.bonuses),
        )
    }

    /// Maximum defence roll against an attack of `incoming` type.
    pub fn defence_roll(&self, incoming: AttackType) -> u64 {
        max_roll(
            self.effective_defence(),
            incoming.defence_bonus(&self.bonuses),
        )
    }
}

/// An NPC's maximum attack roll: `(attack + 9) × 64` (content gives NPCs no attack bonus).
pub fn npc_attack_roll(stats: &NpcStats) -> u64 {
    max_roll(npc_effective_level(stats.attack), 0)
}

/// An NPC's max hit from its strength level (content gives NPCs no strength bonus).
pub fn npc_max_hit(stats: &NpcStats) -> u32 {
    max_hit(npc_effective_level(stats.strength), 0)
}

/// An NPC's ranged attack roll from its ranged level (no bonus), as its melee one from attack.
pub fn npc_ranged_attack_roll(stats: &NpcStats) -> u64 {
    max_roll(npc_effective_level(stats.ranged), 0)
}

/// An NPC's ranged max hit from its ranged level (content gives NPCs no ranged strength).
pub fn npc_ranged_max_hit(stats: &NpcStats) -> u32 {
    max_hit(npc_effective_level(stats.ranged), 0)
}

/// An NPC's maximum defence roll against any attack: `(defence + 9) × (defence bonus + 64)`.
pub fn npc_defence_roll(stats: &NpcStats) -> u64 {
    max_roll(npc_effective_level(stats.defense), stats.defense_bonus)
}

fn npc_effective_level(level: u32) -> u32 {
    level.saturating_add(NPC_EFFECTIVE_LEVEL_BASE)
}

/// Most skills one hit trains (attack, strength, defence and constitution on controlled).
const MAX_XP_GRANTS: usize = 4;

/// The XP one hit grants, skill by skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CombatXp {
    grants: [(Skill, Xp); MAX_XP_GRANTS],
    len: usize,
}

impl CombatXp {
    /// Each skill with its XP, in a fixed order (style skills, then constitution). Empty when
    /// the hit did no damage.
    pub fn iter(&self) -> impl Iterator<Item = (Skill, Xp)> + '_ {
        self.grants[..self.len].iter().copied()
    }

    /// The XP granted to `skill` (zero if none).
    pub fn get(&self, skill: Skill) -> Xp {
        self.iter()
            .find(|(s, _)| *s == skill)
            .map_or(Xp::ZERO, |(_, xp)| xp)
    }
}

/// The XP a player earns for dealing `damage` with `style` and a weapon of `weapon`'s family:
/// 4 per damage to the style's skill (controlled 1.33 to each of attack, strength and defence;
/// longrange 2 to each of ranged and defence), plus 1.33 per damage to constitution.
pub fn combat_xp(style: CombatStyle, weapon: AttackStyle, damage: u32) -> CombatXp {
    let ranged = weapon == AttackStyle::Ranged;
    let style_grants: &[(Skill, XpRate)] = match (style, ranged) {
        (CombatStyle::Accurate, false) => &[(Skill::Attack, FOCUSED_XP_RATE)],
        (CombatStyle::Aggressive, _) => &[(Skill::Strength, FOCUSED_XP_RATE)],
        (CombatStyle::Defensive, _) => &[(Skill::Defense, FOCUSED_XP_RATE)],
        (CombatStyle::Controlled, _) => &[
            (Skill::Attack, CONTROLLED_XP_RATE),
            (Skill::Strength, CONTROLLED_XP_RATE),
            (Skill::Defense, CONTROLLED_XP_RATE),
        ],
        (CombatStyle::Accurate, true) | (CombatStyle::Rapid, _) => {
            &[(Skill::Ranged, FOCUSED_XP_RATE)]
        }
        (CombatStyle::Longrange, _) => &[
            (Skill::Ranged, LONGRANGE_XP_RATE),
            (Skill::Defense, LONGRANGE_XP_RATE),
        ],
    };
    let mut xp = CombatXp {
        grants: [(Skill::Constitution, Xp::ZERO); MAX_XP_GRANTS],
        len: 0,
    };
    if damage == 0 {
        return xp;
    }
    let all = style_grants.iter().chain(std::iter::once(&(
        Skill::Constitution,
        CONSTITUTION_XP_RATE,
    )));
    for (slot, &(skill, rate)) in xp.grants.iter_mut().zip(all) {
        *slot = (skill, rate.for_damage(damage));
        xp.len += 1;
    }
    xp
}
