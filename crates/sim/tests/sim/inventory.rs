//! The inventory: every change is whole or refused, and no sequence of changes creates or
//! destroys an item.

use std::collections::BTreeMap;

use proptest::prelude::*;
use wayfarer_sim::inventory::{
    Inventory, InventoryError, Stack, Stacking, INVENTORY_SLOTS, MAX_STACK,
};

fn stack(item_id: &str, quantity: u32) -> Stack {
    Stack {
        item_id: item_id.to_owned(),
        quantity,
    }
}

/// Arrows stack to 1,000 (bundled content's `maxStackSize` for ammunition).
const ARROWS: Stacking = Stacking::Stackable {
    max_quantity: 1_000,
};

#[test]
fn stackable_items_merge_into_one_slot() {
    let mut inventory = Inventory::new();
    inventory.add("coins", 100, true).unwrap();
    inventory.add("coins", 50, true).unwrap();
    assert_eq!(inventory.get(0), Some(&stack("coins", 150)));
    assert_eq!(inventory.free_slots(), INVENTORY_SLOTS - 1);
    assert_eq!(inventory.count("coins"), 150);
}

#[test]
fn unstackable_items_take_one_slot_each() {
    let mut inventory = Inventory::new();
    inventory.add("bronze_sword", 3, false).unwrap();
    assert_eq!(inventory.free_slots(), INVENTORY_SLOTS - 3);
    for slot in 0..3 {
        assert_eq!(inventory.get(slot), Some(&stack("bronze_sword", 1)));
    }
}

#[test]
fn an_add_that_does_not_fit_is_refused_whole() {
    let mut inventory = Inventory::new();
    inventory.add("logs", 27, false).unwrap();
    let before = inventory.clone();
    assert_eq!(
        inventory.add("logs", 2, false),
        Err(InventoryError::InventoryFull)
    );
    assert_eq!(inventory, before);
    inventory.add("logs", 1, false).unwrap();
    assert_eq!(
        inventory.add("coins", 1, true),
        Err(InventoryError::InventoryFull)
    );
}

#[test]
fn a_full_inventory_still_takes_more_of_a_stack_it_holds() {
    let mut inventory = Inventory::new();
    inventory.add("coins", 1, true).unwrap();
    inventory.add("logs", 27, false).unwrap();
    assert_eq!(inventory.free_slots(), 0);
    inventory.add("coins", 999, true).unwrap();
    assert_eq!(inventory.count("coins"), 1_000);
}

#[test]
fn stacks_never_pass_their_limit_or_wrap() {
    let mut inventory = Inventory::new();
    inventory.add("coins", MAX_STACK, true).unwrap();
    let before = inventory.clone();
    assert!(matches!(
        inventory.add("coins", 1, true),
        Err(InventoryError::StackLimit { max_quantity, .. }) if max_quantity == MAX_STACK
    ));
    // u32 arithmetic would wrap here; checked arithmetic refuses.
    assert!(matches!(
        inventory.add("coins", u32::MAX, true),
        Err(InventoryError::StackLimit { .. })
    ));
    assert_eq!(inventory, before);

    inventory.add("bronze_arrow", 900, ARROWS).unwrap();
    assert!(matches!(
        inventory.add("bronze_arrow", 101, ARROWS),
        Err(InventoryError::StackLimit {
            max_quantity: 1_000,
            ..
        })
    ));
    inventory.add("bronze_arrow", 100, ARROWS).unwrap();
    assert!(matches!(
        Inventory::new().add("bronze_arrow", 1_001, ARROWS),
        Err(InventoryError::StackLimit { .. })
    ));
}

#[test]
fn zero_quantities_are_refused() {
    let mut inventory = Inventory::new();
    assert_eq!(
        inventory.add("coins", 0, true),
        Err(InventoryError::InvalidQuantity)
    );
    inventory.add("coins", 5, true).unwrap();
    assert_eq!(inventory.remove(0, 0), Err(InventoryError::InvalidQuantity));
    assert_eq!(
        inventory.remove_item("coins", 0),
        Err(InventoryError::InvalidQuantity)
    );
}

