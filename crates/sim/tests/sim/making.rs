//! Making on the bundled content (and the reference recipes in a small town): what is offered
//! (`make:options`) for an item on an item, an item on a station or a station, making the chosen
//! recipe as many times as asked, what stops it, its refusals, and its narration.

use std::sync::Arc;

use wayfarer_content::skilling::burn_chance;
use wayfarer_content::{Content, Recipe, RecipeKind, Skill};
use wayfarer_protocol::ws::{codes, ChatChannel, Entity, EntityKind, MakeOptions, TilePos};
use wayfarer_sim::inventory::{Inventory, Stack};
use wayfarer_sim::skills::{xp_for_level, Xp};
use wayfarer_sim::{Action, Command, Event, Joining, MakeCount, World, MAX_MAKE_QUANTITY};

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

fn make(id: &str, recipe: &str, count: MakeCount, target: Option<&str>) -> Command {
    Command::Action {
        id: id.into(),
        action: Action::Make {
            recipe_id: recipe.into(),
            count,
            target: target.map(str::to_owned),
        },
        reference: Some(7),
    }
}

fn interact(id: &str, target: &str) -> Command {
    Command::Action {
        id: id.into(),
        action: Action::Interact {
            target: target.into(),
        },
        reference: Some(5),
    }
}

fn station(world: &World, kind: &str) -> Entity {
    world
        .resources()
        .into_iter()
        .find(|e| e.resource_type.as_deref() == Some(kind))
        .unwrap_or_else(|| panic!("the world has a {kind}"))
}

fn at(entity: &Entity) -> TilePos {
    t(entity.x, entity.z)
}

fn count(world: &World, who: &str, item_id: &str) -> u64 {
    world.player_inventory(who).map_or(0, |i| i.count(item_id))
}

fn xp_gained(events: &[Event], who: &str, skill: Skill) -> Vec<Xp> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Xp { to, skill: s, gain } if to == who && *s == skill => Some(gain.gained),
            _ => None,
        })
        .collect()
}

/// `(code, message)` of each rejection for `who`.
fn rejections<'e>(events: &'e [Event], who: &str) -> Vec<(&'static str, &'e str)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Rejected {
                to, code, message, ..
            } if to == who => Some((*code, message.as_str())),
            _ => None,
        })
        .collect()
}

fn codes_of(events: &[Event], who: &str) -> Vec<&'static str> {
    rejections(events, who)
        .into_iter()
        .map(|(c, _)| c)
        .collect()
}

/// The game's narration to `who`, in order.
fn narration(events: &[Event], who: &str) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Chat { to, message }
                if message.channel == ChatChannel::Game && to.iter().any(|t| &**t == who) =>
            {
                Some(message.text.clone())
            }
            _ => None,
        })
        .collect()
}

fn offered(events: &[Event], who: &str) -> Option<MakeOptions> {
    events.iter().find_map(|e| match e {
        Event::MakeOptions { to, options } if to == who => Some((**options).clone()),
        _ => None,
    })
}

/// Ticks until `who` is no longer busy (at most `limit` ticks), returning every event.
fn until_idle(world: &mut World, who: &str, limit: usize) -> Vec<Event> {
    let mut events = Vec::new();
    for _ in 0..limit {
        events.extend(world.tick(vec![]));
        if !world.player_is_busy(who) {
            return events;
        }
    }
    panic!("{who} still busy after {limit} ticks");
}

/// Ticks with `command` first, then until idle.
fn run(world: &mut World, command: Command, who: &str, limit: usize) -> Vec<Event> {
    let mut events = world.tick(vec![command]);
    if world.player_is_busy(who) {
        events.extend(until_idle(world, who, limit));
    }
    events
}

