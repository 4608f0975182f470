//! Integration tests for wayfarer-sim (one binary to keep link time low): each builds a world from a
//! small content fixture, feeds commands, steps ticks and asserts on events and state.

mod arena;
mod bank;
mod chat;
mod combat;
mod death;
mod determinism;
mod duel;
mod fighting;
mod gathering;
mod home;
mod inventory;
mod items;
mod ladder;
mod magic;
mod making;
mod movement;
mod narration;
mod parallel_views;
mod persistence;
mod prayer;
mod properties;
mod reload;
mod retaliate;
mod runecrafting;
mod shops;
mod skills;
mod stamina;
mod talk;
mod trade;
mod view;
mod walls;
mod worldgen;
mod worn;
mod zones;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};
use wayfarer_content::{Content, ManifestSet};
use wayfarer_protocol::ws::{TilePos, WorldUpdate};
use wayfarer_sim::{Command, Event, Joining, World};

/// A small deterministic generator for scenes (independent of the sim's).
pub struct Lcg(pub u64);

impl Lcg {
    /// A number below `below`.
    pub fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % below
    }
}

/// A tile.
pub fn t(x: i32, z: i32) -> TilePos {
    TilePos { x, z }
}

/// A mob spawner in a fixture.
#[derive(Debug, Clone, Copy)]
pub struct Mobs {
    pub at: (i32, i32),
    pub count: u32,
    pub radius: f64,
    pub wander: bool,
}

/// A square field of open ground `[0, size)²` with the spawn at (0, 0), 1×1 rocks that block their
/// tile, fixed NPCs, and mob spawners.
#[derive(Debug, Clone, Default)]
pub struct Field {
    pub size: i32,
    pub rocks: Vec<(i32, i32)>,
    pub npcs: Vec<(i32, i32)>,
    pub mobs: Vec<Mobs>,
    /// The fixed NPCs' display name (`Banker` when empty).
    pub banker_name: String,
}

impl Field {
    /// An empty field.
    pub fn new(size: i32) -> Field {
        Field {
            size,
            ..Field::default()
        }
    }

    /// Adds rocks.
    pub fn rocks(mut self, rocks: impl IntoIterator<Item = (i32, i32)>) -> Field {
        self.rocks.extend(rocks);
        self
    }

    /// The manifests.
    pub fn manifests(&self) -> ManifestSet {
        let mut set = ManifestSet::new();
        set.insert(
            "items/resources.json",
            r#"[{"id": "copper_ore", "name": "Copper ore", "type": "resource", "value": 5}]"#,
        );
        set.insert(
            "gathering/mining.json",
            r#"{"rocks": [{"id": "rock_copper", "name": "Copper rock", "type": "ore", "harvestSkill": "mining",
  "toolRequired": "pickaxe", "levelRequired": 1, "respawnTicks": 10,
  "harvestYield": [{"itemId": "copper_ore", "xpAmount": 17.5}]}]}"#,
        );
        set.insert(
            "npcs.json",
            json!([
                {"id": "goblin", "name": "Goblin", "category": "mob",
                 "stats": {"level": 2, "health": 5},
                 "combat": {"attackable": true},
                 "movement": {"type": "wander", "speed": 3.33, "wanderRadius": 4}},
                {"id": "statue", "name": "Statue", "category": "mob",
                 "stats": {"level": 1, "health": 1},
                 "combat": {"attackable": true},
                 "movement": {"type": "stationary"}},
                {"id": "banker", "name": if self.banker_name.is_empty() { "Banker" } else { &self.banker_name },
                 "category": "neutral",
                 "stats": {"health": 10}}
            ])
            .to_string(),
        );
        let max = f64::from(self.size - 1);
        let rocks: Vec<Value> = self
            .rocks
            .iter()
            .map(|(x, z)| {
                json!({"type": "ore", "resourceId": "rock_copper", "position": {"x": x, "y": 0, "z": z}})
            })
            .collect();
        let npcs: Vec<Value> = self
            .npcs
            .iter()
            .map(|(x, z)| json!({"id": "banker", "type": "bank", "position": {"x": x, "y": 0, "z": z}}))
            .collect();
        let mobs: Vec<Value> = self
            .mobs
            .iter()
            .map(|m| {
                json!({"mobId": if m.wander { "goblin" } else { "statue" },
                       "position": {"x": m.at.0, "y": 0, "z": m.at.1},
                       "spawnRadius": m.radius, "maxCount": m.count})
            })
            .collect();
        set.insert(
            "world-areas.json",
            json!({
                "starterTowns": {"field": {
                    "id": "field", "name": "Field",
                    "bounds": {"minX": 0, "maxX": max, "minZ": 0, "maxZ": max},
                    "safeZone": true,
                    "spawnPoint": {"x": 0, "y": 0, "z": 0},
                    "resources": rocks, "npcs": npcs, "mobSpawns": mobs
                }}
            })
            .to_string(),
        );
        set
    }

    /// The content.
    pub fn content(&self) -> Arc<Content> {
        match Content::from_files(&self.manifests()) {
            Ok((content, _)) => Arc::new(content),
            Err(report) => panic!("fixture content is invalid:\n{report}"),
        }
    }

    /// A world on this field.
    pub fn world(&self) -> World {
        World::new(self.content(), 7)
    }
}

