//! Gathering: success rates match the skilling formula, tools and levels gate and help, nodes deplete
//! and respawn, a full inventory stops, bait is used per catch, fishing spots move, and an out-of-reach
//! node is walked to first.

use std::sync::Arc;

use serde_json::{json, Value};
use wayfarer_content::skilling::gather_chance;
use wayfarer_content::{Content, EquipSlot, ManifestSet, Skill};
use wayfarer_protocol::ws::{Entity, TilePos};
use wayfarer_sim::equipment::Equipment;
use wayfarer_sim::inventory::{Inventory, Stack};
use wayfarer_sim::skills::{xp_for_level, Xp};
use wayfarer_sim::{Action, Command, Event, Joining, World};

use crate::{idle, t};

/// A 30×30 field with trees, rocks and fishing spots of known, fast-cycling nodes.
struct Grove {
    /// (gathering id, x, z).
    nodes: Vec<(&'static str, i32, i32)>,
    /// Procedural fishing spots of `spot_net`.
    spots: u32,
}

fn item(id: &str, extra: Value) -> Value {
    let mut v = json!({"id": id, "name": id, "type": "resource", "value": 1});
    if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
        for (k, val) in e {
            o.insert(k.clone(), val.clone());
        }
    }
    v
}

fn node(id: &str, kind: &str, skill: &str, extra: Value) -> Value {
    let mut v = json!({"id": id, "name": id, "type": kind, "harvestSkill": skill,
                       "levelRequired": 1, "baseCycleTicks": 1, "depleteChance": 0.0});
    if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
        for (k, val) in e {
            o.insert(k.clone(), val.clone());
        }
    }
    v
}

impl Grove {
    fn content(&self) -> Arc<Content> {
        let stack = json!({"stackable": true, "maxStackSize": 1_000_000});
        let mut set = ManifestSet::new();
        set.insert(
            "items/resources.json",
            json!([
                item("logs", stack.clone()),
                item("oak_logs", json!({})),
                item("copper_ore", stack.clone()),
                item("raw_shrimp", stack.clone()),
                item("raw_sardine", json!({})),
                item("fishing_bait", stack.clone()),
                item("junk", json!({})),
            ])
            .to_string(),
        );
        set.insert(
            "items/tools.json",
            json!([
                item("bronze_hatchet", json!({"type": "tool", "equipSlot": "weapon", "tool": {"skill": "woodcutting", "priority": 1}})),
                item("steel_hatchet", json!({"type": "tool", "equipSlot": "weapon", "tool": {"skill": "woodcutting", "priority": 3}})),
                item("bronze_pickaxe", json!({"type": "tool", "equipSlot": "weapon", "tool": {"skill": "mining", "priority": 1, "rollTicks": 2}})),
                item("steel_pickaxe", json!({"type": "tool", "equipSlot": "weapon", "tool": {"skill": "mining", "priority": 3, "rollTicks": 1}})),
                item("small_fishing_net", json!({"type": "tool"})),
                item("fishing_rod", json!({"type": "tool"})),
            ])
            .to_string(),
        );
        set.insert(
            "gathering/woodcutting.json",
            json!({"trees": [
                node("tree", "tree", "woodcutting", json!({"toolRequired": "hatchet",
                    "harvestYield": [{"itemId": "logs", "xpAmount": 0}]})),
                node("tree_dies", "tree", "woodcutting", json!({"toolRequired": "hatchet",
                    "depleteChance": 1.0, "respawnTicks": 10,
                    "harvestYield": [{"itemId": "oak_logs", "xpAmount": 25}]})),
                node("tree_full", "tree", "woodcutting", json!({"toolRequired": "hatchet",
                    "harvestYield": [{"itemId": "oak_logs", "xpAmount": 25}]})),
                node("oak", "tree", "woodcutting", json!({"toolRequired": "hatchet", "levelRequired": 15,
                    "harvestYield": [{"itemId": "oak_logs", "xpAmount": 37.5}]})),
            ]})
            .to_string(),
        );
        set.insert(
            "gathering/mining.json",
            json!({"rocks": [
                node("rock", "ore", "mining", json!({"toolRequired": "pickaxe",
                    "harvestYield": [{"itemId": "copper_ore", "xpAmount": 0}]})),
            ]})
            .to_string(),
        );
        set.insert(
            "gathering/fishing.json",
            json!({"spots": [
                node("spot_net", "fishing_spot", "fishing", json!({"toolRequired": "small_fishing_net",
                    "harvestYield": [{"itemId": "raw_shrimp", "xpAmount": 0}]})),
                node("spot_bait", "fishing_spot", "fishing", json!({"toolRequired": "fishing_rod",
                    "baitRequired": "fishing_bait",
                    "harvestYield": [{"itemId": "raw_sardine", "xpAmount": 20}]})),
            ]})
            .to_string(),
        );
        let resources: Vec<Value> = self
            .nodes
            .iter()
            .map(|(id, x, z)| json!({"resourceId": id, "position": {"x": x, "y": 0, "z": z}}))
            .collect();
        set.insert(
            "world-areas.json",
            json!({"starterTowns": {"grove": {
                "id": "grove", "name": "Grove",
                "bounds": {"minX": 0, "maxX": 29, "minZ": 0, "maxZ": 29},
                "safeZone": true,
                "spawnPoint": {"x": 0, "y": 0, "z": 0},
                "resources": resources,
                "fishing": {"enabled": self.spots > 0, "spotCount": self.spots, "spotTypes": ["spot_net"]}
            }}})
            .to_string(),
        );
        match Content::from_files(&set) {
            Ok((content, _)) => Arc::new(content),
            Err(report) => panic!("fixture content is invalid:\n{report}"),
        }
    }