#[test]
fn stations_are_targetable_resource_entities() {
    let world = world();
    for kind in ["bank", "range", "furnace", "anvil", "altar"] {
        let entity = station(&world, kind);
        assert_eq!(entity.kind, EntityKind::Resource);
        assert_eq!(entity.type_id.as_deref(), Some(kind));
        assert!(!world.is_walkable(at(&entity)));
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
fn a_bar_on_an_anvil_offers_every_recipe_of_that_bar_with_why_and_makes_nothing() {
    let mut world = world();
    let anvil = station(&world, "anvil");
    world.tick(vec![
        player(
            "smith",
            at(&anvil),
            &[(Skill::Smithing, 4)],
            &[("hammer", 1), ("bronze_bar", 1)],
        ),
        player("bare", at(&anvil), &[], &[("bronze_bar", 1)]),
    ]);
    let mut events = world.tick(vec![
        use_on("smith", 1, &anvil.id),
        use_on("bare", 0, &anvil.id),
    ]);
    events.extend(idle(&mut world, 10));
    let options = offered(&events, "smith").expect("options for the smith");
    assert_eq!(
        options.context.target_id.as_deref(),
        Some(anvil.id.as_str())
    );
    assert_eq!(options.context.station_type.as_deref(), Some("anvil"));
    assert_eq!(options.context.slots, Some(vec![1]));
    let listed: Vec<(&str, bool, Option<&str>)> = options
        .options
        .iter()
        .map(|o| (o.recipe_id.as_str(), o.can_make, o.reason.as_deref()))
        .collect();
    // Every bronze recipe in content order; arrowtips (5) and the platebody (18 and 5 bars) are
    // above Smithing 4.
    assert_eq!(
        listed,
        [
            ("smithing:bronze_dagger", true, None),
            ("smithing:bronze_sword", true, None),
            ("smithing:bronze_hatchet", true, None),
            ("smithing:bronze_pickaxe", true, None),
            (
                "smithing:bronze_arrowtips",
                false,
                Some(codes::LEVEL_TOO_LOW)
            ),
            ("smithing:bronze_helmet", true, None),
            (
                "smithing:bronze_platebody",
                false,
                Some(codes::LEVEL_TOO_LOW)
            ),
        ]
    );
    let dagger = &options.options[0];
    assert_eq!(dagger.name, "Bronze Dagger");
    assert_eq!(dagger.tools, ["hammer"]);
    assert_eq!(dagger.inputs[0].item_id, "bronze_bar");
    assert_eq!(dagger.outputs[0].item_id, "bronze_dagger");
    assert_eq!(dagger.skill, Some(Skill::Smithing));
    let bare = offered(&events, "bare").expect("options without a hammer too");
    assert!(bare
        .options
        .iter()
        .filter(|o| o.level <= 1)
        .all(|o| o.reason.as_deref() == Some(codes::MISSING_TOOL)));
    assert_eq!(count(&world, "smith", "bronze_bar"), 1, "nothing made yet");
    assert!(!world.player_is_busy("smith"));
}

#[test]
fn interacting_with_a_station_offers_all_it_makes_and_a_tree_offers_nothing() {
    let mut world = world();
    let furnace = station(&world, "furnace");
    let range = station(&world, "range");
    world.tick(vec![
        player("a", at(&furnace), &[], &[]),
        player(
            "b",
            at(&range),
            &[(Skill::Cooking, 20)],
            &[("raw_trout", 1)],
        ),
    ]);
    let mut events = world.tick(vec![interact("a", &furnace.id), interact("b", &range.id)]);
    events.extend(idle(&mut world, 10));
    let smelting: Vec<String> = offered(&events, "a")
        .expect("the furnace offers")
        .options
        .iter()
        .map(|o| o.recipe_id.clone())
        .collect();
    assert_eq!(
        smelting,
        [
            "smithing:bronze_bar",
            "smithing:iron_bar",
            "smithing:steel_bar"
        ]
    );
    let cooking = offered(&events, "b").expect("the range offers");
    assert_eq!(cooking.options.len(), 7, "every cooking recipe");
    let trout = cooking
        .options
        .iter()
        .find(|o| o.recipe_id == "cooking:trout")
        .unwrap();
    assert!(trout.can_make);
    let salmon = cooking
        .options
        .iter()
        .find(|o| o.recipe_id == "cooking:salmon")
        .unwrap();
    assert_eq!(salmon.reason.as_deref(), Some(codes::LEVEL_TOO_LOW));
    let shrimp = cooking
        .options
        .iter()
        .find(|o| o.recipe_id == "cooking:shrimp")
        .unwrap();
    assert_eq!(shrimp.reason.as_deref(), Some(codes::MISSING_ITEMS));
}

#[test]
fn smithing_makes_each_of_three_recipes_chosen_from_one_bar_at_one_anvil() {
    let mut world = world();
    let anvil = station(&world, "anvil");
    let mut items = vec![("hammer", 1)];
    items.extend(many("bronze_bar", 3));
    world.tick(vec![player(
        "ada",
        at(&anvil),
        &[(Skill::Smithing, 5)],
        &items,
    )]);
    let mut events = Vec::new();
    for recipe in [
        "smithing:bronze_helmet",
        "smithing:bronze_hatchet",
        "smithing:bronze_arrowtips",
    ] {
        events.extend(run(
            &mut world,
            make("ada", recipe, MakeCount::Times(1), Some(&anvil.id)),
            "ada",
            30,
        ));
    }
    assert!(rejections(&events, "ada").is_empty());
    assert_eq!(count(&world, "ada", "bronze_helmet"), 1);
    assert_eq!(count(&world, "ada", "bronze_hatchet"), 1);
    assert_eq!(count(&world, "ada", "bronze_arrowtips"), 15);
    assert_eq!(count(&world, "ada", "bronze_dagger"), 0);
    assert_eq!(count(&world, "ada", "bronze_bar"), 0);
    assert_eq!(count(&world, "ada", "hammer"), 1, "tools are kept");
    assert_eq!(
        xp_gained(&events, "ada", Skill::Smithing),
        vec![Xp::from_f64(12.5); 3]
    );
}

#[test]
fn crafting_makes_each_of_three_recipes_chosen_from_leather_using_up_thread() {
    let mut world = world();
    let spot = world.spawn_tile();
    let mut items = vec![("needle", 1), ("thread", 10)];
    items.extend(many("leather", 3));
    world.tick(vec![player("ada", spot, &[(Skill::Crafting, 9)], &items)]);
    // Needle on leather offers every leather recipe.
    let events = world.tick(vec![use_with("ada", 0, 2)]);
    let listed: Vec<(String, bool)> = offered(&events, "ada")
        .expect("options")
        .options
        .iter()
        .map(|o| (o.recipe_id.clone(), o.can_make))
        .collect();
    assert_eq!(
        listed,
        [
            ("crafting:leather_gloves".to_string(), true),
            ("crafting:leather_boots".to_string(), true),
            ("crafting:leather_cowl".to_string(), true),
            ("crafting:leather_body".to_string(), false),
        ]
    );
    let mut events = Vec::new();
    for recipe in [
        "crafting:leather_cowl",
        "crafting:leather_gloves",
        "crafting:leather_boots",
    ] {
        events.extend(run(
            &mut world,
            make("ada", recipe, MakeCount::Times(1), None),
            "ada",
            20,
        ));
    }
    for item in ["leather_cowl", "leather_gloves", "leather_boots"] {
        assert_eq!(count(&world, "ada", item), 1, "{item}");
    }
    assert_eq!(count(&world, "ada", "leather"), 0);
    assert_eq!(count(&world, "ada", "needle"), 1);
    // One thread lasts four items on average (a 1-in-4 draw each): at most one a make.
    assert!((7..=10).contains(&count(&world, "ada", "thread")));
    assert_eq!(xp_gained(&events, "ada", Skill::Crafting).len(), 3);
}

#[test]
fn a_knife_on_logs_offers_shafts_and_a_bow_and_makes_the_one_chosen() {
    let mut world = world();
    let spot = world.spawn_tile();
    world.tick(vec![player(
        "ada",
        spot,
        &[(Skill::Fletching, 99)],
        &[("knife", 1), ("logs", 1), ("logs", 1)],
    )]);
    let events = world.tick(vec![use_with("ada", 0, 1)]);
    let listed: Vec<String> = offered(&events, "ada")
        .expect("options")
        .options
        .iter()
        .map(|o| o.recipe_id.clone())
        .collect();
    // Above Fletching 79 logs still make shafts: nothing is hidden behind a higher recipe.
    assert_eq!(
        listed,
        ["fletching:arrow_shaft:logs", "fletching:shortbow_u"]
    );
    assert_eq!(count(&world, "ada", "logs"), 2, "nothing made yet");
    let mut events = run(
        &mut world,
        make(
            "ada",
            "fletching:arrow_shaft:logs",
            MakeCount::Times(1),
            None,
        ),
        "ada",
        20,
    );
    events.extend(run(
        &mut world,
        make("ada", "fletching:shortbow_u", MakeCount::Times(1), None),
        "ada",
        20,
    ));
    assert_eq!(count(&world, "ada", "arrow_shaft"), 12);
    assert_eq!(count(&world, "ada", "shortbow_u"), 1);
    assert_eq!(count(&world, "ada", "logs"), 0);
    assert_eq!(
        xp_gained(&events, "ada", Skill::Fletching),
        [Xp::from_f64(6.0), Xp::from_f64(5.0)]
    );
    // A knife on arrow shafts makes nothing.
    let events = world.tick(vec![use_with("ada", 0, 1)]);
    assert_eq!(
        rejections(&events, "ada"),
        [(codes::CANNOT_DO, "Nothing interesting happens.")]
    );
}

#[test]
fn quantities_one_five_and_all_make_exactly_that_many() {
    let mut world = world();
    let range = station(&world, "range");
    world.tick(vec![player(
        "chef",
        at(&range),
        &[(Skill::Cooking, 40)],
        &many("raw_shrimp", 12),
    )]);
    let cook = |count| make("chef", "cooking:shrimp", count, Some(&range.id));
    run(&mut world, cook(MakeCount::Times(1)), "chef", 20);
    assert_eq!(count(&world, "chef", "shrimp"), 1);
    run(&mut world, cook(MakeCount::Times(5)), "chef", 40);
    assert_eq!(count(&world, "chef", "shrimp"), 6);
    let events = run(&mut world, cook(MakeCount::All), "chef", 60);
    assert_eq!(count(&world, "chef", "shrimp"), 12);
    assert_eq!(count(&world, "chef", "raw_shrimp"), 0);
    assert_eq!(xp_gained(&events, "chef", Skill::Cooking).len(), 6);
}

#[test]
fn each_make_takes_the_recipes_ticks_the_first_after_arriving() {
    let mut world = world();
    let anvil = station(&world, "anvil");
    let mut items = vec![("hammer", 1)];
    items.extend(many("bronze_bar", 3));
    world.tick(vec![player("ada", at(&anvil), &[], &items)]);
    idle(&mut world, 2);
    world.tick(vec![make(
        "ada",
        "smithing:bronze_dagger",
        MakeCount::All,
        Some(&anvil.id),
    )]);
    // Next to the anvil already: a dagger every 5 ticks (the recipe's), the first 5 ticks on.
    let mut made_at = Vec::new();
    for tick in 1..=20 {
        world.tick(vec![]);
        let daggers = count(&world, "ada", "bronze_dagger") as usize;
        if daggers > made_at.len() {
            made_at.push(tick);
        }
    }
    assert_eq!(made_at, [5, 10, 15]);
}

#[test]
fn making_stops_when_the_player_moves() {
    let mut world = world();
    let anvil = station(&world, "anvil");
    let mut items = vec![("hammer", 1)];
    items.extend(many("bronze_bar", 10));
    world.tick(vec![player("ada", at(&anvil), &[], &items)]);
    idle(&mut world, 2);
    world.tick(vec![make(
        "ada",
        "smithing:bronze_dagger",
        MakeCount::All,
        Some(&anvil.id),
    )]);
    idle(&mut world, 11);
    assert_eq!(count(&world, "ada", "bronze_dagger"), 2);
    let away = world.spawn_tile();
    world.tick(vec![walk("ada", away)]);
    idle(&mut world, 40);
    assert_eq!(
        count(&world, "ada", "bronze_dagger"),
        2,
        "no more once moved"
    );
    assert_eq!(count(&world, "ada", "bronze_bar"), 8);
    assert!(!world.player_is_busy("ada"));
}

/// A maker in the Ashen Wastes (player combat allowed) fletching all of 20 logs, and a brute
/// three tiles away; `retaliates`: the maker's auto-retaliate.
fn maker_and_brute(retaliates: bool) -> World {
    let mut world = world();
    let spot = t(0, 60);
    let mut items = vec![("knife", 1)];
    items.extend(many("logs", 20));
    world.tick(vec![
        player("maker", spot, &[(Skill::Fletching, 10)], &items),
        player("brute", t(3, 60), &[(Skill::Attack, 40)], &[]),
        Command::Action {
            id: "maker".into(),
            action: Action::AutoRetaliate(retaliates),
            reference: None,
        },
    ]);
    world.tick(vec![make(
        "maker",
        "fletching:arrow_shaft:logs",
        MakeCount::All,
        None,
    )]);
    idle(&mut world, 5);
    assert!(count(&world, "maker", "arrow_shaft") >= 12);
    world
}

/// The brute's attack on the maker: the tick it is sent in, and its events.
fn brute_attacks_maker(world: &mut World) -> Vec<Event> {
    world.tick(vec![Command::Action {
        id: "brute".into(),
        action: Action::Attack {
            target: "maker".into(),
        },
        reference: None,
    }])
}

#[test]
fn a_maker_attacked_with_auto_retaliate_on_stops_and_turns_on_the_attacker() {
    let mut world = maker_and_brute(true);
    let mut events = brute_attacks_maker(&mut world);
    let shafts = count(&world, "maker", "arrow_shaft");
    for _ in 0..20 {
        events.extend(world.tick(vec![]));
    }
    let lines = narration(&events, "maker");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("You are attacked and stop")),
        "{lines:?}"
    );
    assert!(
        events.iter().any(|e| matches!(
            e,
            Event::CombatHit { hit, .. } if hit.attacker_id == "maker" && hit.target_id == "brute"
        )),
        "the maker hits back"
    );
    assert!(count(&world, "maker", "arrow_shaft") <= shafts + 1);
}

