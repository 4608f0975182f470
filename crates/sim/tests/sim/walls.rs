//! The world as a place (CONTRACT §13): walls on tile sides stop walkers, NPCs and arrows; doors
//! open for a walker and close 10 s after; water is not walkable and every fishing spot stands on
//! water beside walkable ground, in the bundled world and a generated one.

use serde_json::json;
use wayfarer_content::{EquipSlot, Skill};
use wayfarer_protocol::ws::{codes, Entity, TilePos};
use wayfarer_sim::combat::formulas::CombatStyle;
use wayfarer_sim::{Event, World, DOOR_CLOSE_TICKS};

use crate::arena::{attack, content_with_features, hits, mob, npc_of, rejections, Fighter};
use crate::{idle, t, walk};

/// A 5×5 house (x 10..=14, z 10..=14) with one door on its south side at (12, 14).
fn house() -> serde_json::Value {
    json!({"buildings": [{"id": "house", "name": "House", "min": {"x": 10, "z": 10},
        "max": {"x": 14, "z": 14}, "roof": "thatch", "doors": [{"x": 12, "z": 14}]}]})
}

/// A fenced pen (x 10..=14, z 10..=14) with no gate.
fn pen() -> serde_json::Value {
    json!({"buildings": [{"id": "pen", "kind": "pen", "min": {"x": 10, "z": 10},
        "max": {"x": 14, "z": 14}}]})
}

fn door(world: &World) -> Entity {
    world
        .resources()
        .into_iter()
        .find(|e| e.resource_type.as_deref() == Some("door"))
        .expect("the house has a door")
}

#[test]
fn a_wall_blocks_a_step_and_the_walk_goes_in_through_the_door() {
    let mut w = World::new(content_with_features(&[], house()), 1);
    w.tick(vec![Fighter::new("ada", t(12, 7)).join()]);
    let wall_side = t(12, 9);
    assert!(w.is_walkable(t(12, 10)) && w.is_walkable(wall_side));
    // From just north of the house to just inside its north wall: round by the south door.
    w.tick(vec![walk("ada", wall_side)]);
    idle(&mut w, 3);
    w.tick(vec![walk("ada", t(12, 10))]);
    let mut seen = vec![w.player_tile("ada").unwrap()];
    let mut opened = false;
    for _ in 0..30 {
        idle(&mut w, 1);
        seen.push(w.player_tile("ada").unwrap());
        opened |= door(&w).open == Some(true);
    }
    assert_eq!(w.player_tile("ada"), Some(t(12, 10)), "{seen:?}");
    assert!(
        seen.iter().any(|p| p.z >= 15),
        "walked round to the door: {seen:?}"
    );
    assert!(
        seen.windows(2)
            .all(|w| !(w[0].z == 9 && w[1].z == 10 && (10..=14).contains(&w[1].x))),
        "never through the north wall: {seen:?}"
    );
    assert!(opened, "and opened the door on the way");
}

#[test]
fn a_door_opens_for_a_walker_and_closes_ten_seconds_after_the_last_passage() {
    let mut w = World::new(content_with_features(&[], house()), 1);
    w.tick(vec![Fighter::new("ada", t(12, 16)).join()]);
    let door_id = door(&w).id;
    assert_eq!(door(&w).open, Some(false), "doors start closed");
    assert_eq!(door(&w).side, Some(4), "on the south side");
    let mut events = w.tick(vec![walk("ada", t(12, 12))]);
    let mut opened_at = None;
    for n in 1..=10 {
        if n > 1 {
            events = idle(&mut w, 1);
        }
        if changed_open(&events, &door_id) == Some(true) {
            opened_at = Some(n);
            break;
        }
    }
    let opened_at = opened_at.expect("the door opened as she walked through");
    assert_eq!(door(&w).open, Some(true));
    // Shut 10 s (17 ticks) after the passage: still open one tick before, closed on time.
    let waited = idle(&mut w, DOOR_CLOSE_TICKS as usize - 1);
    assert!(
        waited.iter().all(|_| door(&w).open == Some(true)),
        "opened on tick {opened_at}"
    );
    let events = idle(&mut w, 1);
    assert_eq!(changed_open(&events, &door_id), Some(false));
    assert_eq!(door(&w).open, Some(false));
}

