//! The store's ceiling: durable economic commits per second (issue 33 point 5). Many submitters,
//! each a player waiting for its last operation to be durable before the next, commit trades (two
//! whole characters and the audit row), bank moves and shop buys through one committer, as the
//! server's save task does; once with group commit (every operation queued while the last group
//! was written goes into the next transaction, `Inventories::save_group`) and once without (a
//! transaction per operation, the save task before group commit). At the end the coins and the
//! bought items are counted in the database: nothing created, nothing lost.
//!
//! `cargo bench -p wayfarer-store --bench commits -- [--seconds 10] [--submitters 64]
//! [--backend sqlite|postgres|both] [--mode group|single|both]`; PostgreSQL needs
//! `TEST_DATABASE_URL` (a fresh database is made on it). SQLite runs in WAL mode with
//! `synchronous=FULL` and PostgreSQL with its default `synchronous_commit=on`: every commit is on
//! disk before its submitter hears of it.

use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot};
use wayfarer_store::testing::FreshDatabase;
use wayfarer_store::{
    CharacterSnapshot, GroupPolicy, LockedItem, NewCharacter, NewUser, SaveBatch, Store,
    StoredBankItem, StoredSlot, TradeAudit,
};

/// Coins each character starts with.
const START_COINS: i64 = 10_000;
/// What a shop sells for one coin.
const SHOP_ITEM: &str = "bronze_arrow";
/// Jobs in one group at most (the save task's `MAX_GROUP_JOBS`).
const MAX_GROUP: usize = 256;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Group,
    Single,
}

struct Options {
    seconds: u64,
    submitters: usize,
    backends: Vec<&'static str>,
    modes: Vec<Mode>,
}

