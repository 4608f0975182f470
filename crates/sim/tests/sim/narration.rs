//! The game's narration (CONTRACT.md section 9): for each family of actions, the words the player
//! is told on the `game` channel, told to that player alone while others stand by; and no text the
//! families produce (game lines, system lines, refusals) shows an internal id where content has a
//! name. Bundled content: Millbrook's trees, rocks, fishing spots, Elsie, Tobin, Captain Holt and
//! the altar; goblins in the Whispering Woods; the Ashen Wastes' PvP.

use std::collections::BTreeSet;
use std::sync::Arc;

use wayfarer_content::{QuestStatus, Skill};
use wayfarer_protocol::ws::{ChatChannel, TilePos};
use wayfarer_sim::inventory::{Inventory, Stack};
use wayfarer_sim::skills::{xp_for_level, Skills, Xp};
use wayfarer_sim::{
    Action, BankRequest, Command, Event, Joining, QuestRecord, ShopRequest, World, SYSTEM_SENDER_ID,
};

use crate::{idle, t};

/// The one who acts in every family, and the one standing beside them who must hear nothing.
const ACTOR: &str = "ada";
const BYSTANDER: &str = "bob";

fn millbrook(seed: u64) -> World {
    World::new(Arc::new(wayfarer_content::load_bundled()), seed)
}

fn stack(item: &str, quantity: u32) -> Stack {
    Stack {
        item_id: item.into(),
        quantity,
    }
}

/// A character named after its id (`ada` is "Ada") holding `held` from slot 0.
fn joining(id: &str, tile: TilePos, held: &[(&str, u32)]) -> Joining {
    let stacks: Vec<(usize, Stack)> = held
        .iter()
        .enumerate()
        .map(|(slot, (item, n))| (slot, stack(item, *n)))
        .collect();
    Joining {
        inventory: Inventory::from_stacks(stacks).unwrap(),
        ..Joining::new(id, crate::name_of(id), tile)
    }
}

fn join(joining: Joining) -> Command {
    Command::Join(Box::new(joining))
}

/// The actor holding `held` at `tile`, the bystander one tile east.
fn actor_and_bystander(world: &mut World, tile: TilePos, held: &[(&str, u32)]) -> Vec<Event> {
    world.tick(vec![
        join(joining(ACTOR, tile, held)),
        join(joining(BYSTANDER, t(tile.x + 1, tile.z), &[])),
    ])
}

fn act(action: Action) -> Command {
    Command::Action {
        id: ACTOR.into(),
        action,
        reference: Some(1),
    }
}

fn use_slot(slot: usize) -> Command {
    Command::UseItem {
        id: ACTOR.into(),
        slot,
        target_slot: None,
        target_id: None,
        reference: Some(2),
    }
}

/// The entity id of the resource of content id `kind` nearest to `near`.
fn resource(world: &World, kind: &str, near: TilePos) -> String {
    world
        .resources()
        .into_iter()
        .filter(|r| r.type_id.as_deref() == Some(kind))
        .min_by_key(|r| (r.x - near.x).abs().max((r.z - near.z).abs()))
        .unwrap_or_else(|| panic!("no {kind} in the bundled world"))
        .id
}

/// The entity id of the NPC of content id `kind` (the first one).
fn npc(world: &World, kind: &str) -> String {
    world
        .npcs()
        .into_iter()
        .find(|n| n.type_id.as_deref() == Some(kind))
        .unwrap_or_else(|| panic!("no {kind} in the bundled world"))
        .id
}

/// Ticks until `done` says so, given the world and the tick's events (at most `limit` ticks),
/// keeping every event.
fn until(
    world: &mut World,
    events: &mut Vec<Event>,
    limit: usize,
    mut done: impl FnMut(&World, &[Event]) -> bool,
) {
    for _ in 0..limit {
        let tick = world.tick(vec![]);
        let stop = done(world, &tick);
        events.extend(tick);
        if stop {
            return;
        }
    }
    panic!(
        "not done within {limit} ticks; refused: {:?}; told: {:?}",
        refusals(events),
        told(events, ACTOR)
    );
}

fn idle_actor(world: &World, _: &[Event]) -> bool {
    !world.player_is_busy(ACTOR)
}

