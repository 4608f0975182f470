//! Recipes: `recipes/<kind>.json`, one schema per file, normalised into one [`Recipe`] shape.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::common::{Ctx, ItemAmount, ItemId, Known, RefKind, StationType};
use crate::report::Report;
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

    /// What a generated recipe id starts with: the skill trained (`smithing` for smelting too),
    /// `tanning` for tanning.
    pub fn id_prefix(self) -> &'static str {
        self.skill().map_or("tanning", Skill::as_str)
    }
}

/// One way to make something.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Recipe {
    /// The recipe's stable id (CONTRACT.md section 9), unique in the content: `smithing:bronze_dagger`.
    pub id: String,
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
    /// The manifest's own id (none of the known files gives one).
    #[serde(default)]
    pub id: Option<String>,
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
    /// The manifest's own id (none of the known files gives one).
    #[serde(default)]
    pub id: Option<String>,
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
    /// The manifest's own id (none of the known files gives one).
    #[serde(default)]
    pub id: Option<String>,
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
    /// The manifest's own id (none of the known files gives one).
    #[serde(default)]
    pub id: Option<String>,
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
    /// The manifest's own id (none of the known files gives one).
    #[serde(default)]
    pub id: Option<String>,
    /// `air`, `water`, …: names the altar (`air_altar`).
    #[serde(default)]
    pub rune_type: Option<String>,
    /// The altar's station type, when not `<runeType>_altar` (our extension).
    #[serde(default)]
    pub station: Option<String>,
    pub rune_item_id: String,
    pub level_required: i64,
    pub xp_per_essence: f64,
    pub essence_types: Vec<String>,
    #[serde(default)]
    pub multi_rune_levels: Vec<i64>,
    #[serde(default)]
    pub ticks: Option<i64>,
}

/// What a runecrafting altar's station type ends with: `air_altar` binds air runes.
pub const ALTAR_SUFFIX: &str = "_altar";

/// What every smithing recipe needs held beside its own tools (the game's rule, not a field of the
/// recipe files).
pub const SMITHING_HAMMER: &str = "hammer";

impl Recipe {
    /// The items one make needs in the inventory without using them up, as the server counts
    /// them: its tools, a hammer for smithing, and its consumables (thread).
    pub fn held_items(&self) -> impl Iterator<Item = &str> {
        let hammer = (self.kind == RecipeKind::Smithing).then_some(SMITHING_HAMMER);
        self.tools
            .iter()
            .map(String::as_str)
            .chain(hammer)
            .chain(self.consumables.iter().map(|c| c.item_id.as_str()))
    }
}

impl RawRunecrafting {
    /// The station type of the altar where these runes are bound: `station` when given, else
    /// `<runeType>_altar`, else the rune's id without `_rune` (`air_rune` → `air_altar`).
    pub(crate) fn altar(&self) -> String {
        if let Some(station) = self.station.as_deref().filter(|s| !s.is_empty()) {
            return station.to_owned();
        }
        let kind = self
            .rune_type
            .as_deref()
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| {
                let id = self.rune_item_id.as_str();
                id.strip_suffix("_rune").unwrap_or(id)
            });
        format!("{kind}{ALTAR_SUFFIX}")
    }
}

/// Tanning: `{input, output, cost, name}`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RawTanning {
    /// The manifest's own id (none of the known files gives one).
    #[serde(default)]
    pub id: Option<String>,
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

/// What happens to a recipe with a dangling reference.
const DROPPED: &str = "the recipe is dropped";

/// An item and how many, each with the field it came from.
struct Amount<'r> {
    item: (&'r str, String),
    amount: (i64, String),
}

