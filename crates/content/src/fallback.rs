//! What the loader takes from the bundled content where the content being served lacks it
//! (CONTRACT.md section 11): the spells when there is no `spells.json`, and the rune items,
//! essence and runecrafting altars that spells, runecrafting recipes and staves name but the
//! served files do not define — those ids alone, never a whole file. The reference files name
//! `air_rune` … `chaos_rune` in their runecrafting recipes and staves without defining them; with
//! this their six recipes play. Essence no served rock yields comes with the bundled rock that
//! does, so it can be mined.

use std::collections::BTreeSet;

use crate::gathering::{RawGatheringFile, RawNode};
use crate::items::RawItem;
use crate::parse::parse_file;
use crate::recipes::RawRecipes;
use crate::report::Report;
use crate::spells::RawSpellsFile;
use crate::stations::{RawStation, RawStationsFile};

/// The bundled `spells.json`.
pub(crate) fn bundled_spells() -> Option<RawSpellsFile> {
    let set = crate::bundled::bundled();
    let bytes = set.files.get("spells.json")?;
    // The bundled files are checked by their own test; a scratch report is enough here.
    parse_file(SPELLS_FILE, bytes, &mut Report::new())
}

/// The manifest path of the spells.
pub(crate) const SPELLS_FILE: &str = "spells.json";

/// The item ids that magic needs defined: every spell's runes, every runecrafting recipe's rune
/// and essences, every staff's runes.
pub(crate) fn magic_item_ids<'a>(
    spells: Option<&RawSpellsFile>,
    recipes: &[(String, RawRecipes)],
    items: impl Iterator<Item = &'a RawItem>,
) -> BTreeSet<String> {
    let mut wanted = BTreeSet::new();
    for spell in spells.iter().flat_map(|f| f.spells.iter()) {
        wanted.extend(spell.runes.iter().map(|r| r.item_id.clone()));
    }
    for (_, raw) in recipes {
        if let RawRecipes::Runecrafting(list) = raw {
            for recipe in list {
                wanted.insert(recipe.rune_item_id.clone());
                wanted.extend(recipe.essence_types.iter().cloned());
            }
        }
    }
    for item in items {
        wanted.extend(item.provides_infinite_runes.iter().flatten().cloned());
    }
    wanted
}

/// The altar station types the runecrafting recipes need.
pub(crate) fn altar_types(recipes: &[(String, RawRecipes)]) -> BTreeSet<String> {
    recipes
        .iter()
        .filter_map(|(_, raw)| match raw {
            RawRecipes::Runecrafting(list) => Some(list.iter().map(|r| r.altar())),
            _ => None,
        })
        .flatten()
        .collect()
}

/// The bundled definitions of the items in `ids` (those it has).
pub(crate) fn bundled_items(ids: &BTreeSet<String>) -> Vec<RawItem> {
    if ids.is_empty() {
        return Vec::new();
    }
    let set = crate::bundled::bundled();
    let mut found = Vec::new();
    for (path, bytes) in &set.files {
        if !path.starts_with("items/") {
            continue;
        }
        let list: Vec<RawItem> = parse_file(path, bytes, &mut Report::new()).unwrap_or_default();
        found.extend(list.into_iter().filter(|item| ids.contains(&item.id)));
    }
    found
}

/// The bundled definitions of the station types in `types` (those it has).
pub(crate) fn bundled_stations(types: &BTreeSet<String>) -> Vec<RawStation> {
    if types.is_empty() {
        return Vec::new();
    }
    let set = crate::bundled::bundled();
    let Some(bytes) = set.files.get("stations.json") else {
        return Vec::new();
    };
    let file: Option<RawStationsFile> = parse_file("stations.json", bytes, &mut Report::new());
    file.map(|f| f.stations)
        .unwrap_or_default()
        .into_iter()
        .filter(|s| types.contains(&s.kind))
        .collect()
}

/// Where diagnostics place the bundled rocks taken in (ends like a mining file, so its nodes are
/// `rocks[i]`).
pub(crate) const FALLBACK_ROCKS: &str = "<bundled>/gathering/mining.json";

/// The essence kinds the runecrafting recipes take.
pub(crate) fn essence_ids(recipes: &[(String, RawRecipes)]) -> BTreeSet<String> {
    recipes
        .iter()
        .filter_map(|(_, raw)| match raw {
            RawRecipes::Runecrafting(list) => {
                Some(list.iter().flat_map(|r| r.essence_types.iter().cloned()))
            }
            _ => None,
        })
        .flatten()
        .collect()
}

/// The bundled gathering nodes that yield any of `items` (the essence rock).
pub(crate) fn bundled_nodes_yielding(items: &BTreeSet<String>) -> Vec<RawNode> {
    if items.is_empty() {
        return Vec::new();
    }
    let set = crate::bundled::bundled();
    let mut found = Vec::new();
    for (path, bytes) in &set.files {
        if !path.starts_with("gathering/") {
            continue;
        }
        let file: Option<RawGatheringFile> = parse_file(path, bytes, &mut Report::new());
        found.extend(
            file.map(|f| f.nodes)
                .unwrap_or_default()
                .into_iter()
                .filter(|n| n.harvest_yield.iter().any(|y| items.contains(&y.item_id))),
        );
    }
    found
}

