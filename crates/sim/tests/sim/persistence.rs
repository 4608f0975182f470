//! What of the world the database holds (`World::persist_for`, `World::restore_chunks`): a drop
//! enters it only with its dropper's record, a pickup leaves it only with the picker's, loot
//! enters at once; the chunks come back into a fresh world with their times left; entries the
//! content no longer has are skipped.

use std::sync::Arc;

use wayfarer_protocol::ws::TilePos;
use wayfarer_sim::flows::{FlowKind, ItemFlow};
use wayfarer_sim::inventory::Stack;
use wayfarer_sim::{
    Action, ChunkKey, ChunkState, Command, Event, Joining, PersistedGroundItem, World,
    GROUND_LIFETIME_TICKS, GROUND_PRIVATE_TICKS,
};

use crate::idle;

fn world() -> World {
    World::new(Arc::new(wayfarer_content::load_bundled()), 11)
}

fn join(world: &World, id: &str) -> Command {
    Command::Join(Box::new(Joining::new(id, id, world.spawn_tile())))
}

fn act(id: &str, action: Action) -> Command {
    Command::Action {
        id: id.into(),
        action,
        reference: None,
    }
}

fn logs_slot(world: &World, player: &str) -> usize {
    world
        .player_inventory(player)
        .and_then(|inv| {
            inv.stacks()
                .find(|(_, s)| s.item_id == "logs")
                .map(|(slot, _)| slot)
        })
        .expect("holds logs")
}

/// The ground items of the persisted chunks given.
fn ground(chunks: &[ChunkState]) -> Vec<PersistedGroundItem> {
    chunks.iter().flat_map(|c| c.ground.clone()).collect()
}

/// Ada and Bob at the spawn point, Ada holding one log.
fn ada_and_bob() -> World {
    let mut w = world();
    w.tick(vec![
        join(&w, "ada"),
        join(&w, "bob"),
        Command::Give {
            id: "ada".into(),
            item_id: "logs".into(),
            quantity: 1,
        },
    ]);
    w.persist_for(["ada", "bob"]);
    w
}

#[test]
fn a_drop_is_persisted_with_its_droppers_record_and_a_pickup_with_the_pickers() {
    let mut w = ada_and_bob();
    let slot = logs_slot(&w, "ada");
    w.tick(vec![act("ada", Action::Drop { slot })]);
    // Other records written: the log is still Ada's in the database, not on the ground.
    assert!(ground(&w.persist_for(["bob"])).is_empty());
    // Ada's record written without it: the log is on the ground, hers for the rest of her minute.
    let chunks = w.persist_for(["ada"]);
    assert_eq!(chunks.len(), 1);
    let item = &chunks[0].ground[0];
    assert_eq!(item.stack.item_id, "logs");
    assert_eq!(item.owner.as_deref(), Some("ada"));
    assert_eq!(item.tile, w.spawn_tile());
    assert_eq!(chunks[0].chunk, ChunkKey::of(w.spawn_tile()));
    assert!(item.private_ticks_left > 0 && item.private_ticks_left < GROUND_PRIVATE_TICKS);
    assert!(w.persist_for([]).is_empty(), "nothing changed since");

    // Public now; Bob picks it up. Until Bob's record is written it stays in the database's ground.
    idle(&mut w, GROUND_PRIVATE_TICKS as usize);
    let id = w.ground_items()[0].id.clone();
    w.tick(vec![act("bob", Action::Pickup { target: id })]);
    assert_eq!(w.player_inventory("bob").unwrap().count("logs"), 1);
    assert!(w.persist_for(["ada"]).is_empty());
    let chunks = w.persist_for(["bob"]);
    assert_eq!(chunks.len(), 1);
    assert!(chunks[0].is_pristine(), "{chunks:?}");
}

#[test]
fn a_drop_picked_up_again_by_its_dropper_before_a_save_never_reaches_the_database() {
    let mut w = ada_and_bob();
    let slot = logs_slot(&w, "ada");
    w.tick(vec![act("ada", Action::Drop { slot })]);
    let id = w.ground_items()[0].id.clone();
    w.tick(vec![act("ada", Action::Pickup { target: id })]);
    assert!(w.persist_for(["ada", "bob"]).is_empty());
}

#[test]
fn a_drop_stays_its_droppers_until_their_record_is_saved_and_the_world_asks_for_that_save() {
    let mut w = ada_and_bob();
    let slot = logs_slot(&w, "ada");
    w.tick(vec![act("ada", Action::Drop { slot })]);
    let item = w.ground_items()[0].clone();
    // No save served: one tick before the minute ends the world asks for Ada's.
    let mut asked_at = None;
    while w.tick_number() < item.public_at {
        let events = w.tick(vec![]);
        if events
            .iter()
            .any(|e| matches!(e, Event::SaveNow { id } if id == "ada"))
        {
            asked_at = Some(w.tick_number());
        }
    }
    assert_eq!(asked_at, Some(item.public_at - 1));
    // Past the minute but not saved: Bob may not take it.
    let events = w.tick(vec![act(
        "bob",
        Action::Pickup {
            target: item.id.clone(),
        },
    )]);
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Rejected { to, .. } if to == "bob")));
    // Ada's record saved: now he may.
    w.persist_for(["ada"]);
    w.tick(vec![act("bob", Action::Pickup { target: item.id })]);
    assert_eq!(w.player_inventory("bob").unwrap().count("logs"), 1);
}