    fn world(&self) -> World {
        World::new(self.content(), 11)
    }
}

fn stack(item_id: &str, quantity: u32) -> Stack {
    Stack {
        item_id: item_id.into(),
        quantity,
    }
}

/// A player at `tile` with `levels` and the items.
fn player(id: &str, tile: TilePos, levels: &[(Skill, u8)], items: &[(&str, u32)]) -> Command {
    let mut joining = Joining::new(id, id, tile);
    for (skill, level) in levels {
        joining
            .skills
            .set_xp(*skill, Xp::from_points(xp_for_level(*level)));
    }
    let stacks = items
        .iter()
        .enumerate()
        .map(|(n, (i, q))| (n, stack(i, *q)));
    joining.inventory = Inventory::from_stacks(stacks).expect("valid fixture inventory");
    Command::Join(Box::new(joining))
}

fn gather(id: &str, target: &str) -> Command {
    Command::Action {
        id: id.into(),
        action: Action::Gather {
            target: target.into(),
        },
        reference: Some(9),
    }
}

fn resource(world: &World, type_id: &str) -> Entity {
    world
        .resources()
        .into_iter()
        .find(|e| e.type_id.as_deref() == Some(type_id))
        .expect("the fixture places it")
}

fn xp_events(events: &[Event], who: &str, skill: Skill) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, Event::Xp { to, skill: s, .. } if to == who && *s == skill))
        .count()
}

fn rejections<'e>(events: &'e [Event], who: &str) -> Vec<&'e str> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Rejected { to, message, .. } if to == who => Some(message.as_str()),
            _ => None,
        })
        .collect()
}

fn messages(events: &[Event], who: &str) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Chat { to, message } if to.iter().any(|t| **t == *who) => {
                Some(message.text.clone())
            }
            _ => None,
        })
        .collect()
}

/// Checks `successes` in `n` rolls is within 3 standard deviations (plus one) of `n · p`. The rate
/// nodes grant no XP, so the level (and with it the chance) stays put over the rolls.
fn assert_rate(what: &str, successes: u64, n: u64, p: f64) {
    let mean = n as f64 * p;
    let sigma = (n as f64 * p * (1.0 - p)).sqrt();
    assert!(
        (successes as f64 - mean).abs() <= 3.0 * sigma + 1.0,
        "{what}: {successes} successes in {n} rolls, expected {mean:.0} ± {:.0}",
        3.0 * sigma
    );
}

