//! Processing on the bundled content: cooking (burn chance), firemaking (a fire entity that expires,
//! the player steps aside), smelting and smithing (exact inputs for the output), and item on item.

use std::sync::Arc;

use wayfarer_content::Skill;
use wayfarer_protocol::ws::{Entity, EntityKind, TilePos};
use wayfarer_sim::inventory::{Inventory, Stack};
use wayfarer_sim::skilling::burn_chance;
use wayfarer_sim::skills::{xp_for_level, Xp};
use wayfarer_sim::{Action, Command, Event, Joining, World};

use crate::{idle, t, walk};

fn world() -> World {
    World::new(Arc::new(wayfarer_content::load_bundled()), 5)
}

fn player(id: &str, tile: TilePos, levels: &[(Skill, u8)], items: &[(&str, u32)]) -> Command {
    let mut joining = Joining::new(id, id, tile);
    for (skill, level) in levels {
        joining
            .skills
            .set_xp(*skill, Xp::from_points(xp_for_level(*level)));
    }
    let stacks = items.iter().enumerate().map(|(n, (i, q))| {
        (
            n,
            Stack {
                item_id: (*i).into(),
                quantity: *q,
            },
        )
    });
    joining.inventory = Inventory::from_stacks(stacks).expect("valid fixture inventory");
    Command::Join(Box::new(joining))
}

/// `count` single items of `item_id` (unstackables take a slot each).
fn many(item_id: &'static str, count: usize) -> Vec<(&'static str, u32)> {
    vec![(item_id, 1); count]
}

fn use_on(id: &str, slot: usize, target: &str) -> Command {
    Command::UseItem {
        id: id.into(),
        slot,
        target_slot: None,
        target_id: Some(target.into()),
        reference: Some(3),
    }
}

fn use_with(id: &str, slot: usize, other: usize) -> Command {
    Command::UseItem {
        id: id.into(),
        slot,
        target_slot: Some(other),
        target_id: None,
        reference: Some(4),
    }
}

fn station(world: &World, kind: &str) -> Entity {
    world
        .resources()
        .into_iter()
        .find(|e| e.resource_type.as_deref() == Some(kind))
        .unwrap_or_else(|| panic!("the bundled world has a {kind}"))
}

fn count(world: &World, who: &str, item_id: &str) -> u64 {
    world.player_inventory(who).map_or(0, |i| i.count(item_id))
}

