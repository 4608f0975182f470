//! Item definitions: `items/*.json` (merged) with legacy `items.json` as a fallback.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::common::{Ctx, ItemId, RefKind};
use crate::skill::Skill;
use crate::ticks::ms_to_ticks;

/// One item definition.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    /// Unique id.
    pub id: ItemId,
    /// Display name.
    pub name: String,
    /// The manifest `type` (resource, tool, weapon, armor, junk, ammunition, misc, currency, consumable).
    pub kind: String,
    /// Short description.
    pub description: String,
    /// Examine text.
    pub examine: String,
    /// Base coin value (store price and trade value).
    pub value: u64,
    /// Weight in kg-like units.
    pub weight: f64,
    /// Whether players may trade it.
    pub tradeable: bool,
    /// Whether one inventory slot holds many.
    pub stackable: bool,
    /// Largest stack (1 for items that do not stack).
    pub max_stack: u32,
    /// Rarity label.
    pub rarity: String,
    /// Tier label (bronze … rune, normal … magic), when given.
    pub tier: Option<String>,
    /// Ground model asset.
    pub model_path: Option<String>,
    /// Inventory icon asset.
    pub icon_path: Option<String>,
    /// Model shown when worn.
    pub equipped_model_path: Option<String>,
    /// Right-click actions (`Wield`, `Eat`, `Bury`, …).
    pub inventory_actions: Vec<String>,
    /// Where it is worn, when wearable.
    pub equip_slot: Option<EquipSlot>,
    /// Weapon properties, when it can be wielded to attack.
    pub weapon: Option<WeaponStats>,
    /// Combat bonuses (all keys normalised; missing ones are 0).
    pub bonuses: Bonuses,
    /// Skill levels needed to wear or use it.
    pub requirements: BTreeMap<Skill, u32>,
    /// Gathering-tool properties, when it is a ranked tool.
    pub tool: Option<ToolInfo>,
    /// Prayer XP for burying (bones).
    pub prayer_xp: Option<f64>,
    /// Hit points restored when eaten.
    pub heal_amount: Option<u32>,
    /// Effect when used (XP lamps).
    pub use_effect: Option<UseEffect>,
    /// Rune items this staff supplies without consuming them.
    pub provides_infinite_runes: Vec<ItemId>,
}

/// An equipment slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum EquipSlot {
    /// One-handed weapon.
    Weapon,
    /// Two-handed weapon (`2h`): occupies the weapon and shield slots.
    TwoHanded,
    /// Shield.
    Shield,
    /// Arrows and other ammunition.
    Arrows,
    /// Helmet.
    Helmet,
    /// Body armour.
    Body,
    /// Leg armour.
    Legs,
    /// Gloves.
    Gloves,
    /// Boots.
    Boots,
    /// Cape.
    Cape,
    /// Amulet.
    Amulet,
    /// Ring.
    Ring,
}

impl EquipSlot {
    /// Parses a manifest slot name.
    pub fn parse(name: &str) -> Option<EquipSlot> {
        Some(match name.to_ascii_lowercase().as_str() {
            "weapon" => EquipSlot::Weapon,
            "2h" | "twohanded" | "two_handed" => EquipSlot::TwoHanded,
            "shield" | "offhand" => EquipSlot::Shield,
            "arrows" | "ammo" | "ammunition" => EquipSlot::Arrows,
            "helmet" | "head" => EquipSlot::Helmet,
            "body" | "chest" => EquipSlot::Body,
            "legs" => EquipSlot::Legs,
            "gloves" | "hands" => EquipSlot::Gloves,
            "boots" | "feet" => EquipSlot::Boots,
            "cape" | "back" => EquipSlot::Cape,
            "amulet" | "neck" => EquipSlot::Amulet,
            "ring" => EquipSlot::Ring,
            _ => return None,
        })
    }
}

/// Weapon properties.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WeaponStats {
    /// SWORD, AXE, BOW, STAFF, …
    pub weapon_type: String,
    /// Combat style family.
    pub attack_style: AttackStyle,
    /// Ticks between attacks.
    pub attack_speed_ticks: u32,
    /// Reach in tiles.
    pub attack_range: u32,
}

