//! A fixed run of the load generator's `mixed` crowd, in the sim alone, for instruction counts
//! (callgrind) rather than times: 2,000 players on the bundled world around its spawn, each
//! walking somewhere within 10 tiles every 1–3 s and saying a line every 2–5 s (one in a hundred
//! global), as the bots do; every tick's `world:update`s are encoded as the server writes them.
//! Not a criterion benchmark: `cargo bench --bench crowd_ticks` runs it once and prints what it
//! did; `TICK_THREADS` (default 1) sets the view threads. `CROWD_DIGEST=1` also prints a digest
//! of every encoded byte (FNV-1a, outside the counts' interest: it reads every byte again), so
//! two builds can be shown to send exactly the same updates.
//!
//! ```sh
//! cargo bench -p wayfarer-sim --bench crowd_ticks --no-run
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='crowd_ticks::measured' \
//!   target/release/deps/crowd_ticks-<hash> --bench
//! ```
//!
//! Per phase: each phase starts with a call of its own marker (`crowd_ticks::phase_input` …
//! `crowd_ticks::phase_view`, then `crowd_ticks::phase_encode` for the encoding after the tick and
//! `crowd_ticks::phase_bench` for making the commands),
//! so callgrind's `--dump-before='crowd_ticks::phase_*'` closes one profile per phase of each tick,
//! and `scripts/callgrind-phases.py` adds them up by phase.

use std::hint::black_box;
use std::sync::Arc;

use wayfarer_protocol::ws::{ChatChannel, ServerMessage, TilePos};
use wayfarer_sim::{Command, Event, Joining, Phase, World};

mod support;
use support::{walk_near, Lcg};

const PLAYERS: usize = 2_000;
/// The crowd stands within this many tiles of the spawn (the bundled world's walkable middle).
const CROWD_RADIUS: i32 = 40;
/// Ticks before the measured ones: everyone in, every view full.
const WARM_UP_TICKS: usize = 10;
const MEASURED_TICKS: usize = 20;
/// A player walks every 1–3 s and talks every 2–5 s: at 600 ms a tick, on average one in 3.3 a
/// tick walks and one in 5.8 talks.
const WALK_ONE_IN: i32 = 10;
const WALK_TIMES_IN_TEN: i32 = 3;
const TALK_ONE_IN: i32 = 6;
const GLOBAL_ONE_IN: i32 = 100;

struct Crowd {
    rng: Lcg,
    spawn: TilePos,
    /// Each player's line counter, so lines differ (a repeated line is held by the chat limits).
    said: Vec<u32>,
}

impl Crowd {
    fn near(&mut self, at: TilePos, radius: i32) -> TilePos {
        TilePos {
            x: at.x - radius + self.rng.below(2 * radius + 1),
            z: at.z - radius + self.rng.below(2 * radius + 1),
        }
    }

    fn commands(&mut self, world: &World) -> Vec<Command> {
        let mut commands = Vec::new();
        for i in 0..PLAYERS {
            let id = format!("p{i}");
            if self.rng.below(WALK_ONE_IN) < WALK_TIMES_IN_TEN {
                let run = |rng: &mut Lcg| rng.below(4) == 0;
                commands.push(walk_near(
                    world,
                    id.clone(),
                    &mut self.rng,
                    10,
                    self.spawn,
                    |v| v,
                    run,
                ));
            }
            if self.rng.below(TALK_ONE_IN) == 0 {
                self.said[i] += 1;
                let channel = if self.rng.below(GLOBAL_ONE_IN) == 0 {
                    ChatChannel::Global
                } else {
                    ChatChannel::Local
                };
                commands.push(Command::Chat {
                    id,
                    channel,
                    text: format!("line {} of {i}", self.said[i]),
                    to: None,
                    reference: None,
                });
            }
        }
        commands
    }
}