fn held(world: &World, who: &str, item_id: &str) -> u64 {
    world.player_inventory(who).map_or(0, |i| i.count(item_id))
}

#[test]
fn woodcutting_succeeds_at_the_formula_rate_and_a_better_hatchet_cuts_more() {
    let grove = Grove {
        nodes: vec![("tree", 5, 5), ("tree", 20, 5)],
        spots: 0,
    };
    let mut world = grove.world();
    let trees: Vec<String> = world.resources().into_iter().map(|e| e.id).collect();
    let level = [(Skill::Woodcutting, 30)];
    world.tick(vec![
        player("bronze", t(4, 5), &level, &[("bronze_hatchet", 1)]),
        player("steel", t(19, 5), &level, &[("steel_hatchet", 1)]),
    ]);
    world.tick(vec![
        gather("bronze", &trees[0]),
        gather("steel", &trees[1]),
    ]);
    idle(&mut world, 5_000);
    let (bronze, steel) = (
        held(&world, "bronze", "logs"),
        held(&world, "steel", "logs"),
    );
    assert_rate("bronze hatchet", bronze, 5_000, gather_chance(1, 1, 30));
    assert_rate("steel hatchet", steel, 5_000, gather_chance(1, 3, 30));
    assert!(steel > bronze, "steel {steel} vs bronze {bronze}");
}

#[test]
fn mining_rolls_at_the_formula_rate_and_a_better_pickaxe_rolls_more_often() {
    let grove = Grove {
        nodes: vec![("rock", 5, 5), ("rock", 20, 5)],
        spots: 0,
    };
    let mut world = grove.world();
    let rocks: Vec<String> = world.resources().into_iter().map(|e| e.id).collect();
    let level = [(Skill::Mining, 40)];
    world.tick(vec![
        player("steel", t(4, 5), &level, &[("steel_pickaxe", 1)]),
        player("bronze", t(19, 5), &level, &[("bronze_pickaxe", 1)]),
    ]);
    world.tick(vec![
        gather("steel", &rocks[0]),
        gather("bronze", &rocks[1]),
    ]);
    // The steel pickaxe rolls every tick; the tool does not change the chance of a roll.
    let p = gather_chance(1, 1, 40);
    idle(&mut world, 5_000);
    let steel = held(&world, "steel", "copper_ore");
    assert_rate("steel pickaxe", steel, 5_000, p);
    // The bronze one rolls every other tick: 2,500 rolls.
    let bronze = held(&world, "bronze", "copper_ore");
    assert_rate("bronze pickaxe", bronze, 2_500, p);
    assert!(steel > bronze);
}

#[test]
fn fishing_succeeds_at_the_formula_rate() {
    let grove = Grove {
        nodes: vec![("spot_net", 5, 5)],
        spots: 0,
    };
    let mut world = grove.world();
    let spot = resource(&world, "spot_net").id;
    world.tick(vec![player(
        "ada",
        t(4, 5),
        &[(Skill::Fishing, 60)],
        &[("small_fishing_net", 1)],
    )]);
    world.tick(vec![gather("ada", &spot)]);
    // Fixed (content-placed) spots do not move, so 5,000 rolls stay on the one spot.
    idle(&mut world, 5_000);
    let caught = held(&world, "ada", "raw_shrimp");
    assert_rate("net", caught, 5_000, gather_chance(1, 1, 60));
}