/// Melee, ranged or magic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AttackStyle {
    /// Close combat.
    Melee,
    /// Bows and arrows.
    Ranged,
    /// Staves and spells.
    Magic,
}

/// Combat bonuses under one naming, whatever the file called them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Bonuses {
    /// Melee accuracy (`attack`).
    pub attack_melee: i32,
    /// Ranged accuracy (`ranged`, `attackRanged`).
    pub attack_ranged: i32,
    /// Magic accuracy (`attackMagic`, `magic`).
    pub attack_magic: i32,
    /// Melee strength (`strength`).
    pub strength_melee: i32,
    /// Ranged strength (`rangedStrength`).
    pub strength_ranged: i32,
    /// Stab defence (`defenseStab`, plus the generic `defense`).
    pub defense_stab: i32,
    /// Slash defence (`defenseSlash`, plus the generic `defense`).
    pub defense_slash: i32,
    /// Crush defence (`defenseCrush`, plus the generic `defense`).
    pub defense_crush: i32,
    /// Ranged defence (`defenseRanged`).
    pub defense_ranged: i32,
    /// Magic defence (`magicDefense`, `defenseMagic`).
    pub defense_magic: i32,
    /// Prayer bonus (`prayer`).
    pub prayer: i32,
    /// Magic damage, in percent of a spell's max hit (`magicDamage`, `magicStrength`).
    pub magic_damage: i32,
}

impl Bonuses {
    /// Adds one manifest bonus key; returns false when the key is not a known bonus name.
    fn apply(&mut self, key: &str, value: i32) -> bool {
        match key {
            "attack" | "attackMelee" => self.attack_melee += value,
            "ranged" | "attackRanged" | "rangedAttack" => self.attack_ranged += value,
            "magic" | "attackMagic" | "magicAttack" => self.attack_magic += value,
            "strength" | "meleeStrength" | "strengthMelee" => self.strength_melee += value,
            "rangedStrength" | "strengthRanged" => self.strength_ranged += value,
            "defense" | "defence" => {
                self.defense_stab += value;
                self.defense_slash += value;
                self.defense_crush += value;
            }
            "defenseStab" | "defenceStab" => self.defense_stab += value,
            "defenseSlash" | "defenceSlash" => self.defense_slash += value,
            "defenseCrush" | "defenceCrush" => self.defense_crush += value,
            "defenseRanged" | "defenceRanged" | "rangedDefense" => self.defense_ranged += value,
            "defenseMagic" | "defenceMagic" | "magicDefense" | "magicDefence" => {
                self.defense_magic += value
            }
            "prayer" | "prayerBonus" => self.prayer += value,
            "magicDamage" | "magicStrength" | "strengthMagic" => self.magic_damage += value,
            _ => return false,
        }
        true
    }
}

/// A ranked gathering tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolInfo {
    /// The skill it is used for.
    pub skill: Skill,
    /// Rank among tools of the same skill (1 = bronze … 6 = rune); the best one held is used.
    pub priority: u32,
    /// Mining roll interval in ticks (pickaxes).
    pub roll_ticks: Option<u32>,
}

/// What happens when an item is used.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UseEffect {
    /// Effect name (`xp_lamp`).
    pub kind: String,
    /// XP granted, for XP lamps.
    pub xp_amount: f64,
    /// Whether the item is consumed.
    pub consume_on_use: bool,
}

