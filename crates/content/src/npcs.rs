//! NPC and mob definitions: `npcs.json`.

use serde::{Deserialize, Serialize};

use crate::common::{Ctx, ItemAmount, ItemId, NpcId, RefKind};
use crate::dialogue::Dialogue;
use crate::ticks::ms_to_ticks;

/// One NPC or mob.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Npc {
    /// Unique id.
    pub id: NpcId,
    /// Display name.
    pub name: String,
    /// Description / examine text.
    pub description: String,
    /// `mob` or `neutral` in the reference.
    pub category: String,
    /// `monster`, `town`, …
    pub faction: Option<String>,
    /// Displayed level range of a mob.
    pub level_range: Option<(u32, u32)>,
    /// Combat stats (all 1 for NPCs that do not fight).
    pub stats: NpcStats,
    /// Combat behaviour with timings in ticks.
    pub combat: NpcCombat,
    /// Movement behaviour.
    pub movement: Movement,
    /// Always-dropped item (bones), when enabled.
    pub default_drop: Option<ItemAmount>,
    /// Loot table.
    pub drops: Vec<Drop>,
    /// Services offered (`bank`, `shop`, …).
    pub services: Vec<String>,
    /// Conversation tree, when the NPC talks.
    pub dialogue: Option<Dialogue>,
    /// Model asset.
    pub model_path: Option<String>,
    /// Icon asset.
    pub icon_path: Option<String>,
    /// Model scale.
    pub scale: f64,
    /// Biomes where procedural spawns may place this mob.
    pub spawn_biomes: Vec<String>,
}

impl Npc {
    /// Whether the NPC tans hides: the `tanner` service, or an `openTanner` effect anywhere in its
    /// dialogue.
    pub fn tans_hides(&self) -> bool {
        self.services.iter().any(|s| s == "tanner")
            || self.dialogue.as_ref().is_some_and(|d| {
                d.nodes.iter().any(|node| {
                    node.effects
                        .iter()
                        .chain(node.responses.iter().flat_map(|r| r.effects.iter()))
                        .any(|e| *e == crate::dialogue::Effect::OpenTanner)
                })
            })
    }

    /// True for mobs that can be fought.
    pub fn is_mob(&self) -> bool {
        self.combat.attackable
    }
}

/// Combat stats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NpcStats {
    /// Combat level.
    pub level: u32,
    /// Hit points (`health`).
    pub health: u32,
    /// Attack level.
    pub attack: u32,
    /// Strength level.
    pub strength: u32,
    /// Defence level (`defense` or `defence`).
    pub defense: u32,
    /// Flat defence bonus.
    pub defense_bonus: i32,
    /// Ranged level.
    pub ranged: u32,
    /// Magic level.
    pub magic: u32,
}

/// Combat behaviour; every timing is in ticks.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NpcCombat {
    /// Whether players can attack it.
    pub attackable: bool,
    /// Whether it attacks players on sight.
    pub aggressive: bool,
    /// Whether it fights back.
    pub retaliates: bool,
    /// Tiles within which it notices players.
    pub aggro_range: f64,
    /// Tiles from which it can hit.
    pub combat_range: f64,
    /// Tiles it follows before giving up and returning.
    pub leash_range: f64,
    /// Ticks between attacks.
    pub attack_speed_ticks: u32,
    /// Ticks before it respawns after death.
    pub respawn_ticks: u32,
    /// Whether it fights with spells rather than in melee: `attackType: "magic"`, or no
    /// `attackType` and either a `spellId` or a magic level above both its attack and strength.
    pub casts: bool,
    /// The spell it casts (`spellId`, our extension), when it names one.
    pub spell: Option<String>,
}

/// Movement behaviour.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Movement {
    /// `wander` or `stationary`.
    pub kind: String,
    /// World units per second.
    pub speed: f64,
    /// Tiles it strays from its spawn.
    pub wander_radius: f64,
}

/// Loot table tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum DropTier {
    /// Every kill.
    Always,
    /// Common.
    Common,
    /// Uncommon.
    Uncommon,
    /// Rare.
    Rare,
    /// Very rare.
    VeryRare,
}

