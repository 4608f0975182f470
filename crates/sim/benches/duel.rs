//! Micro-benchmarks of a duel with stakes through the public API the server uses (commands queued,
//! one `World::tick` per server step, the save outcome fed back as `Command::DuelCommitted`):
//!
//! - `duel/commit`: the commit path's half in the world, from a duel waiting for its transaction
//!   (the fight just ended, `Event::DuelCommit` handed out) to the applied result: the loser's
//!   stake moved to the winner, both inventories written, `duel:result` to both.
//! - `duel/full_duel`: one whole duel between two players side by side, from the challenge through
//!   both screens, the fight in the arena (a strong challenger against a 1-hp opponent, so it ends
//!   at the first blow that lands; the world's seeded dice make it the same tick every time) and
//!   the commit, to the applied result.
//!
//! Each iteration gets a fresh world (set up untimed), since a finished duel has moved the coins.
//! Both check once, before timing, that the duel really finished with the stakes where they must
//! be, so they cannot silently time a refused duel.
//!
//! Run with `cargo bench -p wayfarer-sim --bench duel -- --quick` for a fast estimate.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use serde_json::json;
use wayfarer_content::Skill;
use wayfarer_protocol::ws::TilePos;
use wayfarer_sim::exchange::Notice;
use wayfarer_sim::inventory::Inventory;
use wayfarer_sim::skills::{xp_for_level, Xp};
use wayfarer_sim::{Action, Command, DuelCommand, DuelCommit, Event, Joining, World};

mod support;
use support::{build, plain_manifests};

const A_COINS: u32 = 100;
const B_COINS: u32 = 50;
/// Ticks a fight may take before the bench gives up (it ends in a handful).
const FIGHT_LIMIT_TICKS: usize = 200;

/// A plain with an arena: `a` (attack and strength 99) and `b` (1 hp) side by side, with coins.
fn world() -> World {
    let mut set = plain_manifests(40, 0, 0);
    set.insert(
        "items/misc.json",
        json!([{"id": "coins", "name": "Coins", "type": "currency", "value": 1,
                "stackable": true}])
        .to_string(),
    );
    let mut world = World::new(build(&set), 7);
    let joining = |id: &str, x: i32, coins: u32| {
        let mut inventory = Inventory::new();
        inventory.add("coins", coins, true).expect("room for coins");
        Joining {
            inventory,
            ..Joining::new(id, id.to_uppercase(), TilePos { x, z: 10 })
        }
    };
    let mut a = joining("a", 10, A_COINS);
    for skill in [Skill::Attack, Skill::Strength] {
        a.skills.set_xp(skill, Xp::from_points(xp_for_level(99)));
    }
    let mut b = joining("b", 11, B_COINS);
    b.health = 1;
    world.tick(vec![Command::Join(Box::new(a)), Command::Join(Box::new(b))]);
    world.tick(Vec::new());
    world
}

fn duel(id: &str, command: DuelCommand) -> Command {
    Command::Duel {
        id: id.to_owned(),
        command,
        reference: None,
    }
}

/// From the challenge to the fight's end: the commit the world hands out.
fn fight(world: &mut World) -> DuelCommit {
    world.tick(vec![duel(
        "a",
        DuelCommand::Challenge { target: "b".into() },
    )]);
    let id = "duel-1".to_owned();
    let stake = |p: &str| {
        duel(
            p,
            DuelCommand::Stake {
                duel_id: id.clone(),
                slot: 0,
                quantity: None,
            },
        )
    };
    let accept = |p: &str| {
        duel(
            p,
            DuelCommand::Accept {
                duel_id: id.clone(),
            },
        )
    };
    let mut events = world.tick(vec![
        duel(
            "b",
            DuelCommand::Respond {
                duel_id: id.clone(),
                accept: true,
            },
        ),
        stake("a"),
        stake("b"),
        accept("a"),
        accept("b"),
        accept("a"),
        accept("b"),
        Command::Action {
            id: "a".into(),
            action: Action::Attack { target: "b".into() },
            reference: None,
        },
    ]);
    // The first swing may land in the tick that started the fight.
    for _ in 0..FIGHT_LIMIT_TICKS {
        for event in events {
            if let Event::DuelCommit(commit) = event {
                return *commit;
            }
        }
        events = world.tick(Vec::new());
    }
    panic!("the fight did not end within {FIGHT_LIMIT_TICKS} ticks");
}

/// The transaction's success applied: the result's events.
fn commit(world: &mut World, commit: &DuelCommit) -> Vec<Event> {
    world.tick(vec![Command::DuelCommitted {
        duel_id: commit.duel_id.clone(),
        ok: true,
    }])
}

/// The duel really finished: a won, both told, every coin where the result puts it.
fn assert_finished(world: &World, plan: &DuelCommit, events: &[Event]) {
    assert_eq!(plan.players, ["a".to_string(), "b".to_string()]);
    let results = events
        .iter()
        .filter(|e| {
            matches!(
                e,
                Event::Exchange {
                    notice: Notice::Decided { .. },
                    ..
                }
            )
        })
        .count();
    assert_eq!(results, 2, "duel:result to both");
    let coins = |p: &str| world.player_inventory(p).expect("online").count("coins");
    assert_eq!(coins("a"), u64::from(A_COINS + B_COINS));
    assert_eq!(coins("b"), 0);
    assert_eq!(world.open_duels(), 0);
}

fn duels(c: &mut Criterion) {
    let mut group = c.benchmark_group("duel");
    group.throughput(Throughput::Elements(1));

    let mut checked = world();
    let plan = fight(&mut checked);
    let events = commit(&mut checked, &plan);
    assert_finished(&checked, &plan, &events);

    group.bench_function("commit", |bench| {
        bench.iter_batched(
            || {
                let mut w = world();
                let plan = fight(&mut w);
                (w, plan)
            },
            |(mut w, plan)| commit(&mut w, &plan),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("full_duel", |bench| {
        bench.iter_batched(
            world,
            |mut w| {
                let plan = fight(&mut w);
                commit(&mut w, &plan)
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = support::world_bench_config();
    targets = duels
}
criterion_main!(benches);
