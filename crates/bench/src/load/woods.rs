//! What a gathering bot knows of the trees around it and of its own inventory, learnt from the
//! frames it receives.
//!
//! A gatherer gets a `world:update` every tick, mostly `moved` entries of the players around it,
//! and reading each one into a `serde_json::Value` (a map and a string allocated per entry) was the
//! largest part of the load generator's CPU in `spread`, taken from the server it shares the cores
//! with. So a frame is read only when it can concern a tree ([`may_concern_trees`], a few substring
//! scans), and then into borrowed, typed fields that skip everything else without allocating.

use std::borrow::Cow;
use std::collections::HashMap;

use serde::Deserialize;
use wayfarer_protocol::ws::TilePos;

/// The tree a level-1 woodcutter can chop (bundled and reference content alike); a bot's
/// character is new, so oaks and better only refuse it.
pub const STARTER_TREE: &str = "tree_normal";

/// What a gathering bot has seen: trees in view (id → tile, standing) and its inventory.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Woods {
    pub trees: HashMap<String, (TilePos, bool)>,
    /// Occupied inventory slots, and the slot of a log to drop when full.
    pub slots_used: usize,
    pub log_slot: Option<u64>,
}

#[derive(Deserialize)]
struct Frame<T> {
    data: T,
}

/// The parts of a `world:update` that can name a tree; `moved` and everything else is skipped.
#[derive(Deserialize)]
struct TreeNews<'a> {
    #[serde(borrow, default)]
    added: Vec<Seen<'a>>,
    #[serde(borrow, default)]
    changed: Vec<Change<'a>>,
    #[serde(borrow, default)]
    removed: Vec<Cow<'a, str>>,
}

/// An `added` entity, only the fields a tree is told by.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Seen<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(borrow)]
    kind: Cow<'a, str>,
    x: i32,
    z: i32,
    #[serde(borrow, default)]
    resource_type: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    type_id: Option<Cow<'a, str>>,
    #[serde(default)]
    depleted: Option<bool>,
}

#[derive(Deserialize)]
struct Change<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(default)]
    depleted: Option<bool>,
}

#[derive(Deserialize)]
struct Inventory<'a> {
    #[serde(borrow)]
    inventory: Vec<Slot<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Slot<'a> {
    slot: u64,
    #[serde(borrow)]
    item_id: Cow<'a, str>,
}

/// The `removed` key as the server writes it (`protocol::ws::encode`: no spaces, the last list).
const REMOVED_KEY: &str = r#""removed":["#;

/// Whether a `world:update` can change what a gatherer knows: it adds a resource, tells a
/// depletion, or (when the bot knows trees) removes anything. Without a backslash in the text
/// every `"` delimits a string, so a key or value that is there shows as its plain quoted text;
/// any escape, and any layout other than the server's, answers true (the frame is read).
pub fn may_concern_trees(text: &str, knows_trees: bool) -> bool {
    if text.contains('\\') || text.contains(r#""resource""#) || text.contains(r#""depleted""#) {
        return true;
    }
    knows_trees
        && text
            .rfind(REMOVED_KEY)
            .is_none_or(|at| !text[at + REMOVED_KEY.len()..].starts_with(']'))
}

impl Woods {
    /// Learns from a frame of type `kind` (only `world:update` and `inventory:update` matter).
    pub fn learn(&mut self, kind: &str, text: &str) {
        match kind {
            "world:update" if may_concern_trees(text, !self.trees.is_empty()) => {
                if let Ok(frame) = serde_json::from_str::<Frame<TreeNews>>(text) {
                    self.learn_trees(frame.data);
                }
            }
            "inventory:update" => {
                if let Ok(frame) = serde_json::from_str::<Frame<Inventory>>(text) {
                    let slots = frame.data.inventory;
                    self.slots_used = slots.len();
                    self.log_slot = slots
                        .iter()
                        .find(|slot| slot.item_id == "logs")
                        .map(|slot| slot.slot);
                }
            }
            _ => {}
        }
    }

    fn learn_trees(&mut self, news: TreeNews) {
        for e in news.added {
            // Only trees a new character can chop: the others answer `cannot_do`.
            let choppable = e.type_id.as_deref().is_none_or(|t| t == STARTER_TREE);
            if e.kind == "resource" && e.resource_type.as_deref() == Some("tree") && choppable {
                let standing = e.depleted != Some(true);
                let tile = TilePos { x: e.x, z: e.z };
                self.trees.insert(e.id.into_owned(), (tile, standing));
            }
        }
        for c in news.changed {
            if let (Some(depleted), Some(tree)) = (c.depleted, self.trees.get_mut(c.id.as_ref())) {
                tree.1 = !depleted;
            }
        }
        for id in news.removed {
            self.trees.remove(id.as_ref());
        }
    }

