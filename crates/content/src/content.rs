//! The clean in-memory content model and the loader that builds it from a [`ManifestSet`].

use std::collections::BTreeMap;

use serde::Serialize;

use crate::areas::{self, Area, RawAreasFile};
use crate::biomes::{self, Biome, RawBiome};
use crate::common::{
    AreaId, BiomeId, Ctx, ItemAmount, ItemId, Known, NpcId, Position, PrayerId, QuestId,
    ResourceId, StationType, StoreId,
};
use crate::gathering::{self, GatheringNode, RawGatheringFile};
use crate::items::{self, Item, RawItem};
use crate::legacy::{Legacy, LegacyBank, LegacyZone, RawLegacyMob};
use crate::manifest_set::ManifestSet;
use crate::model_bounds::{ModelBounds, ModelBoundsManifest};
use crate::music::MusicTrack;
use crate::npcs::{self, Npc, RawNpc};
use crate::parse::parse_file;
use crate::prayers::{self, Prayer, RawPrayersFile};
use crate::quests::{self, Quest, RawQuest};
use crate::recipes::{
    self, RawCooking, RawCrafting, RawFiremaking, RawRecipeFile, RawRecipes, RawRunecrafting,
    RawSmithing, RawTanning, Recipe, RecipeKind,
};
use crate::report::{Code, Diagnostic, Report, Severity};
use crate::skill::Skill;
use crate::skill_unlocks::{self, RawSkillUnlocksFile, SkillUnlock};
use crate::spells::{self, RawSpellsFile, Spell, SpellId};
use crate::stations::{RawStationsFile, Station};
use crate::stores::{self, RawStore, Store};
use crate::world_config::{self, RawWorldConfig, WorldConfig};

/// Loader options.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Treat every warning as an error.
    pub strict: bool,
}

/// All game content, normalised: no spelling variants, timings in ticks, dangling entries removed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Content {
    /// Items by id.
    pub items: BTreeMap<ItemId, Item>,
    /// NPCs and mobs by id.
    pub npcs: BTreeMap<NpcId, Npc>,
    /// Stores by id.
    pub stores: BTreeMap<StoreId, Store>,
    /// World areas by id.
    pub areas: BTreeMap<AreaId, Area>,
    /// Quests by id.
    pub quests: BTreeMap<QuestId, Quest>,
    /// Prayers by id.
    pub prayers: BTreeMap<PrayerId, Prayer>,
    /// Skill unlocks by skill, sorted by level.
    pub skill_unlocks: BTreeMap<Skill, Vec<SkillUnlock>>,
    /// Stations by type.
    pub stations: BTreeMap<StationType, Station>,
    /// Gathering nodes by id.
    pub gathering: BTreeMap<ResourceId, GatheringNode>,
    /// Every recipe of every kind, in file order.
    pub recipes: Vec<Recipe>,
    /// World generation settings and the starter kit.
    pub world_config: WorldConfig,
    /// Model bounds by asset path (ids repeat across LOD and backup copies).
    pub model_bounds: BTreeMap<String, ModelBounds>,
    /// Biomes by id.
    pub biomes: BTreeMap<BiomeId, Biome>,
    /// Music tracks.
    pub music: Vec<MusicTrack>,
    /// Combat spells by id (`spells.json`, CONTRACT.md section 11; the bundled ones when the
    /// served content has none).
    pub spells: BTreeMap<SpellId, Spell>,
    /// Character templates by id (`templates.json`, a bundled extension).
    pub templates: BTreeMap<String, crate::templates::CharacterTemplate>,
    /// Legacy files as parsed (their mobs are also in `npcs`; see docs/content.md).
    pub legacy: Legacy,
    /// Agility courses (`agility.json`, a bundled extension).
    pub agility_courses: Vec<crate::agility::AgilityCourse>,
    /// Files and fields the server reads but does not act on, one line each (`file field: why`),
    /// named at start-up and by `check-content`.
    pub ignored: Vec<String>,
    /// What the bundled content filled in where the served content lacks it (recipe files,
    /// fishing spot types), one line each, named at start-up and by `check-content`.
    pub filled_in: Vec<String>,
    /// The world generated from `world-config.json` (set by the simulation's world generator, not
    /// by loading; `None` for a world of hand-placed areas only).
    #[serde(skip)]
    pub generated: Option<std::sync::Arc<crate::generated::GeneratedWorld>>,
}

/// Where the player appears when no starter town names a spawn point and there are no areas.
pub const DEFAULT_SPAWN: Position = Position {
    x: 0.0,
    y: 0.0,
    z: 0.0,
};

impl Content {
    /// Loads and validates a manifest set; `Err` holds the report when it has errors.
    pub fn from_files(set: &ManifestSet) -> Result<(Content, Report), Report> {
        Content::from_files_with(set, LoadOptions::default())
    }

    /// Like [`Content::from_files`] with options (strict mode turns warnings into errors).
    pub fn from_files_with(
        set: &ManifestSet,
        options: LoadOptions,
    ) -> Result<(Content, Report), Report> {
        let (content, mut report) = load(set);
        report.ignored = content.ignored.clone();
        report.filled_in = content.filled_in.clone();
        if options.strict {
            report.make_strict();
        }
        if report.has_errors() {
            Err(report)
        } else {
            Ok((content, report))
        }
    }

