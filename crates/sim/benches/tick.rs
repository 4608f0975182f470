//! Micro-benchmarks of the tick: a busy world (2,000 players, half of them walking, and 5,000
//! wandering NPCs on a large open map), the view phase alone for a crowd versus players spread out,
//! and the view phase of a local group with 0, 1,000 and 4,000 idle players far away.
//!
//! Run with `cargo bench -p wayfarer-sim -- --quick` for a fast estimate.

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use wayfarer_protocol::ws::TilePos;
use wayfarer_sim::{Command, Joining, Phase, World};

mod support;
use support::{goblin_plain, walk_near, Lcg};

/// Side of the open map in tiles.
const MAP_TILES: i32 = 1024;
const PLAYERS: usize = 2_000;
const NPC_SPAWNERS: usize = 500;
const NPCS_PER_SPAWNER: u32 = 10;
/// A walking player gets a new target about this often, so walks overlap and half the players keep
/// moving without every one of them path-finding every tick.
const RETARGET_TICKS: usize = 30;

/// A world with `PLAYERS` players placed within `spread` tiles of the map centre (or all over the map
/// when `spread` covers it), and a closure producing each tick's commands: every
/// `RETARGET_TICKS`-th walker (in turn) is sent to a new tile within `stride` of where it is.
struct Scenario {
    world: World,
    rng: Lcg,
    walkers: Vec<String>,
    turn: usize,
    spread: i32,
    stride: i32,
    /// Players who say a local line each tick (in turn).
    talkers_per_tick: usize,
}

impl Scenario {
    fn new(spawners: usize, spread: i32, walking_share: f64, stride: i32) -> Scenario {
        let mut world = World::new(goblin_plain(MAP_TILES, spawners, NPCS_PER_SPAWNER), 11);
        let mut rng = Lcg(17);
        let centre = MAP_TILES / 2;
        let mut joins = Vec::new();
        let mut walkers = Vec::new();
        for i in 0..PLAYERS {
            let id = format!("player-{i}");
            joins.push(Command::Join(Box::new(Joining {
                health: 10,
                ignored: vec![],
                ..Joining::new(
                    id.clone(),
                    format!("P{i}"),
                    TilePos {
                        x: centre - spread / 2 + rng.below(spread),
                        z: centre - spread / 2 + rng.below(spread),
                    },
                )
            })));
            if (i as f64) < PLAYERS as f64 * walking_share {
                walkers.push(id);
            }
        }
        world.tick(joins);
        let mut scenario = Scenario {
            world,
            rng,
            walkers,
            turn: 0,
            spread,
            stride,
            talkers_per_tick: 0,
        };
        // Everyone who walks starts walking now.
        let all: Vec<Command> = (0..scenario.walkers.len())
            .map(|i| scenario.retarget(i))
            .collect();
        scenario.world.tick(all);
        scenario
    }

    /// A move for walker `i` to a random tile near the centre of its region.
    fn retarget(&mut self, i: usize) -> Command {
        let centre = MAP_TILES / 2;
        let half = self.spread / 2;
        walk_near(
            &self.world,
            self.walkers[i].clone(),
            &mut self.rng,
            self.stride,
            TilePos { x: 0, z: 0 },
            |v| v.clamp(centre - half, centre + half - 1),
            |_| false,
        )
    }

    /// This tick's commands.
    fn commands(&mut self) -> Vec<Command> {
        let per_tick = self.walkers.len().div_ceil(RETARGET_TICKS);
        let mut commands = Vec::with_capacity(per_tick);
        for _ in 0..per_tick {
            let i = self.turn % self.walkers.len();
            self.turn += 1;
            commands.push(self.retarget(i));
        }
        for n in 0..self.talkers_per_tick {
            let i = self.rng.below(PLAYERS as i32);
            // Lines differ, as people's do: a player's repeated line would be held (chat
            // limits), and fewer lines heard would measure less work.
            commands.push(Command::Chat {
                id: format!("player-{i}"),
                channel: wayfarer_protocol::ws::ChatChannel::Local,
                text: format!("hello from {i} ({}.{n})", self.turn),
                to: None,
                reference: None,
            });
        }
        commands
    }
}

fn busy_world(c: &mut Criterion) {
    let mut scenario = Scenario::new(NPC_SPAWNERS, MAP_TILES, 0.5, 80);
    let counts = scenario.world.counts();
    assert_eq!(counts.players, PLAYERS);
    assert_eq!(counts.npcs, NPC_SPAWNERS * NPCS_PER_SPAWNER as usize);
    c.bench_function("tick/2000_players_half_moving_5000_npcs", |b| {
        b.iter(|| {
            let commands = scenario.commands();
            scenario.world.tick(commands)
        })
    });
}

/// Times only the view phase of each tick.
fn view_phase(scenario: &mut Scenario, iterations: u64) -> Duration {
    phase_time(scenario, iterations, Phase::View)
}