#[test]
fn making_stops_when_the_player_is_attacked() {
    // Auto-retaliate off: the maker only stops (on, they turn on the brute: above).
    let mut world = maker_and_brute(false);
    let mut events = brute_attacks_maker(&mut world);
    for _ in 0..20 {
        events.extend(world.tick(vec![]));
        if !world.player_is_busy("maker") {
            break;
        }
    }
    assert!(
        !world.player_is_busy("maker"),
        "the attack stopped the making"
    );
    let shafts = count(&world, "maker", "arrow_shaft");
    let lines = narration(&events, "maker");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("You are attacked and stop")),
        "{lines:?}"
    );
    idle(&mut world, 10);
    assert_eq!(count(&world, "maker", "arrow_shaft"), shafts);
    assert!(count(&world, "maker", "logs") > 0, "logs were left");
}

#[test]
fn making_stops_when_an_input_runs_out_and_says_so() {
    let mut world = world();
    let anvil = station(&world, "anvil");
    let mut items = vec![("hammer", 1)];
    items.extend(many("bronze_bar", 3));
    world.tick(vec![player("ada", at(&anvil), &[], &items)]);
    let events = run(
        &mut world,
        make(
            "ada",
            "smithing:bronze_dagger",
            MakeCount::Times(5),
            Some(&anvil.id),
        ),
        "ada",
        60,
    );
    assert_eq!(count(&world, "ada", "bronze_dagger"), 3);
    assert_eq!(
        narration(&events, "ada"),
        [
            "You begin smithing 5 bronze daggers.",
            "You hammer out a bronze dagger.",
            "You hammer out a bronze dagger.",
            "You hammer out a bronze dagger.",
            "You have run out of bronze bars. You made 3 bronze daggers.",
        ]
    );
}