    /// One item.
    pub fn item(&self, id: &str) -> Option<&Item> {
        self.items.get(id)
    }

    /// Recipes of one kind.
    pub fn recipes_of(&self, kind: RecipeKind) -> impl Iterator<Item = &Recipe> {
        self.recipes.iter().filter(move |r| r.kind == kind)
    }

    /// Tools for a gathering skill, best first.
    pub fn tools_for(&self, skill: Skill) -> Vec<&Item> {
        let mut tools: Vec<&Item> = self
            .items
            .values()
            .filter(|item| item.tool.as_ref().is_some_and(|t| t.skill == skill))
            .collect();
        tools.sort_by_key(|item| std::cmp::Reverse(item.tool.as_ref().map_or(0, |t| t.priority)));
        tools
    }

    /// Items given to a new character: the world config's `starterKit`, or, where the content has
    /// none, [`crate::DEFAULT_STARTER_KIT`] (those of its items the content defines).
    pub fn starter_kit(&self) -> &[ItemAmount] {
        &self.world_config.starter_kit
    }

    /// Where new characters appear: the first starter town's spawn point, else its centre.
    pub fn spawn_point(&self) -> Position {
        let mut towns: Vec<&Area> = self
            .areas
            .values()
            .filter(|a| a.group == areas::AreaGroup::StarterTowns)
            .collect();
        towns.sort_by_key(|a| a.spawn_point.is_none());
        match towns.first() {
            Some(town) => town.spawn_point.unwrap_or_else(|| town.bounds.centre()),
            None => DEFAULT_SPAWN,
        }
    }

    /// The area containing a ground-plane point (the smallest one when areas overlap; a round
    /// area contains only its disc).
    pub fn area_at(&self, x: f64, z: f64) -> Option<&Area> {
        self.areas
            .values()
            .filter(|a| {
                a.bounds.contains(x, z)
                    && a.circle.is_none_or(|c| {
                        (x - c.x).powi(2) + (z - c.z).powi(2) <= c.radius * c.radius
                    })
            })
            .min_by(|a, b| {
                let size = |a: &Area| {
                    (a.bounds.max_x - a.bounds.min_x) * (a.bounds.max_z - a.bounds.min_z)
                };
                size(a).total_cmp(&size(b))
            })
    }
}

/// How a manifest path is handled.
enum FileRole {
    SplitItems,
    LegacyItems,
    Gathering,
    LegacyResources,
    Recipes(RecipeKind),
    Npcs,
    Stores,
    Templates,
    Areas,
    WorldConfig,
    Biomes,
    SkillUnlocks,
    Stations,
    Quests,
    Prayers,
    ModelBounds,
    Music,
    Spells,
    Mobs,
    Banks,
    Zones,
    Agility,
    Unknown,
}

/// Classifies a relative manifest path.
fn role(path: &str) -> FileRole {
    if let Some(name) = path.strip_prefix("items/") {
        return if name.ends_with(".json") && !name.contains('/') {
            FileRole::SplitItems
        } else {
            FileRole::Unknown
        };
    }
    if let Some(name) = path.strip_prefix("gathering/") {
        return if name.ends_with(".json") && !name.contains('/') {
            FileRole::Gathering
        } else {
            FileRole::Unknown
        };
    }
    if path.starts_with("recipes/") {
        return RecipeKind::FILES
            .iter()
            .find(|(_, file)| *file == path)
            .map_or(FileRole::Unknown, |(kind, _)| FileRole::Recipes(*kind));
    }
    match path {
        "items.json" => FileRole::LegacyItems,
        "resources.json" => FileRole::LegacyResources,
        "npcs.json" => FileRole::Npcs,
        "stores.json" => FileRole::Stores,
        "templates.json" => FileRole::Templates,
        "world-areas.json" => FileRole::Areas,
        "world-config.json" => FileRole::WorldConfig,
        "biomes.json" => FileRole::Biomes,
        "skill-unlocks.json" => FileRole::SkillUnlocks,
        "stations.json" => FileRole::Stations,
        "quests.json" => FileRole::Quests,
        "prayers.json" => FileRole::Prayers,
        "model-bounds.json" => FileRole::ModelBounds,
        "music.json" => FileRole::Music,
        crate::fallback::SPELLS_FILE => FileRole::Spells,
        "mobs.json" => FileRole::Mobs,
        "banks.json" => FileRole::Banks,
        "zones.json" => FileRole::Zones,
        "agility.json" => FileRole::Agility,
        _ => FileRole::Unknown,
    }
}

