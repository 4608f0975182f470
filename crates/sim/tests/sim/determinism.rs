//! Same seed and same commands give the same events, tick for tick.

use std::sync::Arc;

use wayfarer_protocol::ws::ChatChannel;
use wayfarer_sim::{Command, Event, World};

use crate::{join, t, Lcg};

/// 100 ticks of 60 players joining, walking, running, chatting, teleporting and leaving around the
/// bundled starter town.
fn script() -> Vec<Vec<Command>> {
    let mut rng = Lcg(99);
    let mut ticks = Vec::new();
    for tick in 0..100 {
        let mut commands = Vec::new();
        if tick == 0 {
            for i in 0..60 {
                commands.push(join(
                    &format!("p{i}"),
                    t(rng.next(60) as i32 - 30, rng.next(60) as i32 - 30),
                ));
            }
        }
        for _ in 0..10 {
            let id = format!("p{}", rng.next(60));
            commands.push(match rng.next(10) {
                0 => Command::Chat {
                    id,
                    channel: ChatChannel::Local,
                    text: format!("tick {tick}"),
                    to: None,
                    reference: None,
                },
                1 => Command::Teleport {
                    id,
                    tile: t(rng.next(100) as i32 - 50, rng.next(100) as i32 - 50),
                },
                2 if tick > 50 => Command::Leave { id },
                _ => Command::Move {
                    id,
                    x: rng.next(160) as i32 - 80,
                    z: rng.next(160) as i32 - 80,
                    run: rng.next(2) == 0,
                    reference: None,
                },
            });
        }
        ticks.push(commands);
    }
    ticks
}

fn play(seed: u64) -> (Vec<Vec<Event>>, World) {
    let mut world = World::new(Arc::new(wayfarer_content::load_bundled()), seed);
    let events = script().into_iter().map(|c| world.tick(c)).collect();
    (events, world)
}

#[test]
fn the_same_seed_and_commands_give_identical_events() {
    let (a, world_a) = play(42);
    let (b, world_b) = play(42);
    assert_eq!(a.len(), b.len());
    for (tick, (x, y)) in a.iter().zip(&b).enumerate() {
        assert_eq!(x, y, "tick {}", tick + 1);
    }
    assert!(a
        .iter()
        .flatten()
        .any(|e| matches!(e, Event::View { update, .. } if !update.moved.is_empty())));
    assert!(a
        .iter()
        .flatten()
        .any(|e| matches!(e, Event::LocalChat { .. })));
    assert_eq!(world_a.npcs(), world_b.npcs());
    assert_eq!(world_a.resources(), world_b.resources());
}

#[test]
fn a_different_seed_lets_mobs_wander_differently() {
    let (_, a) = play(1);
    let (_, b) = play(2);
    assert_ne!(a.npcs(), b.npcs());
}