/// What the measured ticks did.
#[derive(Debug, Default)]
struct Done {
    updates: usize,
    bytes: usize,
    events: usize,
    /// FNV-1a of every encoded update in order, when asked for (`CROWD_DIGEST`).
    digest: Option<u64>,
}

/// Folds `bytes` into an FNV-1a digest.
fn fnv1a(mut digest: u64, bytes: &[u8]) -> u64 {
    for &byte in bytes {
        digest ^= u64::from(byte);
        digest = digest.wrapping_mul(0x0000_0100_0000_01b3);
    }
    digest
}

// One marker a phase: callgrind dumps its counts before each (`--dump-before`), so each dump is the
// phase that the marker before it opened. `black_box` keeps each a call of its own.
#[inline(never)]
fn phase_input() {
    black_box(0);
}
#[inline(never)]
fn phase_npcs() {
    black_box(1);
}
#[inline(never)]
fn phase_movement() {
    black_box(2);
}
#[inline(never)]
fn phase_actions() {
    black_box(3);
}
#[inline(never)]
fn phase_view() {
    black_box(4);
}
#[inline(never)]
fn phase_encode() {
    black_box(5);
}
/// The bench's own work (making the commands), and the end of the measured ticks.
#[inline(never)]
fn phase_bench() {
    black_box(6);
}

fn mark(phase: Phase) {
    match phase {
        Phase::Input => phase_input(),
        Phase::Npcs => phase_npcs(),
        Phase::Movement => phase_movement(),
        Phase::Actions => phase_actions(),
        Phase::View => phase_view(),
    }
}

/// The measured ticks (callgrind collects inside this function only).
#[inline(never)]
fn measured(world: &mut World, crowd: &mut Crowd, ticks: usize, digest: bool) -> Done {
    let mut done = Done {
        digest: digest.then_some(0xcbf2_9ce4_8422_2325),
        ..Done::default()
    };
    let mut frame = Vec::new();
    for _ in 0..ticks {
        phase_bench();
        let commands = crowd.commands(world);
        let events = world.tick_observed(commands, &mut mark);
        phase_encode();
        for event in events {
            done.events += 1;
            if let Event::View { update, .. } = event {
                frame.clear();
                ServerMessage::WorldUpdate(update).write_json(&mut frame);
                done.updates += 1;
                done.bytes += frame.len();
                if let Some(digest) = done.digest.as_mut() {
                    *digest = fnv1a(*digest, &frame);
                }
                black_box(&frame);
            }
        }
    }
    phase_bench();
    done
}

fn main() {
    let threads = std::env::var("TICK_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let mut world = World::new(Arc::new(wayfarer_content::load_bundled()), 7);
    world.set_chat_limits(false);
    world.set_tick_threads(threads);
    let spawn = world.spawn_tile();
    let mut crowd = Crowd {
        rng: Lcg(41),
        spawn,
        said: vec![0; PLAYERS],
    };
    let joins = (0..PLAYERS)
        .map(|i| {
            let tile = crowd.near(spawn, CROWD_RADIUS);
            Command::Join(Box::new(Joining::new(
                format!("p{i}"),
                format!("P{i}"),
                tile,
            )))
        })
        .collect();
    world.tick(joins);
    for _ in 0..WARM_UP_TICKS {
        let commands = crowd.commands(&world);
        world.tick(commands);
    }
    let started = std::time::Instant::now();
    let digest = std::env::var_os("CROWD_DIGEST").is_some();
    let done = measured(&mut world, &mut crowd, MEASURED_TICKS, digest);
    println!(
        "crowd_ticks: {MEASURED_TICKS} ticks of {PLAYERS} players on {threads} view thread(s): \
         {} updates ({} bytes encoded), {} events, {:.1} ms a tick",
        done.updates,
        done.bytes,
        done.events,
        started.elapsed().as_secs_f64() * 1000.0 / MEASURED_TICKS as f64
    );
    if let Some(digest) = done.digest {
        println!("crowd_ticks: digest of the encoded updates {digest:016x}");
    }
}
