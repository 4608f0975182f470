//! What every player can know before looking around: the public manifests (items, gathering
//! nodes) and the world's areas (where banks, shops, trees and rocks are). Read once per
//! connection over REST; nothing here changes during a session the agent relies on.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;
use wayfarer_protocol::ws::TilePos;

/// Manifest files read for item facts.
const ITEM_MANIFESTS: &[&str] = &[
    "items/tools.json",
    "items/weapons.json",
    "items/armor.json",
    "items/resources.json",
    "items/misc.json",
    "items/ammunition.json",
];
/// Manifest files read for gathering nodes.
const GATHERING_MANIFESTS: &[&str] = &[
    "gathering/woodcutting.json",
    "gathering/fishing.json",
    "gathering/mining.json",
];

/// Facts about one item.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ItemFacts {
    pub name: String,
    pub kind: String,
    /// Hit points eating it restores (food only).
    pub heal: Option<i64>,
    /// Where it is worn, if it can be.
    pub equip_slot: Option<String>,
    /// The skill it is a tool for (`woodcutting` for a hatchet).
    pub tool_for: Option<String>,
    pub value: i64,
    /// Prayer XP for burying it (bones).
    pub bury_xp: Option<f64>,
}

/// Facts about one gathering node type (a tree, rock or fishing spot).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeFacts {
    pub skill: String,
    pub level: i64,
    pub tool: Option<String>,
    /// Item ids it yields.
    pub yields: Vec<String>,
}

/// The [`Place::kind`] of a mob spawn (its `id` is the mob's NPC type).
pub const MOB_SPAWN: &str = "mob_spawn";

/// A place from the world's areas.
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    /// `bank`, `shop`, `tree`, `fishing`, `ore`, an NPC type, [`MOB_SPAWN`]…
    pub kind: String,
    /// Content id (`banker_elsie`, `tree_normal`).
    pub id: String,
    pub tile: TilePos,
    pub area: String,
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
    pub items: HashMap<String, ItemFacts>,
    pub nodes: HashMap<String, NodeFacts>,
    pub places: Vec<Place>,
    pub areas: Vec<AreaFacts>,
}

impl Knowledge {
    /// Reads the manifests and areas from the server at `base` (`http://host:port`). Files that are
    /// missing are skipped: content may not have them all.
    pub async fn fetch(
        http: &reqwest::Client,
        base: &str,
        token: &str,
    ) -> Result<Knowledge, reqwest::Error> {
        let mut knowledge = Knowledge::default();
        for file in ITEM_MANIFESTS {
            if let Some(list) = get_json(http, &format!("{base}/manifests/{file}"), None).await? {
                knowledge.add_items(&list);
            }
        }
        for file in GATHERING_MANIFESTS {
            if let Some(doc) = get_json(http, &format!("{base}/manifests/{file}"), None).await? {
                knowledge.add_nodes(&doc);
            }
        }
        if let Some(doc) =
            get_json(http, &format!("{base}/api/v1/world/areas"), Some(token)).await?
        {
            knowledge.add_areas(&doc);
        }
        Ok(knowledge)
    }

    /// Adds the items of one item manifest (an array of items).
    pub fn add_items(&mut self, list: &Value) {
        for item in list.as_array().into_iter().flatten() {
            let Some(id) = item.get("id").and_then(Value::as_str) else {
                continue;
            };
            let text = |k: &str| item.get(k).and_then(Value::as_str).map(str::to_owned);
            self.items.insert(
                id.to_owned(),
                ItemFacts {
                    name: text("name").unwrap_or_else(|| id.to_owned()),
                    kind: text("type").unwrap_or_default(),
                    heal: item.get("healAmount").and_then(Value::as_i64),
                    equip_slot: text("equipSlot"),
                    tool_for: item
                        .pointer("/tool/skill")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    value: item.get("value").and_then(Value::as_i64).unwrap_or(0),
                    bury_xp: item.get("prayerXp").and_then(Value::as_f64),
                },
            );
        }
    }

    /// Adds the nodes of one gathering manifest (an object of arrays of nodes).
    pub fn add_nodes(&mut self, doc: &Value) {
        let lists = doc.as_object().into_iter().flat_map(|o| o.values());
        for node in lists.filter_map(Value::as_array).flatten() {
            let Some(id) = node.get("id").and_then(Value::as_str) else {
                continue;
            };
            let yields = node
                .get("harvestYield")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|y| y.get("itemId").and_then(Value::as_str).map(str::to_owned))
                .collect();
            self.nodes.insert(
                id.to_owned(),
                NodeFacts {
                    skill: node
                        .get("harvestSkill")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    level: node
                        .get("levelRequired")
                        .and_then(Value::as_i64)
                        .unwrap_or(1),
                    tool: node
                        .get("toolRequired")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    yields,
                },
            );
        }
    }

    /// Adds the areas of `/api/v1/world/areas`.
    pub fn add_areas(&mut self, doc: &Value) {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Bounds {
            min_x: f64,
            max_x: f64,
            min_z: f64,
            max_z: f64,
        }
        let tile = |v: &Value| -> Option<TilePos> {
            let p = v.get("position").unwrap_or(v);
            Some(TilePos {
                x: p.get("x")?.as_f64()?.floor() as i32,
                z: p.get("z")?.as_f64()?.floor() as i32,
            })
        };
        for area in doc
            .get("areas")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let id = area
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            if let Some(bounds) = area
                .get("bounds")
                .cloned()
                .and_then(|b| serde_json::from_value::<Bounds>(b).ok())
            {
                self.areas.push(AreaFacts {
                    id: id.clone(),
                    name: area
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or(&id)
                        .to_owned(),
                    min: TilePos {
                        x: bounds.min_x as i32,
                        z: bounds.min_z as i32,
                    },
                    max: TilePos {
                        x: bounds.max_x as i32,
                        z: bounds.max_z as i32,
                    },
                    safe: area
                        .get("safeZone")
                        .and_then(Value::as_bool)
                        .unwrap_or(false),
                });
            }
            for npc in area
                .get("npcs")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(t) = tile(npc) {
                    self.places.push(Place {
                        kind: npc
                            .get("type")
                            .and_then(Value::as_str)
                            .unwrap_or("npc")
                            .to_owned(),
                        id: npc
                            .get("id")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned(),
                        tile: t,
                        area: id.clone(),
                    });
                }
            }
            // Where mobs spawn, so a fighter with none in view knows where to go.
            for spawn in area
                .get("mobSpawns")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let mob = spawn.get("mobId").and_then(Value::as_str);
                if let (Some(mob), Some(t)) = (mob, tile(spawn)) {
                    self.places.push(Place {
                        kind: MOB_SPAWN.to_owned(),
                        id: mob.to_owned(),
                        tile: t,
                        area: id.clone(),
                    });
                }
            }
            for key in ["resources", "stations"] {
                for res in area
                    .get(key)
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if let Some(t) = tile(res) {
                        let kind = res.get("type").and_then(Value::as_str).unwrap_or(key);
                        let rid = res
                            .get("resourceId")
                            .or_else(|| res.get("id"))
                            .and_then(Value::as_str)
                            .unwrap_or(kind);
                        self.places.push(Place {
                            kind: kind.to_owned(),
                            id: rid.to_owned(),
                            tile: t,
                            area: id.clone(),
                        });
                    }
                }
            }
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

async fn get_json(
    http: &reqwest::Client,
    url: &str,
    token: Option<&str>,
) -> Result<Option<Value>, reqwest::Error> {
    let mut request = http.get(url);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await?;
    if !response.status().is_success() {
        return Ok(None);
    }
    Ok(response.json().await.ok())
}