/// Every file parsed into its raw shape.
#[derive(Default)]
struct RawSet {
    split_items: Vec<(String, Vec<RawItem>)>,
    legacy_items: Option<Vec<RawItem>>,
    gathering: Vec<(String, RawGatheringFile)>,
    legacy_resources: Option<RawGatheringFile>,
    recipes: Vec<(String, RawRecipes)>,
    npcs: Option<Vec<RawNpc>>,
    stores: Option<Vec<RawStore>>,
    templates: Option<Vec<crate::templates::RawTemplate>>,
    areas: Option<RawAreasFile>,
    world_config: Option<(RawWorldConfig, serde_json::Value)>,
    biomes: Option<Vec<RawBiome>>,
    skill_unlocks: Option<RawSkillUnlocksFile>,
    stations: Option<RawStationsFile>,
    quests: Option<BTreeMap<String, RawQuest>>,
    prayers: Option<RawPrayersFile>,
    model_bounds: Option<ModelBoundsManifest>,
    music: Option<Vec<MusicTrack>>,
    spells: Option<RawSpellsFile>,
    /// Bundled items the served files lack but magic needs (`fallback`).
    fallback_items: Vec<RawItem>,
    mobs: Option<Vec<RawLegacyMob>>,
    /// `mobs.json` as JSON, for turning its mobs into NPCs.
    mob_values: Vec<serde_json::Value>,
    banks: Option<Vec<LegacyBank>>,
    zones: Option<Vec<LegacyZone>>,
    agility: Option<crate::agility::RawAgilityFile>,
}

/// Parses every file of the set.
fn parse_all(set: &ManifestSet, report: &mut Report) -> RawSet {
    let mut raw = RawSet::default();
    for (path, bytes) in &set.files {
        let p = path.as_str();
        match role(p) {
            FileRole::SplitItems => {
                if let Some(list) = parse_file(p, bytes, report) {
                    raw.split_items.push((path.clone(), list));
                }
            }
            FileRole::LegacyItems => raw.legacy_items = parse_file(p, bytes, report),
            FileRole::Gathering => {
                if let Some(file) = parse_file(p, bytes, report) {
                    raw.gathering.push((path.clone(), file));
                }
            }
            FileRole::LegacyResources => {
                raw.legacy_resources = parse_file::<Vec<gathering::RawNode>>(p, bytes, report)
                    .map(|nodes| RawGatheringFile { nodes });
            }
            FileRole::Recipes(kind) => {
                let parsed = match kind {
                    RecipeKind::Smithing => {
                        parse_file::<RawRecipeFile<RawSmithing>>(p, bytes, report)
                            .map(|f| RawRecipes::Smithing(f.recipes))
                    }
                    RecipeKind::Crafting | RecipeKind::Fletching | RecipeKind::Smelting => {
                        parse_file::<RawRecipeFile<RawCrafting>>(p, bytes, report)
                            .map(|f| RawRecipes::Crafting(kind, f.recipes))
                    }
                    RecipeKind::Cooking => {
                        parse_file::<RawRecipeFile<RawCooking>>(p, bytes, report)
                            .map(|f| RawRecipes::Cooking(f.recipes))
                    }
                    RecipeKind::Firemaking => {
                        parse_file::<RawRecipeFile<RawFiremaking>>(p, bytes, report)
                            .map(|f| RawRecipes::Firemaking(f.recipes))
                    }
                    RecipeKind::Runecrafting => {
                        parse_file::<RawRecipeFile<RawRunecrafting>>(p, bytes, report)
                            .map(|f| RawRecipes::Runecrafting(f.recipes))
                    }
                    RecipeKind::Tanning => {
                        parse_file::<RawRecipeFile<RawTanning>>(p, bytes, report)
                            .map(|f| RawRecipes::Tanning(f.recipes))
                    }
                };
                if let Some(parsed) = parsed {
                    raw.recipes.push((path.clone(), parsed));
                }
            }
            FileRole::Npcs => raw.npcs = parse_file(p, bytes, report),
            FileRole::Stores => raw.stores = parse_file(p, bytes, report),
            FileRole::Templates => raw.templates = parse_file(p, bytes, report),
            FileRole::Areas => raw.areas = parse_file(p, bytes, report),
            FileRole::WorldConfig => {
                if let Some(config) = parse_file::<RawWorldConfig>(p, bytes, report) {
                    // The typed parse succeeded, so the bytes are valid JSON.
                    let value = serde_json::from_slice(bytes).unwrap_or(serde_json::Value::Null);
                    raw.world_config = Some((config, value));
                }
            }
            FileRole::Biomes => raw.biomes = parse_file(p, bytes, report),
            FileRole::SkillUnlocks => raw.skill_unlocks = parse_file(p, bytes, report),
            FileRole::Stations => raw.stations = parse_file(p, bytes, report),
            FileRole::Quests => raw.quests = parse_file(p, bytes, report),
            FileRole::Prayers => raw.prayers = parse_file(p, bytes, report),
            FileRole::ModelBounds => raw.model_bounds = parse_file(p, bytes, report),
            FileRole::Music => raw.music = parse_file(p, bytes, report),
            FileRole::Spells => raw.spells = parse_file(p, bytes, report),
            FileRole::Mobs => {
                raw.mobs = parse_file(p, bytes, report);
                if raw.mobs.is_some() {
                    raw.mob_values = serde_json::from_slice(bytes).unwrap_or_default();
                }
            }
            FileRole::Banks => raw.banks = parse_file(p, bytes, report),
            FileRole::Zones => raw.zones = parse_file(p, bytes, report),
            FileRole::Agility => raw.agility = parse_file(p, bytes, report),
            FileRole::Unknown => {
                report.push(Diagnostic::new(
                    Severity::Warning,
                    Code::UnknownFile,
                    p,
                    "not a manifest of the reference format; ignored",
                ));
            }
        }
    }
    raw
}