#[test]
fn remove_takes_part_or_all_of_a_slot() {
    let mut inventory = Inventory::new();
    inventory.add("coins", 10, true).unwrap();
    assert_eq!(inventory.remove(0, 4), Ok(stack("coins", 4)));
    assert_eq!(inventory.get(0), Some(&stack("coins", 6)));
    assert!(matches!(
        inventory.remove(0, 7),
        Err(InventoryError::NotEnough {
            wanted: 7,
            held: 6,
            ..
        })
    ));
    assert_eq!(inventory.remove(0, 6), Ok(stack("coins", 6)));
    assert!(inventory.is_empty());
    assert_eq!(inventory.remove(0, 1), Err(InventoryError::EmptySlot(0)));
    assert_eq!(
        inventory.remove(INVENTORY_SLOTS, 1),
        Err(InventoryError::InvalidSlot(INVENTORY_SLOTS))
    );
}

#[test]
fn remove_item_takes_from_the_lowest_slots_first() {
    let mut inventory = Inventory::new();
    inventory.add("logs", 3, false).unwrap();
    inventory.move_slot(1, 5).unwrap();
    // logs in 0, 2, 5
    inventory.remove_item("logs", 2).unwrap();
    assert_eq!(inventory.get(0), None);
    assert_eq!(inventory.get(2), None);
    assert_eq!(inventory.get(5), Some(&stack("logs", 1)));
    let before = inventory.clone();
    assert!(matches!(
        inventory.remove_item("logs", 2),
        Err(InventoryError::NotEnough {
            wanted: 2,
            held: 1,
            ..
        })
    ));
    assert_eq!(inventory, before);
}

#[test]
fn move_slot_swaps_two_slots() {
    let mut inventory = Inventory::new();
    inventory.add("coins", 7, true).unwrap();
    inventory.add("logs", 1, false).unwrap();
    inventory.move_slot(0, 1).unwrap();
    assert_eq!(inventory.get(0), Some(&stack("logs", 1)));
    assert_eq!(inventory.get(1), Some(&stack("coins", 7)));
    inventory.move_slot(1, 20).unwrap();
    assert_eq!(inventory.get(1), None);
    assert_eq!(inventory.get(20), Some(&stack("coins", 7)));
    inventory.move_slot(20, 20).unwrap();
    assert_eq!(inventory.get(20), Some(&stack("coins", 7)));
    assert_eq!(inventory.move_slot(3, 4), Err(InventoryError::EmptySlot(3)));
    assert_eq!(
        inventory.move_slot(0, 99),
        Err(InventoryError::InvalidSlot(99))
    );
}

#[test]
fn take_all_empties_the_inventory_in_slot_order() {
    let mut inventory = Inventory::new();
    inventory.add("logs", 2, false).unwrap();
    inventory.add("coins", 30, true).unwrap();
    inventory.move_slot(0, 10).unwrap();
    let taken = inventory.take_all();
    assert_eq!(
        taken,
        vec![stack("logs", 1), stack("coins", 30), stack("logs", 1)]
    );
    assert!(inventory.is_empty());
}

#[test]
fn a_transaction_commits_every_step_or_none() {
    let mut inventory = Inventory::new();
    inventory.add("coins", 100, true).unwrap();
    inventory.add("logs", 26, false).unwrap();

    // Selling logs for coins: both steps happen.
    inventory
        .apply(|tx| {
            tx.remove_item("logs", 2)?;
            tx.add("coins", 20, true)
        })
        .unwrap();
    assert_eq!(
        (inventory.count("logs"), inventory.count("coins")),
        (24, 120)
    );

    // A failing last step undoes the earlier ones, including a swap and a removal. Coins are in
    // slot 0, logs in 3..=26; after the first three steps slots 0..=3 and 27 are free: five, one
    // short of six swords.
    let before = inventory.clone();
    let outcome = inventory.apply(|tx| {
        tx.move_slot(0, 27)?;
        tx.remove(3, 1)?;
        tx.remove_item("coins", 120)?;
        assert_eq!(tx.free_slots(), 5);
        tx.add("bronze_sword", 6, false)
    });
    assert_eq!(outcome, Err(InventoryError::InventoryFull));
    assert_eq!(inventory, before);
}

#[test]
fn reads_inside_a_transaction_see_its_earlier_steps() {
    let mut inventory = Inventory::new();
    inventory.add("coins", 10, true).unwrap();
    let seen = inventory
        .apply(|tx| {
            tx.remove_item("coins", 4)?;
            Ok(tx.count("coins"))
        })
        .unwrap();
    assert_eq!(seen, 6);
}