#[test]
fn cooking_is_narrated_with_burns_and_the_finish() {
    let mut world = world();
    let range = station(&world, "range");
    world.tick(vec![player(
        "novice",
        at(&range),
        &[],
        &many("raw_shrimp", 12),
    )]);
    let events = run(
        &mut world,
        make("novice", "cooking:shrimp", MakeCount::All, Some(&range.id)),
        "novice",
        80,
    );
    let (cooked, burnt) = (
        count(&world, "novice", "shrimp"),
        count(&world, "novice", "burnt_fish"),
    );
    assert_eq!(cooked + burnt, 12);
    assert!(burnt > 0 && cooked > 0, "level 1 burns some: {burnt}");
    let lines = narration(&events, "novice");
    assert_eq!(lines[0], "You begin cooking shrimps.");
    let says = |line: &str| lines.iter().filter(|l| *l == line).count() as u64;
    assert_eq!(says("You cook the shrimp."), cooked);
    assert_eq!(says("You accidentally burn the shrimp."), burnt);
    assert_eq!(
        lines.last().unwrap(),
        &format!("You have run out of raw shrimps. You cooked {cooked} shrimps and burnt {burnt}.")
    );
    assert_eq!(lines.len() as u64, 2 + cooked + burnt);
    assert_eq!(
        xp_gained(&events, "novice", Skill::Cooking).len() as u64,
        cooked,
        "XP only on success"
    );
}

#[test]
fn the_cook_action_cooks_all_of_that_food() {
    let mut world = world();
    let range = station(&world, "range");
    world.tick(vec![player(
        "chef",
        at(&range),
        &[(Skill::Cooking, 34)],
        &many("raw_shrimp", 5),
    )]);
    let events = run(
        &mut world,
        Command::Action {
            id: "chef".into(),
            action: Action::Cook {
                slot: 0,
                target: range.id.clone(),
            },
            reference: Some(2),
        },
        "chef",
        40,
    );
    assert_eq!(count(&world, "chef", "shrimp"), 5);
    assert_eq!(
        count(&world, "chef", "burnt_fish"),
        0,
        "never at the stop level"
    );
    assert_eq!(xp_gained(&events, "chef", Skill::Cooking).len(), 5);
}

#[test]
fn make_is_refused_with_a_code_for_each_reason() {
    let mut world = world();
    let anvil = station(&world, "anvil");
    let spot = world.spawn_tile();
    let far = t(120, 0);
    // Filler, 30 shafts and 30 feathers fill all 28 slots: headless arrows would need a 29th.
    let mut full: Vec<(&str, u32)> = many("logs", 26);
    full.push(("arrow_shaft", 30));
    full.push(("feathers", 30));
    world.tick(vec![
        player("ada", at(&anvil), &[], &[("hammer", 1), ("bronze_bar", 1)]),
        player("bea", at(&anvil), &[], &[("bronze_bar", 1)]),
        player("cy", at(&anvil), &[], &[("hammer", 1)]),
        player("dee", far, &[], &[("hammer", 1), ("bronze_bar", 1)]),
        player("eve", spot, &[], &full),
    ]);
    let events = world.tick(vec![
        make("ada", "smithing:no_such_thing", MakeCount::Times(1), None),
        make("ada", "smithing:bronze_sword", MakeCount::Times(1), None),
        make("bea", "smithing:bronze_dagger", MakeCount::Times(1), None),
        make("cy", "smithing:bronze_dagger", MakeCount::Times(1), None),
        make("dee", "smithing:bronze_dagger", MakeCount::Times(1), None),
        make("eve", "fletching:headless_arrow", MakeCount::Times(1), None),
    ]);
    assert_eq!(
        codes_of(&events, "ada"),
        [codes::UNKNOWN_RECIPE, codes::LEVEL_TOO_LOW]
    );
    assert_eq!(
        rejections(&events, "ada")[1].1,
        "You need a Smithing level of 4 to make that."
    );
    assert_eq!(
        rejections(&events, "bea"),
        [(codes::MISSING_TOOL, "You need a Hammer to make that.")]
    );
    assert_eq!(
        rejections(&events, "cy"),
        [(
            codes::MISSING_ITEMS,
            "You need 1 x Bronze Bar to make that."
        )]
    );
    assert_eq!(codes_of(&events, "dee"), [codes::NOT_NEAR_STATION]);
    assert_eq!(codes_of(&events, "eve"), [codes::INVENTORY_FULL]);
    for who in ["ada", "bea", "cy", "dee", "eve"] {
        assert!(!world.player_is_busy(who), "{who}");
    }
    // A target that is not the recipe's station.
    let furnace = station(&world, "furnace");
    let events = world.tick(vec![make(
        "ada",
        "smithing:bronze_dagger",
        MakeCount::Times(1),
        Some(&furnace.id),
    )]);
    assert_eq!(codes_of(&events, "ada"), [codes::INVALID_TARGET]);
    // Runes (CONTRACT section 11) need essence.
    let events = world.tick(vec![make(
        "ada",
        "runecrafting:air_rune",
        MakeCount::Times(1),
        None,
    )]);
    assert_eq!(codes_of(&events, "ada"), [codes::MISSING_ITEMS]);
}

