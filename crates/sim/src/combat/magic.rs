//! Magic: the classic formulas for spells (Old School RuneScape Wiki: "Damage per second/Magic",
//! "Maximum magic hit", "Standard spellbook", "Hitpoints" for the XP), in integers like the melee
//! ones in `formulas`, and which runes a cast takes once a staff's runes are taken out.
//!
//! ```text
//! attack roll         = (⌊magic⌋ + 8) × (magic attack bonus + 64)
//! player defence roll = (⌊(7 × magic + 3 × ⌊defence × prayer⌋) / 10⌋ + style defence + 8)
//!                       × (magic defence bonus + 64)
//! NPC defence roll    = (magic + 9) × (defence bonus + 64)
//! max hit             = ⌊spell's base max hit × (100 + magic damage %) / 100⌋
//! XP                  = spell XP per cast + 2 per damage (magic), 1.33 per damage (hitpoints)
//! ```

use wayfarer_content::{AttackStyle, Bonuses, Item, ItemAmount, NpcStats, Spell};

use crate::combat::formulas::{
    max_hit, max_roll, AttackType, PlayerCombatant, XpRate, CONSTITUTION_XP_RATE,
    EFFECTIVE_LEVEL_BASE, NPC_EFFECTIVE_LEVEL_BASE, PRAYER_PERCENT_NONE,
};
use crate::skills::Xp;

/// How far a spell reaches, in tiles (Chebyshev), whatever is wielded: the genre's 10 tiles.
pub const CASTING_RANGE_TILES: u32 = 10;

/// 2 magic XP per damage, on top of the spell's own XP.
pub const MAGIC_XP_RATE: XpRate = XpRate {
    tenths: 20,
    per_damage: 1,
};

/// The weight of the magic level in a player's magic defence, in tenths (the rest is defence).
pub const MAGIC_DEFENCE_MAGIC_TENTHS: u32 = 7;

/// A player's maximum magic attack roll: `(magic + 8) × (magic attack bonus + 64)`. Content has
/// no magic prayers, and standard spells have no style bonus.
pub fn magic_attack_roll(magic_level: u32, bonuses: &Bonuses) -> u64 {
    max_roll(
        magic_level.saturating_add(EFFECTIVE_LEVEL_BASE),
        bonuses.attack_magic,
    )
}

/// A spell's max hit with `bonuses` worn: the base max hit raised by the magic damage
/// percentage, rounded down, never below 0.
pub fn spell_max_hit(base_max_hit: u32, bonuses: &Bonuses) -> u32 {
    let percent = 100i64 + i64::from(bonuses.magic_damage);
    let hit = i64::from(base_max_hit) * percent.max(0) / 100;
    u32::try_from(hit).unwrap_or(u32::MAX)
}

/// A player's maximum defence roll against a spell: 70% of the magic level and 30% of the
/// (prayed) defence level, plus the style's defence bonus and 8, times the magic defence bonus
/// + 64.
pub fn player_magic_defence_roll(magic_level: u32, defender: &PlayerCombatant) -> u64 {
    let prayed_defence = u64::from(defender.defence_level)
        * u64::from(defender.prayer.defence_percent)
        / u64::from(PRAYER_PERCENT_NONE);
    let weighted = (u64::from(MAGIC_DEFENCE_MAGIC_TENTHS) * u64::from(magic_level)
        + u64::from(10 - MAGIC_DEFENCE_MAGIC_TENTHS) * prayed_defence)
        / 10;
    let family = if defender.attack_type == AttackType::Ranged {
        AttackStyle::Ranged
    } else {
        AttackStyle::Melee
    };
    let style = u64::from(defender.style.level_bonus(family).defence);
    let effective = weighted + style + u64::from(EFFECTIVE_LEVEL_BASE);
    max_roll(
        u32::try_from(effective).unwrap_or(u32::MAX),
        defender.bonuses.defense_magic,
    )
}

/// An NPC's maximum defence roll against a spell: `(magic + 9) × (defence bonus + 64)` (content
/// gives NPCs one defence bonus against everything).
pub fn npc_magic_defence_roll(stats: &NpcStats) -> u64 {
    max_roll(
        stats.magic.saturating_add(NPC_EFFECTIVE_LEVEL_BASE),
        stats.defense_bonus,
    )
}

/// A casting NPC's maximum attack roll: `(magic + 9) × 64` (content gives NPCs no bonuses).
pub fn npc_magic_attack_roll(stats: &NpcStats) -> u64 {
    max_roll(stats.magic.saturating_add(NPC_EFFECTIVE_LEVEL_BASE), 0)
}

/// A casting NPC's max hit: its spell's base max hit, or, naming none, the melee formula on its
/// magic level (content gives monsters no max hit).
pub fn npc_magic_max_hit(stats: &NpcStats, spell: Option<&Spell>) -> u32 {
    match spell {
        Some(spell) => spell.base_max_hit,
        None => max_hit(stats.magic.saturating_add(NPC_EFFECTIVE_LEVEL_BASE), 0),
    }
}

/// The XP of one cast that dealt `damage`: the spell's XP plus 2 per damage to magic, 1.33 per
/// damage to hitpoints (rounded down to a tenth; a splash earns the spell's XP alone).
pub fn magic_xp(spell: &Spell, damage: u32) -> (Xp, Xp) {
    let base = Xp::from_f64(spell.xp);
    let magic = base.saturating_add(MAGIC_XP_RATE.for_damage(damage));
    (magic, CONSTITUTION_XP_RATE.for_damage(damage))
}

/// The runes one cast of `spell` takes from the inventory with `weapon` wielded: its runes, less
/// those the weapon supplies (`providesInfiniteRunes`, the elemental staves).
pub fn runes_needed(spell: &Spell, weapon: Option<&Item>) -> Vec<ItemAmount> {
    let free = weapon.map_or(&[][..], |w| w.provides_infinite_runes.as_slice());
    spell
        .runes
        .iter()
        .filter(|rune| !free.contains(&rune.item_id))
        .cloned()
        .collect()
}