/// Records ids of one list, reporting duplicates as errors.
fn collect_ids<'a>(
    ids: impl Iterator<Item = (String, &'a str, String)>,
    set: &mut std::collections::BTreeSet<String>,
    first_file: &mut BTreeMap<String, String>,
    report: &mut Report,
) {
    for (file, id, field) in ids {
        if id.trim().is_empty() {
            continue;
        }
        if !set.insert(id.to_string()) {
            let first = first_file.get(id).cloned().unwrap_or_default();
            report.push(
                Diagnostic::new(
                    Severity::Error,
                    Code::Duplicate,
                    &file,
                    format!("id `{id}` is already defined in {first}"),
                )
                .entry(id)
                .field(field),
            );
        } else {
            first_file.insert(id.to_string(), file);
        }
    }
}

/// Where diagnostics place the bundled items taken in by the fallback.
const FALLBACK_ITEMS: &str = "<bundled items>";

/// Fills in what magic needs from the bundled content where the served files lack it
/// (CONTRACT.md section 11, `fallback`): the spells, then the rune, essence and altar
/// definitions that the spells, runecrafting recipes and staves name, those ids alone, and a rock
/// for essence no served rock yields.
fn fall_back_for_magic(raw: &mut RawSet) {
    if raw.spells.is_none() {
        raw.spells = crate::fallback::bundled_spells();
    }
    let defined: std::collections::BTreeSet<String> = item_files(raw)
        .iter()
        .flat_map(|(_, list)| list.iter().map(|(_, i)| i.id.clone()))
        .collect();
    let mut wanted = crate::fallback::magic_item_ids(
        raw.spells.as_ref(),
        &raw.recipes,
        item_files(raw)
            .iter()
            .flat_map(|(_, list)| list.iter().map(|(_, i)| *i)),
    );
    wanted.retain(|id| !defined.contains(id));
    raw.fallback_items = crate::fallback::bundled_items(&wanted);
    let mut altars = crate::fallback::altar_types(&raw.recipes);
    if let Some(file) = &raw.stations {
        altars.retain(|kind| !file.stations.iter().any(|s| &s.kind == kind));
    }
    // Essence no served rock yields: the bundled rock that does, so it can be mined.
    let mut unmined = crate::fallback::essence_ids(&raw.recipes);
    for (_, file) in &raw.gathering {
        for node in &file.nodes {
            for y in &node.harvest_yield {
                unmined.remove(&y.item_id);
            }
        }
    }
    let taken: std::collections::BTreeSet<&str> = raw
        .gathering
        .iter()
        .flat_map(|(_, f)| f.nodes.iter().map(|n| n.id.as_str()))
        .collect();
    let rocks: Vec<gathering::RawNode> = crate::fallback::bundled_nodes_yielding(&unmined)
        .into_iter()
        .filter(|n| !taken.contains(n.id.as_str()))
        .collect();
    // Only beside served gathering files: a set on the legacy `resources.json` keeps it whole.
    if !rocks.is_empty() && !raw.gathering.is_empty() {
        raw.gathering.push((
            crate::fallback::FALLBACK_ROCKS.to_string(),
            RawGatheringFile { nodes: rocks },
        ));
    }
    let missing = crate::fallback::bundled_stations(&altars);
    if !missing.is_empty() {
        raw.stations
            .get_or_insert_with(|| RawStationsFile {
                stations: Vec::new(),
            })
            .stations
            .extend(missing);
    }
}

/// The item files in use: the split files, then legacy `items.json` for the ids they lack (all of
/// it when there are no split files), then the bundled items magic falls back to (`fallback`).
/// Each entry keeps its index in its own file.
fn item_files(raw: &RawSet) -> Vec<(String, Vec<(usize, &RawItem)>)> {
    let mut out: Vec<(String, Vec<(usize, &RawItem)>)> = raw
        .split_items
        .iter()
        .map(|(f, l)| (f.clone(), l.iter().enumerate().collect()))
        .collect();
    let defined: std::collections::BTreeSet<&str> = raw
        .split_items
        .iter()
        .flat_map(|(_, l)| l.iter().map(|i| i.id.as_str()))
        .collect();
    if let Some(list) = &raw.legacy_items {
        let rest: Vec<(usize, &RawItem)> = list
            .iter()
            .enumerate()
            .filter(|(_, i)| !defined.contains(i.id.as_str()))
            .collect();
        if !rest.is_empty() {
            out.push(("items.json".to_string(), rest));
        }
    }
    if !raw.fallback_items.is_empty() {
        out.push((
            FALLBACK_ITEMS.to_string(),
            raw.fallback_items.iter().enumerate().collect(),
        ));
    }
    out
}

/// The gathering files in use: `gathering/*.json`, then legacy `resources.json` for the node ids
/// they lack (the reference has no `gathering/fishing.json`: its fishing spots come from here).
fn gathering_files(raw: &RawSet) -> Vec<(String, Vec<(usize, &gathering::RawNode)>)> {
    let mut out: Vec<(String, Vec<(usize, &gathering::RawNode)>)> = raw
        .gathering
        .iter()
        .map(|(f, g)| (f.clone(), g.nodes.iter().enumerate().collect()))
        .collect();
    let defined: std::collections::BTreeSet<&str> = raw
        .gathering
        .iter()
        .flat_map(|(_, g)| g.nodes.iter().map(|n| n.id.as_str()))
        .collect();
    if let Some(file) = &raw.legacy_resources {
        let rest: Vec<(usize, &gathering::RawNode)> = file
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| !defined.contains(n.id.as_str()))
            .collect();
        if !rest.is_empty() {
            out.push(("resources.json".to_string(), rest));
        }
    }
    out
}