#[test]
fn make_without_a_target_walks_to_the_nearest_station_first() {
    let mut world = world();
    let anvil = station(&world, "anvil");
    let spot = world.spawn_tile();
    world.tick(vec![player(
        "ada",
        spot,
        &[],
        &[("hammer", 1), ("bronze_bar", 1)],
    )]);
    let events = run(
        &mut world,
        make("ada", "smithing:bronze_dagger", MakeCount::Times(1), None),
        "ada",
        60,
    );
    assert!(rejections(&events, "ada").is_empty());
    assert_eq!(count(&world, "ada", "bronze_dagger"), 1);
    let tile = world.player_tile("ada").unwrap();
    assert!(wayfarer_sim::chebyshev(tile, at(&anvil)) <= 2, "{tile:?}");
}

#[test]
fn smelting_uses_exactly_one_copper_and_one_tin_per_bronze_bar() {
    let mut world = world();
    let furnace = station(&world, "furnace");
    let mut items = many("copper_ore", 3);
    items.extend(many("tin_ore", 3));
    items.push(("copper_ore", 1));
    world.tick(vec![player("ada", at(&furnace), &[], &items)]);
    let events = run(
        &mut world,
        make("ada", "smithing:bronze_bar", MakeCount::All, None),
        "ada",
        60,
    );
    assert_eq!(count(&world, "ada", "bronze_bar"), 3);
    assert_eq!(count(&world, "ada", "tin_ore"), 0);
    assert_eq!(count(&world, "ada", "copper_ore"), 1, "no tin left for it");
    assert_eq!(xp_gained(&events, "ada", Skill::Smithing).len(), 3);
}

#[test]
fn iron_ore_offers_iron_and_steel_and_iron_smelts_half_the_time() {
    let mut world = world();
    let furnace = station(&world, "furnace");
    let mut items = many("iron_ore", 20);
    items.push(("coal", 1));
    world.tick(vec![player(
        "ada",
        at(&furnace),
        &[(Skill::Smithing, 30)],
        &items,
    )]);
    let events = world.tick(vec![use_on("ada", 0, &furnace.id)]);
    let listed: Vec<(String, Option<String>)> = offered(&events, "ada")
        .expect("options")
        .options
        .iter()
        .map(|o| (o.recipe_id.clone(), o.reason.clone()))
        .collect();
    assert_eq!(
        listed,
        [
            ("smithing:iron_bar".to_string(), None),
            (
                "smithing:steel_bar".to_string(),
                Some(codes::MISSING_ITEMS.to_string())
            ),
        ]
    );
    let events = run(
        &mut world,
        make("ada", "smithing:iron_bar", MakeCount::All, None),
        "ada",
        120,
    );
    let bars = count(&world, "ada", "iron_bar");
    assert_eq!(count(&world, "ada", "iron_ore"), 0);
    // Binomial(20, ½): 3σ ≈ 6.7.
    assert!((4..=16).contains(&bars), "{bars} bars from 20 ore");
    assert_eq!(
        xp_gained(&events, "ada", Skill::Smithing).len() as u64,
        bars
    );
    let failures = narration(&events, "ada")
        .iter()
        .filter(|l| l.starts_with("The ore is too impure"))
        .count() as u64;
    assert_eq!(failures, 20 - bars);
}

#[test]
fn the_tanner_offers_tanning_and_tans_as_many_as_chosen() {
    let mut world = world();
    let tanner = world
        .npcs()
        .into_iter()
        .find(|n| n.type_id.as_deref() == Some("tanner_ewan"))
        .expect("Millbrook has a tanner");
    let mut items = vec![("coins", 100)];
    items.extend(many("cowhide", 5));
    world.tick(vec![player("ada", at(&tanner), &[], &items)]);
    let events = run(
        &mut world,
        make("ada", "tanning:leather", MakeCount::Times(3), None),
        "ada",
        30,
    );
    assert!(rejections(&events, "ada").is_empty());
    assert_eq!(count(&world, "ada", "leather"), 3);
    assert_eq!(count(&world, "ada", "cowhide"), 2);
    assert_eq!(count(&world, "ada", "coins"), 94, "2 coins a hide");
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::SaveNow { id } if id == "ada")));
    assert!(narration(&events, "ada")
        .iter()
        .any(|l| l == "The tanner tans your cowhide into leather."));
    // The economy audit: hides and leather are `tanned`, coins `tannerPayments`.
    let flows: Vec<(String, &str, u64)> = events
        .iter()
        .filter_map(|e| match e {
            Event::ItemFlows(flows) => Some(flows),
            _ => None,
        })
        .flatten()
        .map(|f| (f.item_id.clone(), f.reason, f.quantity))
        .collect();
    for flow in [
        ("cowhide", "tanned"),
        ("leather", "tanned"),
        ("coins", "tannerPayments"),
    ] {
        let units: u64 = flows
            .iter()
            .filter(|(item, reason, _)| (item.as_str(), *reason) == flow)
            .map(|(_, _, q)| q)
            .sum();
        assert_eq!(units, if flow.0 == "coins" { 6 } else { 3 }, "{flow:?}");
    }
}

