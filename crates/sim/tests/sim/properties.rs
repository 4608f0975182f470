//! Invariants under random input: nobody ever stands on, or steps across, a blocked tile.

use std::sync::{Arc, OnceLock};

use proptest::prelude::*;
use wayfarer_content::Content;
use wayfarer_protocol::ws::TilePos;
use wayfarer_sim::{chebyshev, Command, World};

use crate::{join, t, Field, Mobs};

/// A 40×40 field with walls, a diagonal of touching rocks (corner-cutting bait) and wandering mobs.
fn content() -> Arc<Content> {
    static CONTENT: OnceLock<Arc<Content>> = OnceLock::new();
    CONTENT
        .get_or_init(|| {
            let mut field = Field::new(40)
                .rocks((0..30).map(|z| (12, z)))
                .rocks((10..40).map(|z| (26, z)))
                .rocks((0..10).map(|i| (30 + i, 10 + i)))
                .rocks((14..24).map(|x| (x, 20)));
            field.mobs = vec![Mobs {
                at: (20, 10),
                count: 10,
                radius: 6.0,
                wander: true,
            }];
            field.content()
        })
        .clone()
}

#[derive(Debug, Clone)]
enum Op {
    Move {
        who: usize,
        x: i32,
        z: i32,
        run: bool,
    },
    Stop {
        who: usize,
    },
    Teleport {
        who: usize,
        x: i32,
        z: i32,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (0..3usize, -10..50i32, -10..50i32, any::<bool>())
            .prop_map(|(who, x, z, run)| Op::Move { who, x, z, run }),
        1 => (0..3usize).prop_map(|who| Op::Stop { who }),
        1 => (0..3usize, -10..50i32, -10..50i32).prop_map(|(who, x, z)| Op::Teleport { who, x, z }),
    ]
}

fn command(op: &Op) -> Command {
    let id = |who: &usize| format!("p{who}");
    match op {
        Op::Move { who, x, z, run } => Command::Move {
            id: id(who),
            x: *x,
            z: *z,
            run: *run,
            reference: None,
        },
        Op::Stop { who } => Command::Stop { id: id(who) },
        Op::Teleport { who, x, z } => Command::Teleport {
            id: id(who),
            tile: t(*x, *z),
        },
    }
}

fn assert_legal(world: &World, from: TilePos, to: TilePos) -> Result<(), TestCaseError> {
    prop_assert_eq!(chebyshev(from, to), 1, "{:?} -> {:?}", from, to);
    prop_assert!(world.is_walkable(to));
    if from.x != to.x && from.z != to.z {
        prop_assert!(world.is_walkable(t(to.x, from.z)) && world.is_walkable(t(from.x, to.z)));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_moves_never_put_anyone_on_a_blocked_tile(ops in prop::collection::vec(op(), 1..40)) {
        let mut world = World::new(content(), 3);
        world.tick((0..3).map(|i| join(&format!("p{i}"), t(i * 7, 5))).collect());
        let players = ["p0", "p1", "p2"];
        for op in &ops {
            world.tick(vec![command(op)]);
            // A tick without commands: every step taken follows the planned path legally.
            let before: Vec<_> = players.iter().map(|p| (world.player_tile(p).unwrap(), world.player_path(p))).collect();
            world.tick(vec![]);
            for (p, (from, path)) in players.iter().zip(before) {
                let now = world.player_tile(p).unwrap();
                prop_assert!(world.is_walkable(now), "{} on blocked {:?}", p, now);
                let mut at = from;
                for step in path.iter().take_while(|s| **s != now) {
                    assert_legal(&world, at, *step)?;
                    at = *step;
                }
                if now != from {
                    assert_legal(&world, at, now)?;
                }
            }
            for npc in world.npcs() {
                prop_assert!(world.is_walkable(t(npc.x, npc.z)), "{:?}", npc);
            }
        }
    }
}
