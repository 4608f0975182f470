//! What every player can know before looking around: the items and gathering nodes of the public
//! manifests, read by the content crate's own loader (so the agent knows them as the server does),
//! and the world's areas (`GET /api/v1/world/areas`, the content's [`Area`]s) with where banks,
//! shops, trees, rocks, stations and mob spawns are. Read once per connection over REST; nothing
//! here changes during a session the agent relies on.

use std::collections::BTreeMap;

use serde::Deserialize;
use wayfarer_content::{
    Area, Content, GatheringNode, Item, ItemId, ManifestSet, Recipe, RecipeKind, ResourceId,
};
use wayfarer_protocol::ws::TilePos;

use crate::http::{Http, HttpError, Request};

/// Manifest files read for item facts.
const ITEM_MANIFESTS: &[&str] = &[
    "items/tools.json",
    "items/weapons.json",
    "items/armor.json",
    "items/resources.json",
    "items/misc.json",
    "items/ammunition.json",
];
/// The manifest of the spells (CONTRACT §11; without it the loader takes the bundled ones).
const SPELL_MANIFEST: &str = "spells.json";
/// The manifest of the quests (read for their givers and stages only: `crate::quests`).
const QUEST_MANIFEST: &str = "quests.json";
/// Manifest files read for gathering nodes.
const GATHERING_MANIFESTS: &[&str] = &[
    "gathering/woodcutting.json",
    "gathering/fishing.json",
    "gathering/mining.json",
];

/// Manifest files read for recipes: the station types, which a recipe made at a station (a range,
/// a furnace) needs to load, then every recipe file.
fn recipe_manifests() -> impl Iterator<Item = &'static str> {
    std::iter::once("stations.json").chain(RecipeKind::FILES.iter().map(|(_, file)| *file))
}

/// The [`Place::kind`] of a mob spawn (its `id` is the mob's NPC type).
pub const MOB_SPAWN: &str = "mob_spawn";

/// A place from the world's areas.
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    /// `bank`, `shop`, `tree`, `fishing`, `ore`, a station type, an NPC's role, [`MOB_SPAWN`]…
    pub kind: String,
    /// Content id (`banker_elsie`, `tree_normal`; a station's type).
    pub id: String,
    pub tile: TilePos,
    pub area: String,
    /// An NPC the area places (a banker, a shopkeeper, a quest giver), not a mob or a thing.
    pub npc: bool,
}

/// An area's name and bounds.
#[derive(Debug, Clone, PartialEq)]
pub struct AreaFacts {
    pub id: String,
    pub name: String,
    pub min: TilePos,
    pub max: TilePos,
    pub safe: bool,
}

/// Everything the agent knows without looking.
#[derive(Debug, Clone, Default)]
pub struct Knowledge {
    /// Items by id, as content defines them.
    pub items: BTreeMap<ItemId, Item>,
    /// Gathering nodes (trees, rocks, fishing spots) by id.
    pub nodes: BTreeMap<ResourceId, GatheringNode>,
    /// Every recipe, in content order (what `make` can make: CONTRACT §9).
    pub recipes: Vec<Recipe>,
    /// Combat spells by id (CONTRACT §11).
    pub spells: BTreeMap<String, wayfarer_content::Spell>,
    pub places: Vec<Place>,
    pub areas: Vec<AreaFacts>,
    /// The quests (`quests.json`), in the file's order: who gives each and its stages.
    pub quests: Vec<crate::quests::QuestFacts>,
}

impl Knowledge {
    /// Whether an NPC of `type_id` is one the areas place as a service or quest NPC (a banker, a
    /// shopkeeper, a quest giver): never a target to attack.
    pub fn is_service_npc(&self, type_id: &str) -> bool {
        self.places
            .iter()
            .any(|p| p.id == type_id && p.kind != MOB_SPAWN && p.npc)
    }
}

/// The body of `GET /api/v1/world/areas`.
#[derive(Deserialize)]
struct WorldAreas {
    areas: Vec<Area>,
}

impl Knowledge {
    /// Reads the manifests and areas from the server at `base` (`http://host:port`). Files that are
    /// missing are skipped: content may not have them all.
    pub async fn fetch(http: &Http, base: &str, token: &str) -> Result<Knowledge, HttpError> {
        let mut manifests = ManifestSet::new();
        for file in ITEM_MANIFESTS
            .iter()
            .copied()
            .chain(GATHERING_MANIFESTS.iter().copied())
            .chain(recipe_manifests())
            .chain(std::iter::once(SPELL_MANIFEST))
        {
            if let Some(bytes) = get(http, &format!("{base}/manifests/{file}"), None).await? {
                manifests.insert(file, bytes);
            }
        }
        let mut knowledge = Knowledge::default();
        knowledge.add_manifests(&manifests);
        if let Some(bytes) = get(http, &format!("{base}/manifests/{QUEST_MANIFEST}"), None).await? {
            knowledge.quests = crate::quests::read(&bytes);
        }
        if let Some(bytes) = get(http, &format!("{base}/api/v1/world/areas"), Some(token)).await? {
            match serde_json::from_slice::<WorldAreas>(&bytes) {
                Ok(world) => knowledge.add_areas(&world.areas),
                Err(err) => {
                    tracing::warn!(error = %err, "the world's areas are unreadable: no places known")
                }
            }
        }
        Ok(knowledge)
    }