/// A `Join` with full health and no ignores.
pub fn join(id: &str, tile: TilePos) -> Command {
    join_ignoring(id, tile, &[])
}

/// A `Join` whose player ignores `ignored`. The player's name is the id with the first letter upper-cased.
pub fn join_ignoring(id: &str, tile: TilePos, ignored: &[&str]) -> Command {
    Command::Join(Box::new(Joining {
        ignored: ignored.iter().map(|s| s.to_string()).collect(),
        ..Joining::new(id, name_of(id), tile)
    }))
}

/// The display name fixtures give a player id.
pub fn name_of(id: &str) -> String {
    let mut chars = id.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A walk.
pub fn walk(id: &str, to: TilePos) -> Command {
    Command::Move {
        id: id.to_owned(),
        x: to.x,
        z: to.z,
        run: false,
        reference: None,
    }
}

/// A run.
pub fn run(id: &str, to: TilePos) -> Command {
    Command::Move {
        id: id.to_owned(),
        x: to.x,
        z: to.z,
        run: true,
        reference: None,
    }
}

/// The `world:update` of each receiver in the events.
pub fn views(events: &[Event]) -> BTreeMap<String, WorldUpdate> {
    let mut out = BTreeMap::new();
    for event in events {
        if let Event::View { to, update } = event {
            assert!(
                out.insert(to.to_string(), update.clone()).is_none(),
                "two updates for {to} in one tick"
            );
            assert!(!update.is_empty(), "an empty update was produced for {to}");
        }
    }
    out
}

/// Ids in a list of added entities, sorted.
pub fn added_ids(update: &WorldUpdate) -> Vec<String> {
    let mut ids: Vec<String> = update.added.iter().map(|e| e.id.clone()).collect();
    ids.sort();
    ids
}

/// Ticks with no commands `n` times, returning every event.
pub fn idle(world: &mut World, n: usize) -> Vec<Event> {
    (0..n)
        .flat_map(|_| {
            let events = world.tick(vec![]);
            save_as_asked(world, &events);
            events
        })
        .collect()
}

/// What the server does on [`Event::SaveNow`]: writes the record, and with it the player's drops
/// and pickups (`World::persist_for`); a drop goes public only once its dropper's record is saved
/// without it.
pub fn save_as_asked(world: &mut World, events: &[Event]) {
    let ids: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::SaveNow { id } => Some(id.as_str()),
            _ => None,
        })
        .collect();
    if !ids.is_empty() {
        world.persist_for(ids);
    }
}