fn xp_count(events: &[Event], who: &str, skill: Skill) -> usize {
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

#[test]
fn stations_are_targetable_resource_entities() {
    let world = world();
    for kind in ["bank", "range", "furnace", "anvil", "altar"] {
        let entity = station(&world, kind);
        assert_eq!(entity.kind, EntityKind::Resource);
        assert_eq!(entity.type_id.as_deref(), Some(kind));
        assert!(!world.is_walkable(t(entity.x, entity.z)));
    }
}

#[test]
fn burn_chance_falls_to_zero_at_the_stop_burn_level() {
    // Shrimp: level 1, stops burning at 34.
    assert!(burn_chance(1, 1, 34, false) > burn_chance(20, 1, 34, false));
    assert!(burn_chance(33, 1, 34, false) > 0.0);
    assert_eq!(burn_chance(34, 1, 34, false), 0.0);
    assert_eq!(burn_chance(35, 1, 34, false), 0.0);
    assert!(burn_chance(10, 1, 34, true) < burn_chance(10, 1, 34, false));
}

#[test]
fn cooking_at_the_stop_level_never_burns_and_below_it_sometimes_does() {
    let mut world = world();
    let range = station(&world, "range");
    let at = t(range.x, range.z);
    world.tick(vec![
        player("chef", at, &[(Skill::Cooking, 34)], &many("raw_shrimp", 20)),
        player("novice", at, &[], &many("raw_shrimp", 20)),
    ]);
    // `cook` on the range, and raw food used on it, are the same action.
    let cook = Command::Action {
        id: "chef".into(),
        action: Action::Cook {
            slot: 0,
            target: range.id.clone(),
        },
        reference: Some(2),
    };
    world.tick(vec![cook, use_on("novice", 0, &range.id)]);
    // One shrimp per 4 ticks, 20 shrimp, plus the walk.
    let events = idle(&mut world, 120);
    assert_eq!(count(&world, "chef", "shrimp"), 20);
    assert_eq!(count(&world, "chef", "burnt_fish"), 0);
    assert_eq!(count(&world, "chef", "raw_shrimp"), 0);
    assert_eq!(xp_count(&events, "chef", Skill::Cooking), 20);
    let (cooked, burnt) = (
        count(&world, "novice", "shrimp"),
        count(&world, "novice", "burnt_fish"),
    );
    assert_eq!(cooked + burnt, 20, "each raw shrimp becomes one item");
    assert!(burnt > 0, "level 1 burns some");
    assert_eq!(
        xp_count(&events, "novice", Skill::Cooking) as u64,
        cooked,
        "XP only on success"
    );
    assert!(!world.player_is_busy("chef"));
}

#[test]
fn firemaking_lights_a_fire_entity_steps_aside_and_the_fire_burns_out() {
    let mut world = world();
    let spot = world.spawn_tile();
    let west = t(spot.x - 1, spot.z);
    assert!(world.is_walkable(west));
    world.tick(vec![player(
        "ada",
        spot,
        &[(Skill::Firemaking, 50), (Skill::Cooking, 50)],
        &[
            ("tinderbox", 1),
            ("logs", 1),
            ("logs", 1),
            ("raw_shrimp", 1),
        ],
    )]);
    let events = world.tick(vec![Command::Action {
        id: "ada".into(),
        action: Action::LightFire { slot: 1 },
        reference: Some(1),
    }]);
    assert!(rejections(&events, "ada").is_empty());
    // Level 50 lights normal logs at the first attempt, 4 ticks later.
    let events = idle(&mut world, 4);
    assert_eq!(xp_count(&events, "ada", Skill::Firemaking), 1);
    let lit_at = world.tick_number();
    let fire = station(&world, "fire");
    assert!(
        events.iter().any(|e| matches!(e, Event::View { to, update }
            if to == "ada" && update.added.iter().any(|a| a.id == fire.id))),
        "viewers see the fire appear"
    );
    assert_eq!(fire.type_id.as_deref(), Some("fire"));
    assert_eq!((fire.x, fire.z), (spot.x, spot.z));
    assert_eq!(fire.kind, EntityKind::Resource);
    assert!(world.is_walkable(spot), "a fire does not block its tile");
    assert_eq!(count(&world, "ada", "logs"), 1);
    idle(&mut world, 2);
    assert_eq!(world.player_tile("ada"), Some(west), "stepped west");

    // No second fire on a burning tile.
    world.tick(vec![walk("ada", spot)]);
    idle(&mut world, 2);
    let events = world.tick(vec![use_with("ada", 0, 2)]);
    assert!(rejections(&events, "ada")
        .iter()
        .any(|m| m.contains("can't light a fire here")));

    // Cook on it.
    world.tick(vec![use_on("ada", 3, &fire.id)]);
    idle(&mut world, 8);
    assert_eq!(count(&world, "ada", "shrimp"), 1);

    // It burns for fireTicks (100), then leaves ashes.
    while world.tick_number() < lit_at + 99 {
        world.tick(vec![]);
    }
    assert!(world.entity(&fire.id).is_some());
    world.tick(vec![]);
    assert!(world.entity(&fire.id).is_none(), "gone after 100 ticks");
    assert!(world
        .ground_items()
        .iter()
        .any(|g| g.stack.item_id == "ashes" && g.tile == spot));
}

#[test]
fn lighting_needs_a_tinderbox_and_logs() {
    let mut world = world();
    let spot = world.spawn_tile();
    world.tick(vec![player("ada", spot, &[], &[("logs", 1), ("knife", 1)])]);
    let events = world.tick(vec![Command::Action {
        id: "ada".into(),
        action: Action::LightFire { slot: 0 },
        reference: Some(1),
    }]);
    assert!(rejections(&events, "ada")
        .iter()
        .any(|m| m.contains("Tinderbox")));
    let events = world.tick(vec![Command::Action {
        id: "ada".into(),
        action: Action::LightFire { slot: 1 },
        reference: Some(1),
    }]);
    assert!(rejections(&events, "ada")
        .iter()
        .any(|m| m.contains("cannot light")));
    assert!(!world.player_is_busy("ada"));
}

#[test]
fn smelting_uses_exactly_one_copper_and_one_tin_per_bronze_bar() {
    let mut world = world();
    let furnace = station(&world, "furnace");
    let mut items = many("copper_ore", 3);
    items.extend(many("tin_ore", 3));
    items.push(("copper_ore", 1));
    world.tick(vec![player("ada", t(furnace.x, furnace.z), &[], &items)]);
    world.tick(vec![use_on("ada", 0, &furnace.id)]);
    let events = idle(&mut world, 60);
    assert_eq!(count(&world, "ada", "bronze_bar"), 3);
    assert_eq!(count(&world, "ada", "tin_ore"), 0);
    assert_eq!(count(&world, "ada", "copper_ore"), 1, "no tin left for it");
    assert_eq!(xp_count(&events, "ada", Skill::Smithing), 3);
    assert!(!world.player_is_busy("ada"));
}

#[test]
fn smelting_iron_needs_the_level() {
    let mut world = world();
    let furnace = station(&world, "furnace");
    world.tick(vec![player(
        "ada",
        t(furnace.x, furnace.z),
        &[],
        &[("iron_ore", 1)],
    )]);
    let mut events = world.tick(vec![use_on("ada", 0, &furnace.id)]);
    events.extend(idle(&mut world, 20));
    assert!(rejections(&events, "ada")
        .iter()
        .any(|m| m.contains("level of 15")));
    assert_eq!(count(&world, "ada", "iron_ore"), 1);
}

#[test]
fn smithing_turns_bars_into_the_item_with_a_hammer_only() {
    let mut world = world();
    let anvil = station(&world, "anvil");
    let at = t(anvil.x, anvil.z);
    world.tick(vec![
        player(
            "smith",
            at,
            &[],
            &[("hammer", 1), ("bronze_bar", 1), ("bronze_bar", 1)],
        ),
        player("bare", at, &[], &[("bronze_bar", 1)]),
    ]);
    let mut events = world.tick(vec![
        use_on("smith", 1, &anvil.id),
        use_on("bare", 0, &anvil.id),
    ]);
    events.extend(idle(&mut world, 30));
    // Level 1: the level-1 recipes are the dagger, hatchet and pickaxe; the first in content order.
    assert_eq!(count(&world, "smith", "bronze_dagger"), 1);
    assert_eq!(count(&world, "smith", "bronze_bar"), 1, "one item per use");
    assert_eq!(count(&world, "smith", "hammer"), 1, "tools are kept");
    assert_eq!(xp_count(&events, "smith", Skill::Smithing), 1);
    assert!(rejections(&events, "bare")
        .iter()
        .any(|m| m.contains("Hammer")));
    assert_eq!(count(&world, "bare", "bronze_bar"), 1);
}

#[test]
fn smithing_makes_the_highest_level_item_the_player_can() {
    let mut world = world();
    let anvil = station(&world, "anvil");
    world.tick(vec![player(
        "ada",
        t(anvil.x, anvil.z),
        &[(Skill::Smithing, 4)],
        &[("hammer", 1), ("bronze_bar", 1)],
    )]);
    world.tick(vec![use_on("ada", 1, &anvil.id)]);
    idle(&mut world, 30);
    assert_eq!(
        count(&world, "ada", "bronze_sword"),
        1,
        "level 4: the sword"
    );
    assert_eq!(count(&world, "ada", "bronze_bar"), 0);
}

#[test]
fn item_on_item_makes_a_station_less_recipe_or_nothing() {
    let mut world = world();
    let spot = world.spawn_tile();
    world.tick(vec![player(
        "ada",
        spot,
        &[],
        &[("knife", 1), ("logs", 1), ("tinderbox", 1)],
    )]);
    let events = world.tick(vec![use_with("ada", 0, 1)]);
    assert!(rejections(&events, "ada").is_empty());
    assert_eq!(count(&world, "ada", "logs"), 0);
    assert_eq!(count(&world, "ada", "arrow_shaft"), 12);
    assert_eq!(xp_count(&events, "ada", Skill::Fletching), 1);
    // A knife on arrow shafts (now in slot 1) makes nothing.
    let events = world.tick(vec![use_with("ada", 0, 1)]);
    assert!(rejections(&events, "ada")
        .iter()
        .any(|m| m.contains("Nothing interesting happens")));
}

#[test]
fn iron_smelts_half_the_time_and_the_ore_is_used_either_way() {
    let mut world = world();
    let furnace = station(&world, "furnace");
    world.tick(vec![player(
        "ada",
        t(furnace.x, furnace.z),
        &[(Skill::Smithing, 15)],
        &many("iron_ore", 20),
    )]);
    world.tick(vec![use_on("ada", 0, &furnace.id)]);
    let events = idle(&mut world, 120);
    let bars = count(&world, "ada", "iron_bar");
    assert_eq!(count(&world, "ada", "iron_ore"), 0);
    // Binomial(20, ½): 3σ ≈ 6.7.
    assert!((4..=16).contains(&bars), "{bars} bars from 20 ore");
    assert_eq!(xp_count(&events, "ada", Skill::Smithing) as u64, bars);
}

#[test]
fn a_content_reload_keeps_lit_fires() {
    let mut world = world();
    let spot = world.spawn_tile();
    world.tick(vec![player(
        "ada",
        spot,
        &[(Skill::Firemaking, 50)],
        &[("tinderbox", 1), ("logs", 1)],
    )]);
    world.tick(vec![Command::Action {
        id: "ada".into(),
        action: Action::LightFire { slot: 1 },
        reference: None,
    }]);
    idle(&mut world, 4);
    let fire = station(&world, "fire");
    world.replace_content(Arc::new(wayfarer_content::load_bundled()));
    idle(&mut world, 1);
    assert!(world.entity(&fire.id).is_some());
}

#[test]
fn food_that_needs_a_range_is_refused_on_a_fire() {
    let mut content = wayfarer_content::load_bundled();
    for recipe in &mut content.recipes {
        if let wayfarer_content::RecipeDetail::Cooking { allow_fire, .. } = &mut recipe.detail {
            *allow_fire = false;
        }
    }
    let mut world = World::new(Arc::new(content), 5);
    let spot = world.spawn_tile();
    world.tick(vec![player(
        "ada",
        spot,
        &[(Skill::Firemaking, 50)],
        &[("tinderbox", 1), ("logs", 1), ("raw_shrimp", 1)],
    )]);
    world.tick(vec![use_with("ada", 0, 1)]);
    idle(&mut world, 6);
    let fire = station(&world, "fire");
    let mut events = world.tick(vec![use_on("ada", 2, &fire.id)]);
    events.extend(idle(&mut world, 8));
    assert!(rejections(&events, "ada")
        .iter()
        .any(|m| m.contains("need a range")));
    assert_eq!(count(&world, "ada", "raw_shrimp"), 1);
}

#[test]
fn stations_cannot_be_gathered_and_trees_do_nothing_with_items() {
    let mut world = world();
    let anvil = station(&world, "anvil");
    let tree = world
        .resources()
        .into_iter()
        .find(|e| e.resource_type.as_deref() == Some("tree"))
        .expect("a tree");
    world.tick(vec![
        player("ada", t(anvil.x, anvil.z), &[], &[("logs", 1)]),
        player("bob", t(tree.x, tree.z), &[], &[("logs", 1)]),
    ]);
    let gather = Command::Action {
        id: "ada".into(),
        action: Action::Gather {
            target: anvil.id.clone(),
        },
        reference: None,
    };
    let mut events = world.tick(vec![gather, use_on("bob", 0, &tree.id)]);
    events.extend(idle(&mut world, 30));
    assert!(rejections(&events, "ada")
        .iter()
        .any(|m| m.contains("cannot gather")));
    assert!(rejections(&events, "bob")
        .iter()
        .any(|m| m.contains("Nothing interesting")));
    assert_eq!(count(&world, "bob", "logs"), 1);
}

mod fuzz {
    //! Any sequence of skilling requests, with any slots and targets, is answered without a panic.

    use proptest::prelude::*;

    use super::*;

    #[derive(Debug, Clone)]
    enum Op {
        Gather(usize),
        Cook(usize, usize),
        UseOn(usize, usize),
        UseWith(usize, usize),
        Light(usize),
        Wait(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        let slot = 0..28usize;
        let target = 0..64usize;
        prop_oneof![
            target.clone().prop_map(Op::Gather),
            (slot.clone(), target.clone()).prop_map(|(s, t)| Op::Cook(s, t)),
            (slot.clone(), target).prop_map(|(s, t)| Op::UseOn(s, t)),
            (slot.clone(), slot.clone()).prop_map(|(a, b)| Op::UseWith(a, b)),
            slot.prop_map(Op::Light),
            (1..12usize).prop_map(Op::Wait),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
        #[test]
        fn skilling_requests_never_panic(ops in prop::collection::vec(op(), 1..40)) {
            let mut world = world();
            let mut targets: Vec<String> = world.resources().into_iter().map(|e| e.id).collect();
            targets.push("nobody".into());
            let items = [
                ("tinderbox", 1), ("logs", 1), ("raw_shrimp", 1), ("copper_ore", 1),
                ("tin_ore", 1), ("bronze_bar", 1), ("hammer", 1), ("knife", 1),
                ("bronze_hatchet", 1), ("bronze_pickaxe", 1), ("small_fishing_net", 1),
            ];
            world.tick(vec![player("ada", world.spawn_tile(), &[], &items)]);
            for op in ops {
                let target = |n: usize| targets[n % targets.len()].clone();
                let command = match op {
                    Op::Gather(n) => Command::Action {
                        id: "ada".into(),
                        action: Action::Gather { target: target(n) },
                        reference: None,
                    },
                    Op::Cook(slot, n) => Command::Action {
                        id: "ada".into(),
                        action: Action::Cook { slot, target: target(n) },
                        reference: None,
                    },
                    Op::UseOn(slot, n) => use_on("ada", slot, &target(n)),
                    Op::UseWith(a, b) => use_with("ada", a, b),
                    Op::Light(slot) => Command::Action {
                        id: "ada".into(),
                        action: Action::LightFire { slot },
                        reference: None,
                    },
                    Op::Wait(n) => {
                        idle(&mut world, n);
                        continue;
                    }
                };
                world.tick(vec![command]);
            }
            idle(&mut world, 20);
            let inventory = world.player_inventory("ada").expect("still online");
            for (_, stack) in inventory.stacks() {
                prop_assert!(stack.quantity > 0);
            }
        }
    }
}