/// The game lines `id` was told, in order. Every game line is for one player alone.
/// The game lines `id` was told, but for a newcomer's welcome on entry (CONTRACT §13; the
/// actors here join with no XP: `api::newcomer` tests the welcome itself).
fn told(events: &[Event], id: &str) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Chat { to, message } if message.channel == ChatChannel::Game => {
                assert_eq!(to.len(), 1, "a game line for several players: {message:?}");
                assert_eq!(message.from_id, SYSTEM_SENDER_ID);
                let welcome = message.text.starts_with("Welcome to ");
                (to[0].as_ref() == id && !welcome).then(|| message.text.clone())
            }
            _ => None,
        })
        .collect()
}

fn held(world: &World, item: &str) -> u64 {
    world.player_inventory(ACTOR).unwrap().count(item)
}

/// Lines the bystander heard: none, whatever the actor did.
fn assert_bystander_told_nothing(events: &[Event]) {
    assert_eq!(told(events, BYSTANDER), Vec::<String>::new());
}

// ---- The families: each plays one and returns every event. ----

/// Chops a tree near Millbrook until the intent ends (the tree falls, or the inventory fills).
fn chop(world: &mut World) -> Vec<Event> {
    let mut events = actor_and_bystander(world, t(14, -17), &[("bronze_hatchet", 1)]);
    let tree = resource(world, "tree_normal", t(14, -20));
    events.extend(world.tick(vec![act(Action::Gather { target: tree })]));
    until(world, &mut events, 3_000, idle_actor);
    events
}

/// Chops with no room left: the only line says why it stops.
fn chop_when_full(world: &mut World) -> Vec<Event> {
    let mut held = vec![("bronze_hatchet", 1)];
    held.extend(std::iter::repeat_n(("bones", 1), 27));
    let mut events = actor_and_bystander(world, t(17, -20), &held);
    let tree = resource(world, "tree_normal", t(17, -23));
    events.extend(world.tick(vec![act(Action::Gather { target: tree })]));
    until(world, &mut events, 100, idle_actor);
    events
}

/// Mines a copper rock (bundled rocks deplete after one ore).
fn mine(world: &mut World) -> Vec<Event> {
    let mut events = actor_and_bystander(world, t(-12, -25), &[("bronze_pickaxe", 1)]);
    let rock = resource(world, "rock_copper", t(-12, -28));
    events.extend(world.tick(vec![act(Action::Gather { target: rock })]));
    until(world, &mut events, 3_000, idle_actor);
    events
}

/// Nets two catches at a net fishing spot.
fn fish(world: &mut World) -> Vec<Event> {
    let mut events = actor_and_bystander(world, t(26, 15), &[("small_fishing_net", 1)]);
    let spot = resource(world, "fishing_spot_net", t(26, 18));
    events.extend(world.tick(vec![act(Action::Gather { target: spot })]));
    until(world, &mut events, 3_000, |w, _| held(w, "raw_shrimp") >= 2);
    events.extend(world.tick(vec![act(Action::Stop)]));
    events
}

/// Eats bread twice at 2 of 10 hitpoints (bread heals 5: 5, then the 3 left), then a third time at
/// full health.
fn eat(world: &mut World) -> Vec<Event> {
    let mut actor = joining(ACTOR, t(0, 2), &[("bread", 1), ("bread", 1), ("bread", 1)]);
    actor.health = 2;
    let mut events = world.tick(vec![join(actor), join(joining(BYSTANDER, t(1, 2), &[]))]);
    for slot in 0..3 {
        events.extend(world.tick(vec![use_slot(slot)]));
        // The next bite waits `eat_delay`.
        for _ in 1..wayfarer_sim::EAT_DELAY_TICKS {
            events.extend(world.tick(vec![]));
        }
    }
    events
}

/// Buries bones.
fn bury(world: &mut World) -> Vec<Event> {
    let mut events = actor_and_bystander(world, t(0, 2), &[("bones", 1)]);
    events.extend(world.tick(vec![use_slot(0)]));
    events
}

fn shop(request: ShopRequest) -> Command {
    Command::Shop {
        id: ACTOR.into(),
        request,
        reference: Some(3),
    }
}

