//! Chaos across the whole economy (issue 50, item 6): twelve players trade, duel for stakes, buy
//! and sell, bank, smelt and cook, eat, drop and pick up at once while the real server process is
//! killed with SIGKILL at four random moments and started again on the same world, on SQLite and
//! on PostgreSQL. After every kill the database holds every item exactly once (its units equal the
//! economy's durable books: entered − left) and, restarted, the economy audit balances. The driver
//! is `wayfarer_bench::chaos`, the same code `scripts/chaos.sh` runs for long runs; the seed is
//! printed (and `CHAOS_SEED` replays one).
//!
//! The check is shown to catch what it is for: a row duplicated by hand in the database the run
//! left makes the same check fail, naming the item.

use std::time::Duration;

use wayfarer_bench::chaos::{self, ChaosError, ChaosOptions, ServerSetup};
use wayfarer_store::testing::FreshDatabase;
use wayfarer_store::Store;

use crate::support::free_port;

/// Play in all: about a minute, so the two variants together cost about a minute of CI's wall
/// time side by side.
const PLAY: Duration = Duration::from_secs(60);
const KILLS: u32 = 4;

fn seed() -> u64 {
    std::env::var("CHAOS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(7)
        })
}

async fn chaos_on(database_url: Option<String>) {
    let world = tempfile::tempdir().unwrap();
    let setup = ServerSetup {
        binary: env!("CARGO_BIN_EXE_wayfarer").into(),
        world: world.path().to_owned(),
        database_url,
        port: free_port(),
        tick_ms: 50,
        admin_code: "code".to_owned(),
    };
    let seed = seed();
    let summary = chaos::run(ChaosOptions {
        server: setup.clone(),
        players: chaos::DEFAULT_PLAYERS,
        play: PLAY,
        kills: KILLS,
        seed,
    })
    .await
    .unwrap_or_else(|err| panic!("seed {seed}: {err}"));
    println!("{}", summary.line());
    println!("{:?}", summary.stats);
    // Four kills and the final stop, each checked (a failed check ends the run with an error).
    assert_eq!(summary.kills.len(), KILLS as usize + 1, "seed {seed}");
    // The economy was played, not only walked through: exchanges that commit completed.
    assert!(
        summary.stats.trades > 0,
        "seed {seed}: no trade completed: {:?}",
        summary.stats
    );
    assert!(
        summary.stats.duels > 0,
        "seed {seed}: no duel had a result: {:?}",
        summary.stats
    );
    let last = summary.kills.last().unwrap();
    assert!(last.entered > 0 && last.left > 0, "seed {seed}: {last:?}");

    // The check is trusted: one inventory row duplicated by hand, without its books, is caught.
    let store = Store::connect(&setup.store_url()).await.unwrap();
    let (character, item) = 'found: {
        for id in &summary.characters {
            let snapshot = store.character_snapshot(id).await.unwrap().unwrap();
            if let Some(slot) = snapshot.inventory.first() {
                break 'found (snapshot.clone(), slot.clone());
            }
        }
        panic!("seed {seed}: every player ended with an empty inventory");
    };
    let free = (0..wayfarer_store::INVENTORY_SLOTS)
        .find(|n| character.inventory.iter().all(|s| s.slot != *n))
        .expect("a free slot");
    let mut doubled = character.clone();
    doubled.inventory.push(wayfarer_store::StoredSlot {
        slot: free,
        ..item.clone()
    });
    store.inventories().save_batch(&[doubled]).await.unwrap();
    store.close().await;
    match chaos::check_database(&setup, Duration::ZERO).await {
        Err(ChaosError::Imbalance(what)) => {
            assert!(
                what.contains(&format!("{} made twice: {}", item.item_id, item.quantity)),
                "{what}"
            );
        }
        other => panic!("a duplicated row went unnoticed: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_neither_loses_nor_duplicates_an_item_anywhere_in_the_economy_on_sqlite() {
    chaos_on(None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_neither_loses_nor_duplicates_an_item_anywhere_in_the_economy_on_postgres()
{
    let Some(db) = FreshDatabase::postgres().await else {
        return;
    };
    chaos_on(Some(db.url.clone())).await;
}