#[test]
fn dry_run_reports_the_outcome_and_changes_nothing() {
    let mut inventory = Inventory::new();
    inventory.add("coins", 10, true).unwrap();
    let before = inventory.clone();
    assert_eq!(inventory.dry_run(|tx| tx.remove_item("coins", 10)), Ok(()));
    assert_eq!(inventory, before);
    assert!(inventory.dry_run(|tx| tx.remove_item("coins", 11)).is_err());
    assert_eq!(inventory, before);
}

#[test]
fn can_fit_merges_stackables_and_counts_every_unstackable() {
    let mut inventory = Inventory::new();
    inventory.add("coins", 1, true).unwrap();
    inventory.add("logs", 25, false).unwrap();
    // Two free slots.
    assert!(inventory.can_fit(&[("coins", 500, true), ("logs", 2, false)]));
    assert!(!inventory.can_fit(&[("logs", 2, false), ("logs", 1, false)]));
    assert!(inventory.can_fit(&[
        ("bronze_arrow", 5, ARROWS),
        ("feather", 9, Stacking::STACKABLE)
    ]));
    assert!(!inventory.can_fit(&[
        ("bronze_arrow", 5, ARROWS),
        ("feather", 9, Stacking::STACKABLE),
        ("bones", 1, Stacking::Unstackable),
    ]));
    assert!(!inventory.can_fit(&[("coins", MAX_STACK, true)]));
    assert_eq!(inventory.count("coins"), 1);
}

#[test]
fn saved_stacks_load_into_their_slots_and_bad_ones_are_refused() {
    let inventory =
        Inventory::from_stacks([(3, stack("coins", 50)), (27, stack("logs", 1))]).unwrap();
    assert_eq!(inventory.get(3), Some(&stack("coins", 50)));
    assert_eq!(inventory.stacks().count(), 2);
    assert_eq!(
        Inventory::from_stacks([(28, stack("logs", 1))]),
        Err(InventoryError::InvalidSlot(28))
    );
    assert_eq!(
        Inventory::from_stacks([(1, stack("logs", 1)), (1, stack("coins", 1))]),
        Err(InventoryError::SlotOccupied(1))
    );
    assert_eq!(
        Inventory::from_stacks([(1, stack("coins", 0))]),
        Err(InventoryError::InvalidQuantity)
    );
    assert_eq!(
        Inventory::from_stacks([(1, stack("coins", MAX_STACK + 1))]),
        Err(InventoryError::InvalidQuantity)
    );
}

#[test]
fn content_items_stack_as_their_manifest_says() {
    let content = wayfarer_content::load_bundled();
    let coins = content.item("coins").expect("bundled coins");
    assert_eq!(Stacking::of(coins), Stacking::STACKABLE);
    let sword = content.item("bronze_sword").expect("bundled bronze sword");
    assert_eq!(Stacking::of(sword), Stacking::Unstackable);
    let arrows = content.item("bronze_arrow").expect("bundled bronze arrows");
    assert!(matches!(Stacking::of(arrows), Stacking::Stackable { .. }));
}

// ---- Conservation under random operations ----

/// The item universe of the property test: two stackables (one with a small limit) and two
/// unstackables.
const ITEMS: [(&str, Stacking); 4] = [
    ("coins", Stacking::STACKABLE),
    ("bronze_arrow", ARROWS),
    ("logs", Stacking::Unstackable),
    ("bronze_sword", Stacking::Unstackable),
];

#[derive(Debug, Clone)]
enum Op {
    Add { item: usize, quantity: u32 },
    Remove { slot: usize, quantity: u32 },
    RemoveItem { item: usize, quantity: u32 },
    Move { from: usize, to: usize },
    TakeAll,
    Batch(Vec<Op>),
    DryRun(Vec<Op>),
}

fn quantity() -> impl Strategy<Value = u32> {
    prop_oneof![
        6 => 0..12u32,
        2 => 0..1_200u32,
        1 => (MAX_STACK - 10)..=MAX_STACK,
        1 => any::<u32>(),
    ]
}

fn simple_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (0..ITEMS.len(), quantity()).prop_map(|(item, quantity)| Op::Add { item, quantity }),
        3 => (0..INVENTORY_SLOTS + 2, quantity())
            .prop_map(|(slot, quantity)| Op::Remove { slot, quantity }),
        2 => (0..ITEMS.len(), quantity())
            .prop_map(|(item, quantity)| Op::RemoveItem { item, quantity }),
        2 => (0..INVENTORY_SLOTS + 2, 0..INVENTORY_SLOTS + 2)
            .prop_map(|(from, to)| Op::Move { from, to }),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        12 => simple_op(),
        1 => Just(Op::TakeAll),
        3 => prop::collection::vec(simple_op(), 1..6).prop_map(Op::Batch),
        1 => prop::collection::vec(simple_op(), 1..6).prop_map(Op::DryRun),
    ]
}

