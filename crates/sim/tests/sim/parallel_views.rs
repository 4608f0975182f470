//! The views of a tick split over threads (`TICK_THREADS`) give the bytes one thread gives: a
//! recorded scene (a crowd that walks, runs, talks, teleports, leaves and comes back among
//! wandering mobs) is played on worlds with 1, 2 and 4 view threads, and every tick's
//! `world:update`s, encoded as the server writes them, must be byte-identical, in the same order,
//! with every other event the same too.

use wayfarer_protocol::ws::{ChatChannel, ServerMessage};
use wayfarer_sim::{Command, Event, World, VIEWS_PER_THREAD};

use crate::{join, run, t, walk, Field, Mobs};

/// Players in the crowd: enough due views every tick for four threads' worth of them.
const CROWD: usize = 700;
/// Side of the square the crowd stands in (everyone sees a full view of 255 others).
const SQUARE: i32 = 40;
const TICKS: u64 = 12;

/// A small deterministic generator for the scene (independent of the sim's).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % below
    }

    fn tile(&mut self) -> wayfarer_protocol::ws::TilePos {
        t(
            10 + self.next(SQUARE as u64) as i32,
            10 + self.next(SQUARE as u64) as i32,
        )
    }
}

/// The scene's commands, tick by tick: the same list for every world.
fn scene() -> Vec<Vec<Command>> {
    let mut rng = Lcg(33);
    let mut ticks = Vec::new();
    let mut away: Vec<usize> = Vec::new();
    for tick in 0..TICKS {
        let mut commands = Vec::new();
        if tick == 0 {
            commands.extend((0..CROWD).map(|i| join(&format!("p{i}"), rng.tile())));
        }
        // Those who left two ticks ago come back (their views start over).
        if tick % 2 == 0 {
            for i in away.drain(..) {
                commands.push(join(&format!("p{i}"), rng.tile()));
            }
        }
        for i in 0..CROWD {
            if away.contains(&i) {
                continue;
            }
            let id = format!("p{i}");
            commands.push(match rng.next(12) {
                0..=3 => walk(&id, rng.tile()),
                4 => run(&id, rng.tile()),
                5 => Command::Chat {
                    id,
                    channel: ChatChannel::Local,
                    text: format!("tick {tick} from {i}"),
                    to: None,
                    reference: None,
                },
                6 if tick % 5 == 3 => Command::Teleport {
                    id,
                    tile: rng.tile(),
                },
                7 if tick > 2 && tick % 2 == 1 && away.len() < 20 => {
                    away.push(i);
                    Command::Leave { id }
                }
                _ => continue,
            });
        }
        ticks.push(commands);
    }
    ticks
}

/// What one tick gave: each `world:update` as `(recipient, the frame's bytes)` in event order, and
/// every other event as its debug text.
#[derive(Debug, PartialEq)]
struct TickOutput {
    updates: Vec<(String, Vec<u8>)>,
    others: Vec<String>,
}

fn play(threads: usize) -> Vec<TickOutput> {
    let field = Field {
        mobs: vec![Mobs {
            at: (30, 30),
            count: 60,
            radius: 20.0,
            wander: true,
        }],
        ..Field::new(64)
    };
    let mut world: World = field.world();
    world.set_tick_threads(threads);
    assert_eq!(world.tick_threads(), threads);
    scene()
        .into_iter()
        .map(|commands| {
            let mut output = TickOutput {
                updates: Vec::new(),
                others: Vec::new(),
            };
            for event in world.tick(commands) {
                match event {
                    Event::View { to, update } => {
                        let mut bytes = Vec::new();
                        ServerMessage::WorldUpdate(update).write_json(&mut bytes);
                        output.updates.push((to, bytes));
                    }
                    other => output.others.push(format!("{other:?}")),
                }
            }
            output
        })
        .collect()
}

#[test]
fn views_on_several_threads_give_the_same_world_update_bytes_as_one_thread() {
    let serial = play(1);
    // The scene is the case the threads are for: every tick of it has views enough for four
    // threads (a tick with fewer stays on one), and local chat heard in them.
    for (tick, output) in serial.iter().enumerate() {
        assert!(
            output.updates.len() >= 4 * VIEWS_PER_THREAD,
            "tick {tick}: only {} views",
            output.updates.len()
        );
    }
    assert!(serial
        .iter()
        .any(|o| o.others.iter().any(|e| e.starts_with("LocalChat"))));
    for threads in [2, 4] {
        let parallel = play(threads);
        assert_eq!(parallel.len(), serial.len());
        for (tick, (one, many)) in serial.iter().zip(&parallel).enumerate() {
            assert_eq!(
                one.updates.len(),
                many.updates.len(),
                "tick {tick}, {threads} threads: update count"
            );
            for ((to_one, bytes_one), (to_many, bytes_many)) in
                one.updates.iter().zip(&many.updates)
            {
                assert_eq!(to_one, to_many, "tick {tick}, {threads} threads: order");
                assert!(
                    bytes_one == bytes_many,
                    "tick {tick}, {threads} threads: {to_one}'s world:update differs:\n{}\n{}",
                    String::from_utf8_lossy(bytes_one),
                    String::from_utf8_lossy(bytes_many)
                );
            }
            assert_eq!(one.others, many.others, "tick {tick}, {threads} threads");
        }
    }
}

#[test]
fn the_tick_thread_count_is_kept_between_one_and_the_maximum() {
    let mut world = Field::new(8).world();
    world.set_tick_threads(0);
    assert_eq!(world.tick_threads(), 1);
    world.set_tick_threads(wayfarer_sim::MAX_TICK_THREADS);
    assert_eq!(world.tick_threads(), wayfarer_sim::MAX_TICK_THREADS);
    world.set_tick_threads(wayfarer_sim::MAX_TICK_THREADS + 1);
    assert_eq!(world.tick_threads(), wayfarer_sim::MAX_TICK_THREADS);
}