/// One loot table line.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Drop {
    /// The item.
    pub item_id: ItemId,
    /// Least quantity.
    pub min_quantity: u32,
    /// Greatest quantity.
    pub max_quantity: u32,
    /// Chance in 0..1.
    pub chance: f64,
    /// Which table it came from.
    pub tier: DropTier,
}

/// An NPC as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawNpc {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub category: Option<String>,
    #[serde(default)]
    pub faction: Option<String>,
    #[serde(default)]
    pub level_range: Option<Vec<i64>>,
    #[serde(default)]
    pub stats: Option<RawStats>,
    #[serde(default)]
    pub combat: Option<RawCombat>,
    #[serde(default)]
    pub movement: Option<RawMovement>,
    #[serde(default)]
    pub drops: Option<RawDrops>,
    #[serde(default)]
    pub services: Option<RawServices>,
    #[serde(default)]
    pub dialogue: Option<crate::dialogue::RawDialogue>,
    #[serde(default)]
    pub appearance: Option<RawAppearance>,
    #[serde(default)]
    pub spawn_biomes: Vec<String>,
}

/// `stats` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawStats {
    #[serde(default)]
    pub level: Option<i64>,
    #[serde(default, alias = "constitution", alias = "hitpoints")]
    pub health: Option<i64>,
    #[serde(default)]
    pub attack: Option<i64>,
    #[serde(default)]
    pub strength: Option<i64>,
    #[serde(default, alias = "defence")]
    pub defense: Option<i64>,
    #[serde(default, alias = "defenceBonus")]
    pub defense_bonus: Option<i64>,
    #[serde(default)]
    pub ranged: Option<i64>,
    #[serde(default)]
    pub magic: Option<i64>,
}

/// `combat` as written (ticks, or legacy milliseconds).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawCombat {
    #[serde(default)]
    pub attackable: Option<bool>,
    #[serde(default)]
    pub aggressive: Option<bool>,
    #[serde(default)]
    pub retaliates: Option<bool>,
    #[serde(default)]
    pub aggro_range: Option<f64>,
    #[serde(default)]
    pub combat_range: Option<f64>,
    #[serde(default)]
    pub leash_range: Option<f64>,
    #[serde(default)]
    pub attack_speed_ticks: Option<i64>,
    #[serde(default)]
    pub attack_speed: Option<f64>,
    #[serde(default)]
    pub respawn_ticks: Option<i64>,
    #[serde(default)]
    pub respawn_time: Option<f64>,
    /// `melee` or `magic` (our extension; `ranged` fights in melee until NPC archery exists).
    #[serde(default)]
    pub attack_type: Option<String>,
    /// The spell a caster casts (our extension).
    #[serde(default)]
    pub spell_id: Option<String>,
}

/// `movement` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawMovement {
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub speed: Option<f64>,
    #[serde(default)]
    pub wander_radius: Option<f64>,
}

/// `drops` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawDrops {
    #[serde(default)]
    pub default_drop: Option<RawDefaultDrop>,
    #[serde(default)]
    pub always: Vec<RawDrop>,
    #[serde(default)]
    pub common: Vec<RawDrop>,
    #[serde(default)]
    pub uncommon: Vec<RawDrop>,
    #[serde(default)]
    pub rare: Vec<RawDrop>,
    #[serde(default)]
    pub very_rare: Vec<RawDrop>,
}

/// `defaultDrop` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawDefaultDrop {
    #[serde(default = "crate::common::yes")]
    pub enabled: bool,
    pub item_id: String,
    #[serde(default = "crate::common::one")]
    pub quantity: i64,
}

/// A loot line as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawDrop {
    pub item_id: String,
    #[serde(default)]
    pub min_quantity: Option<i64>,
    #[serde(default)]
    pub max_quantity: Option<i64>,
    #[serde(default)]
    pub quantity: Option<i64>,
    #[serde(default = "crate::common::one_f")]
    pub chance: f64,
}

