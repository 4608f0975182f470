//! Micro-benchmarks of encoding server frames to JSON text (`ServerMessage::to_json`), the work the
//! server does for every message to every client:
//!
//! - a busy `world:update`: 50 entities added (players, NPCs, resources, ground items), 200 moved,
//!   20 changed, 10 removed;
//! - a quiet `world:update`: 5 moved;
//! - a crowd's steady `world:update`: 200 moved;
//! - a full `player:sync`: all 17 skills, a full 28-slot inventory, 5 worn items.
//!
//! The two `world:update` cases also run through `ServerMessage::write_json` (`…/write_json`), the
//! hand-written encoder the server uses, on the same input, so the ratio to serde shows. It writes
//! into a fresh `Vec` each time, as the server writes into a fresh frame buffer per delivery.
//!
//! Run with `cargo bench -p wayfarer-sim --bench encode -- --quick` for a fast estimate.

use std::collections::BTreeMap;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use wayfarer_protocol::ws::{
    Changed, Entity, EntityKind, EquippedItem, InventorySlot, Moved, Player, ServerMessage,
    SkillState, TilePos, WorldPos, WorldUpdate,
};
use wayfarer_protocol::Skill;

/// An entity of each kind in turn, with the fields the server fills for that kind.
fn entity(i: usize) -> Entity {
    let bare = Entity::at(
        String::new(),
        EntityKind::Player,
        3_200 + (i as i32 * 7) % 64,
        3_100 + (i as i32 * 13) % 64,
    );
    match i % 4 {
        0 => Entity {
            id: format!("0190f3a2-7c1e-7b3a-9d4e-{i:012x}"),
            name: Some(format!("Wanderer{i}")),
            health: Some(37),
            max_health: Some(42),
            ..bare
        },
        1 => Entity {
            id: format!("npc:lumbridge/mob/{i}#3"),
            kind: EntityKind::Npc,
            name: Some("Goblin".into()),
            health: Some(5),
            max_health: Some(5),
            type_id: Some("goblin".into()),
            ..bare
        },
        2 => Entity {
            id: format!("res:lumbridge/resource/{i}"),
            kind: EntityKind::Resource,
            name: Some("Copper rock".into()),
            resource_type: Some("ore".into()),
            depleted: Some(false),
            type_id: Some("rock_copper".into()),
            ..bare
        },
        _ => Entity {
            id: format!("item:{i}"),
            kind: EntityKind::GroundItem,
            name: Some("Bones".into()),
            item_id: Some("bones".into()),
            quantity: Some(1),
            ..bare
        },
    }
}

/// A `world:update` with `added`, `moved`, `changed` and `removed` entries.
fn update(added: usize, moved: usize, changed: usize, removed: usize) -> ServerMessage {
    ServerMessage::WorldUpdate(WorldUpdate {
        tick: 1_234_567,
        added: (0..added).map(|i| entity(i).into()).collect(),
        moved: (0..moved)
            .map(|i| Moved {
                id: entity(100 + i).id.into(),
                x: 3_200 + (i as i32 % 64),
                z: 3_100 + (i as i32 / 64),
            })
            .collect::<Vec<_>>()
            .into(),
        changed: (0..changed)
            .map(|i| Changed {
                id: entity(400 + i).id,
                health: Some(i as i64 % 10),
                depleted: (i % 3 == 0).then_some(true),
                ..Changed::default()
            })
            .collect(),
        removed: (0..removed).map(|i| entity(500 + i).id.into()).collect(),
        stamina: None,
    })
}

/// A `player:sync` with every skill, a full inventory and a full set of worn items.
fn full_sync() -> ServerMessage {
    let skills = Skill::ALL
        .iter()
        .enumerate()
        .map(|(i, &skill)| {
            (
                skill,
                SkillState {
                    level: 10 + i as i64,
                    xp: 1_154 * (i as i64 + 1),
                },
            )
        })
        .collect();
    let inventory = (0..28u8)
        .map(|slot| InventorySlot {
            slot,
            item_id: format!("item_{slot}"),
            name: format!("Item number {slot}"),
            quantity: i64::from(slot) * 17 + 1,
        })
        .collect();
    let equipment: BTreeMap<String, EquippedItem> =
        ["weapon", "shield", "helmet", "body", "arrows"]
            .iter()
            .map(|slot| {
                (
                    (*slot).to_owned(),
                    EquippedItem {
                        item_id: format!("bronze_{slot}"),
                        quantity: if *slot == "arrows" { 250 } else { 1 },
                    },
                )
            })
            .collect();
    ServerMessage::PlayerSync(Box::new(Player {
        id: "0190f3a2-7c1e-7b3a-9d4e-5f6a7b8c9d0e".into(),
        account_id: "0190f3a2-7c1e-7b3a-9d4e-000000000001".into(),
        name: "Wanderer".into(),
        combat_level: 27,
        health: 37,
        max_health: 42,
        coins: 12_345,
        position: WorldPos {
            x: 3_222.5,
            y: 0.0,
            z: 3_218.5,
        },
        skills,
        inventory,
        equipment,
        online: true,
        tile: Some(TilePos { x: 3_222, z: 3_218 }),
        stamina: Some(87),
        auto_retaliate: Some(true),
        home_teleport_cooldown: Some(0),
    }))
}

fn encode(c: &mut Criterion) {
    let mut group = c.benchmark_group("encode");
    let cases = [
        (
            "world_update_50_added_200_moved_20_changed_10_removed",
            update(50, 200, 20, 10),
        ),
        ("world_update_5_moved", update(0, 5, 0, 0)),
        // A crowd's steady state: everyone in view walks, nobody comes or goes.
        ("world_update_200_moved", update(0, 200, 0, 0)),
        ("player_sync_full", full_sync()),
    ];
    for (name, message) in cases {
        group.throughput(Throughput::Bytes(message.to_json().len() as u64));
        group.bench_function(name, |b| b.iter(|| message.to_json()));
        if matches!(message, ServerMessage::WorldUpdate(_)) {
            group.bench_function(format!("{name}/write_json"), |b| {
                b.iter(|| {
                    let mut out = Vec::new();
                    message.write_json(&mut out);
                    out
                })
            });
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    targets = encode
}
criterion_main!(benches);