/// The manifest path under which a server serves the bundled definitions of the items it plays
/// that the served item files lack ([`missing_item_definitions`]).
pub const FALLBACK_ITEMS_FILE: &str = "items/fallback.json";

/// The bundled definitions, as their JSON objects, of the items `content` plays that no item file
/// of `set` defines (the fallback food of a world without any, the runes magic names): what a
/// client reading `items/*.json` needs to name them and offer Eat. Empty when every played item is
/// in the files.
pub fn missing_item_definitions(
    set: &crate::ManifestSet,
    content: &crate::Content,
) -> Vec<serde_json::Value> {
    let defined_in = |files: &crate::ManifestSet| -> Vec<serde_json::Value> {
        files
            .files
            .iter()
            .filter(|(path, _)| path.starts_with("items/") || path.as_str() == "items.json")
            .filter_map(|(_, bytes)| serde_json::from_slice::<Vec<serde_json::Value>>(bytes).ok())
            .flatten()
            .collect()
    };
    let served: BTreeSet<String> = defined_in(set)
        .iter()
        .filter_map(|item| item["id"].as_str().map(str::to_owned))
        .collect();
    let missing: BTreeSet<&str> = content
        .items
        .keys()
        .map(String::as_str)
        .filter(|id| !served.contains(*id))
        .collect();
    if missing.is_empty() {
        return Vec::new();
    }
    let mut found: Vec<serde_json::Value> = defined_in(&crate::bundled::bundled())
        .into_iter()
        .filter(|item| item["id"].as_str().is_some_and(|id| missing.contains(id)))
        .collect();
    found.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
    found.dedup_by(|a, b| a["id"] == b["id"]);
    found
}

/// The recipe files the bundled content fills in where the served content has none of them
/// (CONTRACT.md section 14): bars for smithing, and the two skills the reference ships no recipes
/// for at all, so its ranges and its starter tinderbox do something.
const FILLED_RECIPES: [crate::recipes::RecipeKind; 3] = [
    crate::recipes::RecipeKind::Smelting,
    crate::recipes::RecipeKind::Cooking,
    crate::recipes::RecipeKind::Firemaking,
];

/// What a fill-in may name: the items and stations the served content defines.
pub(crate) struct Defined<'a> {
    /// Item ids.
    pub items: &'a BTreeSet<String>,
    /// Station types.
    pub stations: &'a BTreeSet<String>,
}

impl Defined<'_> {
    fn item(&self, id: &str) -> bool {
        self.items.contains(id)
    }

    fn station(&self, kind: Option<&str>) -> bool {
        kind.is_none_or(|k| self.stations.contains(k))
    }
}

/// For each of [`FILLED_RECIPES`] the served content has no file of: the bundled recipes whose
/// items (and station) it defines, as that file, with one line saying so (`Content::filled_in`).
/// Cooking keeps a recipe whose burnt item the content lacks when it defines `burnt_<output>`
/// (the reference's `burnt_shrimp` for our `burnt_fish`), and lets it not burn otherwise.
pub(crate) fn recipes(
    recipes: &mut Vec<(String, RawRecipes)>,
    defined: &Defined<'_>,
) -> Vec<String> {
    use crate::recipes::{RawCooking, RawCrafting, RawFiremaking, RawRecipeFile, RecipeKind};
    let mut lines = Vec::new();
    if defined.items.is_empty() {
        return lines;
    }
    for kind in FILLED_RECIPES {
        let Some((_, path)) = RecipeKind::FILES.iter().find(|(k, _)| *k == kind) else {
            continue;
        };
        if recipes.iter().any(|(p, _)| p == path) {
            continue;
        }
        let Some(bytes) = crate::bundled::file(path) else {
            continue;
        };
        let filled = match kind {
            RecipeKind::Cooking => serde_json::from_slice::<RawRecipeFile<RawCooking>>(bytes)
                .ok()
                .map(|file| {
                    let usable: Vec<RawCooking> = file
                        .recipes
                        .into_iter()
                        .filter(|r| {
                            defined.item(&r.input)
                                && defined.item(&r.output)
                                && defined.station(r.station.as_deref())
                        })
                        .map(|mut r| {
                            if r.burnt.as_deref().is_some_and(|b| !defined.item(b)) {
                                let own = format!("burnt_{}", r.output);
                                r.burnt = defined.item(&own).then_some(own);
                            }
                            r
                        })
                        .collect();
                    (usable.len(), RawRecipes::Cooking(usable))
                }),
            RecipeKind::Firemaking => serde_json::from_slice::<RawRecipeFile<RawFiremaking>>(bytes)
                .ok()
                .map(|file| {
                    let usable: Vec<RawFiremaking> = file
                        .recipes
                        .into_iter()
                        .filter(|r| {
                            defined.item(&r.input) && r.tools.iter().all(|t| defined.item(t))
                        })
                        .collect();
                    (usable.len(), RawRecipes::Firemaking(usable))
                }),
            _ => serde_json::from_slice::<RawRecipeFile<RawCrafting>>(bytes)
                .ok()
                .map(|file| {
                    let usable: Vec<RawCrafting> = file
                        .recipes
                        .into_iter()
                        .filter(|r| {
                            defined.item(&r.output)
                                && r.inputs.iter().all(|i| defined.item(&i.item))
                                && r.tools.iter().all(|t| defined.item(t))
                                && defined.station(r.station.as_deref())
                        })
                        .collect();
                    (usable.len(), RawRecipes::Crafting(kind, usable))
                }),
        };
        if let Some((count, file)) = filled.filter(|(count, _)| *count > 0) {
            lines.push(format!(
                "{path}: {count} bundled recipe{} whose items the content defines (it has no {path})",
                if count == 1 { "" } else { "s" }
            ));
            recipes.push(((*path).to_owned(), file));
        }
    }
    lines
}