/// Net quantity of each item that went in minus what came out.
type Ledger = BTreeMap<&'static str, i128>;

fn credit(ledger: &mut Ledger, item_id: &str, quantity: u32) {
    let (name, _) = ITEMS
        .iter()
        .find(|(name, _)| *name == item_id)
        .expect("only test items exist");
    *ledger.entry(name).or_default() += i128::from(quantity);
}

fn debit(ledger: &mut Ledger, item_id: &str, quantity: u32) {
    let (name, _) = ITEMS
        .iter()
        .find(|(name, _)| *name == item_id)
        .expect("only test items exist");
    *ledger.entry(name).or_default() -= i128::from(quantity);
}

/// Runs one simple step inside a transaction, recording its item flow in `ledger`.
fn step(
    tx: &mut wayfarer_sim::inventory::Transaction<'_>,
    op: &Op,
    ledger: &mut Ledger,
) -> Result<(), InventoryError> {
    match *op {
        Op::Add { item, quantity } => {
            let (id, stacking) = ITEMS[item];
            tx.add(id, quantity, stacking)?;
            credit(ledger, id, quantity);
        }
        Op::Remove { slot, quantity } => {
            let taken = tx.remove(slot, quantity)?;
            debit(ledger, &taken.item_id, taken.quantity);
        }
        Op::RemoveItem { item, quantity } => {
            let (id, _) = ITEMS[item];
            tx.remove_item(id, quantity)?;
            debit(ledger, id, quantity);
        }
        Op::Move { from, to } => tx.move_slot(from, to)?,
        Op::TakeAll | Op::Batch(_) | Op::DryRun(_) => {
            unreachable!("batches hold simple steps")
        }
    }
    Ok(())
}

/// Applies one operation, recording its item flow; a refused one must change nothing.
fn run(inventory: &mut Inventory, op: &Op, ledger: &mut Ledger) {
    let before = inventory.clone();
    let accepted = match op {
        Op::Add { item, quantity } => {
            let (id, stacking) = ITEMS[*item];
            let ok = inventory.add(id, *quantity, stacking).is_ok();
            if ok {
                credit(ledger, id, *quantity);
            }
            ok
        }
        Op::Remove { slot, quantity } => match inventory.remove(*slot, *quantity) {
            Ok(taken) => {
                assert_eq!(taken.quantity, *quantity);
                debit(ledger, &taken.item_id, taken.quantity);
                true
            }
            Err(_) => false,
        },
        Op::RemoveItem { item, quantity } => {
            let (id, _) = ITEMS[*item];
            let ok = inventory.remove_item(id, *quantity).is_ok();
            if ok {
                debit(ledger, id, *quantity);
            }
            ok
        }
        Op::Move { from, to } => inventory.move_slot(*from, *to).is_ok(),
        Op::TakeAll => {
            for taken in inventory.take_all() {
                debit(ledger, &taken.item_id, taken.quantity);
            }
            assert!(inventory.is_empty());
            true
        }
        Op::Batch(steps) => {
            let mut pending = Ledger::new();
            let outcome = inventory.apply(|tx| {
                for s in steps {
                    step(tx, s, &mut pending)?;
                }
                Ok(())
            });
            if outcome.is_ok() {
                for (id, delta) in pending {
                    *ledger.entry(id).or_default() += delta;
                }
            }
            outcome.is_ok()
        }
        Op::DryRun(steps) => {
            let mut ignored = Ledger::new();
            let _ = inventory.dry_run(|tx| {
                for s in steps {
                    step(tx, s, &mut ignored)?;
                }
                Ok(())
            });
            false
        }
    };
    if !accepted {
        assert!(
            *inventory == before,
            "a refused {op:?} changed the inventory"
        );
    }
}