/// Asks Tobin's store before opening it (refused), opens it through his dialogue, buys a hatchet,
/// sells the logs, and asks for what the store does not sell (refused).
fn trade_at_the_store(world: &mut World) -> Vec<Event> {
    let store = "millbrook_general_store";
    let mut events = actor_and_bystander(world, t(-8, -4), &[("coins", 100), ("logs", 1)]);
    events.extend(world.tick(vec![shop(ShopRequest::Buy {
        store_id: store.into(),
        item_id: "bronze_hatchet".into(),
        quantity: 1,
    })]));
    let tobin = npc(world, "merchant_tobin");
    events.extend(world.tick(vec![act(Action::Interact { target: tobin })]));
    events.extend(idle(world, 5));
    events.extend(world.tick(vec![Command::DialogueRespond {
        id: ACTOR.into(),
        npc_id: "merchant_tobin".into(),
        index: 0,
        reference: None,
    }]));
    assert_eq!(world.player_shop(ACTOR), Some(store), "{events:?}");
    for request in [
        ShopRequest::Buy {
            store_id: store.into(),
            item_id: "bronze_hatchet".into(),
            quantity: 1,
        },
        ShopRequest::Sell {
            store_id: store.into(),
            slot: 1,
            quantity: None,
        },
        ShopRequest::Buy {
            store_id: store.into(),
            item_id: "iron_sword".into(),
            quantity: 1,
        },
    ] {
        events.extend(world.tick(vec![shop(request)]));
    }
    events
}

/// Beside Elsie with two free slots and thirty logs banked: withdrawing five gets two and says
/// why; withdrawing coins with room says nothing; asking for a hatchet not banked is refused.
fn bank(world: &mut World) -> Vec<Event> {
    let mut held = vec![("coins", 5)];
    held.extend(std::iter::repeat_n(("bones", 1), 25));
    let mut actor = joining(ACTOR, t(8, -4), &held);
    actor.bank = vec![stack("logs", 30), stack("coins", 50)];
    let mut events = world.tick(vec![join(actor), join(joining(BYSTANDER, t(9, -4), &[]))]);
    for (item, quantity) in [("logs", 5), ("coins", 50), ("bronze_hatchet", 1)] {
        events.extend(world.tick(vec![Command::Bank {
            id: ACTOR.into(),
            request: BankRequest::Withdraw {
                item_id: item.into(),
                quantity,
            },
            reference: Some(4),
        }]));
    }
    events
}

/// Prays Stone Skin on 1 point until it runs out, then recharges at the altar.
fn pray(world: &mut World) -> Vec<Event> {
    let mut actor = joining(ACTOR, t(0, 15), &[]);
    actor.prayer_points = Some(1);
    let mut events = world.tick(vec![join(actor), join(joining(BYSTANDER, t(1, 15), &[]))]);
    events.extend(world.tick(vec![Command::Prayer {
        id: ACTOR.into(),
        prayer_id: "stone_skin".into(),
        active: true,
        reference: Some(5),
    }]));
    until(world, &mut events, 1_000, |w, _| {
        w.player_prayer(ACTOR).is_some_and(|p| p.0 == 0)
    });
    let altar = world
        .resources()
        .into_iter()
        .find(|r| r.resource_type.as_deref() == Some("altar"))
        .expect("Millbrook's altar")
        .id;
    events.extend(world.tick(vec![act(Action::Interact { target: altar })]));
    until(world, &mut events, 50, |w, _| {
        w.player_prayer(ACTOR).is_some_and(|p| p.0 > 0)
    });
    events
}

/// Skills with every combat skill at `level`.
fn fighter_skills(level: u8) -> Skills {
    let mut skills = Skills::new();
    for skill in [
        Skill::Attack,
        Skill::Strength,
        Skill::Defense,
        Skill::Constitution,
    ] {
        skills.set_xp(skill, Xp::from_points(xp_for_level(level)));
    }
    skills
}

fn died(id: &str) -> impl FnMut(&World, &[Event]) -> bool + '_ {
    move |_, tick| {
        tick.iter()
            .any(|e| matches!(e, Event::PlayerDied { id: dead, .. } if dead == id))
    }
}

/// Stands among the Whispering Woods' goblins on 1 hitpoint until one attacks and the actor dies.
/// (The bystander waits in Millbrook: a goblin could pick anyone near.)
fn be_attacked(world: &mut World) -> Vec<Event> {
    let mut actor = joining(ACTOR, t(100, 0), &[]);
    actor.health = 1;
    let mut events = world.tick(vec![join(actor), join(joining(BYSTANDER, t(0, 1), &[]))]);
    until(world, &mut events, 3_000, died(ACTOR));
    events
}