/// Times only `timed` (to the start of the next phase, or the end of the tick) of each tick.
fn phase_time(scenario: &mut Scenario, iterations: u64, timed: Phase) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iterations {
        let commands = scenario.commands();
        let mut started = None;
        scenario.world.tick_observed(commands, &mut |phase| {
            if phase == timed {
                started = Some(Instant::now());
            } else if let Some(at) = started.take() {
                total += at.elapsed();
            }
        });
        if let Some(at) = started {
            total += at.elapsed();
        }
    }
    total
}

/// A talking crowd: 2,000 players in a 64×64 square, all walking, 330 of them saying a local line
/// each tick (the load generator's mixed scenario says about as many). Who hears each line is
/// worked out from every listener's shown list on the view threads, just before its view is
/// refreshed (`chat::hearing`), so the lines' cost is this against
/// `view/crowd_2000_players_in_64x64_all_moving`, and the input phase only gathers them.
fn local_chat(c: &mut Criterion) {
    let mut crowd = Scenario::new(0, 64, 1.0, 10);
    crowd.talkers_per_tick = 330;
    // A tick of views first, so every listener has been shown its crowd.
    let commands = crowd.commands();
    crowd.world.tick(commands);
    c.bench_function("input/crowd_2000_players_330_local_lines", |b| {
        b.iter_custom(|n| phase_time(&mut crowd, n, Phase::Input))
    });
    c.bench_function("view/crowd_2000_players_330_local_lines", |b| {
        b.iter_custom(|n| view_phase(&mut crowd, n))
    });
}

fn views(c: &mut Criterion) {
    let mut group = c.benchmark_group("view");
    // 2,000 players in a 64×64 square, all walking: every view is full (255 players) and changes.
    let mut crowd = Scenario::new(0, 64, 1.0, 10);
    group.bench_function("crowd_2000_players_in_64x64_all_moving", |b| {
        b.iter_custom(|n| view_phase(&mut crowd, n))
    });
    // 2,000 players over the whole map, all walking: a few neighbours each.
    let mut spread = Scenario::new(0, MAP_TILES, 1.0, 80);
    group.bench_function("spread_2000_players_in_1024x1024_all_moving", |b| {
        b.iter_custom(|n| view_phase(&mut spread, n))
    });
    // The same spread, with nobody moving: quiet views are skipped.
    let mut idle = Scenario::new(0, MAP_TILES, 0.0, 80);
    group.bench_function("spread_2000_players_idle", |b| {
        b.iter_custom(|n| view_phase(&mut idle, n))
    });
    group.finish();
}

/// 200 players walking in a 64×64 square at the centre, and `far` idle players more than 100 tiles
/// away: the view phase should cost the same whatever `far` is (the issue's "cost must not grow with
/// the number of players outside the view").
fn local_group_with_far_players(far: usize) -> (World, Vec<String>) {
    const LOCAL: usize = 200;
    let mut world = World::new(goblin_plain(MAP_TILES, 0, NPCS_PER_SPAWNER), 13);
    let mut rng = Lcg(23);
    let centre = MAP_TILES / 2;
    let mut joins = Vec::new();
    let mut locals = Vec::new();
    for i in 0..LOCAL {
        let id = format!("local-{i}");
        joins.push(Command::Join(Box::new(Joining {
            health: 10,
            ignored: vec![],
            ..Joining::new(
                id.clone(),
                format!("L{i}"),
                TilePos {
                    x: centre - 32 + rng.below(64),
                    z: centre - 32 + rng.below(64),
                },
            )
        })));
        locals.push(id);
    }
    for i in 0..far {
        // The western third of the map, far from the centre square.
        joins.push(Command::Join(Box::new(Joining {
            health: 10,
            ignored: vec![],
            ..Joining::new(
                format!("far-{i}"),
                format!("F{i}"),
                TilePos {
                    x: rng.below(MAP_TILES / 3),
                    z: rng.below(MAP_TILES),
                },
            )
        })));
    }
    world.tick(joins);
    world.tick(Vec::new());
    (world, locals)
}

fn view_cost_ignores_far_players(c: &mut Criterion) {
    let mut group = c.benchmark_group("view_local_200_moving");
    for far in [0usize, 1_000, 4_000] {
        let (mut world, locals) = local_group_with_far_players(far);
        let mut rng = Lcg(29);
        group.bench_function(format!("with_{far}_far_players"), |b| {
            b.iter_custom(|n| {
                let mut total = Duration::ZERO;
                for _ in 0..n {
                    let centre = MAP_TILES / 2;
                    let commands: Vec<Command> = locals
                        .iter()
                        .step_by(10)
                        .map(|id| Command::Move {
                            id: id.clone(),
                            x: centre - 32 + rng.below(64),
                            z: centre - 32 + rng.below(64),
                            run: false,
                            reference: None,
                        })
                        .collect();
                    let mut started = None;
                    world.tick_observed(commands, &mut |phase| {
                        if phase == Phase::View {
                            started = Some(Instant::now());
                        }
                    });
                    if let Some(started) = started {
                        total += started.elapsed();
                    }
                }
                total
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = support::world_bench_config();
    targets = busy_world, views, local_chat, view_cost_ignores_far_players
}
criterion_main!(benches);
