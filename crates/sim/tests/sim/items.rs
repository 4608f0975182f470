//! Items in the world: drop and pickup (ownership, contested pickups, despawn, walking to the item
//! first), equip and unequip (requirements, the two-handed rule, full inventories), eating and
//! burying, admin `/give`. Uses the bundled content, whose items these are.

use std::sync::Arc;

use wayfarer_content::{EquipSlot, Skill};
use wayfarer_protocol::ws::{codes, TilePos};
use wayfarer_sim::inventory::INVENTORY_SLOTS;
use wayfarer_sim::{
    Action, Command, Event, Joining, World, GROUND_LIFETIME_TICKS, GROUND_PRIVATE_TICKS,
};

use crate::idle;

fn world() -> World {
    World::new(Arc::new(wayfarer_content::load_bundled()), 11)
}

fn join(world: &World, id: &str) -> Command {
    Command::Join(Box::new(Joining::new(id, id, world.spawn_tile())))
}

fn give(id: &str, item: &str, quantity: u32) -> Command {
    Command::Give {
        id: id.into(),
        item_id: item.into(),
        quantity,
    }
}

fn act(id: &str, action: Action) -> Command {
    Command::Action {
        id: id.into(),
        action,
        reference: Some(5),
    }
}

fn slot_of(world: &World, player: &str, item: &str) -> usize {
    world
        .player_inventory(player)
        .and_then(|inv| {
            inv.stacks()
                .find(|(_, s)| s.item_id == item)
                .map(|(slot, _)| slot)
        })
        .unwrap_or_else(|| panic!("{player} holds no {item}"))
}

fn count(world: &World, player: &str, item: &str) -> u64 {
    world.player_inventory(player).map_or(0, |i| i.count(item))
}

fn rejections(events: &[Event], player: &str) -> Vec<(&'static str, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Rejected {
                to, code, message, ..
            } if to == player => Some((*code, message.clone())),
            _ => None,
        })
        .collect()
}

/// Every item of `item` in the world: inventories, equipment and the ground.
fn total(world: &World, players: &[&str], item: &str) -> u64 {
    let held: u64 = players.iter().map(|p| count(world, p, item)).sum();
    let worn: u64 = players
        .iter()
        .filter_map(|p| world.player_equipment(p))
        .flat_map(|e| e.iter().map(|(_, s)| s.clone()).collect::<Vec<_>>())
        .filter(|s| s.item_id == item)
        .map(|s| u64::from(s.quantity))
        .sum();
    let ground: u64 = world
        .ground_items()
        .iter()
        .filter(|g| g.stack.item_id == item)
        .map(|g| u64::from(g.stack.quantity))
        .sum();
    held + worn + ground
}

#[test]
fn a_dropped_item_is_the_owners_for_a_minute_then_anyones_then_gone() {
    let mut w = world();
    w.tick(vec![
        join(&w, "ada"),
        join(&w, "bob"),
        give("ada", "logs", 1),
    ]);
    let slot = slot_of(&w, "ada", "logs");
    let events = w.tick(vec![act("ada", Action::Drop { slot })]);
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Inventory { to, slots } if to == "ada" && slots.iter().all(|(_, s)| s.item_id != "logs"))));
    let ground = w.ground_items();
    assert_eq!(ground.len(), 1);
    let item = ground[0].clone();
    assert_eq!(item.owner.as_deref(), Some("ada"));
    assert_eq!(item.tile, w.spawn_tile());
    assert_eq!(
        w.entity(&item.id).and_then(|e| e.item_id),
        Some("logs".to_string())
    );

    // Bob, on the same tile, may not take it while it is Ada's.
    let events = w.tick(vec![act(
        "bob",
        Action::Pickup {
            target: item.id.clone(),
        },
    )]);
    let refused = rejections(&events, "bob");
    assert_eq!(refused.len(), 1, "{events:?}");
    assert_eq!(refused[0].0, codes::CANNOT_DO);
    assert_eq!(count(&w, "bob", "logs"), 0);

    // Once public, Bob may.
    let now = w.tick_number();
    idle(&mut w, (item.public_at - now) as usize);
    let events = w.tick(vec![act(
        "bob",
        Action::Pickup {
            target: item.id.clone(),
        },
    )]);
    assert!(rejections(&events, "bob").is_empty(), "{events:?}");
    assert_eq!(count(&w, "bob", "logs"), 1);
    assert!(w.ground_items().is_empty());
    assert!(w.entity(&item.id).is_none());

    // An item nobody takes is gone after its lifetime.
    let slot = slot_of(&w, "bob", "logs");
    w.tick(vec![act("bob", Action::Drop { slot })]);
    let dropped_at = w.tick_number();
    assert_eq!(
        w.ground_items()[0].despawn_at,
        dropped_at + GROUND_LIFETIME_TICKS
    );
    assert_eq!(
        w.ground_items()[0].public_at,
        dropped_at + GROUND_PRIVATE_TICKS
    );
    idle(&mut w, GROUND_LIFETIME_TICKS as usize - 2);
    assert_eq!(w.ground_items().len(), 1);
    idle(&mut w, 2);
    assert!(w.ground_items().is_empty());
    assert_eq!(total(&w, &["ada", "bob"], "logs"), 0);
}

