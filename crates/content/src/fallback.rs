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
