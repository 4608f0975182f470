//! Runecrafting (CONTRACT.md section 11) on the bundled content: every essence carried becomes
//! runes at the rune's altar, one more per essence at each `multiRuneLevels` boundary (checked
//! at the level just below and at each), XP per essence, and the refusals.

use std::sync::Arc;

use wayfarer_content::Skill;
use wayfarer_protocol::ws::{codes, TilePos};
use wayfarer_sim::inventory::{Inventory, Stack};
use wayfarer_sim::skills::{xp_for_level, Xp};
use wayfarer_sim::{runes_per_essence, Action, Command, Event, Joining, MakeCount, World};

use crate::t;

/// A world of the bundled content with `who` (Runecrafting `level`) next to the `altar`,
/// holding `essence` single rune essence; returns the world.
fn at_altar(altar: &str, level: u8, essence: u32) -> World {
    let mut world = World::new(Arc::new(wayfarer_content::load_bundled()), 9);
    let station = world
        .resources()
        .into_iter()
        .find(|e| e.resource_type.as_deref() == Some(altar))
        .unwrap_or_else(|| panic!("the bundled world has an {altar}"));
    let mut joining = Joining::new("ada", "Ada", t(station.x, station.z - 1));
    joining
        .skills
        .set_xp(Skill::Runecrafting, Xp::from_points(xp_for_level(level)));
    joining.inventory = Inventory::from_stacks((0..essence as usize).map(|slot| {
        (
            slot,
            Stack {
                item_id: "rune_essence".into(),
                quantity: 1,
            },
        )
    }))
    .expect("essence fits");
    world.tick(vec![Command::Join(Box::new(joining))]);
    world
}

fn make(recipe: &str) -> Command {
    Command::Action {
        id: "ada".into(),
        action: Action::Make {
            recipe_id: recipe.into(),
            count: MakeCount::Times(1),
            target: None,
        },
        reference: Some(5),
    }
}

fn count(world: &World, item: &str) -> u64 {
    world.player_inventory("ada").map_or(0, |i| i.count(item))
}

fn rejections(events: &[Event]) -> Vec<&'static str> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Rejected { to, code, .. } if to == "ada" => Some(*code),
            _ => None,
        })
        .collect()
}

/// Binds at `altar` with `recipe` at `level` holding `essence`; returns (runes made, XP tenths).
fn bind(altar: &str, recipe: &str, rune: &str, level: u8, essence: u32) -> (u64, u32) {
    let mut world = at_altar(altar, level, essence);
    let before = world
        .player_skills("ada")
        .expect("online")
        .xp(Skill::Runecrafting)
        .tenths();
    let mut events = world.tick(vec![make(recipe)]);
    for _ in 0..5 {
        events.extend(world.tick(vec![]));
    }
    assert!(rejections(&events).is_empty(), "{recipe} at {level}");
    assert_eq!(count(&world, "rune_essence"), 0, "every essence is used");
    let after = world
        .player_skills("ada")
        .expect("online")
        .xp(Skill::Runecrafting)
        .tenths();
    (count(&world, rune), after - before)
}

#[test]
fn runes_per_essence_rise_by_one_at_each_multi_rune_level() {
    assert_eq!(runes_per_essence(1, &[11, 22, 33]), 1);
    assert_eq!(runes_per_essence(10, &[11, 22, 33]), 1);
    assert_eq!(runes_per_essence(11, &[11, 22, 33]), 2);
    assert_eq!(runes_per_essence(99, &[11, 22, 33]), 4);
    assert_eq!(runes_per_essence(99, &[]), 1);
}

#[test]
fn air_runes_at_each_multi_rune_boundary_just_below_and_at() {
    // Bundled air runes: level 1, 5 XP per essence, one more rune at 11, 22 and 33.
    for (level, per) in [(10, 1), (11, 2), (21, 2), (22, 3), (32, 3), (33, 4)] {
        let (runes, xp) = bind("air_altar", "runecrafting:air_rune", "air_rune", level, 7);
        assert_eq!(runes, 7 * per, "level {level}");
        assert_eq!(xp, 7 * 50, "5 XP per essence at level {level}");
    }
}

#[test]
fn fire_runes_at_each_multi_rune_boundary_and_refused_below_their_level() {
    // Bundled fire runes: level 14, 7 XP per essence, one more at 35 and 70.
    for (level, per) in [(14, 1), (34, 1), (35, 2), (69, 2), (70, 3)] {
        let (runes, xp) = bind(
            "fire_altar",
            "runecrafting:fire_rune",
            "fire_rune",
            level,
            3,
        );
        assert_eq!(runes, 3 * per, "level {level}");
        assert_eq!(xp, 3 * 70, "level {level}");
    }
    let mut world = at_altar("fire_altar", 13, 3);
    let events = world.tick(vec![make("runecrafting:fire_rune")]);
    assert_eq!(rejections(&events), [codes::LEVEL_TOO_LOW]);
    assert_eq!(count(&world, "rune_essence"), 3);
}

#[test]
fn a_full_inventory_of_essence_becomes_one_stack_of_runes_in_one_make() {
    let (runes, _) = bind("air_altar", "runecrafting:air_rune", "air_rune", 1, 28);
    assert_eq!(runes, 28);
    let mut world = at_altar("air_altar", 1, 28);
    let mut events = world.tick(vec![make("runecrafting:air_rune")]);
    events.extend(world.tick(vec![]));
    events.extend(world.tick(vec![]));
    let inventory = world.player_inventory("ada").expect("online");
    assert_eq!(inventory.stacks().count(), 1, "one stack of 28 air runes");
    let lines: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::Chat { message, .. } => Some(message.text.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        lines.contains(&"You bind 28 rune essences into 28 air runes."),
        "{lines:?}"
    );
}

#[test]
fn without_essence_or_away_from_the_altar_runecrafting_is_refused() {
    let mut world = at_altar("air_altar", 1, 0);
    let events = world.tick(vec![make("runecrafting:air_rune")]);
    assert_eq!(rejections(&events), [codes::MISSING_ITEMS]);
    // Essence, but at the water altar: the air altar is the only one that binds air runes.
    let mut world = at_altar("water_altar", 50, 2);
    let far: TilePos = world.player_tile("ada").expect("online");
    let water = world
        .resources()
        .into_iter()
        .find(|e| e.resource_type.as_deref() == Some("water_altar"))
        .expect("water altar");
    let events = world.tick(vec![Command::Action {
        id: "ada".into(),
        action: Action::Make {
            recipe_id: "runecrafting:air_rune".into(),
            count: MakeCount::Times(1),
            target: Some(water.id.clone()),
        },
        reference: Some(6),
    }]);
    assert_eq!(rejections(&events), [codes::INVALID_TARGET]);
    assert_eq!(world.player_tile("ada"), Some(far));
    assert_eq!(count(&world, "rune_essence"), 2);
}