/// Where diagnostics place the fishing spots taken in (ends like a fishing file, so its nodes
/// are `spots[i]`).
pub(crate) const FALLBACK_SPOTS: &str = "<bundled>/gathering/fishing.json";

/// The fishing spots that can be filled in: the bundled game's, then those for tools it does not
/// use (`bundled/fill-in/fishing.json`).
fn spot_catalogue() -> Vec<RawNode> {
    const FILL_IN: &[u8] = include_bytes!("../bundled/fill-in/fishing.json");
    let bundled = crate::bundled::file("gathering/fishing.json").unwrap_or_default();
    [bundled, FILL_IN]
        .into_iter()
        .filter_map(|bytes| serde_json::from_slice::<RawGatheringFile>(bytes).ok())
        .flat_map(|file| file.nodes)
        .collect()
}

/// The family of a fishing tool: every rod is one (a fly rod and a bait rod are both rods);
/// anything else is its own.
fn tool_family(tool: &str) -> &str {
    if tool.ends_with("fishing_rod") {
        "rod"
    } else {
        tool
    }
}

/// The fishing spot types the areas place (`fishing.spotTypes`) that no gathering file defines:
/// the catalogue's spot of the same id when the content defines its tool, bait and catches
/// (returned, with a line each for `Content::filled_in`); otherwise, with a warning, a defined
/// spot type of the same tool family placed in its stead. A type with neither stays, and is
/// reported as an unknown reference where the area is read.
pub(crate) fn fishing_spots(
    defined_nodes: &[&RawNode],
    areas: Option<&mut crate::areas::RawAreasFile>,
    items: &BTreeSet<String>,
    report: &mut Report,
) -> (Vec<RawNode>, Vec<String>) {
    let Some(areas) = areas else {
        return (Vec::new(), Vec::new());
    };
    let defined = |id: &str| defined_nodes.iter().any(|n| n.id == id);
    let mut wanted: Vec<String> = Vec::new();
    for (_, _, _, area) in areas.all() {
        for spot in area.fishing.iter().flat_map(|f| f.spot_types.iter()) {
            if !defined(spot) && !wanted.contains(spot) {
                wanted.push(spot.clone());
            }
        }
    }
    if wanted.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let catalogue = spot_catalogue();
    let usable = |node: &RawNode| {
        node.tool_required.iter().all(|t| items.contains(t))
            && node.bait_required.iter().all(|b| items.contains(b))
            && !node.harvest_yield.is_empty()
            && node
                .harvest_yield
                .iter()
                .all(|y| items.contains(&y.item_id))
    };
    let mut taken: Vec<RawNode> = Vec::new();
    let mut lines = Vec::new();
    let mut instead: Vec<(String, String)> = Vec::new();
    for spot in wanted {
        let listed = catalogue.iter().find(|n| n.id == spot);
        if let Some(node) = listed.filter(|n| usable(n)) {
            lines.push(format!(
                "world-areas.json fishing spot type `{spot}`: the bundled spot (the content does not define it)"
            ));
            taken.push(node.clone());
            continue;
        }
        let family = listed
            .and_then(|n| n.tool_required.as_deref())
            .map(tool_family);
        let same = family.and_then(|family| {
            defined_nodes
                .iter()
                .copied()
                .chain(taken.iter())
                .filter(|n| n.kind == "fishing_spot" || n.id.starts_with("fishing_spot"))
                .find(|n| n.tool_required.as_deref().map(tool_family) == Some(family))
        });
        if let Some(other) = same {
            report.warning(
                crate::report::Code::UnknownReference,
                "world-areas.json",
                format!(
                    "fishing spot type `{spot}` is not defined; `{}`, a spot of the same tool family, is placed in its stead",
                    other.id
                ),
            );
            instead.push((spot, other.id.clone()));
        }
    }
    let maps = [
        &mut areas.starter_towns,
        &mut areas.level1_areas,
        &mut areas.level2_areas,
        &mut areas.level3_areas,
    ];
    for area in maps.into_iter().flat_map(|map| map.values_mut()) {
        for spot in area
            .fishing
            .iter_mut()
            .flat_map(|f| f.spot_types.iter_mut())
        {
            if let Some((_, other)) = instead.iter().find(|(s, _)| s == spot) {
                *spot = other.clone();
            }
        }
    }
    (taken, lines)
}