fn check_invariants(inventory: &Inventory, ledger: &Ledger) {
    assert_eq!(inventory.slots().len(), INVENTORY_SLOTS);
    for (id, stacking) in ITEMS {
        let held = i128::from(inventory.count(id));
        assert_eq!(
            held,
            ledger.get(id).copied().unwrap_or(0),
            "{id} was created or destroyed"
        );
        let slots: Vec<&Stack> = inventory
            .stacks()
            .filter(|(_, s)| s.item_id == id)
            .map(|(_, s)| s)
            .collect();
        for stack in &slots {
            assert!(stack.quantity >= 1, "an empty stack of {id}");
            assert!(
                stack.quantity <= stacking.max_quantity(),
                "{id} over its limit"
            );
        }
        if matches!(stacking, Stacking::Stackable { .. }) {
            assert!(slots.len() <= 1, "{id} split over {} slots", slots.len());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_operations_never_create_or_destroy_items(ops in prop::collection::vec(op(), 1..80)) {
        let mut inventory = Inventory::new();
        let mut ledger = Ledger::new();
        for op in &ops {
            run(&mut inventory, op, &mut ledger);
            check_invariants(&inventory, &ledger);
        }
        // Emptying at the end returns exactly what the ledger says is inside.
        for taken in inventory.take_all() {
            debit(&mut ledger, &taken.item_id, taken.quantity);
        }
        prop_assert!(ledger.values().all(|&net| net == 0), "{ledger:?}");
    }
}

/// The inventory keeps only its occupied slots (issue 33): every slot, every quantity limit and
/// every order of filling and emptying reads back as the 28 slots it stands for.
#[test]
fn the_sparse_form_round_trips_every_slot_and_quantity_limit() {
    let quantity = |slot: usize| match slot % 3 {
        0 => 1,
        1 => MAX_STACK,
        _ => slot as u32 * 1_000,
    };
    let expected: Vec<Option<Stack>> = (0..INVENTORY_SLOTS)
        .map(|slot| Some(stack(&format!("item_{slot}"), quantity(slot))))
        .collect();
    // Loaded in reverse slot order: read back in slot order.
    let full = Inventory::from_stacks(
        (0..INVENTORY_SLOTS)
            .rev()
            .map(|slot| (slot, expected[slot].clone().unwrap())),
    )
    .unwrap();
    assert_eq!(
        full.slots().map(|s| s.cloned()).collect::<Vec<_>>(),
        expected
    );
    assert_eq!(full.free_slots(), 0);
    assert_eq!(full.get(INVENTORY_SLOTS), None);
    assert_eq!(full.get(usize::MAX), None);
    let numbers: Vec<usize> = full.stacks().map(|(slot, _)| slot).collect();
    assert_eq!(numbers, (0..INVENTORY_SLOTS).collect::<Vec<_>>());

    // Emptied from the middle outwards, one slot at a time, each read back exactly.
    let mut inventory = full.clone();
    let mut left = expected.clone();
    for slot in (0..INVENTORY_SLOTS).map(|i| (i * 11) % INVENTORY_SLOTS) {
        let taken = inventory.remove(slot, quantity(slot)).unwrap();
        assert_eq!(Some(taken), left[slot].take());
        assert_eq!(
            inventory.slots().map(|s| s.cloned()).collect::<Vec<_>>(),
            left
        );
        assert_eq!(inventory.get(slot), None);
    }
    assert!(inventory.is_empty());
    assert_eq!(inventory, Inventory::new());

    // Filled again through `add` (unstackables take the lowest free slots): the same as loaded.
    for slot in 0..INVENTORY_SLOTS {
        let id = format!("item_{slot}");
        if quantity(slot) == 1 {
            inventory.add(&id, 1, false).unwrap();
        } else {
            inventory.add(&id, quantity(slot), true).unwrap();
        }
    }
    assert_eq!(inventory, full);
    assert_eq!(
        inventory.add("one_more", 1, false),
        Err(InventoryError::InventoryFull)
    );
    // A stack at the limit refuses one more and is unchanged.
    assert!(matches!(
        inventory.add("item_1", 1, true),
        Err(InventoryError::StackLimit { .. })
    ));
    assert_eq!(inventory, full);

    // A move between the last slot and an empty one, and back.
    let mut inventory = Inventory::from_stacks([(27, stack("logs", 1))]).unwrap();
    inventory.move_slot(27, 0).unwrap();
    assert_eq!(inventory.get(0), Some(&stack("logs", 1)));
    assert_eq!(inventory.get(27), None);
    inventory.move_slot(0, 27).unwrap();
    assert_eq!(
        inventory,
        Inventory::from_stacks([(27, stack("logs", 1))]).unwrap()
    );
}