/// `services` as written.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RawServices {
    #[serde(default = "crate::common::yes")]
    pub enabled: bool,
    #[serde(default)]
    pub types: Vec<String>,
}

/// `appearance` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawAppearance {
    #[serde(default)]
    pub model_path: Option<String>,
    #[serde(default)]
    pub icon_path: Option<String>,
    #[serde(default)]
    pub scale: Option<f64>,
}

/// Normalises one NPC; `None` only for an empty id.
pub(crate) fn normalise(raw: &RawNpc, index: usize, ctx: &mut Ctx<'_>) -> Option<Npc> {
    let at = |f: &str| format!("[{index}].{f}");
    if !ctx.check_id(&raw.id, &at("id")) {
        return None;
    }
    let id = raw.id.as_str();
    let stat = |ctx: &mut Ctx<'_>, name: &str, value: Option<i64>, default: i64| {
        ctx.count(id, &at(&format!("stats.{name}")), value.unwrap_or(default))
    };
    let s = raw.stats.clone().unwrap_or(RawStats {
        level: None,
        health: None,
        attack: None,
        strength: None,
        defense: None,
        defense_bonus: None,
        ranged: None,
        magic: None,
    });
    let stats = NpcStats {
        level: stat(ctx, "level", s.level, 1).max(1),
        health: stat(ctx, "health", s.health, 1).max(1),
        attack: stat(ctx, "attack", s.attack, 1),
        strength: stat(ctx, "strength", s.strength, 1),
        defense: stat(ctx, "defense", s.defense, 1),
        defense_bonus: s.defense_bonus.unwrap_or(0).clamp(-10_000, 10_000) as i32,
        ranged: stat(ctx, "ranged", s.ranged, 1),
        magic: stat(ctx, "magic", s.magic, 1),
    };
    let c = raw.combat.clone();
    let c = c.as_ref();
    let attack_speed_ticks = match (
        c.and_then(|c| c.attack_speed_ticks),
        c.and_then(|c| c.attack_speed),
    ) {
        (Some(ticks), _) => ctx.count(id, &at("combat.attackSpeedTicks"), ticks),
        (None, Some(ms)) => ms_to_ticks(ctx.non_negative(id, &at("combat.attackSpeed"), ms)),
        (None, None) => 4,
    }
    .max(1);
    let respawn_ticks = match (
        c.and_then(|c| c.respawn_ticks),
        c.and_then(|c| c.respawn_time),
    ) {
        (Some(ticks), _) => ctx.count(id, &at("combat.respawnTicks"), ticks),
        (None, Some(ms)) => ms_to_ticks(ctx.non_negative(id, &at("combat.respawnTime"), ms)),
        (None, None) => 0,
    };
    let spell = c.and_then(|c| c.spell_id.clone()).filter(|s| !s.is_empty());
    let casts = match c.and_then(|c| c.attack_type.as_deref()) {
        Some(kind) => kind.eq_ignore_ascii_case("magic"),
        None => spell.is_some() || stats.magic > stats.attack.max(stats.strength),
    };
    let combat = NpcCombat {
        attackable: c.and_then(|c| c.attackable).unwrap_or(false),
        aggressive: c.and_then(|c| c.aggressive).unwrap_or(false),
        retaliates: c.and_then(|c| c.retaliates).unwrap_or(true),
        aggro_range: c.and_then(|c| c.aggro_range).unwrap_or(0.0),
        combat_range: c.and_then(|c| c.combat_range).unwrap_or(1.0),
        leash_range: c.and_then(|c| c.leash_range).unwrap_or(10.0),
        attack_speed_ticks,
        respawn_ticks,
        casts,
        spell,
    };
    let movement = match &raw.movement {
        Some(m) => Movement {
            kind: m.kind.clone().unwrap_or_else(|| "stationary".to_string()),
            speed: m.speed.unwrap_or(0.0),
            wander_radius: m.wander_radius.unwrap_or(0.0),
        },
        None => Movement {
            kind: "stationary".to_string(),
            speed: 0.0,
            wander_radius: 0.0,
        },
    };
    let level_range = match raw.level_range.as_deref() {
        None => None,
        Some([lo, hi]) => {
            let lo = ctx.level(id, &at("levelRange[0]"), *lo);
            let hi = ctx.level(id, &at("levelRange[1]"), *hi);
            if lo > hi {
                ctx.invalid(
                    id,
                    &at("levelRange"),
                    format!("level range {lo}..{hi} is reversed"),
                );
            }
            Some((lo, hi))
        }
        Some(_) => {
            ctx.invalid(id, &at("levelRange"), "levelRange must be [min, max]");
            None
        }
    };
    let mut default_drop = None;
    let mut drops = Vec::new();
    if let Some(d) = &raw.drops {
        if let Some(dd) = &d.default_drop {
            if dd.enabled
                && ctx.check_ref(
                    RefKind::Item,
                    &dd.item_id,
                    id,
                    &at("drops.defaultDrop.itemId"),
                    "the default drop is disabled",
                )
            {
                default_drop = Some(ItemAmount {
                    item_id: dd.item_id.clone(),
                    quantity: ctx.quantity(id, &at("drops.defaultDrop.quantity"), dd.quantity),
                });
            }
        }
        let tiers = [
            ("always", DropTier::Always, &d.always),
            ("common", DropTier::Common, &d.common),
            ("uncommon", DropTier::Uncommon, &d.uncommon),
            ("rare", DropTier::Rare, &d.rare),
            ("veryRare", DropTier::VeryRare, &d.very_rare),
        ];
        for (name, tier, list) in tiers {
            for (n, drop) in list.iter().enumerate() {
                let field = at(&format!("drops.{name}[{n}]"));
                if !ctx.check_ref(
                    RefKind::Item,
                    &drop.item_id,
                    id,
                    &format!("{field}.itemId"),
                    "the drop is removed",
                ) {
                    continue;
                }
                let min = drop.min_quantity.or(drop.quantity).unwrap_or(1);
                let max = drop.max_quantity.or(drop.quantity).unwrap_or(min);
                let min_quantity = ctx.quantity(id, &format!("{field}.minQuantity"), min);
                let max_quantity = ctx.quantity(id, &format!("{field}.maxQuantity"), max);
                if min_quantity > max_quantity {
                    ctx.invalid(
                        id,
                        &format!("{field}.maxQuantity"),
                        "maxQuantity is below minQuantity",
                    );
                }
                drops.push(Drop {
                    item_id: drop.item_id.clone(),
                    min_quantity,
                    max_quantity,
                    chance: ctx.chance(id, &format!("{field}.chance"), drop.chance),
                    tier,
                });
            }
        }
    }
    let mut spawn_biomes = Vec::new();
    for (n, biome) in raw.spawn_biomes.iter().enumerate() {
        if ctx.check_ref(
            RefKind::Biome,
            biome,
            id,
            &at(&format!("spawnBiomes[{n}]")),
            "the biome is ignored",
        ) {
            spawn_biomes.push(biome.clone());
        }
    }
    let dialogue = raw
        .dialogue
        .as_ref()
        .map(|d| crate::dialogue::normalise(d, id, &at("dialogue"), ctx));
    let services = match &raw.services {
        Some(s) if s.enabled => s.types.clone(),
        _ => Vec::new(),
    };
    let appearance = raw.appearance.as_ref();
    Some(Npc {
        id: raw.id.clone(),
        name: raw.name.clone(),
        description: raw.description.clone().unwrap_or_default(),
        category: raw
            .category
            .clone()
            .unwrap_or_else(|| "neutral".to_string()),
        faction: raw.faction.clone(),
        level_range,
        stats,
        combat,
        movement,
        default_drop,
        drops,
        services,
        dialogue,
        model_path: appearance.and_then(|a| a.model_path.clone()),
        icon_path: appearance.and_then(|a| a.icon_path.clone()),
        scale: appearance.and_then(|a| a.scale).unwrap_or(1.0),
        spawn_biomes,
    })
}