fn options() -> Options {
    let mut o = Options {
        seconds: 10,
        submitters: 64,
        backends: vec!["sqlite", "postgres"],
        modes: vec![Mode::Single, Mode::Group],
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "--seconds" => o.seconds = value.parse().expect("--seconds N"),
            "--submitters" => o.submitters = value.parse().expect("--submitters N"),
            "--backend" => {
                o.backends = match value.as_str() {
                    "sqlite" => vec!["sqlite"],
                    "postgres" => vec!["postgres"],
                    "both" => vec!["sqlite", "postgres"],
                    other => panic!("--backend sqlite|postgres|both, not {other}"),
                }
            }
            "--mode" => {
                o.modes = match value.as_str() {
                    "group" => vec![Mode::Group],
                    "single" => vec![Mode::Single],
                    "both" => vec![Mode::Single, Mode::Group],
                    other => panic!("--mode group|single|both, not {other}"),
                }
            }
            // `cargo bench` passes `--bench`; anything else is not ours either.
            _ => {
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    o
}

type Job = (SaveBatch, oneshot::Sender<bool>);

/// The committer: the save task's loop, with groups of at most `max_group` jobs.
async fn committer(
    store: Store,
    mut jobs: mpsc::UnboundedReceiver<Job>,
    max_group: usize,
) -> (u64, u64) {
    let (mut groups, mut committed) = (0u64, 0u64);
    let mut group = Vec::with_capacity(max_group);
    while jobs.recv_many(&mut group, max_group).await > 0 {
        let (batches, replies): (Vec<SaveBatch>, Vec<_>) =
            std::mem::take(&mut group).into_iter().unzip();
        let outcomes = store
            .inventories()
            .save_group(&batches, GroupPolicy::default())
            .await;
        groups += 1;
        for (outcome, reply) in outcomes.into_iter().zip(replies) {
            committed += u64::from(outcome.is_committed());
            let _ = reply.send(outcome.is_committed());
        }
    }
    (groups, committed)
}

/// One player pair: A trades with B, and A banks and shops.
struct Submitter {
    a: CharacterSnapshot,
    b: CharacterSnapshot,
    next: u64,
}

fn coins_of(inventory: &[StoredSlot]) -> i64 {
    inventory
        .iter()
        .filter(|s| s.item_id == "coins")
        .map(|s| s.quantity)
        .sum()
}

fn add(inventory: &mut Vec<StoredSlot>, slot: u8, item: &str, delta: i64) {
    match inventory.iter_mut().find(|s| s.slot == slot) {
        Some(s) => s.quantity += delta,
        None => inventory.push(StoredSlot {
            slot,
            item_id: item.into(),
            quantity: delta,
        }),
    }
    inventory.retain(|s| s.quantity > 0);
    inventory.sort_by_key(|s| s.slot);
}

impl Submitter {
    /// The next operation's post-states and its batch; `kind` 0 trade, 1 bank move, 2 shop buy.
    fn next_op(&mut self) -> (usize, CharacterSnapshot, CharacterSnapshot, SaveBatch) {
        let kind = (self.next % 3) as usize;
        let (mut a, mut b) = (self.a.clone(), self.b.clone());
        let batch = match kind {
            0 => {
                // One coin to whoever has fewer.
                let a_gives = coins_of(&a.inventory) >= coins_of(&b.inventory);
                let (giver, taker) = if a_gives {
                    (&mut a, &mut b)
                } else {
                    (&mut b, &mut a)
                };
                add(&mut giver.inventory, 0, "coins", -1);
                add(&mut taker.inventory, 0, "coins", 1);
                let one = vec![LockedItem {
                    item_id: "coins".into(),
                    quantity: 1,
                }];
                SaveBatch {
                    trade: Some(TradeAudit {
                        id: wayfarer_store::new_id(),
                        player_a: self.a.character.id.clone(),
                        player_b: self.b.character.id.clone(),
                        items_a_to_b: if a_gives { one.clone() } else { vec![] },
                        items_b_to_a: if a_gives { vec![] } else { one },
                        completed_at_ms: wayfarer_store::now_ms(),
                    }),
                    snapshots: vec![a.clone(), b.clone()],
                    ..SaveBatch::default()
                }
            }
            1 => {
                // One coin into the bank, or back out every other time.
                let banked = a
                    .bank
                    .iter()
                    .find(|i| i.item_id == "coins")
                    .map_or(0, |i| i.quantity);
                let delta = if banked > 0 { -1 } else { 1 };
                add(&mut a.inventory, 0, "coins", -delta);
                a.bank.retain(|i| i.item_id != "coins");
                if banked + delta > 0 {
                    a.bank.insert(
                        0,
                        StoredBankItem {
                            item_id: "coins".into(),
                            quantity: banked + delta,
                        },
                    );
                }
                SaveBatch {
                    snapshots: vec![a.clone()],
                    ..SaveBatch::default()
                }
            }
            _ => {
                add(&mut a.inventory, 0, "coins", -1);
                add(&mut a.inventory, 1, SHOP_ITEM, 1);
                SaveBatch {
                    snapshots: vec![a.clone()],
                    ..SaveBatch::default()
                }
            }
        };
        for s in [&mut a, &mut b] {
            s.character.coins = coins_of(&s.inventory);
        }
        self.next += 1;
        (kind, a, b, batch)
    }
}

async fn new_character(store: &Store, name: String) -> CharacterSnapshot {
    let user = store.users().create(&NewUser::default()).await.unwrap();
    // A few more items than the coins, as a player carries, so a save writes realistic rows.
    let mut items = vec![StoredSlot {
        slot: 0,
        item_id: "coins".into(),
        quantity: START_COINS,
    }];
    for (slot, item) in [
        (5, "bronze_sword"),
        (6, "logs"),
        (7, "shrimps"),
        (8, "bronze_hatchet"),
    ] {
        items.push(StoredSlot {
            slot,
            item_id: item.into(),
            quantity: 1,
        });
    }
    let character = store
        .characters()
        .create_with_items(
            &NewCharacter {
                account_id: user.id,
                name,
                position: None,
            },
            items,
        )
        .await
        .unwrap();
    CharacterSnapshot {
        inventory: store.inventories().get(&character.id).await.unwrap(),
        equipment: vec![],
        bank: ["logs", "oak_logs", "copper_ore", "tin_ore", "feather"]
            .iter()
            .map(|item| StoredBankItem {
                item_id: (*item).into(),
                quantity: 50,
            })
            .collect(),
        quests: vec![],
        xp_reached_at: Default::default(),
        character,
    }
}

/// Units of `item` held anywhere.
async fn total(store: &Store, item: &str) -> i64 {
    store
        .inventories()
        .item_totals()
        .await
        .unwrap()
        .into_iter()
        .filter(|(id, ..)| id == item)
        .map(|(_, i, e, b)| i + e + b)
        .sum()
}

async fn run(backend: &'static str, mode: Mode, o: &Options) {
    let db = match backend {
        "sqlite" => FreshDatabase::sqlite(),
        _ => match FreshDatabase::postgres().await {
            Some(db) => db,
            None => return,
        },
    };
    let (store, _) = Store::connect_migrated(&db.url).await.unwrap();
    let mut submitters = Vec::new();
    for n in 0..o.submitters {
        submitters.push(Submitter {
            a: new_character(&store, format!("A{n}")).await,
            b: new_character(&store, format!("B{n}")).await,
            next: n as u64,
        });
    }
    let coins_before = total(&store, "coins").await;
    let (tx, rx) = mpsc::unbounded_channel::<Job>();
    let max_group = if mode == Mode::Group { MAX_GROUP } else { 1 };
    let committer = tokio::spawn(committer(store.clone(), rx, max_group));
    let deadline = Instant::now() + Duration::from_secs(o.seconds);
    let started = Instant::now();
    let cpu_before = cpu_seconds();
    let mut tasks = Vec::new();
    for mut s in submitters {
        let tx = tx.clone();
        tasks.push(tokio::spawn(async move {
            // (committed by kind, failed, shop buys committed, latencies in µs)
            let mut counts = [0u64; 3];
            let mut failed = 0u64;
            let mut latencies = Vec::new();
            while Instant::now() < deadline {
                let (kind, a, b, batch) = s.next_op();
                let (reply, answer) = oneshot::channel();
                let sent = Instant::now();
                if tx.send((batch, reply)).is_err() {
                    break;
                }
                if answer.await.unwrap_or(false) {
                    counts[kind] += 1;
                    latencies.push(sent.elapsed().as_micros() as u64);
                    (s.a, s.b) = (a, b);
                } else {
                    failed += 1;
                }
            }
            (counts, failed, latencies)
        }));
    }
    drop(tx);
    let mut counts = [0u64; 3];
    let mut failed = 0;
    let mut latencies = Vec::new();
    for task in tasks {
        let (c, f, l) = task.await.unwrap();
        for (total, n) in counts.iter_mut().zip(c) {
            *total += n;
        }
        failed += f;
        latencies.extend(l);
    }
    let (groups, committed) = committer.await.unwrap();
    let elapsed = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu_before;
    latencies.sort_unstable();
    let pct = |p: f64| {
        latencies
            .get(((latencies.len() as f64 * p) as usize).min(latencies.len().saturating_sub(1)))
            .map_or(0.0, |us| *us as f64 / 1000.0)
    };
    let coins_after = total(&store, "coins").await;
    let bought = total(&store, SHOP_ITEM).await;
    let trades = store.trades().count().await.unwrap();
    let conserved = coins_after + bought == coins_before
        && bought == counts[2] as i64
        && trades == counts[0] as i64;
    println!(
        "{backend:8} {mode:6} submitters {:3}: {committed} durable commits in {elapsed:.1} s = {:.0}/s \
         (trades {}, bank moves {}, shop buys {}; failed {failed}); {groups} transactions, {:.1} commits each; \
         latency p50 {:.1} ms p99 {:.1} ms; \
         this process's CPU {:.0} µs a commit; coins {coins_before} -> {coins_after} + {bought} bought, trades in db {trades}: {}; {}",
        o.submitters,
        committed as f64 / elapsed,
        counts[0],
        counts[1],
        counts[2],
        committed as f64 / groups.max(1) as f64,
        pct(0.5),
        pct(0.99),
        cpu * 1e6 / committed.max(1) as f64,
        if conserved { "conserved" } else { "NOT CONSERVED" },
        store.durability().await.unwrap(),
        mode = format!("{mode:?}").to_lowercase(),
    );
    store.close().await;
    assert!(conserved, "the database does not hold what was committed");
}

/// CPU time of this process so far (user and system), from `/proc/self/stat`: with SQLite the
/// database works in this process, so CPU a commit is the cost that a busy machine does not hide
/// (wall-clock rates on a shared machine are not).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let ticks: f64 = after
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|f| f.parse::<f64>().ok())
        .sum();
    // Linux's USER_HZ is 100 on every platform it runs on.
    ticks / 100.0
}

fn main() {
    let o = options();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        for backend in o.backends.clone() {
            for mode in o.modes.clone() {
                run(backend, mode, &o).await;
            }
        }
    });
}