#[test]
fn the_first_roll_comes_one_cycle_after_arriving_and_a_wielded_hatchet_counts() {
    let grove = Grove {
        nodes: vec![("tree", 5, 5)],
        spots: 0,
    };
    let mut world = grove.world();
    let tree = resource(&world, "tree").id;
    let mut joining = Joining::new("ada", "ada", t(4, 5));
    joining
        .skills
        .set_xp(Skill::Woodcutting, Xp::from_points(xp_for_level(99)));
    joining.equipment = Equipment::from_stacks([(EquipSlot::Weapon, stack("steel_hatchet", 1))]);
    world.tick(vec![Command::Join(Box::new(joining))]);
    let events = world.tick(vec![gather("ada", &tree)]);
    assert!(rejections(&events, "ada").is_empty());
    assert_eq!(held(&world, "ada", "logs"), 0, "no roll on arrival");
    assert!(world.player_is_busy("ada"));
    idle(&mut world, 200);
    assert!(
        held(&world, "ada", "logs") > 150,
        "the steel hatchet is used"
    );
}

#[test]
fn missing_level_or_tool_is_refused_and_the_action_ends() {
    let grove = Grove {
        nodes: vec![("oak", 5, 5), ("tree", 10, 10)],
        spots: 0,
    };
    let mut world = grove.world();
    let oak = resource(&world, "oak").id;
    let tree = resource(&world, "tree").id;
    world.tick(vec![
        player("low", t(4, 5), &[], &[("bronze_hatchet", 1)]),
        player("bare", t(9, 10), &[], &[]),
    ]);
    let events = world.tick(vec![gather("low", &oak), gather("bare", &tree)]);
    let low = rejections(&events, "low");
    assert!(low.iter().any(|m| m.contains("level of 15")), "{low:?}");
    let bare = rejections(&events, "bare");
    assert!(bare.iter().any(|m| m.contains("hatchet")), "{bare:?}");
    assert!(!world.player_is_busy("low") && !world.player_is_busy("bare"));
    assert!(events.iter().any(|e| matches!(e,
        Event::Rejected { to, code, reference: Some(9), .. } if to == "low" && *code == "cannot_do")));
}

#[test]
fn a_node_depletes_shows_it_and_respawns_after_its_time() {
    let grove = Grove {
        nodes: vec![("tree_dies", 5, 5)],
        spots: 0,
    };
    let mut world = grove.world();
    let tree = resource(&world, "tree_dies").id;
    world.tick(vec![player(
        "ada",
        t(4, 5),
        &[(Skill::Woodcutting, 99)],
        &[("steel_hatchet", 1)],
    )]);
    world.tick(vec![gather("ada", &tree)]);
    let mut felled_at = None;
    for _ in 0..200 {
        let events = world.tick(vec![]);
        if xp_events(&events, "ada", Skill::Woodcutting) > 0 {
            felled_at = Some(world.tick_number());
            let shown = events.iter().any(|e| match e {
                Event::View { to, update } if &**to == "ada" => update
                    .changed
                    .iter()
                    .any(|c| c.id == tree && c.depleted == Some(true)),
                _ => false,
            });
            assert!(shown, "viewers are told it is depleted");
            break;
        }
    }
    let felled_at = felled_at.expect("the tree falls in the end");
    assert_eq!(world.entity(&tree).unwrap().depleted, Some(true));
    assert!(
        !world.player_is_busy("ada"),
        "a depleted node ends gathering"
    );
    // Trying again says so.
    let events = world.tick(vec![gather("ada", &tree)]);
    assert!(messages(&events, "ada")
        .iter()
        .any(|m| m.contains("cut down")));
    while world.tick_number() < felled_at + 9 {
        world.tick(vec![]);
    }
    assert_eq!(world.entity(&tree).unwrap().depleted, Some(true));
    world.tick(vec![]);
    assert_eq!(
        world.entity(&tree).unwrap().depleted,
        Some(false),
        "back after respawnTicks (10)"
    );
}