/// An item as written in the files.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawItem {
    pub id: String,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub examine: Option<String>,
    pub value: i64,
    #[serde(default)]
    pub weight: Option<f64>,
    #[serde(default)]
    pub tradeable: Option<bool>,
    #[serde(default)]
    pub rarity: Option<String>,
    #[serde(default)]
    pub stackable: Option<bool>,
    #[serde(default)]
    pub max_stack_size: Option<i64>,
    #[serde(default)]
    pub model_path: Option<String>,
    #[serde(default)]
    pub icon_path: Option<String>,
    #[serde(default)]
    pub equipped_model_path: Option<String>,
    #[serde(default)]
    pub inventory_actions: Option<Vec<String>>,
    #[serde(default)]
    pub equip_slot: Option<String>,
    #[serde(default)]
    pub weapon_type: Option<String>,
    #[serde(default)]
    pub attack_type: Option<String>,
    #[serde(default)]
    pub attack_speed: Option<f64>,
    #[serde(default)]
    pub attack_range: Option<i64>,
    #[serde(default)]
    pub tier: Option<String>,
    #[serde(default)]
    pub bonuses: Option<BTreeMap<String, i64>>,
    #[serde(default)]
    pub requirements: Option<RawRequirements>,
    #[serde(default)]
    pub tool: Option<RawTool>,
    #[serde(default)]
    pub prayer_xp: Option<f64>,
    #[serde(default)]
    pub heal_amount: Option<i64>,
    #[serde(default)]
    pub use_effect: Option<RawUseEffect>,
    #[serde(default)]
    pub provides_infinite_runes: Option<Vec<String>>,
}

/// `requirements: {level, skills}`; `level` only repeats the skill level and is not read.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RawRequirements {
    #[serde(default)]
    pub skills: BTreeMap<String, i64>,
}

/// `tool: {skill, priority, rollTicks?}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawTool {
    pub skill: String,
    #[serde(default)]
    pub priority: Option<i64>,
    #[serde(default)]
    pub roll_ticks: Option<i64>,
}

/// `useEffect: {type, xpAmount, consumeOnUse}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawUseEffect {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub xp_amount: Option<f64>,
    #[serde(default)]
    pub consume_on_use: Option<bool>,
}

/// Ticks from an item `attackSpeed`: small numbers are ticks, large ones milliseconds.
fn attack_speed_ticks(raw: f64) -> u32 {
    if raw > 20.0 {
        ms_to_ticks(raw)
    } else {
        raw.round().max(1.0) as u32
    }
}