#[test]
fn ground_items_come_back_with_their_owner_and_times_and_unknown_entries_are_skipped() {
    let mut w = world();
    let spawn = w.spawn_tile();
    let far = TilePos {
        x: spawn.x + 100,
        z: spawn.z,
    };
    let stored = vec![
        ChunkState {
            chunk: ChunkKey::of(spawn),
            depleted: vec![],
            ground: vec![PersistedGroundItem {
                stack: Stack {
                    item_id: "logs".into(),
                    quantity: 1,
                },
                tile: spawn,
                owner: Some("ada".into()),
                private_ticks_left: 20,
                ticks_left: 150,
            }],
        },
        ChunkState {
            chunk: ChunkKey::of(far),
            depleted: vec![wayfarer_sim::DepletedResource {
                key: "nowhere/resource/0".into(),
                resource_id: "normal_tree".into(),
                ticks_left: 30,
            }],
            ground: vec![PersistedGroundItem {
                stack: Stack {
                    item_id: "no_such_item".into(),
                    quantity: 2,
                },
                tile: far,
                owner: None,
                private_ticks_left: 0,
                ticks_left: 150,
            }],
        },
    ];
    let report = w.restore_chunks(&stored);
    assert_eq!(report.ground_items, 1);
    assert_eq!(report.resources, 0);
    assert_eq!(report.skipped.len(), 2, "{report:?}");
    let items = w.ground_items();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].owner.as_deref(), Some("ada"));
    assert_eq!(items[0].public_at, 1 + 20);
    assert_eq!(items[0].despawn_at, 1 + 150);
    // Only the chunk that lost something is written again, without it.
    let rewritten = w.persist_for([]);
    assert_eq!(rewritten.len(), 1);
    assert_eq!(rewritten[0].chunk, ChunkKey::of(far));
    assert!(rewritten[0].is_pristine());
    // The restored item is in the database's ground: it vanishes from it when its time is up.
    idle(&mut w, 151);
    assert!(w.ground_items().is_empty());
    let gone = w.persist_for([]);
    assert_eq!(gone.len(), 1);
    assert!(gone[0].is_pristine());
}

/// The owed entries and exits as `(kind, reason, item, units)`.
fn owed(flows: Vec<ItemFlow>) -> Vec<(FlowKind, &'static str, String, u64)> {
    flows
        .into_iter()
        .map(|f| (f.kind, f.reason, f.item_id, f.quantity))
        .collect()
}

/// What enters and leaves the world is owed to the database with the write that holds its effect
/// (`World::flows_for`, the economy's durable books): a gift with its receiver's record, once; a
/// drop that vanishes while its dropper's saved record still holds it, with that record (the write
/// that loses it), not with the chunks.
#[test]
fn entries_and_exits_are_owed_with_the_write_that_holds_them() {
    let mut w = ada_and_bob();
    assert!(w.flows_for(["bob"]).is_empty());
    assert_eq!(
        owed(w.flows_for(["ada"])),
        [(FlowKind::Entered, "given", "logs".to_owned(), 1)]
    );
    assert!(w.flows_for(["ada"]).is_empty(), "handed out once");

    let slot = logs_slot(&w, "ada");
    w.tick(vec![act("ada", Action::Drop { slot })]);
    // Nobody saves Ada's record (not even when the world asks); the log vanishes from the ground.
    for _ in 0..=GROUND_LIFETIME_TICKS {
        w.tick(vec![]);
    }
    assert!(w.ground_items().is_empty());
    assert!(w.flows_for(["bob"]).is_empty(), "not with other writes");
    assert_eq!(
        owed(w.flows_for(["ada"])),
        [(FlowKind::Left, "expired", "logs".to_owned(), 1)]
    );

    // A drop whose dropper's record was written lies in the chunks: its end goes with any write.
    w.tick(vec![Command::Give {
        id: "ada".into(),
        item_id: "logs".into(),
        quantity: 1,
    }]);
    let slot = logs_slot(&w, "ada");
    w.tick(vec![act("ada", Action::Drop { slot })]);
    w.flows_for(["ada"]);
    w.persist_for(["ada"]);
    idle(&mut w, GROUND_LIFETIME_TICKS as usize + 1);
    assert!(w.ground_items().is_empty());
    assert_eq!(
        owed(w.flows_for(["bob"])),
        [(FlowKind::Left, "expired", "logs".to_owned(), 1)]
    );
}