/// Gathers every defined id, reporting duplicates.
fn known_ids(raw: &RawSet, report: &mut Report) -> Known {
    let mut known = Known::default();
    let mut first = BTreeMap::new();
    for (file, list) in item_files(raw) {
        let ids = list
            .iter()
            .map(|(i, item)| (file.clone(), item.id.as_str(), format!("[{i}].id")));
        collect_ids(ids, &mut known.items, &mut first, report);
    }
    let mut first = BTreeMap::new();
    for (file, g) in gathering_files(raw) {
        let ids = g.iter().map(|(i, n)| {
            (
                file.clone(),
                n.id.as_str(),
                format!("{}.id", node_path(&file, *i)),
            )
        });
        collect_ids(ids, &mut known.gathering, &mut first, report);
    }
    let mut single =
        |file: &str, ids: Vec<(&str, String)>, set: &mut std::collections::BTreeSet<String>| {
            let mut first = BTreeMap::new();
            collect_ids(
                ids.into_iter()
                    .map(|(id, field)| (file.to_string(), id, field)),
                set,
                &mut first,
                report,
            );
        };
    if let Some(list) = &raw.npcs {
        single(
            "npcs.json",
            indexed(list.iter().map(|n| n.id.as_str()), "", "id"),
            &mut known.npcs,
        );
    }
    // `mobs.json` mobs that `npcs.json` lacks become NPCs (see `legacy_mobs`).
    for mob in raw.mobs.iter().flatten() {
        if !mob.id.trim().is_empty() {
            known.npcs.insert(mob.id.clone());
        }
    }
    if let Some(list) = &raw.stores {
        single(
            "stores.json",
            indexed(list.iter().map(|s| s.id.as_str()), "", "id"),
            &mut known.stores,
        );
    }
    if let Some(list) = &raw.biomes {
        single(
            "biomes.json",
            indexed(list.iter().map(|b| b.id.as_str()), "", "id"),
            &mut known.biomes,
        );
    }
    if let Some(file) = &raw.stations {
        single(
            "stations.json",
            indexed(
                file.stations.iter().map(|s| s.kind.as_str()),
                "stations",
                "type",
            ),
            &mut known.stations,
        );
    }
    if let Some(file) = &raw.prayers {
        single(
            "prayers.json",
            indexed(file.prayers.iter().map(|p| p.id.as_str()), "prayers", "id"),
            &mut known.prayers,
        );
    }
    if let Some(map) = &raw.quests {
        known.quests = map.keys().cloned().collect();
    }
    known
}

/// `[(id, "prefix[i].field")]`.
fn indexed<'a>(
    ids: impl Iterator<Item = &'a str>,
    prefix: &str,
    field: &str,
) -> Vec<(&'a str, String)> {
    ids.enumerate()
        .map(|(i, id)| (id, format!("{prefix}[{i}].{field}")))
        .collect()
}

/// Field path of node `i` of a gathering file: `rocks[i]`, `trees[i]`, `spots[i]`, or `[i]` for
/// the legacy top-level array.
fn node_path(file: &str, i: usize) -> String {
    if file == "resources.json" {
        format!("[{i}]")
    } else {
        format!("{}[{i}]", node_key(file))
    }
}

/// The array key a gathering file uses, guessed from its name (for field paths).
fn node_key(file: &str) -> &'static str {
    if file.ends_with("mining.json") {
        "rocks"
    } else if file.ends_with("woodcutting.json") {
        "trees"
    } else if file.ends_with("fishing.json") {
        "spots"
    } else {
        "resources"
    }
}

/// What the bundled content fills in where the served content lacks it (docs/content.md,
/// Fallbacks): the bundled items of the same id for store lines naming items it lacks, the
/// smelting, cooking and firemaking recipes whose items it defines when it has no file of them,
/// and the fishing spot types its areas place without defining. One line each.
fn fill_in(raw: &mut RawSet, report: &mut Report) -> Vec<String> {
    let mut lines = Vec::new();
    let defined_items = |raw: &RawSet| -> std::collections::BTreeSet<String> {
        item_files(raw)
            .iter()
            .flat_map(|(_, list)| list.iter().map(|(_, i)| i.id.clone()))
            .collect()
    };
    // Store lines for items the content lacks: the bundled item of the same id where there is
    // one (the rest stay unknown references, their lines dropped).
    let items = defined_items(raw);
    let unsold: std::collections::BTreeSet<String> = raw
        .stores
        .iter()
        .flatten()
        .flat_map(|s| s.items.iter().map(|l| l.item_id.clone()))
        .filter(|id| !items.contains(id))
        .collect();
    let found = crate::fallback::bundled_items(&unsold);
    if !found.is_empty() {
        let ids: Vec<&str> = found.iter().map(|i| i.id.as_str()).collect();
        lines.push(format!(
            "stores.json items the content does not define: the bundled {}",
            ids.join(", ")
        ));
        raw.fallback_items.extend(found);
    }
    let items = defined_items(raw);
    let stations: std::collections::BTreeSet<String> = raw
        .stations
        .iter()
        .flat_map(|f| f.stations.iter().map(|s| s.kind.clone()))
        .collect();
    let defined = crate::fallback::Defined {
        items: &items,
        stations: &stations,
    };
    lines.extend(crate::fallback::recipes(&mut raw.recipes, &defined));
    // Only beside served gathering files, as the essence rock: a set on the legacy
    // `resources.json` keeps it whole.
    if raw.gathering.is_empty() {
        return lines;
    }
    let nodes: Vec<&gathering::RawNode> = gathering_files(raw)
        .into_iter()
        .flat_map(|(_, list)| list.into_iter().map(|(_, n)| n))
        .collect();
    // The nodes are borrowed from `raw`; the areas are changed: clone the few nodes needed.
    let nodes: Vec<gathering::RawNode> = nodes.into_iter().cloned().collect();
    let refs: Vec<&gathering::RawNode> = nodes.iter().collect();
    let (spots, spot_lines) =
        crate::fallback::fishing_spots(&refs, raw.areas.as_mut(), &items, report);
    lines.extend(spot_lines);
    if !spots.is_empty() {
        raw.gathering.push((
            crate::fallback::FALLBACK_SPOTS.to_string(),
            RawGatheringFile { nodes: spots },
        ));
    }
    lines
}

