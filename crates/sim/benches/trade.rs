//! Micro-benchmarks of player-to-player trading through the public API the server uses (commands
//! queued, one `World::tick` per server step, the save outcome fed back as
//! `Command::TradeCommitted`):
//!
//! - `trade/full_trade`: one whole trade between two players standing side by side, from the
//!   request to the applied commit (each offers 1 coin).
//! - `trade/many_pairs/100`: the same trade for 100 pairs at once in one world ticking together,
//!   reported per trade. The trade state machine has no public layer below the world (its book of
//!   trades and its steps are crate-private and work on the world's players), so it cannot be
//!   benchmarked without ticking; this shows the per-trade cost once the ticks are shared.
//!
//! Both check once, before timing, that the trade really completed (commit handed out, outcome
//! applied, coins received by both, inventories conserved), so they cannot silently time a refused
//! trade.
//!
//! Run with `cargo bench -p wayfarer-sim --bench trade -- --quick` for a fast estimate.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use serde_json::json;
use wayfarer_protocol::ws::TilePos;
use wayfarer_sim::exchange::Notice;
use wayfarer_sim::inventory::{Inventory, Stack};
use wayfarer_sim::{Command, Event, Joining, TradeCommand, TradeCommit, World};

mod support;
use support::{build, plain_manifests};

/// Coins each requester (`a-<k>`) and each target (`b-<k>`) holds, in inventory slot 0.
const A_COINS: u32 = 100;
const B_COINS: u32 = 50;
/// Tiles between neighbouring pairs (a pair stands on two adjacent tiles).
const PAIR_SPACING: i32 = 4;

/// A world of `pairs` pairs of players, each pair on two adjacent tiles (within trading distance),
/// pairs [`PAIR_SPACING`] tiles apart on a square grid of an open plain with coins as an item.
fn world_of_pairs(pairs: usize) -> (World, Vec<(String, String)>) {
    let columns = (pairs as f64).sqrt().ceil() as i32;
    let side = columns * PAIR_SPACING + PAIR_SPACING;
    let mut set = plain_manifests(side, 0, 0);
    set.insert(
        "items/misc.json",
        json!([{"id": "coins", "name": "Coins", "type": "currency", "value": 1,
                "stackable": true}])
        .to_string(),
    );
    let mut world = World::new(build(&set), 7);
    let joining = |id: &str, tile: TilePos, coins: u32| {
        let mut inventory = Inventory::new();
        inventory
            .add("coins", coins, true)
            .expect("an empty inventory holds coins");
        Command::Join(Box::new(Joining {
            inventory,
            ..Joining::new(id, id.to_uppercase(), tile)
        }))
    };
    let mut joins = Vec::with_capacity(2 * pairs);
    let mut ids = Vec::with_capacity(pairs);
    for k in 0..pairs as i32 {
        let x = PAIR_SPACING / 2 + (k % columns) * PAIR_SPACING;
        let z = PAIR_SPACING / 2 + (k / columns) * PAIR_SPACING;
        let (a, b) = (format!("a-{k}"), format!("b-{k}"));
        joins.push(joining(&a, TilePos { x, z }, A_COINS));
        joins.push(joining(&b, TilePos { x: x + 1, z }, B_COINS));
        ids.push((a, b));
    }
    world.tick(joins);
    world.tick(Vec::new());
    assert_eq!(world.players_online(), 2 * pairs);
    (world, ids)
}

fn trade(id: &str, command: TradeCommand) -> Command {
    Command::Trade {
        id: id.to_owned(),
        command,
        reference: None,
    }
}

/// What one round of trades left to check.
struct Round {
    /// Every pair's commit, in pair order.
    commits: Vec<TradeCommit>,
    /// The events of the tick that applied the outcomes.
    completed: Vec<Event>,
}