#[test]
fn firemaking_lights_as_many_fires_as_asked_stepping_aside_each_time() {
    let mut world = world();
    let spot = world.spawn_tile();
    let mut items = vec![("tinderbox", 1)];
    items.extend(many("logs", 5));
    world.tick(vec![player(
        "ada",
        spot,
        &[(Skill::Firemaking, 50)],
        &items,
    )]);
    // A tinderbox on logs offers lighting them.
    let events = world.tick(vec![use_with("ada", 0, 1)]);
    let options = offered(&events, "ada").expect("options");
    assert_eq!(options.options[0].recipe_id, "firemaking:logs");
    assert_eq!(options.options[0].name, "Logs");
    assert!(options.options[0].outputs.is_empty());
    let events = run(
        &mut world,
        make("ada", "firemaking:logs", MakeCount::Times(3), None),
        "ada",
        60,
    );
    let fires = world
        .resources()
        .into_iter()
        .filter(|e| e.resource_type.as_deref() == Some("fire"))
        .count();
    assert_eq!(fires, 3);
    assert_eq!(count(&world, "ada", "logs"), 2);
    assert_eq!(xp_gained(&events, "ada", Skill::Firemaking).len(), 3);
    let lines = narration(&events, "ada");
    assert_eq!(lines.first().unwrap(), "You attempt to light the logs.");
    assert_eq!(lines.last().unwrap(), "You lit 3 fires.");
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
    assert_eq!(xp_gained(&events, "ada", Skill::Firemaking).len(), 1);
    let lit_at = world.tick_number();
    let fire = station(&world, "fire");
    assert!(
        events.iter().any(|e| matches!(e, Event::View { to, update }
            if &**to == "ada" && update.added.iter().any(|a| a.id == fire.id))),
        "viewers see the fire appear"
    );
    assert_eq!(fire.type_id.as_deref(), Some("fire"));
    assert_eq!((fire.x, fire.z), (spot.x, spot.z));
    assert!(world.is_walkable(spot), "a fire does not block its tile");
    assert_eq!(count(&world, "ada", "logs"), 1);
    assert_eq!(
        narration(&events, "ada"),
        ["The fire catches and the logs begin to burn."]
    );
    idle(&mut world, 2);
    assert_eq!(world.player_tile("ada"), Some(west), "stepped west");

    // No second fire on a burning tile.
    world.tick(vec![walk("ada", spot)]);
    idle(&mut world, 2);
    let events = world.tick(vec![Command::Action {
        id: "ada".into(),
        action: Action::LightFire { slot: 2 },
        reference: Some(1),
    }]);
    assert_eq!(
        rejections(&events, "ada"),
        [(codes::CANNOT_DO, "You can't light a fire here.")]
    );

    // Cook on it: raw food used on the fire offers the shrimp.
    let events = world.tick(vec![use_on("ada", 3, &fire.id)]);
    let options = offered(&events, "ada").expect("the fire offers cooking");
    assert_eq!(options.context.station_type.as_deref(), Some("fire"));
    assert_eq!(options.options.len(), 1);
    run(
        &mut world,
        make("ada", "cooking:shrimp", MakeCount::All, Some(&fire.id)),
        "ada",
        20,
    );
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
fn cooking_on_a_fire_stops_when_the_fire_goes_out() {
    let mut world = world();
    let spot = world.spawn_tile();
    let mut items = vec![("tinderbox", 1), ("logs", 1)];
    items.extend(many("raw_shrimp", 26));
    world.tick(vec![player(
        "ada",
        spot,
        &[(Skill::Firemaking, 50), (Skill::Cooking, 50)],
        &items,
    )]);
    run(
        &mut world,
        make("ada", "firemaking:logs", MakeCount::Times(1), None),
        "ada",
        20,
    );
    let fire = station(&world, "fire");
    // 26 shrimps take 104 ticks; the fire burns 100 from its lighting.
    let events = run(
        &mut world,
        make("ada", "cooking:shrimp", MakeCount::All, Some(&fire.id)),
        "ada",
        200,
    );
    assert!(count(&world, "ada", "raw_shrimp") > 0);
    assert!(narration(&events, "ada")
        .last()
        .unwrap()
        .starts_with("The fire has gone out. You cooked"));
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
    assert_eq!(
        rejections(&events, "ada"),
        [(codes::MISSING_TOOL, "You need a Tinderbox to make that.")]
    );
    let events = world.tick(vec![Command::Action {
        id: "ada".into(),
        action: Action::LightFire { slot: 1 },
        reference: Some(1),
    }]);
    assert_eq!(
        rejections(&events, "ada"),
        [(codes::CANNOT_DO, "You cannot light that.")]
    );
    assert!(!world.player_is_busy("ada"));
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
    run(
        &mut world,
        make("ada", "firemaking:logs", MakeCount::Times(1), None),
        "ada",
        20,
    );
    let fire = station(&world, "fire");
    let mut events = world.tick(vec![make(
        "ada",
        "cooking:shrimp",
        MakeCount::All,
        Some(&fire.id),
    )]);
    events.extend(world.tick(vec![use_on("ada", 2, &fire.id)]));
    events.extend(idle(&mut world, 8));
    assert_eq!(
        rejections(&events, "ada"),
        [
            (codes::INVALID_TARGET, "You need a range to cook that."),
            (codes::CANNOT_DO, "Nothing interesting happens.")
        ]
    );
    assert_eq!(count(&world, "ada", "raw_shrimp"), 1);
}

#[test]
fn stations_cannot_be_gathered_and_trees_do_nothing_with_items() {
    let mut world = world();
    let anvil = station(&world, "anvil");
    let tree = station(&world, "tree");
    world.tick(vec![
        player("ada", at(&anvil), &[], &[("logs", 1)]),
        player("bob", at(&tree), &[], &[("logs", 1)]),
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
        .any(|(_, m)| m.contains("cannot gather")));
    assert!(rejections(&events, "bob")
        .iter()
        .any(|(_, m)| m.contains("Nothing interesting")));
    assert_eq!(count(&world, "bob", "logs"), 1);
}

#[test]
fn the_quantity_is_bounded() {
    use wayfarer_protocol::ws::{ActionRequest, Quantity};
    let request = |quantity| ActionRequest {
        action: "make".into(),
        target_id: None,
        slot: None,
        item_id: None,
        style: None,
        recipe_id: Some("smithing:bronze_dagger".into()),
        quantity,
        spell_id: None,
        enabled: None,
    };
    let read = |quantity| Action::from_request(&request(quantity));
    let count_of = |action: Action| match action {
        Action::Make { count, .. } => count,
        other => panic!("{other:?}"),
    };
    assert_eq!(count_of(read(None).unwrap()), MakeCount::Times(1));
    assert_eq!(count_of(read(Some(Quantity::All)).unwrap()), MakeCount::All);
    let largest = i64::from(MAX_MAKE_QUANTITY);
    assert_eq!(
        count_of(read(Some(Quantity::Count(largest))).unwrap()),
        MakeCount::Times(MAX_MAKE_QUANTITY)
    );
    for refused in [largest + 1, 0, -1, i64::MAX] {
        let err = read(Some(Quantity::Count(refused))).unwrap_err();
        assert_eq!(err.code, codes::INVALID_MESSAGE, "{refused}");
    }
    let mut without = request(None);
    without.recipe_id = None;
    assert_eq!(
        Action::from_request(&without).unwrap_err().code,
        codes::INVALID_MESSAGE
    );
}

mod every_recipe {
    //! Every recipe of the bundled and the reference files is offered where it is made and can be
    //! made at its level: given the level, the inputs and tools, one make gives the output and
    //! the XP.

    use serde_json::json;
    use wayfarer_content::ManifestSet;

    use super::*;

    /// The reference files in a small town of our own with an anvil, a furnace, a range and a
    /// tanner (the reference world places no stations and generates its towns).
    fn reference_town(dir: &std::path::Path) -> Content {
        let mut set = ManifestSet::read_dir(dir).expect("readable");
        set.files.remove("world-config.json");
        let mut npcs: Vec<serde_json::Value> =
            serde_json::from_slice(&set.files["npcs.json"]).expect("an NPC array");
        npcs.push(
            json!({"id": "tanner", "name": "Tanner", "category": "neutral",
            "combat": {"attackable": false}, "services": {"enabled": true, "types": ["tanner"]}}),
        );
        set.insert("npcs.json", json!(npcs).to_string());
        let station =
            |kind: &str, x: i32| json!({"type": kind, "position": {"x": x, "y": 0, "z": 0}});
        set.insert(
            "world-areas.json",
            json!({"starterTowns": {"town": {
                "id": "town", "name": "Town", "safeZone": true,
                "bounds": {"minX": -20, "maxX": 20, "minZ": -20, "maxZ": 20},
                "spawnPoint": {"x": 0, "y": 0, "z": 5},
                "stations": [station("anvil", -10), station("furnace", -5), station("range", 5)],
                "npcs": [{"id": "tanner", "type": "tanner", "position": {"x": 10, "y": 0, "z": 0}}]
            }}})
            .to_string(),
        );
        match Content::from_files(&set) {
            Ok((content, _)) => content,
            Err(report) => panic!("the reference town loads:\n{report}"),
        }
    }

    /// Where `recipe` is made in `world`: next to its station, or the spawn.
    fn place_for(world: &World, recipe: &Recipe) -> (TilePos, Option<String>) {
        let kind = match recipe.kind {
            RecipeKind::Tanning => {
                let tanner = world
                    .npcs()
                    .into_iter()
                    .find(|n| {
                        n.type_id
                            .as_deref()
                            .is_some_and(|id| world.content().npcs[id].tans_hides())
                    })
                    .expect("a tanner");
                return (at(&tanner), Some(tanner.id));
            }
            RecipeKind::Cooking => Some("range"),
            _ => recipe.station.as_deref(),
        };
        match kind {
            Some(kind) => {
                let station = station(world, kind);
                (at(&station), Some(station.id))
            }
            None => (world.spawn_tile(), None),
        }
    }

    /// Everything one make needs (times `sets` for recipes that can fail), and coins.
    fn kit(world: &World, recipe: &Recipe, sets: u32) -> Vec<(String, u32)> {
        let mut items: Vec<(String, u32)> = Vec::new();
        let mut give = |item: &str, quantity: u32| {
            let stackable = world.content().items[item].stackable;
            if stackable {
                items.push((item.to_owned(), quantity));
            } else {
                items.extend((0..quantity).map(|_| (item.to_owned(), 1)));
            }
        };
        let tools = recipe
            .tools
            .iter()
            .map(String::as_str)
            .chain((recipe.kind == RecipeKind::Smithing).then_some(wayfarer_sim::HAMMER));
        for tool in tools {
            give(tool, 1);
        }
        for consumable in &recipe.consumables {
            give(&consumable.item_id, sets);
        }
        for input in &recipe.inputs {
            give(&input.item_id, input.quantity * sets);
        }
        if recipe.coin_cost > 0 {
            give("coins", (recipe.coin_cost * u64::from(sets)) as u32);
        }
        items
    }

    /// Whether the player is offered `recipe` where it is made: interacting with its station, or
    /// using two of the items it takes on each other.
    fn is_offered(world: &mut World, who: &str, recipe: &Recipe, target: Option<&str>) -> bool {
        let events = match (recipe.kind, target) {
            (RecipeKind::Tanning, Some(tanner)) => {
                // A tanner with a dialogue offers tanning from its first answer (the bundled
                // one's "Tan my hides."); one without offers it at once.
                let events = world.tick(vec![interact(who, tanner)]);
                let opened = events.iter().find_map(|e| match e {
                    Event::DialogueOpened { to, view } if to == who => Some(view.clone()),
                    _ => None,
                });
                match opened {
                    Some(view) => world.tick(vec![Command::DialogueRespond {
                        id: who.into(),
                        npc_id: view.npc_id,
                        index: view.responses[0].index,
                        reference: None,
                    }]),
                    None => events,
                }
            }
            (_, Some(station)) => world.tick(vec![interact(who, station)]),
            (_, None) => {
                let inventory = world.player_inventory(who).expect("online").clone();
                let slot_of = |item: &str| {
                    inventory
                        .stacks()
                        .find(|(_, s)| s.item_id == item)
                        .map(|(slot, _)| slot)
                        .expect("held")
                };
                let mut used = recipe
                    .inputs
                    .iter()
                    .map(|i| i.item_id.as_str())
                    .chain(recipe.tools.iter().map(String::as_str));
                let first = used.next().expect("an input");
                let second = used.next().expect("a second item");
                world.tick(vec![use_with(who, slot_of(first), slot_of(second))])
            }
        };
        offered(&events, who).is_some_and(|o| o.options.iter().any(|o| o.recipe_id == recipe.id))
    }

    fn check_every_recipe(content: Content) -> usize {
        let content = Arc::new(content);
        let mut checked = 0;
        for recipe in content.recipes.iter() {
            if recipe.kind == RecipeKind::Runecrafting {
                continue;
            }
            let mut world = World::new(content.clone(), 11);
            let (tile, target) = place_for(&world, recipe);
            // Burnt food and impure ore: enough tries that one succeeds.
            let can_fail = matches!(recipe.kind, RecipeKind::Cooking)
                || matches!(recipe.detail, wayfarer_content::RecipeDetail::Smelting { success_chance } if success_chance < 1.0);
            let sets = if can_fail { 10 } else { 1 };
            let items = kit(&world, recipe, sets);
            let items: Vec<(&str, u32)> = items.iter().map(|(i, q)| (i.as_str(), *q)).collect();
            let levels: Vec<(Skill, u8)> = recipe
                .skill
                .map(|s| (s, recipe.level as u8))
                .into_iter()
                .collect();
            world.tick(vec![player("p", tile, &levels, &items)]);
            idle(&mut world, 2);
            assert!(
                is_offered(&mut world, "p", recipe, target.as_deref()),
                "{} is offered",
                recipe.id
            );
            idle(&mut world, 2);
            let count = if can_fail {
                MakeCount::All
            } else {
                MakeCount::Times(1)
            };
            let events = run(
                &mut world,
                make("p", &recipe.id, count, target.as_deref()),
                "p",
                300,
            );
            assert!(
                rejections(&events, "p").is_empty(),
                "{}: {:?}",
                recipe.id,
                rejections(&events, "p")
            );
            let made = match &recipe.output {
                Some(output) => {
                    let held = super::count(&world, "p", &output.item_id);
                    assert!(held >= u64::from(output.quantity), "{} made", recipe.id);
                    held / u64::from(output.quantity)
                }
                None => world
                    .resources()
                    .into_iter()
                    .filter(|e| e.resource_type.as_deref() == Some("fire"))
                    .count() as u64,
            };
            assert!(made >= 1, "{}", recipe.id);
            if let Some(skill) = recipe.skill {
                assert_eq!(
                    xp_gained(&events, "p", skill),
                    vec![Xp::from_f64(recipe.xp); made as usize],
                    "{} XP",
                    recipe.id
                );
            }
            checked += 1;
        }
        checked
    }

    #[test]
    fn a_gold_bar_at_a_furnace_offers_jewellery_and_makes_each_of_three_chosen() {
        let Some(dir) = wayfarer_store::testing::reference_manifests() else {
            return;
        };
        let mut world = World::new(Arc::new(reference_town(&dir)), 3);
        let furnace = station(&world, "furnace");
        let mut items = vec![("ring_mould", 1), ("amulet_mould", 1), ("ruby", 1)];
        items.extend(many("gold_bar", 3));
        world.tick(vec![player(
            "ada",
            at(&furnace),
            &[(Skill::Crafting, 50)],
            &items,
        )]);
        let events = world.tick(vec![use_on("ada", 3, &furnace.id)]);
        let listed: Vec<(String, Option<String>)> = offered(&events, "ada")
            .expect("the furnace offers jewellery")
            .options
            .iter()
            .map(|o| (o.recipe_id.clone(), o.reason.clone()))
            .collect();
        let level = Some(codes::LEVEL_TOO_LOW.to_string());
        assert_eq!(
            listed,
            [
                ("crafting:gold_ring".to_string(), None),
                ("crafting:amulet_of_accuracy".to_string(), None),
                ("crafting:amulet_of_strength".to_string(), None),
                ("crafting:amulet_of_power".to_string(), level.clone()),
                ("crafting:amulet_of_glory".to_string(), level.clone()),
                ("crafting:amulet_of_fury".to_string(), level),
            ]
        );
        let mut events = Vec::new();
        for recipe in [
            "crafting:amulet_of_strength",
            "crafting:gold_ring",
            "crafting:amulet_of_accuracy",
        ] {
            events.extend(run(
                &mut world,
                make("ada", recipe, MakeCount::Times(1), Some(&furnace.id)),
                "ada",
                30,
            ));
        }
        assert!(rejections(&events, "ada").is_empty());
        for item in ["amulet_of_strength", "gold_ring", "amulet_of_accuracy"] {
            assert_eq!(count(&world, "ada", item), 1, "{item}");
        }
        assert_eq!(count(&world, "ada", "gold_bar"), 0);
        assert_eq!(count(&world, "ada", "ruby"), 0);
        assert_eq!(count(&world, "ada", "ring_mould"), 1, "moulds are kept");
        assert_eq!(count(&world, "ada", "amulet_mould"), 1);
        assert_eq!(xp_gained(&events, "ada", Skill::Crafting).len(), 3);
    }

    #[test]
    fn every_bundled_recipe_can_be_chosen_and_made_at_its_level() {
        let content = wayfarer_content::load_bundled();
        let makeable = content
            .recipes
            .iter()
            .filter(|r| r.kind != RecipeKind::Runecrafting)
            .count();
        assert_eq!(check_every_recipe(content), makeable);
    }

    #[test]
    fn every_reference_recipe_can_be_chosen_and_made_at_its_level() {
        let Some(dir) = wayfarer_store::testing::reference_manifests() else {
            return;
        };
        let content = reference_town(&dir);
        // 24 smithing, 24 crafting, 37 fletching and 2 tanning recipes (no runes: the reference
        // lacks their items), and the bundled recipes of the files it lacks, for its items: 3
        // smelting, 6 cooking (it has no raw chicken) and 3 firemaking.
        assert_eq!(check_every_recipe(content), 90 + 6 + 3);
    }
}

mod fuzz {
    //! Any sequence of making requests, with any slots, targets, recipes and counts, is answered
    //! without a panic.

    use proptest::prelude::*;

    use super::*;

    #[derive(Debug, Clone)]
    enum Op {
        Gather(usize),
        Cook(usize, usize),
        UseOn(usize, usize),
        UseWith(usize, usize),
        Light(usize),
        Make(usize, u32, Option<usize>),
        Wait(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        let slot = 0..28usize;
        let target = 0..64usize;
        prop_oneof![
            target.clone().prop_map(Op::Gather),
            (slot.clone(), target.clone()).prop_map(|(s, t)| Op::Cook(s, t)),
            (slot.clone(), target.clone()).prop_map(|(s, t)| Op::UseOn(s, t)),
            (slot.clone(), slot.clone()).prop_map(|(a, b)| Op::UseWith(a, b)),
            slot.prop_map(Op::Light),
            (0..64usize, 0..4u32, prop::option::of(target)).prop_map(|(r, n, t)| Op::Make(r, n, t)),
            (1..12usize).prop_map(Op::Wait),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
        #[test]
        fn making_requests_never_panic(ops in prop::collection::vec(op(), 1..40)) {
            let mut world = world();
            let mut targets: Vec<String> = world.resources().into_iter().map(|e| e.id).collect();
            targets.extend(world.npcs().into_iter().map(|e| e.id));
            targets.push("nobody".into());
            let mut recipes: Vec<String> =
                world.content().recipes.iter().map(|r| r.id.clone()).collect();
            recipes.push("nothing".into());
            let items = [
                ("tinderbox", 1), ("logs", 1), ("raw_shrimp", 1), ("copper_ore", 1),
                ("tin_ore", 1), ("bronze_bar", 1), ("hammer", 1), ("knife", 1),
                ("bronze_hatchet", 1), ("needle", 1), ("thread", 3), ("leather", 1),
                ("cowhide", 1), ("coins", 10),
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
                    Op::Make(r, n, t) => {
                        let count = if n == 0 { MakeCount::All } else { MakeCount::Times(n) };
                        make("ada", &recipes[r % recipes.len()], count, t.map(target).as_deref())
                    }
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