#[test]
fn two_players_picking_up_one_item_in_the_same_tick_get_it_exactly_once() {
    for order in [["ada", "bob"], ["bob", "ada"]] {
        let mut w = world();
        w.tick(vec![
            join(&w, "ada"),
            join(&w, "bob"),
            join(&w, "cat"),
            give("cat", "bronze_sword", 1),
        ]);
        let slot = slot_of(&w, "cat", "bronze_sword");
        w.tick(vec![act("cat", Action::Drop { slot })]);
        let item = w.ground_items()[0].clone();
        let now = w.tick_number();
        idle(&mut w, (item.public_at - now) as usize);
        let events = w.tick(
            order
                .iter()
                .map(|p| {
                    act(
                        p,
                        Action::Pickup {
                            target: item.id.clone(),
                        },
                    )
                })
                .collect(),
        );
        let winners: Vec<&str> = ["ada", "bob"]
            .into_iter()
            .filter(|p| count(&w, p, "bronze_sword") == 1)
            .collect();
        assert_eq!(winners.len(), 1, "exactly one of them has it: {events:?}");
        let loser = if winners[0] == "ada" { "bob" } else { "ada" };
        let refused = rejections(&events, loser);
        assert_eq!(refused.len(), 1, "{events:?}");
        assert!(refused[0].1.contains("gone"), "{refused:?}");
        assert_eq!(total(&w, &["ada", "bob", "cat"], "bronze_sword"), 1);
    }
}

#[test]
fn picking_up_an_item_far_away_walks_there_first_and_a_move_cancels_it() {
    let mut w = world();
    let spawn = w.spawn_tile();
    w.tick(vec![join(&w, "ada"), give("ada", "coins", 50)]);
    // Find a walkable tile 8 tiles away and drop the coins there.
    let far = (1..=8)
        .rev()
        .map(|d| TilePos {
            x: spawn.x + d,
            z: spawn.z,
        })
        .find(|t| w.is_walkable(*t))
        .expect("open ground east of the spawn");
    w.tick(vec![Command::Teleport {
        id: "ada".into(),
        tile: far,
    }]);
    let slot = slot_of(&w, "ada", "coins");
    w.tick(vec![act("ada", Action::Drop { slot })]);
    let item = w.ground_items()[0].clone();
    w.tick(vec![Command::Teleport {
        id: "ada".into(),
        tile: spawn,
    }]);

    // A pickup, then a move elsewhere: the move wins and nothing is picked up.
    w.tick(vec![act(
        "ada",
        Action::Pickup {
            target: item.id.clone(),
        },
    )]);
    assert!(w.player_is_busy("ada"));
    w.tick(vec![Command::Move {
        id: "ada".into(),
        x: spawn.x,
        z: spawn.z,
        run: false,
        reference: None,
    }]);
    assert!(!w.player_is_busy("ada"));
    idle(&mut w, 10);
    assert_eq!(count(&w, "ada", "coins"), 0);

    // A pickup left alone walks there and picks it up.
    w.tick(vec![act(
        "ada",
        Action::Pickup {
            target: item.id.clone(),
        },
    )]);
    let mut ticks = 1;
    while count(&w, "ada", "coins") == 0 && ticks < 20 {
        w.tick(vec![]);
        ticks += 1;
    }
    assert_eq!(count(&w, "ada", "coins"), 50);
    let at = w.player_tile("ada").unwrap();
    assert!(
        (at.x - far.x).abs() <= 1 && (at.z - far.z).abs() <= 1,
        "{at:?}"
    );
    assert!(!w.player_is_busy("ada"));
}

