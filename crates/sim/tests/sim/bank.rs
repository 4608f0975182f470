//! The bank: deposit and withdraw conserve items, the 480-item limit at its boundary, the reach
//! rule, bankers opening the bank, and the save request after every change. Bundled content:
//! Elsie the banker stands at (8, -6) in Millbrook.

use std::sync::Arc;

use wayfarer_protocol::ws::{codes, TilePos};
use wayfarer_sim::inventory::{Inventory, Stack, INVENTORY_SLOTS};
use wayfarer_sim::{Action, BankRequest, Command, Event, Joining, World, BANK_CAPACITY};

use crate::idle;

const NEAR_BANKER: TilePos = TilePos { x: 8, z: -4 };

fn world() -> World {
    World::new(Arc::new(wayfarer_content::load_bundled()), 5)
}

fn stack(item: &str, quantity: u32) -> Stack {
    Stack {
        item_id: item.into(),
        quantity,
    }
}

fn joining(id: &str, tile: TilePos, inventory: Vec<(usize, Stack)>, bank: Vec<Stack>) -> Command {
    Command::Join(Box::new(Joining {
        inventory: Inventory::from_stacks(inventory).unwrap(),
        bank,
        ..Joining::new(id, id, tile)
    }))
}

fn bank(id: &str, request: BankRequest) -> Command {
    Command::Bank {
        id: id.into(),
        request,
        reference: Some(3),
    }
}

fn deposit(id: &str, slot: Option<usize>, quantity: Option<u32>) -> Command {
    bank(id, BankRequest::Deposit { slot, quantity })
}

fn withdraw(id: &str, item: &str, quantity: u32) -> Command {
    bank(
        id,
        BankRequest::Withdraw {
            item_id: item.into(),
            quantity,
        },
    )
}

fn rejection(events: &[Event]) -> Option<&'static str> {
    events.iter().find_map(|e| match e {
        Event::Rejected { code, .. } => Some(*code),
        _ => None,
    })
}

fn rejection_message(events: &[Event]) -> Option<&str> {
    events.iter().find_map(|e| match e {
        Event::Rejected { message, .. } => Some(message.as_str()),
        _ => None,
    })
}

fn held(world: &World, id: &str, item: &str) -> u64 {
    world.player_inventory(id).unwrap().count(item)
}

fn banked(world: &World, id: &str, item: &str) -> u64 {
    world
        .player_bank(id)
        .unwrap()
        .iter()
        .find(|s| s.item_id == item)
        .map_or(0, |s| u64::from(s.quantity))
}

#[test]
fn deposit_and_withdraw_conserve_items_and_ask_for_a_save() {
    let mut world = world();
    let inventory = vec![
        (0, stack("coins", 500)),
        (1, stack("logs", 1)),
        (2, stack("logs", 1)),
        (5, stack("logs", 1)),
        (6, stack("bronze_sword", 1)),
    ];
    world.tick(vec![joining("a", NEAR_BANKER, inventory, vec![])]);
    // Unstackable without a quantity: every log goes.
    let events = world.tick(vec![deposit("a", Some(2), None)]);
    assert_eq!(rejection(&events), None);
    assert_eq!(
        (held(&world, "a", "logs"), banked(&world, "a", "logs")),
        (0, 3)
    );
    let kinds: Vec<usize> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            matches!(e, Event::Inventory { to, .. } | Event::Bank { to, .. } | Event::SaveNow { id: to } if to == "a")
        })
        .map(|(i, _)| i)
        .collect();
    assert_eq!(kinds.len(), 3, "inventory, bank, then save: {events:?}");
    assert!(matches!(events[kinds[2]], Event::SaveNow { .. }));
    // Part of a stack.
    world.tick(vec![deposit("a", Some(0), Some(120))]);
    assert_eq!(
        (held(&world, "a", "coins"), banked(&world, "a", "coins")),
        (380, 120)
    );
    // More than held: everything held.
    world.tick(vec![deposit("a", Some(0), Some(10_000))]);
    assert_eq!(
        (held(&world, "a", "coins"), banked(&world, "a", "coins")),
        (0, 500)
    );
    // Withdraw some, then more than banked: what is there.
    world.tick(vec![withdraw("a", "logs", 2)]);
    assert_eq!(
        (held(&world, "a", "logs"), banked(&world, "a", "logs")),
        (2, 1)
    );
    world.tick(vec![withdraw("a", "coins", 7), withdraw("a", "coins", 900)]);
    assert_eq!(
        (held(&world, "a", "coins"), banked(&world, "a", "coins")),
        (500, 0)
    );
    // Deposit all.
    world.tick(vec![deposit("a", None, None)]);
    assert!(world.player_inventory("a").unwrap().is_empty());
    assert_eq!(
        world.player_bank("a").unwrap().to_vec(),
        vec![
            stack("logs", 3),
            stack("coins", 500),
            stack("bronze_sword", 1)
        ]
    );
    // Nothing in the bank of an item: not_found; an empty slot: invalid_slot.
    let events = world.tick(vec![withdraw("a", "shrimp", 1)]);
    assert_eq!(rejection(&events), Some(codes::NOT_FOUND));
    let events = world.tick(vec![deposit("a", Some(4), None)]);
    assert_eq!(rejection(&events), Some(codes::INVALID_SLOT));
}

