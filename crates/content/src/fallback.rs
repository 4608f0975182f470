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