#[test]
fn equipping_checks_levels_and_swaps_both_hands_for_a_two_handed_weapon() {
    let mut w = world();
    w.tick(vec![
        join(&w, "ada"),
        give("ada", "iron_sword", 1),
        give("ada", "bronze_sword", 1),
        give("ada", "wooden_shield", 1),
        give("ada", "shortbow", 1),
        give("ada", "bronze_arrow", 30),
    ]);
    // Attack 1 cannot wield an iron sword (attack 5).
    let slot = slot_of(&w, "ada", "iron_sword");
    let events = w.tick(vec![act("ada", Action::Equip { slot })]);
    let refused = rejections(&events, "ada");
    assert_eq!(refused.len(), 1);
    assert!(refused[0].1.contains("level 5"), "{refused:?}");
    assert!(w.player_equipment("ada").unwrap().is_empty());

    let sword = slot_of(&w, "ada", "bronze_sword");
    let shield = slot_of(&w, "ada", "wooden_shield");
    let events = w.tick(vec![
        act("ada", Action::Equip { slot: sword }),
        act("ada", Action::Equip { slot: shield }),
    ]);
    let worn = w.player_equipment("ada").unwrap().clone();
    assert_eq!(worn.get(EquipSlot::Weapon).unwrap().item_id, "bronze_sword");
    assert_eq!(
        worn.get(EquipSlot::Shield).unwrap().item_id,
        "wooden_shield"
    );
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, Event::Equipment { .. }))
            .count(),
        1,
        "one equipment report per tick"
    );

    // A two-handed bow takes both hands: the sword and the shield come back.
    let bow = slot_of(&w, "ada", "shortbow");
    w.tick(vec![act("ada", Action::Equip { slot: bow })]);
    let worn = w.player_equipment("ada").unwrap().clone();
    assert_eq!(worn.get(EquipSlot::Weapon).unwrap().item_id, "shortbow");
    assert!(worn.get(EquipSlot::Shield).is_none());
    assert_eq!(count(&w, "ada", "bronze_sword"), 1);
    assert_eq!(count(&w, "ada", "wooden_shield"), 1);

    // A shield takes the bow off again.
    let shield = slot_of(&w, "ada", "wooden_shield");
    w.tick(vec![act("ada", Action::Equip { slot: shield })]);
    let worn = w.player_equipment("ada").unwrap().clone();
    assert!(worn.get(EquipSlot::Weapon).is_none());
    assert_eq!(count(&w, "ada", "shortbow"), 1);

    // Arrows merge into the worn stack.
    let arrows = slot_of(&w, "ada", "bronze_arrow");
    w.tick(vec![act("ada", Action::Equip { slot: arrows })]);
    w.tick(vec![give("ada", "bronze_arrow", 20)]);
    let arrows = slot_of(&w, "ada", "bronze_arrow");
    w.tick(vec![act("ada", Action::Equip { slot: arrows })]);
    assert_eq!(
        w.player_equipment("ada")
            .unwrap()
            .get(EquipSlot::Arrows)
            .unwrap()
            .quantity,
        50
    );
    assert_eq!(count(&w, "ada", "bronze_arrow"), 0);

    // Unequipping with a full inventory is refused and changes nothing.
    w.tick(vec![give("ada", "logs", 28)]);
    assert_eq!(w.player_inventory("ada").unwrap().free_slots(), 0);
    let before = (
        w.player_inventory("ada").unwrap().clone(),
        w.player_equipment("ada").unwrap().clone(),
    );
    let events = w.tick(vec![act(
        "ada",
        Action::Unequip {
            slot: EquipSlot::Shield,
        },
    )]);
    assert_eq!(rejections(&events, "ada").len(), 1);
    assert_eq!(
        (
            w.player_inventory("ada").unwrap().clone(),
            w.player_equipment("ada").unwrap().clone()
        ),
        before
    );
    // Unequipping what is not worn names the slot.
    let events = w.tick(vec![act(
        "ada",
        Action::Unequip {
            slot: EquipSlot::Ring,
        },
    )]);
    assert_eq!(rejections(&events, "ada")[0].0, codes::INVALID_SLOT);
}

