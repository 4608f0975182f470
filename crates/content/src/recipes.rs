//! Recipes: `recipes/<kind>.json`, one schema per file, normalised into one [`Recipe`] shape.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::common::{Ctx, ItemAmount, ItemId, RefKind, StationType};
use crate::skill::Skill;

/// Which recipe file a recipe came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RecipeKind {
    /// Raw food to cooked food on a fire or range.
    Cooking,
    /// Logs to a fire.
    Firemaking,
    /// Ore to bars at a furnace.
    Smelting,
    /// Bars to weapons and tools at an anvil.
    Smithing,
    /// Leather, jewellery, gems.
    Crafting,
    /// Bows and arrows.
    Fletching,
    /// Essence to runes at an altar.
    Runecrafting,
    /// Hides to leather for coins at a tanner.
    Tanning,
}

impl RecipeKind {
    /// Every recipe file, as (kind, relative path).
    pub const FILES: [(RecipeKind, &'static str); 8] = [
        (RecipeKind::Cooking, "recipes/cooking.json"),
        (RecipeKind::Firemaking, "recipes/firemaking.json"),
        (RecipeKind::Smelting, "recipes/smelting.json"),
        (RecipeKind::Smithing, "recipes/smithing.json"),
        (RecipeKind::Crafting, "recipes/crafting.json"),
        (RecipeKind::Fletching, "recipes/fletching.json"),
        (RecipeKind::Runecrafting, "recipes/runecrafting.json"),
        (RecipeKind::Tanning, "recipes/tanning.json"),
    ];

    /// The skill this kind of recipe trains (tanning trains none).
    pub fn skill(self) -> Option<Skill> {
        match self {
            RecipeKind::Cooking => Some(Skill::Cooking),
            RecipeKind::Firemaking => Some(Skill::Firemaking),
            RecipeKind::Smelting | RecipeKind::Smithing => Some(Skill::Smithing),
            RecipeKind::Crafting => Some(Skill::Crafting),
            RecipeKind::Fletching => Some(Skill::Fletching),
            RecipeKind::Runecrafting => Some(Skill::Runecrafting),
            RecipeKind::Tanning => None,
        }
    }
}

/// One way to make something.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Recipe {
    /// Diagnostic key: the output id, with `#n` when the file has the same output several times.
    pub key: String,
    /// Which file it came from.
    pub kind: RecipeKind,
    /// Skill trained (none for tanning).
    pub skill: Option<Skill>,
    /// UI grouping (`sword`, `arrow_shafts`, …).
    pub category: Option<String>,
    /// Minimum skill level.
    pub level: u32,
    /// XP per craft (per essence for runecrafting).
    pub xp: f64,
    /// Ticks per craft.
    pub ticks: u32,
    /// Items consumed.
    pub inputs: Vec<ItemAmount>,
    /// Items that must be held but are not consumed.
    pub tools: Vec<ItemId>,
    /// Items used up gradually (thread: one item lasts `uses` crafts).
    pub consumables: Vec<ConsumableUse>,
    /// What is made (`None` for firemaking, which makes a fire).
    pub output: Option<ItemAmount>,
    /// Station needed (`anvil`, `furnace`, `range`, `altar`), when any.
    pub station: Option<StationType>,
    /// Coins paid per craft (tanning).
    pub coin_cost: u64,
    /// Kind-specific details.
    pub detail: RecipeDetail,
}

/// An item used up over several crafts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsumableUse {
    /// The item.
    pub item_id: ItemId,
    /// Crafts one item lasts.
    pub uses: u32,
}

/// Per-kind recipe details.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum RecipeDetail {
    /// Nothing beyond the common fields.
    Plain,
    /// Smelting can fail (iron ore), losing the ore.
    Smelting {
        /// Chance in 0..1 that a bar is made.
        success_chance: f64,
    },
    /// Cooking can burn the food until a level.
    Cooking {
        /// Item made on a burn.
        burnt: Option<ItemId>,
        /// Level from which the food never burns.
        stop_burn_level: u32,
        /// Whether a player-lit fire works as well as the station.
        allow_fire: bool,
    },
    /// A fire lasts a number of ticks.
    Firemaking {
        /// Ticks the fire burns.
        fire_ticks: u32,
    },
    /// Runes from essence.
    Runecrafting {
        /// Essence items accepted (any one per rune batch).
        essence_types: Vec<ItemId>,
        /// Each listed level reached adds one rune per essence.
        multi_rune_levels: Vec<u32>,
    },
}

