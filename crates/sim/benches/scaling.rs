//! How one tick scales with the world's population: 100, 1,000 and 5,000 players plus as many
//! wandering NPCs, half the players walking, at the same density for every size (the map grows with
//! the population, so each player sees about as many others whatever the size).
//!
//! Run with `cargo bench -p wayfarer-sim --bench scaling -- --quick` for a fast estimate.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use wayfarer_protocol::ws::TilePos;
use wayfarer_sim::{Command, Joining, World};

mod support;
use support::{goblin_plain, walk_near, Lcg};

/// Population sizes: players, and as many NPCs.
const SIZES: [usize; 3] = [100, 1_000, 5_000];
/// Open tiles per player: 5,000 players get a map of about 1,000².
const TILES_PER_PLAYER: usize = 200;
const NPCS_PER_SPAWNER: usize = 10;
/// A walking player gets a new target about this often (as in `tick.rs`).
const RETARGET_TICKS: usize = 30;
/// How far a new target lies from where the walker stands, at most.
const STRIDE: i32 = 40;

/// A world of `players` players (half of them walking) and as many NPCs.
struct Population {
    world: World,
    rng: Lcg,
    side: i32,
    walkers: Vec<String>,
    turn: usize,
}

impl Population {
    fn new(players: usize) -> Population {
        let side = ((players * TILES_PER_PLAYER) as f64).sqrt().ceil() as i32;
        let mut world = World::new(
            goblin_plain(side, players / NPCS_PER_SPAWNER, NPCS_PER_SPAWNER as u32),
            11,
        );
        let mut rng = Lcg(17);
        let mut joins = Vec::with_capacity(players);
        let mut walkers = Vec::new();
        for i in 0..players {
            let id = format!("player-{i}");
            let tile = TilePos {
                x: rng.below(side),
                z: rng.below(side),
            };
            joins.push(Command::Join(Box::new(Joining {
                health: 10,
                ignored: vec![],
                ..Joining::new(id.clone(), format!("P{i}"), tile)
            })));
            if i % 2 == 0 {
                walkers.push(id);
            }
        }
        world.tick(joins);
        let mut population = Population {
            world,
            rng,
            side,
            walkers,
            turn: 0,
        };
        let counts = population.world.counts();
        assert_eq!(counts.players, players);
        assert_eq!(counts.npcs, players);
        // Every walker starts walking now.
        let all = (0..population.walkers.len())
            .map(|i| population.retarget(i))
            .collect();
        population.world.tick(all);
        population
    }

    /// A move for walker `i` to a random tile within [`STRIDE`] of where it is.
    fn retarget(&mut self, i: usize) -> Command {
        let side = self.side;
        walk_near(
            &self.world,
            self.walkers[i].clone(),
            &mut self.rng,
            STRIDE,
            TilePos { x: 0, z: 0 },
            |v| v.clamp(0, side - 1),
            |_| false,
        )
    }

    /// This tick's commands: the next 1/[`RETARGET_TICKS`] of the walkers get new targets.
    fn commands(&mut self) -> Vec<Command> {
        let per_tick = self.walkers.len().div_ceil(RETARGET_TICKS);
        (0..per_tick)
            .map(|_| {
                let i = self.turn % self.walkers.len();
                self.turn += 1;
                self.retarget(i)
            })
            .collect()
    }
}

fn tick_by_population(c: &mut Criterion) {
    let mut group = c.benchmark_group("tick_scaling/players_and_as_many_npcs");
    for players in SIZES {
        let mut population = Population::new(players);
        // Per-entity cost is time / (2 × players).
        group.throughput(Throughput::Elements(2 * players as u64));
        group.bench_function(BenchmarkId::from_parameter(players), |b| {
            b.iter(|| {
                let commands = population.commands();
                population.world.tick(commands)
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = support::world_bench_config();
    targets = tick_by_population
}
criterion_main!(benches);