/// One complete trade for every pair (each offers 1 coin from slot 0), in the three ticks it needs
/// at least. Not one tick per step: the world applies a tick's commands in order, so every step
/// whose input the client already has shares a tick; only the trade id (sent in `tradeIncoming`)
/// and the save outcome (asked for by `Event::TradeCommit`) wait for the tick that reports them. In
/// a live server the clicks arrive over more ticks; the work per step is the same.
///
/// 1. `tradeRequest`.
/// 2. `tradeRequestRespond` accept, both `tradeAddItem`, both `tradeAccept` (Screen 1 → Screen 2),
///    both `tradeAccept` on the confirm screen → `Event::TradeCommit`.
/// 3. `Command::TradeCommitted { ok: true }` (the server's transaction succeeded) → the swap is
///    applied, `tradeCompleted` to both.
fn trade_round(world: &mut World, pairs: &[(String, String)]) -> Round {
    let requests = pairs
        .iter()
        .map(|(a, b)| trade(a, TradeCommand::Request { target: b.clone() }))
        .collect();
    let events = world.tick(requests);
    // Requests are answered in order, so the `tradeIncoming`s follow the pairs.
    let trade_ids: Vec<String> = events
        .into_iter()
        .filter_map(|e| match e {
            Event::Exchange {
                id,
                notice: Notice::Asked { .. },
                ..
            } => id,
            _ => None,
        })
        .collect();
    assert_eq!(
        trade_ids.len(),
        pairs.len(),
        "every request reached its target"
    );

    let mut steps = Vec::with_capacity(7 * pairs.len());
    for ((a, b), trade_id) in pairs.iter().zip(&trade_ids) {
        let add = |id: &str| {
            trade(
                id,
                TradeCommand::AddItem {
                    trade_id: trade_id.clone(),
                    slot: 0,
                    quantity: Some(1),
                },
            )
        };
        let accept = |id: &str| {
            trade(
                id,
                TradeCommand::Accept {
                    trade_id: trade_id.clone(),
                },
            )
        };
        steps.push(trade(
            b,
            TradeCommand::Respond {
                trade_id: trade_id.clone(),
                accept: true,
            },
        ));
        steps.extend([add(a), add(b), accept(a), accept(b), accept(a), accept(b)]);
    }
    let commits: Vec<TradeCommit> = world
        .tick(steps)
        .into_iter()
        .filter_map(|e| match e {
            Event::TradeCommit(commit) => Some(*commit),
            _ => None,
        })
        .collect();
    assert_eq!(commits.len(), pairs.len(), "every trade reached its commit");

    let outcomes = commits
        .iter()
        .map(|c| Command::TradeCommitted {
            trade_id: c.trade_id.clone(),
            ok: true,
        })
        .collect();
    let completed = world.tick(outcomes);
    Round { commits, completed }
}

/// The round really traded: each pair's commit swaps 1 coin each way, both players were told
/// `tradeCompleted` with 1 coin received and their inventories written, the world holds the
/// committed inventories, no coin appeared or vanished, and no trade is left open.
fn assert_traded(world: &World, pairs: &[(String, String)], round: &Round) {
    let one_coin = vec![Stack {
        item_id: "coins".into(),
        quantity: 1,
    }];
    assert_eq!(round.commits.len(), pairs.len());
    for ((a, b), commit) in pairs.iter().zip(&round.commits) {
        assert_eq!(commit.players, [a.clone(), b.clone()]);
        assert_eq!(commit.gives, [one_coin.clone(), one_coin.clone()]);
        for (side, (player, coins)) in [(a, A_COINS), (b, B_COINS)].into_iter().enumerate() {
            let completed: Vec<(&Option<String>, &Notice)> = round
                .completed
                .iter()
                .filter_map(|e| match e {
                    Event::Exchange { to, id, notice, .. } if to == player => Some((id, notice)),
                    _ => None,
                })
                .collect();
            match completed.as_slice() {
                [(Some(id), Notice::Traded { received })] => {
                    assert_eq!(*id, commit.trade_id);
                    assert_eq!(*received, one_coin);
                }
                other => panic!("expected one tradeCompleted for {player}, got {other:?}"),
            }
            assert!(
                round
                    .completed
                    .iter()
                    .any(|e| matches!(e, Event::Inventory { to, .. } if to == player)),
                "{player}'s inventory was written"
            );
            let inventory = world.player_inventory(player).expect("still online");
            assert_eq!(inventory, &commit.after[side]);
            // 1 coin out, 1 coin in: conserved, and back in slot 0 for the next round.
            assert_eq!(inventory.count("coins"), u64::from(coins));
            assert_eq!(inventory.get(0).map(|s| s.quantity), Some(coins));
            assert!(!world.in_trade(player));
        }
    }
    assert_eq!(world.open_trades(), 0);
}

fn trades(c: &mut Criterion) {
    let mut group = c.benchmark_group("trade");

    let (mut world, pairs) = world_of_pairs(1);
    let round = trade_round(&mut world, &pairs);
    assert_traded(&world, &pairs, &round);
    group.throughput(Throughput::Elements(1));
    group.bench_function("full_trade", |b| b.iter(|| trade_round(&mut world, &pairs)));

    const PAIRS: usize = 100;
    let (mut world, pairs) = world_of_pairs(PAIRS);
    let round = trade_round(&mut world, &pairs);
    assert_traded(&world, &pairs, &round);
    // Per-trade cost is time / 100.
    group.throughput(Throughput::Elements(PAIRS as u64));
    group.bench_function(BenchmarkId::new("many_pairs", PAIRS), |b| {
        b.iter(|| trade_round(&mut world, &pairs))
    });

    group.finish();
}

criterion_group! {
    name = benches;
    config = support::world_bench_config();
    targets = trades
}
criterion_main!(benches);