/// What the server reads but does not act on, for the files present (docs/content.md lists each).
fn ignored(set: &ManifestSet, raw: &RawSet) -> Vec<String> {
    let mut out = Vec::new();
    let has = |p: &str| set.files.contains_key(p);
    if has("music.json") {
        out.push("music.json: tracks are the client's to play".to_owned());
    }
    if has("biomes.json") {
        out.push(
            "biomes.json colours, grass, fog, terrain, maxSlope, waterLevel: drawing only"
                .to_owned(),
        );
    }
    if let Some((_, value)) = &raw.world_config {
        let keys = [
            (
                "terrain/tileSize",
                "terrain.tileSize, tileResolution: the client's mesh",
            ),
            (
                "terrain/noise/erosion",
                "terrain.noise.erosion: no erosion pass",
            ),
            ("terrain/shoreline", "terrain.shoreline: drawing only"),
            (
                "biomes/blendRadius",
                "biomes.blendRadius, boundaryNoiseScale: biome edges are hard at the tile",
            ),
            (
                "roads/smoothingIterations",
                "roads.smoothingIterations: roads follow the grid path",
            ),
            ("vegetation", "vegetation: drawn by clients only"),
        ];
        for (path, line) in keys {
            if value.pointer(&format!("/{path}")).is_some() {
                out.push(format!("world-config.json {line}"));
            }
        }
    }
    if has("zones.json") {
        out.push(
            "zones.json bounds, spawnPoints, difficultyLevel: an older layout (towns within Central \
             Haven); only the town names are used, for generated towns"
                .to_owned(),
        );
    }
    if has("banks.json") {
        out.push("banks.json zone, isShared, maxSlots: every bank is one shared bank".to_owned());
    }
    if !raw.mob_values.is_empty() {
        out.push(
            "mobs.json mobType, xpReward, levelThreshold, ignoreLowLevelPlayers, spawnBiomes names \
             biomes.json lacks (such mobs spawn by difficultyLevel); mobs npcs.json defines come from npcs.json"
                .to_owned(),
        );
    }
    if has("resources.json") && !raw.gathering.is_empty() {
        out.push(
            "resources.json nodes that gathering/*.json defines: the newer file wins".to_owned(),
        );
    }
    if has("items.json") && !raw.split_items.is_empty() {
        out.push("items.json items that items/*.json defines: the newer files win".to_owned());
    }
    out
}

/// `mobs.json` mobs that `npcs.json` does not define, as NPCs. Their `spawnBiomes` use biome names
/// older than `biomes.json`: names `biomes.json` defines are kept, and a mob left with none spawns
/// in the biomes of its `difficultyLevel` (the nearest difficulty there is).
fn legacy_mobs(raw: &RawSet, known: &Known, content: &mut Content, report: &mut Report) {
    let biomes: Vec<(String, i64)> = raw
        .biomes
        .iter()
        .flatten()
        .map(|b| {
            (
                b.id.clone(),
                b.difficulty_level.or(b.difficulty).unwrap_or(0),
            )
        })
        .collect();
    let mut ctx = Ctx {
        file: "mobs.json",
        report,
        known,
    };
    for (i, value) in raw.mob_values.iter().enumerate() {
        let Some(id) = value.get("id").and_then(|v| v.as_str()) else {
            continue;
        };
        if content.npcs.contains_key(id) {
            continue;
        }
        let named: Vec<String> = value
            .get("spawnBiomes")
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
            .filter_map(|b| b.as_str())
            .filter(|b| biomes.iter().any(|(id, _)| id == b))
            .map(str::to_owned)
            .collect();
        let spawn_biomes = if named.is_empty() {
            let difficulty = value
                .get("difficultyLevel")
                .and_then(|v| v.as_i64())
                .unwrap_or(1);
            let nearest = biomes
                .iter()
                .map(|(_, d)| (d - difficulty).abs())
                .min()
                .unwrap_or(0);
            biomes
                .iter()
                .filter(|(_, d)| (d - difficulty).abs() == nearest)
                .map(|(id, _)| id.clone())
                .collect()
        } else {
            named
        };
        let shaped = crate::legacy::mob_as_npc(value, spawn_biomes);
        match serde_json::from_value::<RawNpc>(shaped) {
            Ok(npc) => {
                if let Some(npc) = npcs::normalise(&npc, i, &mut ctx) {
                    content.npcs.insert(npc.id.clone(), npc);
                }
            }
            Err(err) => ctx.invalid(
                id,
                &format!("[{i}]"),
                format!("not usable as an NPC: {err}"),
            ),
        }
    }
}