    /// Everything in `content`: its items, gathering nodes and areas.
    pub fn from_content(content: &Content) -> Knowledge {
        let mut knowledge = Knowledge {
            items: content.items.clone(),
            nodes: content.gathering.clone(),
            recipes: content.recipes.clone(),
            spells: content.spells.clone(),
            quests: content
                .quests
                .values()
                .map(crate::quests::QuestFacts::of)
                .collect(),
            ..Knowledge::default()
        };
        knowledge.add_areas(&content.areas.values().cloned().collect::<Vec<_>>());
        knowledge
    }

    /// Adds the items, gathering nodes and recipes of a set of manifests, loaded and checked as the
    /// server loads them. A set that does not load adds nothing (the server serves only content
    /// that loads); when only the recipes are at fault (they name items of files the agent does
    /// not read), the items and nodes are kept without them.
    pub fn add_manifests(&mut self, manifests: &ManifestSet) {
        if manifests.is_empty() {
            return;
        }
        let loaded = Content::from_files(manifests).or_else(|report| {
            let mut without = manifests.clone();
            let mut had_recipes = false;
            for file in recipe_manifests() {
                had_recipes |= without.files.remove(file).is_some();
            }
            if !had_recipes {
                return Err(report);
            }
            tracing::warn!(
                errors = report.error_count(),
                "the recipes do not load with the items: no recipes known"
            );
            Content::from_files(&without)
        });
        match loaded {
            Ok((content, _)) => {
                self.items.extend(content.items);
                self.nodes.extend(content.gathering);
                self.recipes.extend(content.recipes);
                self.spells.extend(content.spells);
            }
            Err(report) => {
                let first = report
                    .diagnostics
                    .iter()
                    .find(|d| d.severity == wayfarer_content::Severity::Error)
                    .map(ToString::to_string)
                    .unwrap_or_default();
                tracing::warn!(
                    errors = report.error_count(),
                    first = %first,
                    "the manifests do not load: no items or gathering nodes known"
                );
            }
        }
    }

    /// Adds the areas (as `GET /api/v1/world/areas` lists them) and the places in them.
    pub fn add_areas(&mut self, areas: &[Area]) {
        for area in areas {
            let tile = |p: &wayfarer_content::Position| {
                let t = p.tile();
                TilePos { x: t.x, z: t.z }
            };
            let mut place = |kind: &str, id: &str, at: &wayfarer_content::Position, npc: bool| {
                self.places.push(Place {
                    kind: kind.to_owned(),
                    id: id.to_owned(),
                    tile: tile(at),
                    area: area.id.clone(),
                    npc,
                });
            };
            for npc in &area.npcs {
                let kind = npc.role.as_deref().unwrap_or("npc");
                place(kind, &npc.npc_id, &npc.position, true);
            }
            // Where mobs spawn, so a fighter with none in view knows where to go.
            for spawn in &area.mob_spawns {
                place(MOB_SPAWN, &spawn.mob_id, &spawn.position, false);
            }
            for resource in &area.resources {
                let kind = match resource.kind.as_str() {
                    "" => "resources",
                    kind => kind,
                };
                place(kind, &resource.resource_id, &resource.position, false);
            }
            for station in &area.stations {
                place(&station.station, &station.station, &station.position, false);
            }
            self.areas.push(AreaFacts {
                id: area.id.clone(),
                name: area.name.clone(),
                min: TilePos {
                    x: area.bounds.min_x as i32,
                    z: area.bounds.min_z as i32,
                },
                max: TilePos {
                    x: area.bounds.max_x as i32,
                    z: area.bounds.max_z as i32,
                },
                safe: area.safe_zone,
            });
        }
    }

    /// Places of `kind`, nearest to `from` first.
    pub fn places_of<'a>(&'a self, kind: &str, from: TilePos) -> Vec<&'a Place> {
        let mut found: Vec<&Place> = self.places.iter().filter(|p| p.kind == kind).collect();
        found.sort_by_key(|p| crate::model::chebyshev(from.x, from.z, p.tile.x, p.tile.z));
        found
    }

    /// The item's display name, or its id.
    pub fn item_name<'a>(&'a self, id: &'a str) -> &'a str {
        self.items.get(id).map_or(id, |i| i.name.as_str())
    }

    /// The area holding `tile`.
    pub fn area_at(&self, tile: TilePos) -> Option<&AreaFacts> {
        self.areas.iter().find(|a| {
            tile.x >= a.min.x && tile.x <= a.max.x && tile.z >= a.min.z && tile.z <= a.max.z
        })
    }
}

/// The body of a successful GET; `None` for any other status.
async fn get(http: &Http, url: &str, token: Option<&str>) -> Result<Option<Vec<u8>>, HttpError> {
    let mut request = Request::get(url);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = http.send(request).await?;
    Ok(response.is_success().then_some(response.body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_files_the_agent_fetches_give_it_the_items_nodes_and_recipes() {
        let bundled = wayfarer_content::bundled();
        let mut fetched = ManifestSet::new();
        let files = ITEM_MANIFESTS.iter().chain(GATHERING_MANIFESTS).copied();
        for file in files.chain(recipe_manifests()) {
            if let Some(bytes) = bundled.files.get(file) {
                fetched.insert(file, bytes.clone());
            }
        }
        let mut knowledge = Knowledge::default();
        knowledge.add_manifests(&fetched);
        let content = wayfarer_content::load_bundled();
        assert_eq!(knowledge.items.len(), content.items.len());
        assert_eq!(knowledge.nodes.len(), content.gathering.len());
        let ids = |recipes: &[Recipe]| recipes.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&knowledge.recipes), ids(&content.recipes));
    }
}