/// A recipe in the shape every file shares, before its references are checked. Each value keeps
/// the field it came from (`recipes[3].inputs[0].item`), for diagnostics.
struct Draft<'r> {
    /// Its place in the file.
    index: usize,
    /// The manifest's own `id`, when it gives one.
    id: Option<&'r str>,
    /// What a generated id names: the output (firemaking: the logs burnt).
    names: &'r str,
    output: Option<Amount<'r>>,
    inputs: Vec<Amount<'r>>,
    tools: Vec<(&'r str, String)>,
    consumables: Vec<Amount<'r>>,
    /// The station, and the field it came from (`None`: implied by the kind, not checked).
    station: Option<(&'r str, Option<String>)>,
    level: Option<(i64, String)>,
    xp: Option<(f64, String)>,
    ticks: (i64, String),
    category: Option<&'r str>,
    coin_cost: Option<(i64, String)>,
    detail: DraftDetail<'r>,
}

/// [`RecipeDetail`] before checking.
enum DraftDetail<'r> {
    Plain,
    Smelting {
        success_chance: (f64, String),
    },
    Cooking {
        burnt: Option<(&'r str, String)>,
        stop_burn_level: Option<(i64, String)>,
        allow_fire: bool,
    },
    Firemaking {
        fire_ticks: (i64, String),
    },
    Runecrafting {
        essence_types: Vec<(&'r str, String)>,
        multi_rune_levels: Vec<(i64, String)>,
        /// The altar's station type (see [`RawRunecrafting::altar`]).
        altar: String,
    },
}

/// `recipes[i].<field>`.
fn at(i: usize, field: &str) -> String {
    format!("recipes[{i}].{field}")
}

/// One item of a recipe, `amount` of it being implied (cooking, firemaking, tanning).
fn one<'r>(item: &'r str, i: usize, field: &str) -> Amount<'r> {
    Amount {
        item: (item, at(i, field)),
        amount: (1, at(i, field)),
    }
}

/// `{item, amount}` lists (`inputs`, `consumables`).
fn amounts<'r>(
    list: impl Iterator<Item = (&'r str, i64)>,
    i: usize,
    field: &str,
    amount: &str,
) -> Vec<Amount<'r>> {
    list.enumerate()
        .map(|(n, (item, count))| Amount {
            item: (item, at(i, &format!("{field}[{n}].item"))),
            amount: (count, at(i, &format!("{field}[{n}].{amount}"))),
        })
        .collect()
}

fn tools(list: &[String], i: usize) -> Vec<(&str, String)> {
    list.iter()
        .enumerate()
        .map(|(n, t)| (t.as_str(), at(i, &format!("tools[{n}]"))))
        .collect()
}