/// Parses, normalises and validates everything; the report may hold errors.
fn load(set: &ManifestSet) -> (Content, Report) {
    let mut report = Report::new();
    if set.is_empty() {
        report.push(Diagnostic::new(
            Severity::Error,
            Code::Missing,
            "<manifests>",
            "no manifest files found",
        ));
        return (Content::default(), report);
    }
    let mut raw = parse_all(set, &mut report);
    crate::starter::add_fallback_food(&mut raw.split_items, &mut raw.legacy_items, &mut report);
    fall_back_for_magic(&mut raw);
    let filled_in = fill_in(&mut raw, &mut report);
    let known = known_ids(&raw, &mut report);
    let mut content = Content::default();

    let tool_skills: BTreeMap<String, Skill> = item_files(&raw)
        .iter()
        .flat_map(|(_, list)| list.iter().map(|(_, item)| *item))
        .filter_map(|item| {
            let skill = Skill::parse(&item.tool.as_ref()?.skill)?;
            Some((item.id.clone(), skill))
        })
        .collect();

    for (file, list) in item_files(&raw) {
        let mut ctx = Ctx {
            file: &file,
            report: &mut report,
            known: &known,
        };
        for (i, rawitem) in list.iter().copied() {
            if content.items.contains_key(&rawitem.id) {
                continue;
            }
            if let Some(item) = items::normalise(rawitem, i, &mut ctx) {
                content.items.insert(item.id.clone(), item);
            }
        }
    }

    for (file, g) in gathering_files(&raw) {
        let mut ctx = Ctx {
            file: &file,
            report: &mut report,
            known: &known,
        };
        for (i, node) in g.iter().copied() {
            let path = node_path(&file, i);
            if content.gathering.contains_key(&node.id) {
                continue;
            }
            let lookup = |id: &str| tool_skills.get(id).copied();
            if let Some(n) = gathering::normalise(node, &path, &lookup, &mut ctx) {
                content.gathering.insert(n.id.clone(), n);
            }
        }
    }

    if let Some(list) = &raw.npcs {
        let mut ctx = Ctx {
            file: "npcs.json",
            report: &mut report,
            known: &known,
        };
        for (i, n) in list.iter().enumerate() {
            if content.npcs.contains_key(&n.id) {
                continue;
            }
            if let Some(npc) = npcs::normalise(n, i, &mut ctx) {
                content.npcs.insert(npc.id.clone(), npc);
            }
        }
    }

    legacy_mobs(&raw, &known, &mut content, &mut report);

    if let Some(list) = &raw.stores {
        let mut ctx = Ctx {
            file: "stores.json",
            report: &mut report,
            known: &known,
        };
        let values: BTreeMap<&str, u64> = content
            .items
            .iter()
            .map(|(id, item)| (id.as_str(), item.value))
            .collect();
        let value_of = |id: &str| values.get(id).copied();
        for (i, s) in list.iter().enumerate() {
            if content.stores.contains_key(&s.id) {
                continue;
            }
            if let Some(store) = stores::normalise(s, i, &value_of, &mut ctx) {
                content.stores.insert(store.id.clone(), store);
            }
        }
    }

    if let Some(list) = &raw.templates {
        let mut ctx = Ctx {
            file: "templates.json",
            report: &mut report,
            known: &known,
        };
        for (i, t) in list.iter().enumerate() {
            if content.templates.contains_key(&t.id) {
                ctx.duplicate(
                    &t.id,
                    &format!("[{i}].id"),
                    format!("template `{}` is defined twice", t.id),
                );
                continue;
            }
            let Some(template) = crate::templates::normalise(t, i, &mut ctx) else {
                continue;
            };
            // Items loaded above: whether the kit fits one inventory (a stack a slot, else one a
            // slot), so a template never gives less than it lists.
            let slots: u64 = template
                .items
                .iter()
                .map(|a| match content.items.get(a.item_id.as_str()) {
                    Some(item) if item.stackable => 1,
                    _ => u64::from(a.quantity),
                })
                .sum();
            if slots > crate::templates::MAX_TEMPLATE_ITEMS as u64 {
                ctx.invalid(
                    &t.id,
                    &format!("[{i}].items"),
                    format!(
                        "the items need {slots} inventory slots; an inventory has {}",
                        crate::templates::MAX_TEMPLATE_ITEMS
                    ),
                );
                continue;
            }
            content.templates.insert(template.id.clone(), template);
        }
    }

    if let Some(list) = &raw.biomes {
        let mut ctx = Ctx {
            file: "biomes.json",
            report: &mut report,
            known: &known,
        };
        for (i, b) in list.iter().enumerate() {
            if content.biomes.contains_key(&b.id) {
                continue;
            }
            if let Some(biome) = biomes::normalise(b, i, &mut ctx) {
                content.biomes.insert(biome.id.clone(), biome);
            }
        }
    }

    if let Some(file) = &raw.stations {
        let mut ctx = Ctx {
            file: "stations.json",
            report: &mut report,
            known: &known,
        };
        for (i, s) in file.stations.iter().enumerate() {
            if !ctx.check_id(&s.kind, &format!("stations[{i}].type"))
                || content.stations.contains_key(&s.kind)
            {
                continue;
            }
            if !s.model_scale.is_finite() || s.model_scale <= 0.0 {
                ctx.invalid(
                    &s.kind,
                    &format!("stations[{i}].modelScale"),
                    "modelScale must be positive",
                );
            }
            content.stations.insert(s.kind.clone(), s.normalise());
        }
    }

    if let Some(file) = &raw.prayers {
        let mut ctx = Ctx {
            file: "prayers.json",
            report: &mut report,
            known: &known,
        };
        for (i, p) in file.prayers.iter().enumerate() {
            if content.prayers.contains_key(&p.id) {
                continue;
            }
            if let Some(prayer) = prayers::normalise(p, i, &mut ctx) {
                content.prayers.insert(prayer.id.clone(), prayer);
            }
        }
    }

    if let Some(file) = &raw.skill_unlocks {
        let mut ctx = Ctx {
            file: "skill-unlocks.json",
            report: &mut report,
            known: &known,
        };
        content.skill_unlocks = skill_unlocks::normalise(file, &mut ctx);
    }

    content.recipes = recipes::normalise(&raw.recipes, &mut report, &known);

    if let Some(file) = &raw.spells {
        let mut ctx = Ctx {
            file: crate::fallback::SPELLS_FILE,
            report: &mut report,
            known: &known,
        };
        for (i, raw_spell) in file.spells.iter().enumerate() {
            if content.spells.contains_key(&raw_spell.id) {
                ctx.duplicate(
                    &raw_spell.id,
                    &format!("spells[{i}].id"),
                    format!("spell `{}` is defined twice", raw_spell.id),
                );
                continue;
            }
            if let Some(spell) = spells::normalise(raw_spell, i, &mut ctx) {
                content.spells.insert(spell.id.clone(), spell);
            }
        }
    }
    content.recipes.sort_by_key(|r| r.kind);

    if let Some((config, value)) = &raw.world_config {
        let mut ctx = Ctx {
            file: "world-config.json",
            report: &mut report,
            known: &known,
        };
        content.world_config = world_config::normalise(config, value.clone(), &mut ctx);
    }
    let has_kit = raw
        .world_config
        .as_ref()
        .is_some_and(|(config, _)| config.starter_kit.is_some());
    if !has_kit {
        content.world_config.starter_kit =
            crate::starter::default_kit(&content.items, &content.gathering);
    }

    if let Some(file) = &raw.agility {
        let mut ctx = Ctx {
            file: "agility.json",
            report: &mut report,
            known: &known,
        };
        content.agility_courses = crate::agility::normalise(file, &mut ctx);
    }

    if let Some(file) = &raw.areas {
        let mut ctx = Ctx {
            file: "world-areas.json",
            report: &mut report,
            known: &known,
        };
        let enabled: std::collections::BTreeSet<String> =
            content.gathering.keys().cloned().collect();
        for (group, group_key, key, area) in file.all() {
            let path = format!("{group_key}.{key}");
            if content.areas.contains_key(&area.id) {
                ctx.duplicate(
                    &area.id,
                    &format!("{path}.id"),
                    format!("area `{}` is defined twice", area.id),
                );
                continue;
            }
            if let Some(a) = areas::normalise(group, &path, key, area, &enabled, &mut ctx) {
                content.areas.insert(a.id.clone(), a);
            }
        }
    }

    if let Some(map) = &raw.quests {
        let mut ctx = Ctx {
            file: "quests.json",
            report: &mut report,
            known: &known,
        };
        for (key, q) in map {
            if let Some(quest) = quests::normalise(key, q, &mut ctx) {
                content.quests.insert(quest.id.clone(), quest);
            }
        }
        quests::cascade(&mut content.quests, &mut ctx);
    }

    if let Some(manifest) = &raw.model_bounds {
        let mut ctx = Ctx {
            file: "model-bounds.json",
            report: &mut report,
            known: &known,
        };
        for (i, model) in manifest.models.iter().enumerate() {
            if content.model_bounds.contains_key(&model.asset_path) {
                ctx.duplicate(
                    &model.id,
                    &format!("models[{i}].assetPath"),
                    format!("asset path `{}` is listed twice", model.asset_path),
                );
                continue;
            }
            content
                .model_bounds
                .insert(model.asset_path.clone(), model.clone());
        }
    }

    content.music = raw.music.clone().unwrap_or_default();
    content.legacy = Legacy {
        mobs: raw
            .mobs
            .iter()
            .flatten()
            .map(RawLegacyMob::normalise)
            .collect(),
        banks: raw.banks.clone().unwrap_or_default(),
        zones: raw.zones.clone().unwrap_or_default(),
    };
    content.ignored = ignored(set, &raw);
    content.filled_in = filled_in;
    (content, report)
}