/// A strong fighter kills a chicken of the Whispering Woods.
fn kill(world: &mut World) -> Vec<Event> {
    let mut actor = joining(ACTOR, t(55, 17), &[]);
    actor.skills = fighter_skills(60);
    actor.health = 60;
    let mut events = world.tick(vec![join(actor), join(joining(BYSTANDER, t(0, 1), &[]))]);
    let chicken = npc(world, "chicken");
    events.extend(world.tick(vec![act(Action::Attack {
        target: chicken.clone(),
    })]));
    until(world, &mut events, 1_000, |w, _| {
        w.entity(&chicken).is_none()
    });
    events
}

/// In the Ashen Wastes (PvP), the strong actor attacks the bystander on 1 hitpoint and kills them.
fn fight_a_player(world: &mut World) -> Vec<Event> {
    let mut actor = joining(ACTOR, t(0, 50), &[]);
    actor.skills = fighter_skills(60);
    actor.health = 60;
    let mut victim = joining(BYSTANDER, t(1, 50), &[]);
    victim.health = 1;
    let mut events = world.tick(vec![join(actor), join(victim)]);
    let tick = world.tick(vec![act(Action::Attack {
        target: BYSTANDER.into(),
    })]);
    let dead = died(BYSTANDER)(world, &tick);
    events.extend(tick);
    if !dead {
        until(world, &mut events, 1_000, died(BYSTANDER));
    }
    events
}

fn talk_to_holt(world: &mut World, events: &mut Vec<Event>) {
    let opened = |tick: &[Event]| {
        tick.iter()
            .any(|e| matches!(e, Event::DialogueOpened { to, .. } if to == ACTOR))
    };
    let holt = npc(world, "captain_holt");
    let tick = world.tick(vec![act(Action::Interact { target: holt })]);
    let open = opened(&tick);
    events.extend(tick);
    if !open {
        until(world, events, 50, |_, tick| opened(tick));
    }
}

fn answer(world: &mut World, events: &mut Vec<Event>, index: u32) {
    events.extend(world.tick(vec![Command::DialogueRespond {
        id: ACTOR.into(),
        npc_id: "captain_holt".into(),
        index,
        reference: None,
    }]));
}

/// Starts Vermin and Villains with Captain Holt ("I can help.", "Understood.").
fn start_quest(world: &mut World) -> Vec<Event> {
    let mut events = actor_and_bystander(world, t(3, 4), &[]);
    talk_to_holt(world, &mut events);
    answer(world, &mut events, 0);
    answer(world, &mut events, 0);
    events
}

/// Reports the cleared woods to Captain Holt, the quest at its last stage.
fn complete_quest(world: &mut World) -> Vec<Event> {
    let mut actor = joining(ACTOR, t(3, 4), &[]);
    actor.quests = vec![QuestRecord {
        quest_id: "vermin_and_villains".into(),
        status: QuestStatus::InProgress,
        stage_id: Some("finish".into()),
        progress: 0,
        completions: 0,
    }];
    let mut events = world.tick(vec![join(actor), join(joining(BYSTANDER, t(4, 4), &[]))]);
    talk_to_holt(world, &mut events);
    answer(world, &mut events, 0);
    events
}

/// Tries the fly fishing spot without a fly fishing rod (refused).
fn fish_without_the_tool(world: &mut World) -> Vec<Event> {
    let mut events = actor_and_bystander(world, t(35, 25), &[]);
    let spot = resource(world, "fishing_spot_fly", t(35, 28));
    events.extend(world.tick(vec![act(Action::Gather { target: spot })]));
    events.extend(idle(world, 10));
    events
}

/// One family played in a world, returning every event.
type Family = fn(&mut World) -> Vec<Event>;

/// Every family, each in a fresh world.
const FAMILIES: &[(&str, Family)] = &[
    ("chop", chop),
    ("chop_when_full", chop_when_full),
    ("mine", mine),
    ("fish", fish),
    ("fish_without_the_tool", fish_without_the_tool),
    ("eat", eat),
    ("bury", bury),
    ("trade_at_the_store", trade_at_the_store),
    ("bank", bank),
    ("pray", pray),
    ("be_attacked", be_attacked),
    ("kill", kill),
    ("fight_a_player", fight_a_player),
    ("start_quest", start_quest),
    ("complete_quest", complete_quest),
];