#[test]
fn eating_takes_one_bite_every_three_ticks_and_burying_bones_trains_prayer() {
    let mut w = world();
    let spawn = w.spawn_tile();
    w.tick(vec![
        Command::Join(Box::new(Joining {
            health: 4,
            ..Joining::new("ada", "Ada", spawn)
        })),
        give("ada", "shrimp", 2),
        give("ada", "salmon", 1),
        give("ada", "bones", 1),
    ]);
    assert_eq!(w.player_health_of("ada"), Some((4, 10)));
    let first = slot_of(&w, "ada", "shrimp");
    let use_slot = |slot| Command::UseItem {
        id: "ada".into(),
        slot,
        target_slot: None,
        target_id: None,
        reference: Some(1),
    };
    let events = w.tick(vec![use_slot(first), use_slot(first + 1)]);
    assert_eq!(w.player_health_of("ada"), Some((7, 10)));
    assert_eq!(count(&w, "ada", "shrimp"), 1, "one bite a tick");
    assert_eq!(rejections(&events, "ada")[0].0, codes::COOLDOWN);
    assert!(rejections(&events, "ada")[0].1.contains("eating"));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Stats { id, stats } if id == "ada" && stats.health == 7)));
    // Two bites within 3 ticks (`eat_delay`): the second, a tick and two ticks later, refused.
    assert_eq!(wayfarer_sim::EAT_DELAY_TICKS, 3);
    let second = slot_of(&w, "ada", "shrimp");
    for _ in 1..wayfarer_sim::EAT_DELAY_TICKS {
        let events = w.tick(vec![use_slot(second)]);
        assert_eq!(rejections(&events, "ada")[0].0, codes::COOLDOWN);
        assert_eq!(count(&w, "ada", "shrimp"), 1, "nothing eaten");
        assert_eq!(w.player_health_of("ada"), Some((7, 10)));
    }
    // Three ticks after the first bite, the next; healing stops at the maximum.
    let salmon = slot_of(&w, "ada", "salmon");
    let events = w.tick(vec![use_slot(salmon)]);
    assert!(rejections(&events, "ada").is_empty());
    assert_eq!(w.player_health_of("ada"), Some((10, 10)));

    let bones = slot_of(&w, "ada", "bones");
    let events = w.tick(vec![use_slot(bones)]);
    assert!(events.iter().any(|e| matches!(
        e,
        Event::Xp { to, skill: Skill::Prayer, gain } if to == "ada" && gain.gained.tenths() > 0
    )));
    assert_eq!(count(&w, "ada", "bones"), 0);

    // Using an empty slot names it.
    let events = w.tick(vec![use_slot(INVENTORY_SLOTS - 1)]);
    assert_eq!(rejections(&events, "ada")[0].0, codes::INVALID_SLOT);
}

#[test]
fn give_adds_what_fits_and_says_so() {
    let mut w = world();
    w.tick(vec![join(&w, "ada")]);
    let events = w.tick(vec![give("ada", "logs", 40), give("ada", "coins", 1_000)]);
    // 28 slots: coins take one, so 27 logs fit... but logs were given first: 28 logs, no coins.
    assert_eq!(count(&w, "ada", "logs"), 28);
    assert_eq!(count(&w, "ada", "coins"), 0);
    // Said with content's names, never the internal id (CONTRACT section 9).
    assert_eq!(
        said(&events),
        [
            "Gave 28 x Logs; no room for 12 more.",
            "No room in the inventory: gave no Coins."
        ]
    );
    // Everything fits: said plainly.
    w.tick(vec![join(&w, "bea")]);
    let events = w.tick(vec![give("bea", "coins", 5)]);
    assert_eq!(said(&events), ["Gave 5 x Coins."]);
    let events = w.tick(vec![give("ada", "no_such_item", 1)]);
    assert_eq!(said(&events), ["No item with id no_such_item."]);
}