    /// The nearest standing tree.
    pub fn nearest(&self, from: TilePos) -> Option<&str> {
        self.trees
            .iter()
            .filter(|(_, (_, standing))| *standing)
            .min_by_key(|(id, (t, _))| ((t.x - from.x).abs().max((t.z - from.z).abs()), *id))
            .map(|(id, _)| id.as_str())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::Value;
    use wayfarer_protocol::ws::{
        Changed, Entity, EntityKind, InventorySlot, InventoryUpdate, Moved, ServerMessage,
        WorldUpdate,
    };

    use super::*;
    use crate::load::scenario::Rng;

    /// The reading this module replaced: every frame whole into a `Value`. The oracle. Not
    /// inlined, so that callgrind can count it against [`Woods::learn`] on the same frames.
    #[inline(never)]
    fn learn_by_value(woods: &mut Woods, text: &str) {
        let Ok(frame) = serde_json::from_str::<Value>(text) else {
            return;
        };
        let data = &frame["data"];
        match frame["type"].as_str() {
            Some("world:update") => {
                for e in data["added"].as_array().into_iter().flatten() {
                    let choppable = e["typeId"].as_str().is_none_or(|t| t == STARTER_TREE);
                    if e["kind"] == "resource" && e["resourceType"] == "tree" && choppable {
                        if let (Some(id), Some(x), Some(z)) =
                            (e["id"].as_str(), e["x"].as_i64(), e["z"].as_i64())
                        {
                            let standing = e["depleted"] != true;
                            let tile = TilePos {
                                x: x as i32,
                                z: z as i32,
                            };
                            woods.trees.insert(id.to_owned(), (tile, standing));
                        }
                    }
                }
                for c in data["changed"].as_array().into_iter().flatten() {
                    if let (Some(id), Some(depleted)) = (c["id"].as_str(), c["depleted"].as_bool())
                    {
                        if let Some(tree) = woods.trees.get_mut(id) {
                            tree.1 = !depleted;
                        }
                    }
                }
                for id in data["removed"].as_array().into_iter().flatten() {
                    if let Some(id) = id.as_str() {
                        woods.trees.remove(id);
                    }
                }
            }
            Some("inventory:update") => {
                let slots = data["inventory"].as_array();
                woods.slots_used = slots.map_or(0, Vec::len);
                woods.log_slot = slots.and_then(|s| {
                    s.iter()
                        .find(|slot| slot["itemId"] == "logs")
                        .and_then(|slot| slot["slot"].as_u64())
                });
            }
            _ => {}
        }
    }

    /// Ids as the world makes them, and now and then one that needs escaping or spells a key.
    fn id(rng: &mut Rng, prefix: &str) -> String {
        match rng.below(12) {
            0 => format!("{prefix}-\"{}\\", rng.below(8)),
            1 => format!("{prefix}-\u{1}{}\n", rng.below(8)),
            2 => "resource".to_owned(),
            3 => r#""removed":[]"#.to_owned(),
            _ => format!("{prefix}-{}", rng.below(8)),
        }
    }

    fn entity(rng: &mut Rng) -> Entity {
        let at = Entity::at(
            id(rng, "p"),
            EntityKind::Player,
            rng.between(-50, 50),
            rng.between(-50, 50),
        );
        let mut e = Entity {
            name: Some(["bob", "a\"b", "depleted", "tree\\"][rng.below(4) as usize].to_owned()),
            health: Some(10),
            max_health: Some(10),
            worn: rng.one_in(3).then(|| {
                Arc::new(
                    [("weapon".to_owned(), "bronze_axe".to_owned())]
                        .into_iter()
                        .collect(),
                )
            }),
            ..at
        };
        match rng.below(4) {
            0 => {}
            1 => {
                e.id = id(rng, "npc");
                e.kind = EntityKind::Npc;
                e.type_id = Some("goblin".to_owned());
            }
            _ => {
                e.id = id(rng, "res");
                e.kind = EntityKind::Resource;
                e.name = None;
                e.health = None;
                e.max_health = None;
                e.worn = None;
                e.resource_type = Some(["tree", "rock", "fishing"][rng.below(3) as usize].into());
                e.type_id = [None, Some("tree_normal"), Some("tree_oak")][rng.below(3) as usize]
                    .map(str::to_owned);
                e.depleted = [None, Some(true), Some(false)][rng.below(3) as usize];
            }
        }
        e
    }

    /// A `world:update`; one in ten the size of a crowd's (hundreds moved, dozens added).
    fn update(rng: &mut Rng, tick: u64) -> ServerMessage {
        let prefix = |rng: &mut Rng| ["p", "npc", "res"][rng.below(3) as usize];
        let crowd = rng.one_in(10);
        let (added, moved) = if crowd { (40, 300) } else { (4, 6) };
        ServerMessage::WorldUpdate(WorldUpdate {
            tick,
            added: (0..rng.below(added))
                .map(|_| Arc::new(entity(rng)))
                .collect(),
            moved: (0..rng.below(moved))
                .map(|_| Moved {
                    id: id(rng, "p").into(),
                    x: rng.between(-50, 50),
                    z: rng.between(-50, 50),
                })
                .collect::<Vec<_>>()
                .into(),
            changed: (0..rng.below(3))
                .map(|_| {
                    let p = prefix(rng);
                    Changed {
                        id: id(rng, p),
                        health: rng.one_in(2).then_some(3),
                        depleted: [None, Some(true), Some(false)][rng.below(3) as usize],
                        ..Default::default()
                    }
                })
                .collect(),
            removed: (0..rng.below(3))
                .map(|_| {
                    let p = prefix(rng);
                    id(rng, p).into()
                })
                .collect(),
            stamina: rng.one_in(2).then_some(50),
        })
    }

    fn inventory(rng: &mut Rng) -> ServerMessage {
        let items = ["logs", "bronze_axe", "coins", "log\"s"];
        ServerMessage::InventoryUpdate(InventoryUpdate {
            inventory: (0..rng.below(5))
                .map(|slot| {
                    let item = items[rng.below(4) as usize];
                    InventorySlot {
                        slot: slot as u8 * 2,
                        item_id: item.to_owned(),
                        name: item.to_owned(),
                        quantity: 1,
                    }
                })
                .collect(),
            coins: 0,
        })
    }

    #[test]
    fn learning_agrees_with_reading_every_frame_whole() {
        // The run must cover each path: trees known, frames skipped unread, logs found.
        let (mut trees_known, mut skipped, mut logs_found) = (0, 0, 0);
        for seed in 0..40 {
            let mut rng = Rng::seeded(seed);
            let (mut fast, mut oracle) = (Woods::default(), Woods::default());
            for tick in 0..200 {
                let message = if rng.one_in(8) {
                    inventory(&mut rng)
                } else {
                    update(&mut rng, tick)
                };
                // The server's own encoder for `world:update`, and serde's: the same bytes.
                let mut bytes = Vec::new();
                message.write_json(&mut bytes);
                let text = String::from_utf8(bytes).unwrap();
                assert_eq!(text, serde_json::to_string(&message).unwrap());
                if !may_concern_trees(&text, !fast.trees.is_empty()) {
                    skipped += 1;
                }
                fast.learn(message.kind(), &text);
                learn_by_value(&mut oracle, &text);
                assert_eq!(fast, oracle, "seed {seed}, tick {tick}: {text}");
                trees_known += oracle.trees.len();
                logs_found += usize::from(oracle.log_slot.is_some());
            }
        }
        assert!(trees_known > 0 && skipped > 0 && logs_found > 0);
    }

    #[test]
    fn frames_that_cannot_name_a_tree_are_not_read() {
        let quiet = r#"{"type":"world:update","data":{"tick":1,"added":[{"id":"p-1","kind":"player","x":1,"z":2,"name":"bob"}],"moved":[{"id":"p-2","x":1,"z":1}],"changed":[{"id":"p-1","health":3}],"removed":[]}}"#;
        assert!(!may_concern_trees(quiet, true));
        // Something removed matters only to a bot that knows trees.
        let removes = quiet.replace(r#""removed":[]"#, r#""removed":["p-9"]"#);
        assert!(!may_concern_trees(&removes, false));
        assert!(may_concern_trees(&removes, true));
        // A resource added, a depletion, or any escape: read.
        let added = quiet.replace(r#""kind":"player""#, r#""kind":"resource""#);
        assert!(may_concern_trees(&added, false));
        let depleted = quiet.replace(r#""health":3"#, r#""depleted":true"#);
        assert!(may_concern_trees(&depleted, false));
        let escaped = quiet.replace("bob", r#"b\"ob"#);
        assert!(may_concern_trees(&escaped, false));
        // A layout other than the server's (spaces) is read rather than guessed at.
        let spaced = quiet.replace(r#""removed":[]"#, r#""removed": []"#);
        assert!(may_concern_trees(&spaced, true));
    }

    #[test]
    fn a_gatherer_learns_only_the_trees_a_new_character_can_chop() {
        let mut woods = Woods::default();
        woods.learn(
            "world:update",
            r#"{"type":"world:update","data":{"tick":1,"added":[
            {"id":"res-1","kind":"resource","x":3,"z":0,"resourceType":"tree","typeId":"tree_oak"},
            {"id":"res-2","kind":"resource","x":5,"z":0,"resourceType":"tree","typeId":"tree_normal"},
            {"id":"res-3","kind":"resource","x":1,"z":0,"resourceType":"rock","typeId":"rock_copper"},
            {"id":"res-4","kind":"resource","x":9,"z":0,"resourceType":"tree"}
            ],"moved":[],"changed":[],"removed":[]}}"#,
        );
        let mut known: Vec<&str> = woods.trees.keys().map(String::as_str).collect();
        known.sort_unstable();
        assert_eq!(known, ["res-2", "res-4"]);
        assert_eq!(woods.nearest(TilePos { x: 0, z: 0 }), Some("res-2"));
    }
}