/// `{item, amount}`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RawInput {
    pub item: String,
    #[serde(default = "crate::common::one")]
    pub amount: i64,
}

/// `{item, uses}`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RawConsumable {
    pub item: String,
    #[serde(default = "crate::common::one")]
    pub uses: i64,
}

/// A recipe file: `{recipes: [...]}` with the schema of its kind.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RawRecipeFile<T> {
    pub recipes: Vec<T>,
}

/// Smithing: `{output, bar, barsRequired, level, xp, ticks, category, outputQuantity?}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawSmithing {
    pub output: String,
    pub bar: String,
    #[serde(default = "crate::common::one")]
    pub bars_required: i64,
    pub level: i64,
    pub xp: f64,
    pub ticks: i64,
    #[serde(default)]
    pub category: Option<String>,
    #[serde(default = "crate::common::one")]
    pub output_quantity: i64,
}

/// Crafting, fletching and smelting: `{output, inputs, tools?, consumables?, level, xp, ticks, station?}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawCrafting {
    pub output: String,
    #[serde(default = "crate::common::one")]
    pub output_quantity: i64,
    #[serde(default)]
    pub category: Option<String>,
    pub inputs: Vec<RawInput>,
    #[serde(default)]
    pub tools: Vec<String>,
    #[serde(default)]
    pub consumables: Vec<RawConsumable>,
    pub level: i64,
    pub xp: f64,
    pub ticks: i64,
    #[serde(default)]
    pub station: Option<String>,
    #[serde(default)]
    pub success_chance: Option<f64>,
}

/// Cooking (bundled format): `{input, output, burnt?, level, xp, ticks, stopBurnLevel, station?, allowFire?}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawCooking {
    pub input: String,
    pub output: String,
    #[serde(default)]
    pub burnt: Option<String>,
    pub level: i64,
    pub xp: f64,
    pub ticks: i64,
    #[serde(default)]
    pub stop_burn_level: Option<i64>,
    #[serde(default)]
    pub station: Option<String>,
    #[serde(default = "crate::common::yes")]
    pub allow_fire: bool,
}

/// Firemaking (bundled format): `{input, tools, level, xp, ticks, fireTicks}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawFiremaking {
    pub input: String,
    #[serde(default)]
    pub tools: Vec<String>,
    pub level: i64,
    pub xp: f64,
    pub ticks: i64,
    #[serde(default)]
    pub fire_ticks: Option<i64>,
}

/// Runecrafting: `{runeType, runeItemId, levelRequired, xpPerEssence, essenceTypes, multiRuneLevels}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawRunecrafting {
    pub rune_item_id: String,
    pub level_required: i64,
    pub xp_per_essence: f64,
    pub essence_types: Vec<String>,
    #[serde(default)]
    pub multi_rune_levels: Vec<i64>,
    #[serde(default)]
    pub ticks: Option<i64>,
}

/// Tanning: `{input, output, cost, name}`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RawTanning {
    pub input: String,
    pub output: String,
    #[serde(default)]
    pub cost: i64,
}

/// A parsed recipe file of any kind.
#[derive(Debug, Clone)]
pub(crate) enum RawRecipes {
    Smithing(Vec<RawSmithing>),
    Crafting(RecipeKind, Vec<RawCrafting>),
    Cooking(Vec<RawCooking>),
    Firemaking(Vec<RawFiremaking>),
    Runecrafting(Vec<RawRunecrafting>),
    Tanning(Vec<RawTanning>),
}

/// Builds diagnostic keys: the output id, or `output#n` (1-based) when an output repeats in the file.
fn keys(outputs: &[String]) -> Vec<String> {
    let mut totals: BTreeMap<&str, usize> = BTreeMap::new();
    for output in outputs {
        *totals.entry(output).or_default() += 1;
    }
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    outputs
        .iter()
        .map(|output| {
            let n = seen.entry(output).or_default();
            *n += 1;
            if totals[output.as_str()] > 1 {
                format!("{output}#{n}")
            } else {
                output.clone()
            }
        })
        .collect()
}