/// Normalises one item; `None` when the entry is unusable (empty id).
pub(crate) fn normalise(raw: &RawItem, index: usize, ctx: &mut Ctx<'_>) -> Option<Item> {
    let at = |field: &str| format!("[{index}].{field}");
    if !ctx.check_id(&raw.id, &at("id")) {
        return None;
    }
    let id = raw.id.as_str();
    if raw.value < 0 {
        ctx.invalid(id, &at("value"), format!("value {} is negative", raw.value));
    }
    let weight = ctx.non_negative(id, &at("weight"), raw.weight.unwrap_or(0.0));
    let stackable = raw.stackable.unwrap_or(false);
    let max_stack = match (stackable, raw.max_stack_size) {
        (false, _) => 1,
        (true, Some(n)) if n >= 1 => n.min(i64::from(u32::MAX)) as u32,
        (true, Some(n)) => {
            ctx.invalid(
                id,
                &at("maxStackSize"),
                format!("maxStackSize {n} must be at least 1"),
            );
            1
        }
        (true, None) => i32::MAX as u32,
    };
    let equip_slot = match raw.equip_slot.as_deref() {
        None => None,
        Some(name) => {
            let slot = EquipSlot::parse(name);
            if slot.is_none() {
                ctx.questionable(
                    id,
                    &at("equipSlot"),
                    format!("unknown equip slot `{name}`; the item cannot be worn"),
                );
            }
            slot
        }
    };
    let weapon = match (&raw.weapon_type, &raw.attack_type) {
        (Some(weapon_type), attack_type) => {
            let style = match attack_type
                .as_deref()
                .map(str::to_ascii_uppercase)
                .as_deref()
            {
                Some("RANGED") | Some("RANGE") => AttackStyle::Ranged,
                Some("MAGIC") => AttackStyle::Magic,
                _ => AttackStyle::Melee,
            };
            Some(WeaponStats {
                weapon_type: weapon_type.clone(),
                attack_style: style,
                attack_speed_ticks: attack_speed_ticks(raw.attack_speed.unwrap_or(4.0)),
                attack_range: ctx
                    .count(id, &at("attackRange"), raw.attack_range.unwrap_or(1))
                    .max(1),
            })
        }
        (None, _) => None,
    };
    let mut bonuses = Bonuses::default();
    for (key, value) in raw.bonuses.iter().flatten() {
        let value = (*value).clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
        if !bonuses.apply(key, value) {
            ctx.questionable(
                id,
                &at(&format!("bonuses.{key}")),
                format!("unknown bonus `{key}` is ignored"),
            );
        }
    }
    let mut requirements = BTreeMap::new();
    if let Some(req) = &raw.requirements {
        for (name, level) in &req.skills {
            let field = at(&format!("requirements.skills.{name}"));
            if let Some(skill) = ctx.skill(name, id, &field, "the requirement is ignored") {
                let level = ctx.level(id, &field, *level);
                requirements.insert(skill, level);
            }
        }
    }
    let tool = match &raw.tool {
        None => None,
        Some(tool) => {
            let field = at("tool.skill");
            ctx.skill(&tool.skill, id, &field, "the item is not a gathering tool")
                .map(|skill| ToolInfo {
                    skill,
                    priority: tool.priority.unwrap_or(1).max(0) as u32,
                    roll_ticks: tool.roll_ticks.map(|t| t.max(1) as u32),
                })
        }
    };
    let heal_amount = raw.heal_amount.map(|h| ctx.count(id, &at("healAmount"), h));
    let prayer_xp = raw
        .prayer_xp
        .map(|xp| ctx.non_negative(id, &at("prayerXp"), xp));
    let use_effect = raw.use_effect.as_ref().map(|effect| UseEffect {
        kind: effect.kind.clone(),
        xp_amount: effect.xp_amount.unwrap_or(0.0),
        consume_on_use: effect.consume_on_use.unwrap_or(true),
    });
    let mut runes = Vec::new();
    for (n, rune) in raw.provides_infinite_runes.iter().flatten().enumerate() {
        let field = at(&format!("providesInfiniteRunes[{n}]"));
        if ctx.check_ref(
            RefKind::Item,
            rune,
            id,
            &field,
            "the staff does not supply it",
        ) {
            runes.push(rune.clone());
        }
    }
    let examine = raw
        .examine
        .clone()
        .or_else(|| raw.description.clone())
        .unwrap_or_default();
    Some(Item {
        id: raw.id.clone(),
        name: raw.name.clone(),
        kind: raw.kind.clone(),
        description: raw.description.clone().unwrap_or_else(|| examine.clone()),
        examine,
        value: raw.value.max(0) as u64,
        weight,
        tradeable: raw.tradeable.unwrap_or(true),
        stackable,
        max_stack,
        rarity: raw.rarity.clone().unwrap_or_else(|| "common".to_string()),
        tier: raw.tier.clone(),
        model_path: raw.model_path.clone(),
        icon_path: raw.icon_path.clone(),
        equipped_model_path: raw.equipped_model_path.clone(),
        inventory_actions: raw.inventory_actions.clone().unwrap_or_default(),
        equip_slot,
        weapon,
        bonuses,
        requirements,
        tool,
        prayer_xp,
        heal_amount,
        use_effect,
        provides_infinite_runes: runes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bonus_keys_from_every_file_land_in_one_shape() {
        let mut b = Bonuses::default();
        for (k, v) in [
            ("attack", 4),
            ("strength", 3),
            ("defense", 2),
            ("ranged", 1),
            ("attackRanged", 5),
            ("attackMagic", 6),
            ("rangedStrength", 7),
            ("defenseStab", 1),
            ("magicDefense", 3),
            ("defenseMagic", 2),
        ] {
            assert!(b.apply(k, v), "{k}");
        }
        assert!(!b.apply("speed", 1));
        assert_eq!(b.attack_melee, 4);
        assert_eq!(b.strength_melee, 3);
        assert_eq!(b.attack_ranged, 6);
        assert_eq!(b.attack_magic, 6);
        assert_eq!(b.strength_ranged, 7);
        assert_eq!(
            (b.defense_stab, b.defense_slash, b.defense_crush),
            (3, 2, 2)
        );
        assert_eq!(b.defense_magic, 5);
    }

    #[test]
    fn attack_speed_reads_ticks_or_milliseconds() {
        assert_eq!(attack_speed_ticks(4.0), 4);
        assert_eq!(attack_speed_ticks(2400.0), 4);
        assert_eq!(attack_speed_ticks(3000.0), 5);
    }
}