/// The `open` of the door's `changed` entry in any player's view of these events.
fn changed_open(events: &[Event], door: &str) -> Option<bool> {
    crate::views(events)
        .values()
        .flat_map(|u| u.changed.iter())
        .find(|c| c.id == door)
        .and_then(|c| c.open)
}

#[test]
fn an_npc_does_not_cross_a_wall_nor_hit_across_it() {
    // An aggressive brute penned in (x 10..=14, z 10..=14), a player just outside its south fence.
    let mut w = World::new(content_with_features(&[mob("brute", 12, 13)], pen()), 3);
    let brute = npc_of(&w, "brute").expect("brute");
    w.tick(vec![Fighter::new("ada", t(12, 15)).join()]);
    let events = idle(&mut w, 80);
    let tile = w.entity(&brute).map(|e| (e.x, e.z)).unwrap();
    assert!(
        (10..=14).contains(&tile.0) && (10..=14).contains(&tile.1),
        "the brute stayed in its pen: {tile:?}"
    );
    assert!(
        hits(&events).iter().all(|h| h.attacker_id != brute),
        "and never hit her across the fence"
    );
}

#[test]
fn a_ranged_attack_through_a_wall_is_refused_with_no_line_of_sight() {
    // A dummy inside the house; an archer 5 tiles east of its east wall, on the same row.
    let mut w = World::new(content_with_features(&[mob("dummy", 12, 12)], house()), 4);
    let dummy = npc_of(&w, "dummy").expect("dummy");
    assert!(!w.line_of_sight(t(17, 12), t(12, 12)));
    assert!(!w.line_of_sight(t(12, 19), t(12, 12)), "the door is closed");
    let ada = Fighter::new("ada", t(17, 12))
        .wear(EquipSlot::Weapon, "shortbow", 1)
        .wear(EquipSlot::Arrows, "bronze_arrow", 5)
        .level(Skill::Ranged, 10)
        .style(CombatStyle::Rapid);
    w.tick(vec![ada.join()]);
    let events = w.tick(vec![attack("ada", &dummy)]);
    let mut all = events;
    all.extend(idle(&mut w, 3));
    assert!(
        rejections(&all, "ada").contains(&codes::NO_LINE_OF_SIGHT),
        "{:?}",
        rejections(&all, "ada")
    );
    assert!(hits(&all).is_empty(), "no arrow flew through the wall");
}

/// Every fishing spot of `world` stands on water with a walkable tile beside it, from which a
/// player can reach it.
fn assert_spots_on_water_and_reachable(world: &World) {
    let spots: Vec<Entity> = world
        .resources()
        .into_iter()
        .filter(|e| e.resource_type.as_deref() == Some("fishing_spot"))
        .collect();
    assert!(!spots.is_empty());
    for spot in spots {
        let tile = t(spot.x, spot.z);
        assert!(!world.is_walkable(tile), "{spot:?} is not walked on");
        assert!(world.is_water(tile), "{spot:?} stands on water");
        let beside = [t(1, 0), t(-1, 0), t(0, 1), t(0, -1)]
            .iter()
            .map(|d| TilePos {
                x: tile.x + d.x,
                z: tile.z + d.z,
            })
            .any(|n| world.is_walkable(n));
        assert!(beside, "{spot:?} has walkable ground beside it");
    }
}

#[test]
fn water_is_not_walkable_and_every_bundled_fishing_spot_is_reachable() {
    let content = std::sync::Arc::new(wayfarer_content::load_bundled());
    for seed in [1, 2, 3] {
        let world = World::new(content.clone(), seed);
        assert_spots_on_water_and_reachable(&world);
    }
    let world = World::new(content, 1);
    let lake = t(28, 25);
    assert!(world.is_water(lake) && !world.is_walkable(lake));
}

#[test]
fn every_fishing_spot_of_a_generated_world_is_on_water_beside_walkable_ground() {
    let mut set = wayfarer_content::bundled();
    let mut config: serde_json::Value =
        serde_json::from_slice(&set.files["world-config.json"]).unwrap();
    config["generate"] = json!(true);
    config["towns"]["worldSize"] = json!(600);
    set.insert("world-config.json", config.to_string());
    let (mut content, _) = wayfarer_content::Content::from_files(&set).expect("loads");
    assert!(wayfarer_sim::worldgen::apply(&mut content, Some(3)));
    let world = World::new(std::sync::Arc::new(content), 3);
    assert_spots_on_water_and_reachable(&world);
}