#[test]
fn a_full_inventory_stops_gathering_with_a_message() {
    let grove = Grove {
        nodes: vec![("tree_full", 5, 5)],
        spots: 0,
    };
    let mut world = grove.world();
    let tree = resource(&world, "tree_full").id;
    world.tick(vec![player(
        "ada",
        t(4, 5),
        &[(Skill::Woodcutting, 99)],
        &[("steel_hatchet", 1), ("junk", 1), ("junk", 1)],
    )]);
    // 3 slots used: 25 logs fit, then the inventory is full.
    world.tick(vec![gather("ada", &tree)]);
    let events = idle(&mut world, 400);
    assert_eq!(world.player_inventory("ada").unwrap().count("oak_logs"), 25);
    assert!(messages(&events, "ada")
        .iter()
        .any(|m| m.contains("inventory is too full")));
    assert!(!world.player_is_busy("ada"));
}

#[test]
fn bait_is_used_one_per_catch_and_running_out_stops() {
    let grove = Grove {
        nodes: vec![("spot_bait", 5, 5)],
        spots: 0,
    };
    let mut world = grove.world();
    let spot = resource(&world, "spot_bait").id;
    world.tick(vec![player(
        "ada",
        t(4, 5),
        &[(Skill::Fishing, 99)],
        &[("fishing_rod", 1), ("fishing_bait", 3)],
    )]);
    world.tick(vec![gather("ada", &spot)]);
    let events = idle(&mut world, 300);
    let inventory = world.player_inventory("ada").unwrap();
    assert_eq!(inventory.count("raw_sardine"), 3);
    assert_eq!(inventory.count("fishing_bait"), 0);
    assert_eq!(xp_events(&events, "ada", Skill::Fishing), 3);
    assert!(rejections(&events, "ada")
        .iter()
        .any(|m| m.contains("fishing_bait")));
    assert!(!world.player_is_busy("ada"));
}

#[test]
fn fishing_spots_move_and_whoever_fished_there_stops() {
    let grove = Grove {
        nodes: vec![],
        spots: 1,
    };
    let mut world = grove.world();
    let spot = resource(&world, "spot_net");
    let home = t(spot.x, spot.z);
    let stand = [(-1, 0), (1, 0), (0, -1), (0, 1)]
        .iter()
        .map(|(dx, dz)| t(home.x + dx, home.z + dz))
        .find(|t| world.is_walkable(*t))
        .expect("a free neighbour");
    world.tick(vec![player(
        "ada",
        stand,
        &[(Skill::Fishing, 1)],
        &[("small_fishing_net", 1)],
    )]);
    world.tick(vec![gather("ada", &spot.id)]);
    let mut moved = None;
    for _ in 0..wayfarer_sim::FISHING_SPOT_MAX_STAY_TICKS + 2 {
        let events = world.tick(vec![]);
        let now = world.entity(&spot.id).unwrap();
        if (now.x, now.z) != (home.x, home.z) {
            moved = Some((t(now.x, now.z), events));
            break;
        }
    }
    let (to, events) = moved.expect("the spot moves within its longest stay");
    assert!(
        !world.is_walkable(to),
        "the new tile is blocked by the spot"
    );
    assert!(world.is_walkable(home), "the old one is free again");
    assert!(wayfarer_sim::chebyshev(home, to) <= 6);
    assert!(messages(&events, "ada")
        .iter()
        .any(|m| m.contains("has moved")));
    assert!(!world.player_is_busy("ada"));
}

#[test]
fn a_tree_ten_tiles_away_is_walked_to_then_chopped() {
    let grove = Grove {
        nodes: vec![("tree", 12, 2)],
        spots: 0,
    };
    let mut world = grove.world();
    let tree = resource(&world, "tree").id;
    world.tick(vec![player(
        "ada",
        t(1, 2),
        &[(Skill::Woodcutting, 99)],
        &[("bronze_hatchet", 1)],
    )]);
    world.tick(vec![gather("ada", &tree)]);
    assert!(!world.player_path("ada").is_empty(), "walking there");
    let mut chopped_at = None;
    for _ in 0..60 {
        world.tick(vec![]);
        if held(&world, "ada", "logs") > 0 {
            chopped_at = world.player_tile("ada");
            break;
        }
    }
    let at = chopped_at.expect("chops once there");
    assert_eq!(wayfarer_sim::chebyshev(at, t(12, 2)), 1);
}