/// Collects the references of one recipe, then decides whether it survives.
struct RefCheck<'c, 'a> {
    ctx: &'c mut Ctx<'a>,
    key: String,
    ok: bool,
}

impl RefCheck<'_, '_> {
    fn item(&mut self, id: &str, field: String) {
        self.ok &= self.ctx.check_ref(
            RefKind::Item,
            id,
            &self.key,
            &field,
            "the recipe is dropped",
        );
    }

    fn station(&mut self, station: Option<&str>, field: String) -> Option<StationType> {
        match station {
            None | Some("") | Some("none") => None,
            Some(id) => {
                self.ok &= self.ctx.check_ref(
                    RefKind::Station,
                    id,
                    &self.key,
                    &field,
                    "the recipe is dropped",
                );
                Some(id.to_string())
            }
        }
    }
}

/// Normalises every recipe of a file, dropping those with dangling references.
pub(crate) fn normalise(raw: &RawRecipes, ctx: &mut Ctx<'_>) -> Vec<Recipe> {
    let mut out = Vec::new();
    match raw {
        RawRecipes::Smithing(list) => {
            let keys = keys(&list.iter().map(|r| r.output.clone()).collect::<Vec<_>>());
            for (i, (r, key)) in list.iter().zip(keys).enumerate() {
                let at = |f: &str| format!("recipes[{i}].{f}");
                let mut check = RefCheck {
                    ctx,
                    key: key.clone(),
                    ok: true,
                };
                check.item(&r.output, at("output"));
                check.item(&r.bar, at("bar"));
                let ok = check.ok;
                let recipe = Recipe {
                    kind: RecipeKind::Smithing,
                    skill: Some(Skill::Smithing),
                    category: r.category.clone(),
                    level: ctx.level(&key, &at("level"), r.level),
                    xp: ctx.non_negative(&key, &at("xp"), r.xp),
                    ticks: ctx.count(&key, &at("ticks"), r.ticks).max(1),
                    inputs: vec![ItemAmount {
                        item_id: r.bar.clone(),
                        quantity: ctx.quantity(&key, &at("barsRequired"), r.bars_required),
                    }],
                    tools: Vec::new(),
                    consumables: Vec::new(),
                    output: Some(ItemAmount {
                        item_id: r.output.clone(),
                        quantity: ctx.quantity(&key, &at("outputQuantity"), r.output_quantity),
                    }),
                    station: Some("anvil".to_string()),
                    coin_cost: 0,
                    detail: RecipeDetail::Plain,
                    key,
                };
                if ok {
                    out.push(recipe);
                }
            }
        }
        RawRecipes::Crafting(kind, list) => {
            let keys = keys(&list.iter().map(|r| r.output.clone()).collect::<Vec<_>>());
            for (i, (r, key)) in list.iter().zip(keys).enumerate() {
                let at = |f: &str| format!("recipes[{i}].{f}");
                let mut check = RefCheck {
                    ctx,
                    key: key.clone(),
                    ok: true,
                };
                check.item(&r.output, at("output"));
                for (n, input) in r.inputs.iter().enumerate() {
                    check.item(&input.item, at(&format!("inputs[{n}].item")));
                }
                for (n, tool) in r.tools.iter().enumerate() {
                    check.item(tool, at(&format!("tools[{n}]")));
                }
                for (n, c) in r.consumables.iter().enumerate() {
                    check.item(&c.item, at(&format!("consumables[{n}].item")));
                }
                let default_station = (*kind == RecipeKind::Smelting).then_some("furnace");
                let station =
                    check.station(r.station.as_deref().or(default_station), at("station"));
                let ok = check.ok;
                if r.inputs.is_empty() {
                    ctx.invalid(&key, &at("inputs"), "a recipe needs at least one input");
                }
                let inputs = r
                    .inputs
                    .iter()
                    .enumerate()
                    .map(|(n, input)| ItemAmount {
                        item_id: input.item.clone(),
                        quantity: ctx.quantity(
                            &key,
                            &at(&format!("inputs[{n}].amount")),
                            input.amount,
                        ),
                    })
                    .collect();
                let consumables = r
                    .consumables
                    .iter()
                    .enumerate()
                    .map(|(n, c)| ConsumableUse {
                        item_id: c.item.clone(),
                        uses: ctx.quantity(&key, &at(&format!("consumables[{n}].uses")), c.uses),
                    })
                    .collect();
                let detail = match (kind, r.success_chance) {
                    (RecipeKind::Smelting, chance) => RecipeDetail::Smelting {
                        success_chance: ctx.chance(
                            &key,
                            &at("successChance"),
                            chance.unwrap_or(1.0),
                        ),
                    },
                    _ => RecipeDetail::Plain,
                };
                let recipe = Recipe {
                    kind: *kind,
                    skill: kind.skill(),
                    category: r.category.clone(),
                    level: ctx.level(&key, &at("level"), r.level),
                    xp: ctx.non_negative(&key, &at("xp"), r.xp),
                    ticks: ctx.count(&key, &at("ticks"), r.ticks).max(1),
                    inputs,
                    tools: r.tools.clone(),
                    consumables,
                    output: Some(ItemAmount {
                        item_id: r.output.clone(),
                        quantity: ctx.quantity(&key, &at("outputQuantity"), r.output_quantity),
                    }),
                    station,
                    coin_cost: 0,
                    detail,
                    key,
                };
                if ok {
                    out.push(recipe);
                }
            }
        }
        RawRecipes::Cooking(list) => {
            let keys = keys(&list.iter().map(|r| r.output.clone()).collect::<Vec<_>>());
            for (i, (r, key)) in list.iter().zip(keys).enumerate() {
                let at = |f: &str| format!("recipes[{i}].{f}");
                let mut check = RefCheck {
                    ctx,
                    key: key.clone(),
                    ok: true,
                };
                check.item(&r.input, at("input"));
                check.item(&r.output, at("output"));
                if let Some(burnt) = &r.burnt {
                    check.item(burnt, at("burnt"));
                }
                let station = check.station(r.station.as_deref(), at("station"));
                let ok = check.ok;
                let level = ctx.level(&key, &at("level"), r.level);
                let stop_burn_level = match r.stop_burn_level {
                    Some(l) => ctx.level(&key, &at("stopBurnLevel"), l),
                    None => level,
                };
                if stop_burn_level < level {
                    ctx.invalid(
                        &key,
                        &at("stopBurnLevel"),
                        "stopBurnLevel is below the recipe level",
                    );
                }
                let recipe = Recipe {
                    kind: RecipeKind::Cooking,
                    skill: Some(Skill::Cooking),
                    category: None,
                    level,
                    xp: ctx.non_negative(&key, &at("xp"), r.xp),
                    ticks: ctx.count(&key, &at("ticks"), r.ticks).max(1),
                    inputs: vec![ItemAmount {
                        item_id: r.input.clone(),
                        quantity: 1,
                    }],
                    tools: Vec::new(),
                    consumables: Vec::new(),
                    output: Some(ItemAmount {
                        item_id: r.output.clone(),
                        quantity: 1,
                    }),
                    station,
                    coin_cost: 0,
                    detail: RecipeDetail::Cooking {
                        burnt: r.burnt.clone(),
                        stop_burn_level,
                        allow_fire: r.allow_fire,
                    },
                    key,
                };
                if ok {
                    out.push(recipe);
                }
            }
        }
        RawRecipes::Firemaking(list) => {
            let keys = keys(&list.iter().map(|r| r.input.clone()).collect::<Vec<_>>());
            for (i, (r, key)) in list.iter().zip(keys).enumerate() {
                let at = |f: &str| format!("recipes[{i}].{f}");
                let mut check = RefCheck {
                    ctx,
                    key: key.clone(),
                    ok: true,
                };
                check.item(&r.input, at("input"));
                for (n, tool) in r.tools.iter().enumerate() {
                    check.item(tool, at(&format!("tools[{n}]")));
                }
                let ok = check.ok;
                let recipe = Recipe {
                    kind: RecipeKind::Firemaking,
                    skill: Some(Skill::Firemaking),
                    category: None,
                    level: ctx.level(&key, &at("level"), r.level),
                    xp: ctx.non_negative(&key, &at("xp"), r.xp),
                    ticks: ctx.count(&key, &at("ticks"), r.ticks).max(1),
                    inputs: vec![ItemAmount {
                        item_id: r.input.clone(),
                        quantity: 1,
                    }],
                    tools: r.tools.clone(),
                    consumables: Vec::new(),
                    output: None,
                    station: None,
                    coin_cost: 0,
                    detail: RecipeDetail::Firemaking {
                        fire_ticks: ctx
                            .count(&key, &at("fireTicks"), r.fire_ticks.unwrap_or(100))
                            .max(1),
                    },
                    key,
                };
                if ok {
                    out.push(recipe);
                }
            }
        }
        RawRecipes::Runecrafting(list) => {
            let keys = keys(
                &list
                    .iter()
                    .map(|r| r.rune_item_id.clone())
                    .collect::<Vec<_>>(),
            );
            for (i, (r, key)) in list.iter().zip(keys).enumerate() {
                let at = |f: &str| format!("recipes[{i}].{f}");
                let mut check = RefCheck {
                    ctx,
                    key: key.clone(),
                    ok: true,
                };
                check.item(&r.rune_item_id, at("runeItemId"));
                for (n, essence) in r.essence_types.iter().enumerate() {
                    check.item(essence, at(&format!("essenceTypes[{n}]")));
                }
                let ok = check.ok;
                if r.essence_types.is_empty() {
                    ctx.invalid(
                        &key,
                        &at("essenceTypes"),
                        "a rune recipe needs at least one essence type",
                    );
                }
                let multi_rune_levels = r
                    .multi_rune_levels
                    .iter()
                    .enumerate()
                    .map(|(n, l)| ctx.level(&key, &at(&format!("multiRuneLevels[{n}]")), *l))
                    .collect();
                let recipe = Recipe {
                    kind: RecipeKind::Runecrafting,
                    skill: Some(Skill::Runecrafting),
                    category: None,
                    level: ctx.level(&key, &at("levelRequired"), r.level_required),
                    xp: ctx.non_negative(&key, &at("xpPerEssence"), r.xp_per_essence),
                    ticks: ctx.count(&key, &at("ticks"), r.ticks.unwrap_or(1)).max(1),
                    inputs: Vec::new(),
                    tools: Vec::new(),
                    consumables: Vec::new(),
                    output: Some(ItemAmount {
                        item_id: r.rune_item_id.clone(),
                        quantity: 1,
                    }),
                    station: Some("altar".to_string()),
                    coin_cost: 0,
                    detail: RecipeDetail::Runecrafting {
                        essence_types: r.essence_types.clone(),
                        multi_rune_levels,
                    },
                    key,
                };
                if ok {
                    out.push(recipe);
                }
            }
        }
        RawRecipes::Tanning(list) => {
            let keys = keys(&list.iter().map(|r| r.output.clone()).collect::<Vec<_>>());
            for (i, (r, key)) in list.iter().zip(keys).enumerate() {
                let at = |f: &str| format!("recipes[{i}].{f}");
                let mut check = RefCheck {
                    ctx,
                    key: key.clone(),
                    ok: true,
                };
                check.item(&r.input, at("input"));
                check.item(&r.output, at("output"));
                let ok = check.ok;
                let recipe = Recipe {
                    kind: RecipeKind::Tanning,
                    skill: None,
                    category: None,
                    level: 1,
                    xp: 0.0,
                    ticks: 1,
                    inputs: vec![ItemAmount {
                        item_id: r.input.clone(),
                        quantity: 1,
                    }],
                    tools: Vec::new(),
                    consumables: Vec::new(),
                    output: Some(ItemAmount {
                        item_id: r.output.clone(),
                        quantity: 1,
                    }),
                    station: None,
                    coin_cost: u64::from(ctx.count(&key, &at("cost"), r.cost)),
                    detail: RecipeDetail::Plain,
                    key,
                };
                if ok {
                    out.push(recipe);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_outputs_get_numbered_keys() {
        let outputs: Vec<String> = ["arrow_shaft", "bow", "arrow_shaft"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(keys(&outputs), ["arrow_shaft#1", "bow", "arrow_shaft#2"]);
    }
}
