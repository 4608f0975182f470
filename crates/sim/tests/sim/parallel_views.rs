//! Views give the same bytes however they are computed. A recorded scene (a crowd that walks,
//! runs, talks, teleports, leaves and comes back among wandering mobs) is played on several
//! worlds and every tick's `world:update`s, encoded as the server writes them, must be
//! byte-identical, in the same order, with every other event the same too:
//! - split over threads (`TICK_THREADS`): worlds with 1, 2 and 4 view threads (which plan the
//!   tick's walks too: the crowd asks for ~290 a tick, enough for two);
//! - kept between ticks (a view is recomputed only near a change, and a viewer keeps the slots it
//!   was shown): against the oracle, every view recomputed every tick, over a long random walk
//!   where many views are quiet and slots are freed and reused.

use wayfarer_protocol::ws::{ChatChannel, ServerMessage, TilePos};
use wayfarer_sim::{Command, Event, World, VIEWS_PER_THREAD};

use crate::{join, run, t, walk, Field, Lcg, Mobs};

/// A scene: `crowd` players in a square of `square` tiles (from (10, 10)) for `ticks` ticks, each
/// player doing something in one tick of `act_one_in` (a dice roll per player; some rolls do
/// nothing), walking anywhere in the square or, with `roam`, within that many tiles of where it
/// entered.
struct Shape {
    crowd: usize,
    square: i32,
    ticks: u64,
    act_one_in: u64,
    roam: Option<i32>,
}

/// Everyone in one square where everyone sees a full view of 255 others, with enough due views
/// every tick for four threads' worth of them.
const CROWD: Shape = Shape {
    crowd: 700,
    square: 40,
    ticks: 12,
    act_one_in: 1,
    roam: None,
};

/// A long walk over a wide field, few acting at once: many views quiet in every tick.
const WALK: Shape = Shape {
    crowd: 160,
    square: 200,
    ticks: 150,
    act_one_in: 30,
    roam: Some(6),
};

/// The scene's commands, tick by tick: the same list for every world.
fn scene(shape: &Shape) -> Vec<Vec<Command>> {
    let mut rng = Lcg(33);
    let tile = |rng: &mut Lcg| {
        t(
            10 + rng.next(shape.square as u64) as i32,
            10 + rng.next(shape.square as u64) as i32,
        )
    };
    let mut homes = Vec::new();
    let target = |rng: &mut Lcg, homes: &[TilePos], i: usize| match shape.roam {
        Some(roam) => {
            let home = homes[i];
            let near = |v: i32, rng: &mut Lcg| {
                (v - roam + rng.next(2 * roam as u64 + 1) as i32).clamp(10, 10 + shape.square - 1)
            };
            t(near(home.x, rng), near(home.z, rng))
        }
        None => tile(rng),
    };
    let mut ticks = Vec::new();
    let mut away: Vec<usize> = Vec::new();
    for tick in 0..shape.ticks {
        let mut commands = Vec::new();
        if tick == 0 {
            homes = (0..shape.crowd).map(|_| tile(&mut rng)).collect();
            commands.extend((0..shape.crowd).map(|i| join(&format!("p{i}"), homes[i])));
        }
        // Those who left two ticks ago come back (their views start over).
        if tick % 2 == 0 {
            for i in away.drain(..) {
                commands.push(join(&format!("p{i}"), tile(&mut rng)));
            }
        }
        for i in 0..shape.crowd {
            if away.contains(&i) || (shape.act_one_in > 1 && rng.next(shape.act_one_in) != 0) {
                continue;
            }
            let id = format!("p{i}");
            commands.push(match rng.next(12) {
                0..=3 => walk(&id, target(&mut rng, &homes, i)),
                4 => run(&id, target(&mut rng, &homes, i)),
                5 => Command::Chat {
                    id,
                    channel: ChatChannel::Local,
                    text: format!("tick {tick} from {i}"),
                    to: None,
                    reference: None,
                },
                6 if tick % 5 == 3 => Command::Teleport {
                    id,
                    tile: tile(&mut rng),
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

/// Plays `shape`'s scene among wandering mobs on a world with `threads` view threads, every
/// view recomputed every tick when `every_view`.
fn play(shape: &Shape, threads: usize, every_view: bool) -> Vec<TickOutput> {
    let field = Field {
        mobs: vec![Mobs {
            at: (30, 30),
            count: 60,
            radius: 20.0,
            wander: true,
        }],
        rocks: (0..40)
            .map(|i| (12 + i * 5 % shape.square, 15 + i * 7 % shape.square))
            .collect(),
        ..Field::new(shape.square + 24)
    };
    let mut world: World = field.world();
    world.set_tick_threads(threads);
    world.recompute_every_view(every_view);
    assert_eq!(world.tick_threads(), threads);
    scene(shape)
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
                        output.updates.push((to.to_string(), bytes));
                    }
                    other => output.others.push(format!("{other:?}")),
                }
            }
            output
        })
        .collect()
}

/// Fails at the first tick where `b` differs from `a` (`how` names the way `b` was computed).
fn assert_same(a: &[TickOutput], b: &[TickOutput], how: &str) {
    assert_eq!(a.len(), b.len());
    for (tick, (one, other)) in a.iter().zip(b).enumerate() {
        assert_eq!(
            one.updates.len(),
            other.updates.len(),
            "tick {tick}, {how}: update count"
        );
        for ((to_one, bytes_one), (to_other, bytes_other)) in one.updates.iter().zip(&other.updates)
        {
            assert_eq!(to_one, to_other, "tick {tick}, {how}: order");
            assert!(
                bytes_one == bytes_other,
                "tick {tick}, {how}: {to_one}'s world:update differs:\n{}\n{}",
                String::from_utf8_lossy(bytes_one),
                String::from_utf8_lossy(bytes_other)
            );
        }
        assert_eq!(one.others, other.others, "tick {tick}, {how}");
    }
}

#[test]
fn views_on_several_threads_give_the_same_world_update_bytes_as_one_thread() {
    let serial = play(&CROWD, 1, false);
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
        assert_same(
            &serial,
            &play(&CROWD, threads, false),
            &format!("{threads} threads"),
        );
    }
}

#[test]
fn views_kept_between_ticks_give_the_updates_of_views_recomputed_every_tick() {
    let kept = play(&WALK, 1, false);
    let oracle = play(&WALK, 1, true);
    assert_same(&oracle, &kept, "views kept between ticks");
    // The walk is the case the keeping is for: in most ticks some players see a change and
    // others see none, players leave and come back (their slots freed and taken by others), and
    // they hear each other.
    let online = WALK.crowd;
    let mixed = kept
        .iter()
        .skip(1)
        .filter(|o| !o.updates.is_empty() && o.updates.len() < online - 20)
        .count();
    assert!(
        mixed > WALK.ticks as usize / 2,
        "{mixed} ticks with quiet views"
    );
    let lefts = kept
        .iter()
        .flat_map(|o| &o.others)
        .filter(|e| e.starts_with("Left"))
        .count();
    assert!(lefts >= 10, "{lefts} leaves");
    assert!(kept
        .iter()
        .any(|o| o.others.iter().any(|e| e.starts_with("LocalChat"))));
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