#[test]
fn withdraw_takes_as_many_as_fit() {
    let mut world = world();
    let inventory: Vec<(usize, Stack)> = (0..INVENTORY_SLOTS - 2)
        .map(|slot| (slot, stack("logs", 1)))
        .collect();
    world.tick(vec![joining(
        "a",
        NEAR_BANKER,
        inventory,
        vec![stack("bronze_sword", 5)],
    )]);
    let events = world.tick(vec![withdraw("a", "bronze_sword", 5)]);
    assert_eq!(rejection(&events), None);
    assert_eq!(held(&world, "a", "bronze_sword"), 2);
    assert_eq!(banked(&world, "a", "bronze_sword"), 3);
    let events = world.tick(vec![withdraw("a", "bronze_sword", 1)]);
    assert_eq!(rejection(&events), Some(codes::INVENTORY_FULL));
    assert_eq!(banked(&world, "a", "bronze_sword"), 3);
    assert!(!events.iter().any(|e| matches!(e, Event::SaveNow { .. })));
}

#[test]
fn the_bank_holds_at_most_480_distinct_items() {
    let mut world = world();
    let full: Vec<Stack> = (0..BANK_CAPACITY)
        .map(|i| stack(&format!("item_{i}"), 1))
        .collect();
    let almost: Vec<Stack> = full[..BANK_CAPACITY - 1].to_vec();
    let inventory = vec![(0, stack("logs", 1)), (1, stack("item_0", 1))];
    world.tick(vec![
        joining("full", NEAR_BANKER, inventory.clone(), full),
        joining("almost", NEAR_BANKER, inventory, almost),
    ]);
    // A 481st item is refused, whole; an item already banked still goes in.
    let events = world.tick(vec![deposit("full", Some(0), None)]);
    assert_eq!(rejection(&events), Some(codes::BANK_FULL));
    assert_eq!(
        rejection_message(&events),
        Some("Your bank is full: it holds 480 different items. Withdraw or sell something first.")
    );
    assert_eq!(held(&world, "full", "logs"), 1);
    assert_eq!(world.player_bank("full").unwrap().len(), BANK_CAPACITY);
    let events = world.tick(vec![deposit("full", Some(1), None)]);
    assert_eq!(rejection(&events), None);
    assert_eq!(banked(&world, "full", "item_0"), 2);
    // Deposit-all that would pass the limit changes nothing.
    let events = world.tick(vec![deposit("full", None, None)]);
    assert_eq!(rejection(&events), Some(codes::BANK_FULL));
    // The 480th item fits.
    let events = world.tick(vec![deposit("almost", Some(0), None)]);
    assert_eq!(rejection(&events), None);
    assert_eq!(world.player_bank("almost").unwrap().len(), BANK_CAPACITY);
    assert_eq!(banked(&world, "almost", "logs"), 1);
}

#[test]
fn a_bank_stack_at_its_limit_takes_no_more_and_says_so() {
    let mut world = world();
    world.tick(vec![joining(
        "a",
        NEAR_BANKER,
        vec![(0, stack("logs", 1))],
        vec![stack("logs", wayfarer_sim::inventory::MAX_STACK)],
    )]);
    let events = world.tick(vec![deposit("a", Some(0), None)]);
    assert_eq!(rejection(&events), Some(codes::BANK_FULL));
    assert_eq!(
        rejection_message(&events),
        Some("Your bank cannot hold more Logs: a stack holds at most 2147483647.")
    );
    assert_eq!(held(&world, "a", "logs"), 1, "nothing moved");
}

#[test]
fn banking_needs_a_bank_within_two_tiles_and_a_banker_opens_it() {
    let mut world = world();
    let far = TilePos { x: 8, z: -2 };
    world.tick(vec![
        joining(
            "far",
            far,
            vec![(0, stack("logs", 1))],
            vec![stack("coins", 5)],
        ),
        joining("near", NEAR_BANKER, vec![], vec![stack("coins", 5)]),
    ]);
    for command in [
        deposit("far", Some(0), None),
        withdraw("far", "coins", 1),
        bank("far", BankRequest::Open),
    ] {
        let events = world.tick(vec![command]);
        assert_eq!(rejection(&events), Some(codes::NOT_NEAR_BANK));
    }
    assert_eq!(held(&world, "far", "logs"), 1);
    let events = world.tick(vec![bank("near", BankRequest::Open)]);
    assert!(events.iter().any(
        |e| matches!(e, Event::Bank { to, items } if to == "near" && items == &vec![stack("coins", 5)])
    ));
    assert!(!events.iter().any(|e| matches!(e, Event::SaveNow { .. })));
    // Talking to the banker (walking there first) and asking sends the bank.
    let elsie = world
        .npcs()
        .into_iter()
        .find(|n| n.type_id.as_deref() == Some("banker_elsie"))
        .unwrap();
    world.tick(vec![Command::Action {
        id: "far".into(),
        action: Action::Interact { target: elsie.id },
        reference: None,
    }]);
    let mut events = idle(&mut world, 10);
    assert!(!events
        .iter()
        .any(|e| matches!(e, Event::Bank { to, .. } if to == "far")));
    // Her dialogue's first answer ("Yes, please.") opens the bank.
    events.extend(world.tick(vec![Command::DialogueRespond {
        id: "far".into(),
        npc_id: "banker_elsie".into(),
        index: 0,
        reference: None,
    }]));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Bank { to, .. } if to == "far")));
}

#[test]
fn a_quantity_of_an_unstackable_item_takes_the_slot_first_then_the_lowest() {
    let mut world = world();
    let inventory = vec![
        (1, stack("logs", 1)),
        (2, stack("logs", 1)),
        (5, stack("logs", 1)),
        (7, stack("logs", 1)),
    ];
    world.tick(vec![joining("a", NEAR_BANKER, inventory, vec![])]);
    let events = world.tick(vec![deposit("a", Some(5), Some(2))]);
    assert_eq!(rejection(&events), None);
    let left: Vec<usize> = world
        .player_inventory("a")
        .unwrap()
        .stacks()
        .map(|(slot, _)| slot)
        .collect();
    assert_eq!(left, vec![2, 7]);
    assert_eq!(banked(&world, "a", "logs"), 2);
}