impl RawRecipes {
    /// The file's kind and its recipes in the common shape, in file order.
    fn drafts(&self) -> (RecipeKind, Vec<Draft<'_>>) {
        match self {
            RawRecipes::Smithing(list) => {
                let drafts = list.iter().enumerate().map(|(i, r)| Draft {
                    output: Some(Amount {
                        item: (&r.output, at(i, "output")),
                        amount: (r.output_quantity, at(i, "outputQuantity")),
                    }),
                    inputs: vec![Amount {
                        item: (&r.bar, at(i, "bar")),
                        amount: (r.bars_required, at(i, "barsRequired")),
                    }],
                    station: Some(("anvil", None)),
                    level: Some((r.level, at(i, "level"))),
                    xp: Some((r.xp, at(i, "xp"))),
                    category: r.category.as_deref(),
                    ..Draft::of(i, r.id.as_deref(), &r.output, (r.ticks, at(i, "ticks")))
                });
                (RecipeKind::Smithing, drafts.collect())
            }
            RawRecipes::Crafting(kind, list) => {
                let drafts = list.iter().enumerate().map(|(i, r)| {
                    let station = match (kind, r.station.as_deref()) {
                        (RecipeKind::Smelting, None) => Some(("furnace", Some(at(i, "station")))),
                        (_, station) => station.map(|s| (s, Some(at(i, "station")))),
                    };
                    let detail = match kind {
                        RecipeKind::Smelting => DraftDetail::Smelting {
                            success_chance: (
                                r.success_chance.unwrap_or(1.0),
                                at(i, "successChance"),
                            ),
                        },
                        _ => DraftDetail::Plain,
                    };
                    Draft {
                        output: Some(Amount {
                            item: (&r.output, at(i, "output")),
                            amount: (r.output_quantity, at(i, "outputQuantity")),
                        }),
                        inputs: amounts(
                            r.inputs.iter().map(|x| (x.item.as_str(), x.amount)),
                            i,
                            "inputs",
                            "amount",
                        ),
                        tools: tools(&r.tools, i),
                        consumables: amounts(
                            r.consumables.iter().map(|c| (c.item.as_str(), c.uses)),
                            i,
                            "consumables",
                            "uses",
                        ),
                        station,
                        level: Some((r.level, at(i, "level"))),
                        xp: Some((r.xp, at(i, "xp"))),
                        category: r.category.as_deref(),
                        detail,
                        ..Draft::of(i, r.id.as_deref(), &r.output, (r.ticks, at(i, "ticks")))
                    }
                });
                (*kind, drafts.collect())
            }
            RawRecipes::Cooking(list) => {
                let drafts = list.iter().enumerate().map(|(i, r)| Draft {
                    output: Some(one(&r.output, i, "output")),
                    inputs: vec![one(&r.input, i, "input")],
                    station: r.station.as_deref().map(|s| (s, Some(at(i, "station")))),
                    level: Some((r.level, at(i, "level"))),
                    xp: Some((r.xp, at(i, "xp"))),
                    detail: DraftDetail::Cooking {
                        burnt: r.burnt.as_deref().map(|b| (b, at(i, "burnt"))),
                        stop_burn_level: r.stop_burn_level.map(|l| (l, at(i, "stopBurnLevel"))),
                        allow_fire: r.allow_fire,
                    },
                    ..Draft::of(i, r.id.as_deref(), &r.output, (r.ticks, at(i, "ticks")))
                });
                (RecipeKind::Cooking, drafts.collect())
            }
            RawRecipes::Firemaking(list) => {
                let drafts = list.iter().enumerate().map(|(i, r)| Draft {
                    inputs: vec![one(&r.input, i, "input")],
                    tools: tools(&r.tools, i),
                    level: Some((r.level, at(i, "level"))),
                    xp: Some((r.xp, at(i, "xp"))),
                    detail: DraftDetail::Firemaking {
                        fire_ticks: (r.fire_ticks.unwrap_or(100), at(i, "fireTicks")),
                    },
                    ..Draft::of(i, r.id.as_deref(), &r.input, (r.ticks, at(i, "ticks")))
                });
                (RecipeKind::Firemaking, drafts.collect())
            }
            RawRecipes::Runecrafting(list) => {
                let drafts = list.iter().enumerate().map(|(i, r)| Draft {
                    output: Some(one(&r.rune_item_id, i, "runeItemId")),
                    level: Some((r.level_required, at(i, "levelRequired"))),
                    xp: Some((r.xp_per_essence, at(i, "xpPerEssence"))),
                    // No station: the altar is the detail's (its type is built, not borrowed).
                    detail: DraftDetail::Runecrafting {
                        essence_types: r
                            .essence_types
                            .iter()
                            .enumerate()
                            .map(|(n, e)| (e.as_str(), at(i, &format!("essenceTypes[{n}]"))))
                            .collect(),
                        multi_rune_levels: r
                            .multi_rune_levels
                            .iter()
                            .enumerate()
                            .map(|(n, l)| (*l, at(i, &format!("multiRuneLevels[{n}]"))))
                            .collect(),
                        altar: r.altar(),
                    },
                    ..Draft::of(
                        i,
                        r.id.as_deref(),
                        &r.rune_item_id,
                        (r.ticks.unwrap_or(1), at(i, "ticks")),
                    )
                });
                (RecipeKind::Runecrafting, drafts.collect())
            }
            RawRecipes::Tanning(list) => {
                let drafts = list.iter().enumerate().map(|(i, r)| Draft {
                    output: Some(one(&r.output, i, "output")),
                    inputs: vec![one(&r.input, i, "input")],
                    coin_cost: Some((r.cost, at(i, "cost"))),
                    ..Draft::of(i, r.id.as_deref(), &r.output, (1, at(i, "ticks")))
                });
                (RecipeKind::Tanning, drafts.collect())
            }
        }
    }
}