// ---- What each family says ----

#[test]
fn chopping_narrates_the_swing_each_log_and_the_fall_to_the_chopper_alone() {
    let mut world = millbrook(1);
    let events = chop(&mut world);
    let lines = told(&events, ACTOR);
    let logs = held(&world, "logs") as usize;
    assert!(logs >= 1, "{lines:?}");
    let mut expected = vec!["You swing your axe at the tree.".to_owned()];
    expected.extend(std::iter::repeat_n("You get some logs.".to_owned(), logs));
    // The tree falls (a 15 % chance a log) long before 27 logs fill the inventory.
    expected.push("You cut down the tree.".to_owned());
    assert_eq!(lines, expected);
    assert_bystander_told_nothing(&events);
}

#[test]
fn a_full_inventory_stops_chopping_and_says_what_does_not_fit() {
    let mut world = millbrook(2);
    let events = chop_when_full(&mut world);
    assert_eq!(
        told(&events, ACTOR),
        vec!["Your inventory is too full to hold any more logs."]
    );
    assert_bystander_told_nothing(&events);
}

#[test]
fn mining_and_fishing_narrate_in_their_own_words() {
    let mut world = millbrook(3);
    let events = mine(&mut world);
    assert_eq!(
        told(&events, ACTOR),
        vec![
            "You swing your pickaxe at the copper rock.",
            "You manage to mine some copper ore.",
            "The copper rock has run out of ore.",
        ]
    );
    assert_bystander_told_nothing(&events);
    let mut world = millbrook(4);
    let events = fish(&mut world);
    assert_eq!(
        told(&events, ACTOR),
        vec![
            "You attempt to catch some fish.",
            "You catch some raw shrimp.",
            "You catch some raw shrimp.",
        ]
    );
    assert_bystander_told_nothing(&events);
}

#[test]
fn eating_says_what_it_healed_and_burying_names_the_bones() {
    let mut world = millbrook(5);
    let events = eat(&mut world);
    assert_eq!(
        told(&events, ACTOR),
        vec![
            "You eat the bread. It heals 5 hitpoints.",
            "You eat the bread. It heals 3 hitpoints.",
            "You eat the bread.",
        ]
    );
    assert_bystander_told_nothing(&events);
    let mut world = millbrook(6);
    let events = bury(&mut world);
    assert_eq!(told(&events, ACTOR), vec!["You bury the bones."]);
    assert_bystander_told_nothing(&events);
}

#[test]
fn the_store_says_what_was_bought_and_sold_and_refuses_by_name() {
    let mut world = millbrook(8);
    let events = trade_at_the_store(&mut world);
    assert_eq!(
        told(&events, ACTOR),
        vec![
            "You buy 1 × Bronze Hatchet for 40 coins.",
            "You sell 1 × Logs for 2 coins.",
        ]
    );
    assert_bystander_told_nothing(&events);
    let refusals = refusals(&events);
    assert_eq!(
        refusals,
        vec![
            "open Millbrook General Store by talking to its shopkeeper, and stay near them",
            "Millbrook General Store does not sell Iron Sword",
        ]
    );
}

#[test]
fn a_withdrawal_that_does_not_all_fit_says_so() {
    let mut world = millbrook(9);
    let events = bank(&mut world);
    assert_eq!(
        told(&events, ACTOR),
        vec!["You withdraw 2 × Logs; your inventory has no room for more."]
    );
    assert_eq!(held(&world, "logs"), 2);
    assert_eq!(held(&world, "coins"), 55);
    assert_bystander_told_nothing(&events);
    assert_eq!(
        refusals(&events),
        vec!["there is no Bronze Hatchet in your bank"]
    );
}

#[test]
fn running_out_of_prayer_names_the_prayer_switched_off_and_the_altar_recharges() {
    let mut world = millbrook(10);
    let events = pray(&mut world);
    assert_eq!(
        told(&events, ACTOR),
        vec![
            "You have run out of Prayer points: Stone Skin switches off. You can recharge at an \
             altar.",
            "You recharge your Prayer points.",
        ]
    );
    assert_bystander_told_nothing(&events);
}