/// The chat lines a tick said, in order.
fn said(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Chat { message, .. } => Some(message.text.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn every_item_entering_leaving_or_moving_is_reported_and_the_books_balance() {
    use std::collections::BTreeMap;
    use wayfarer_sim::flows::{FlowKind, ItemFlow};

    let mut w = world();
    let spawn = w.spawn_tile();
    let mut flows: Vec<ItemFlow> = Vec::new();
    let step = |w: &mut World, commands: Vec<Command>, flows: &mut Vec<ItemFlow>| {
        for e in w.tick(commands) {
            if let Event::ItemFlows(f) = e {
                flows.extend(f);
            }
        }
    };
    step(
        &mut w,
        vec![
            Command::Join(Box::new(Joining {
                health: 5,
                ..Joining::new("ada", "Ada", spawn)
            })),
            give("ada", "shrimp", 2),
            give("ada", "bones", 1),
            give("ada", "logs", 3),
        ],
        &mut flows,
    );
    let use_slot = |slot| Command::UseItem {
        id: "ada".into(),
        slot,
        target_slot: None,
        target_id: None,
        reference: None,
    };
    let shrimp = slot_of(&w, "ada", "shrimp");
    step(&mut w, vec![use_slot(shrimp)], &mut flows);
    let bones = slot_of(&w, "ada", "bones");
    step(&mut w, vec![use_slot(bones)], &mut flows);
    let logs = slot_of(&w, "ada", "logs");
    step(
        &mut w,
        vec![act("ada", Action::Drop { slot: logs })],
        &mut flows,
    );
    let item = w.ground_items()[0].id.clone();
    step(
        &mut w,
        vec![act("ada", Action::Pickup { target: item })],
        &mut flows,
    );

    let total = |kind: FlowKind, reason: &str, item: &str| -> u64 {
        flows
            .iter()
            .filter(|f| f.kind == kind && f.reason == reason && f.item_id == item)
            .map(|f| f.quantity)
            .sum()
    };
    assert_eq!(total(FlowKind::Entered, "given", "shrimp"), 2);
    assert_eq!(total(FlowKind::Left, "eaten", "shrimp"), 1);
    assert_eq!(total(FlowKind::Left, "buried", "bones"), 1);
    assert_eq!(total(FlowKind::Moved, "dropped", "logs"), 1);
    assert_eq!(total(FlowKind::Moved, "pickedUp", "logs"), 1);

    // For every item: what the world holds = what entered − what left.
    let mut net: BTreeMap<String, i64> = BTreeMap::new();
    for f in &flows {
        let sign = match f.kind {
            FlowKind::Entered => 1,
            FlowKind::Left => -1,
            FlowKind::Moved => 0,
        };
        *net.entry(f.item_id.clone()).or_default() += sign * f.quantity as i64;
    }
    for (item, expected) in net {
        assert_eq!(
            total_of(&w, &["ada"], &item) as i64,
            expected,
            "{item}: {flows:?}"
        );
    }
}

fn total_of(world: &World, players: &[&str], item: &str) -> u64 {
    total(world, players, item)
}

#[test]
fn a_player_leaving_in_the_tick_of_a_drop_is_reported_holding_what_the_drop_left() {
    // The server saves a leaving player from what the sim reported (docs/architecture.md, "One
    // owner per character"): the drop applied before the leave in the same tick must be in it.
    let mut w = world();
    w.tick(vec![join(&w, "ada"), give("ada", "logs", 1)]);
    let slot = slot_of(&w, "ada", "logs");
    let events = w.tick(vec![
        act("ada", Action::Drop { slot }),
        Command::Leave { id: "ada".into() },
    ]);
    let reported = events
        .iter()
        .position(|e| matches!(e, Event::Inventory { to, slots } if to == "ada" && slots.iter().all(|(_, s)| s.item_id != "logs")))
        .expect("the inventory after the drop is reported");
    let left = events
        .iter()
        .position(
            |e| matches!(e, Event::Left { id, tile } if id == "ada" && *tile == w.spawn_tile()),
        )
        .expect("the leave is reported, with the tile");
    assert!(reported < left, "{events:?}");
    assert_eq!(w.ground_items().len(), 1, "the logs lie on the ground");
    assert!(!w.is_online("ada"));
    // Nothing about ada after she left.
    assert!(events[left + 1..]
        .iter()
        .all(|e| !matches!(e, Event::Inventory { to, .. } if to == "ada")));
}