impl<'r> Draft<'r> {
    /// Recipe `index` of its file, with its own `id`, what a generated id `names` and its
    /// `ticks`, and nothing else: each kind fills in what it has.
    fn of(index: usize, id: Option<&'r str>, names: &'r str, ticks: (i64, String)) -> Draft<'r> {
        Draft {
            index,
            id,
            names,
            output: None,
            inputs: Vec::new(),
            tools: Vec::new(),
            consumables: Vec::new(),
            station: None,
            level: None,
            xp: None,
            ticks,
            category: None,
            coin_cost: None,
            detail: DraftDetail::Plain,
        }
    }

    /// The item a generated id adds to tell apart two recipes of one output: the first input
    /// (runecrafting: the first essence).
    fn first_input(&self) -> &str {
        match (&self.inputs.first(), &self.detail) {
            (Some(input), _) => input.item.0,
            (None, DraftDetail::Runecrafting { essence_types, .. }) => {
                essence_types.first().map_or("", |e| e.0)
            }
            (None, _) => "",
        }
    }
}

/// Each draft's id (CONTRACT.md section 9): the manifest's `id` where it gives one, else
/// `<skill>:<output>` (`smithing:bronze_dagger`; tanning, which trains no skill, `tanning:leather`;
/// firemaking names the logs). Where two recipes of one skill make the same output, each gets its
/// first input after it (`fletching:arrow_shaft:oak_logs`), then its place among the ones still
/// alike (`:1`, `:2`, in file order). Ids depend on the files alone, not on which recipes survive
/// their checks, so a recipe keeps its id when another one is dropped.
fn ids(drafts: &[(RecipeKind, &Draft<'_>)]) -> Vec<String> {
    fn repeats(ids: &[Option<String>]) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for id in ids.iter().flatten() {
            *counts.entry(id.clone()).or_insert(0) += 1;
        }
        counts
    }
    let base: Vec<Option<String>> = drafts
        .iter()
        .map(|(kind, d)| {
            d.id.is_none()
                .then(|| format!("{}:{}", kind.id_prefix(), d.names))
        })
        .collect();
    let counts = repeats(&base);
    let told_apart: Vec<Option<String>> = base
        .into_iter()
        .zip(drafts)
        .map(|(id, (_, d))| {
            id.map(|id| match counts[&id] {
                1 => id,
                _ => format!("{id}:{}", d.first_input()),
            })
        })
        .collect();
    let counts = repeats(&told_apart);
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    told_apart
        .into_iter()
        .zip(drafts)
        .map(|(id, (_, d))| match id {
            None => d.id.unwrap_or_default().to_owned(),
            Some(id) if counts[&id] == 1 => id,
            Some(id) => {
                let n = seen.entry(id.clone()).or_insert(0);
                *n += 1;
                format!("{id}:{n}")
            }
        })
        .collect()
}

/// Normalises every recipe file into [`Recipe`]s, in file order: ids given (see [`ids`]),
/// references checked (a recipe with a dangling one is dropped), values validated.
pub(crate) fn normalise(
    files: &[(String, RawRecipes)],
    report: &mut Report,
    known: &Known,
) -> Vec<Recipe> {
    let drafted: Vec<(&str, RecipeKind, Vec<Draft<'_>>)> = files
        .iter()
        .map(|(file, raw)| {
            let (kind, drafts) = raw.drafts();
            (file.as_str(), kind, drafts)
        })
        .collect();
    let all: Vec<(RecipeKind, &Draft<'_>)> = drafted
        .iter()
        .flat_map(|(_, kind, drafts)| drafts.iter().map(move |d| (*kind, d)))
        .collect();
    let mut ids = ids(&all).into_iter();
    let mut taken = BTreeSet::new();
    let mut out = Vec::new();
    for (file, kind, drafts) in &drafted {
        let mut ctx = Ctx {
            file,
            report: &mut *report,
            known,
        };
        for (i, draft) in drafts.iter().enumerate() {
            let id = ids.next().unwrap_or_default();
            if !taken.insert(id.clone()) {
                ctx.duplicate(&id, &at(i, "id"), format!("recipe id `{id}` is used twice"));
                continue;
            }
            if let Some(recipe) = finish(*kind, draft, id, &mut ctx) {
                out.push(recipe);
            }
        }
    }
    out
}

/// One draft checked and made a [`Recipe`]; `None` when a reference dangles.
fn finish(kind: RecipeKind, d: &Draft<'_>, id: String, ctx: &mut Ctx<'_>) -> Option<Recipe> {
    let mut ok = true;
    let mut item = |ctx: &mut Ctx<'_>, (item, field): &(&str, String)| {
        ok &= ctx.check_ref(RefKind::Item, item, &id, field, DROPPED);
    };
    if let Some(output) = &d.output {
        item(ctx, &output.item);
    }
    for input in &d.inputs {
        item(ctx, &input.item);
    }
    for tool in &d.tools {
        item(ctx, tool);
    }
    for consumable in &d.consumables {
        item(ctx, &consumable.item);
    }
    match &d.detail {
        DraftDetail::Cooking {
            burnt: Some(burnt), ..
        } => item(ctx, burnt),
        DraftDetail::Runecrafting { essence_types, .. } => {
            for essence in essence_types {
                item(ctx, essence);
            }
        }
        _ => {}
    }
    let station = match (&d.station, &d.detail) {
        // Not checked against stations.json: the reference defines no altars, and the loader
        // falls back to the bundled ones (`fallback`); an altar nobody placed only means the
        // runes cannot be bound anywhere.
        (_, DraftDetail::Runecrafting { altar, .. }) => Some(altar.clone()),
        (None | Some(("" | "none", _)), _) => None,
        (Some((station, None)), _) => Some((*station).to_owned()),
        (Some((station, Some(field))), _) => {
            ok &= ctx.check_ref(RefKind::Station, station, &id, field, DROPPED);
            Some((*station).to_owned())
        }
    };
    match &d.detail {
        DraftDetail::Runecrafting { essence_types, .. } if essence_types.is_empty() => ctx.invalid(
            &id,
            &at(d.index, "essenceTypes"),
            "a rune recipe needs at least one essence type",
        ),
        DraftDetail::Runecrafting { .. } => {}
        _ if d.inputs.is_empty() => ctx.invalid(
            &id,
            &at(d.index, "inputs"),
            "a recipe needs at least one input",
        ),
        _ => {}
    }
    let amount = |ctx: &mut Ctx<'_>, a: &Amount<'_>| ItemAmount {
        item_id: a.item.0.to_owned(),
        quantity: ctx.quantity(&id, &a.amount.1, a.amount.0),
    };
    let inputs = d.inputs.iter().map(|a| amount(ctx, a)).collect();
    let output = d.output.as_ref().map(|a| amount(ctx, a));
    let consumables = d
        .consumables
        .iter()
        .map(|c| ConsumableUse {
            item_id: c.item.0.to_owned(),
            uses: ctx.quantity(&id, &c.amount.1, c.amount.0),
        })
        .collect();
    let level = d
        .level
        .as_ref()
        .map_or(1, |(level, field)| ctx.level(&id, field, *level));
    let detail = match &d.detail {
        DraftDetail::Plain => RecipeDetail::Plain,
        DraftDetail::Smelting {
            success_chance: (chance, field),
        } => RecipeDetail::Smelting {
            success_chance: ctx.chance(&id, field, *chance),
        },
        DraftDetail::Cooking {
            burnt,
            stop_burn_level,
            allow_fire,
        } => {
            let stop_burn_level = match stop_burn_level {
                Some((stop, field)) => {
                    let stop = ctx.level(&id, field, *stop);
                    if stop < level {
                        ctx.invalid(&id, field, "stopBurnLevel is below the recipe level");
                    }
                    stop
                }
                None => level,
            };
            RecipeDetail::Cooking {
                burnt: burnt.as_ref().map(|(b, _)| (*b).to_owned()),
                stop_burn_level,
                allow_fire: *allow_fire,
            }
        }
        DraftDetail::Firemaking {
            fire_ticks: (ticks, field),
        } => RecipeDetail::Firemaking {
            fire_ticks: ctx.count(&id, field, *ticks).max(1),
        },
        DraftDetail::Runecrafting {
            essence_types,
            multi_rune_levels,
            ..
        } => RecipeDetail::Runecrafting {
            essence_types: essence_types.iter().map(|(e, _)| (*e).to_owned()).collect(),
            multi_rune_levels: multi_rune_levels
                .iter()
                .map(|(l, field)| ctx.level(&id, field, *l))
                .collect(),
        },
    };
    let recipe = Recipe {
        kind,
        skill: kind.skill(),
        category: d.category.map(str::to_owned),
        level,
        xp: d
            .xp
            .as_ref()
            .map_or(0.0, |(xp, field)| ctx.non_negative(&id, field, *xp)),
        ticks: ctx.count(&id, &d.ticks.1, d.ticks.0).max(1),
        inputs,
        tools: d.tools.iter().map(|(t, _)| (*t).to_owned()).collect(),
        consumables,
        output,
        station,
        coin_cost: d
            .coin_cost
            .as_ref()
            .map_or(0, |(cost, field)| u64::from(ctx.count(&id, field, *cost))),
        detail,
        id,
    };
    ok.then_some(recipe)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crafting(kind: RecipeKind, json: &str) -> RawRecipes {
        let file: RawRecipeFile<RawCrafting> = serde_json::from_str(json).expect("a recipe file");
        RawRecipes::Crafting(kind, file.recipes)
    }

    fn ids_of(files: &[RawRecipes]) -> Vec<String> {
        let drafted: Vec<_> = files.iter().map(RawRecipes::drafts).collect();
        let all: Vec<_> = drafted
            .iter()
            .flat_map(|(kind, drafts)| drafts.iter().map(move |d| (*kind, d)))
            .collect();
        ids(&all)
    }

    #[test]
    fn ids_name_the_skill_and_output_and_tell_repeats_apart_by_input_then_place() {
        let recipe = |output: &str, input: &str| {
            format!(
                r#"{{"output": "{output}", "inputs": [{{"item": "{input}"}}], "level": 1, "xp": 1, "ticks": 1}}"#
            )
        };
        let fletching = crafting(
            RecipeKind::Fletching,
            &format!(
                r#"{{"recipes": [{}, {}, {}, {}, {}]}}"#,
                recipe("arrow_shaft", "logs"),
                recipe("shortbow_u", "logs"),
                recipe("arrow_shaft", "oak_logs"),
                recipe("arrow_shaft", "logs"),
                r#"{"id": "my_bow", "output": "shortbow_u", "inputs": [{"item": "logs"}], "level": 1, "xp": 1, "ticks": 1}"#,
            ),
        );
        let smelting = crafting(
            RecipeKind::Smelting,
            &format!(r#"{{"recipes": [{}]}}"#, recipe("bronze_bar", "copper_ore")),
        );
        assert_eq!(
            ids_of(&[fletching, smelting]),
            [
                "fletching:arrow_shaft:logs:1",
                "fletching:shortbow_u",
                "fletching:arrow_shaft:oak_logs",
                "fletching:arrow_shaft:logs:2",
                "my_bow",
                "smithing:bronze_bar",
            ]
        );
    }
}