#[test]
fn combat_tells_who_attacks_whom_who_was_defeated_and_who_died() {
    let mut world = millbrook(11);
    let events = be_attacked(&mut world);
    let lines = told(&events, ACTOR);
    // Each goblin that takes the actor on says so (five roam there); then the death.
    let (dead, attacked) = lines.split_last().expect("lines");
    assert_eq!(dead, "Oh dear, you are dead!");
    assert!((1..=5).contains(&attacked.len()), "{lines:?}");
    assert!(
        attacked.iter().all(|l| l == "You are attacked by Goblin!"),
        "{lines:?}"
    );
    assert_bystander_told_nothing(&events);
    let mut world = millbrook(12);
    let events = kill(&mut world);
    assert_eq!(told(&events, ACTOR), vec!["You have defeated Chicken."]);
    assert_bystander_told_nothing(&events);
    let mut world = millbrook(13);
    let events = fight_a_player(&mut world);
    assert_eq!(told(&events, ACTOR), vec!["You have defeated Bob."]);
    assert_eq!(
        told(&events, BYSTANDER),
        vec!["You are attacked by Ada!", "Oh dear, you are dead!"]
    );
}

#[test]
fn quests_say_when_they_start_and_when_they_are_completed() {
    let mut world = millbrook(14);
    let events = start_quest(&mut world);
    assert_eq!(
        told(&events, ACTOR),
        vec!["You have started a new quest: Vermin and Villains."]
    );
    assert_bystander_told_nothing(&events);
    let mut world = millbrook(15);
    let events = complete_quest(&mut world);
    assert_eq!(
        told(&events, ACTOR),
        vec!["Congratulations! You have completed Vermin and Villains."]
    );
    assert_bystander_told_nothing(&events);
}

/// Every refusal's message, in order.
fn refusals(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Rejected { message, .. } => Some(message.clone()),
            _ => None,
        })
        .collect()
}

// ---- No internal ids ----

/// Content ids a player would not know a thing by: every item, NPC, store, gathering node, quest
/// and prayer id that is not simply its name in lower case (`logs` is both; `oak_logs` is not
/// "Oak Logs").
fn internal_ids(world: &World) -> BTreeSet<String> {
    let content = world.content();
    let named = content
        .items
        .values()
        .map(|i| (i.id.clone(), i.name.clone()))
        .chain(
            content
                .npcs
                .values()
                .map(|n| (n.id.clone(), n.name.clone())),
        )
        .chain(
            content
                .stores
                .values()
                .map(|s| (s.id.clone(), s.name.clone())),
        )
        .chain(
            content
                .gathering
                .values()
                .map(|g| (g.id.clone(), g.name.clone())),
        )
        .chain(
            content
                .quests
                .values()
                .map(|q| (q.id.clone(), q.name.clone())),
        )
        .chain(
            content
                .prayers
                .values()
                .map(|p| (p.id.clone(), p.name.clone())),
        );
    named
        .filter(|(id, name)| *id != name.to_lowercase())
        .map(|(id, _)| id)
        .collect()
}

/// Whether `text` has `id` as a whole word (ids are lower-case letters, digits and `_`).
fn shows(text: &str, id: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(id).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + id.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

#[test]
fn no_game_line_system_line_or_refusal_shows_an_internal_id() {
    let mut checked = 0;
    for (family, play) in FAMILIES {
        let mut world = millbrook(20);
        let ids = internal_ids(&world);
        assert!(ids.contains("millbrook_general_store") && ids.contains("raw_shrimp"));
        let events = play(&mut world);
        let texts: Vec<&str> = events
            .iter()
            .filter_map(|e| match e {
                Event::Chat { message, .. }
                    if matches!(message.channel, ChatChannel::Game | ChatChannel::System) =>
                {
                    Some(message.text.as_str())
                }
                Event::Rejected { message, .. } => Some(message.as_str()),
                _ => None,
            })
            .collect();
        assert!(!texts.is_empty(), "{family} said nothing");
        for text in texts {
            checked += 1;
            for id in &ids {
                assert!(!shows(text, id), "{family}: {text:?} shows {id}");
            }
        }
    }
    assert!(checked >= 30, "only {checked} texts");
}

#[test]
fn the_id_check_finds_ids_as_whole_words_only() {
    assert!(shows(
        "open millbrook_general_store by talking",
        "millbrook_general_store"
    ));
    assert!(shows("raw_shrimp", "raw_shrimp"));
    assert!(!shows("You catch some raw shrimp.", "raw_shrimp"));
    assert!(!shows("big_bones_pile", "big_bones"));
}
