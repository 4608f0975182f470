//! Death piles belong to the world they fell in: a player dies in world 1, world 2 (started
//! after the death, so it restores from the same database) never shows or restores the pile, and
//! every item of the kit is in the database exactly once.

use std::collections::BTreeMap;

use serde_json::Value;
use wayfarer_protocol::ws::ClientMessage;
use wayfarer_store::Store;

use super::common::die_to_a_bandit;
use super::{enter, owned, player, synced_items, Cluster, World, ADMIN_CODE};

/// Ground items a world holds now.
async fn ground_items(http: &reqwest::Client, world: &World, token: &str) -> Option<i64> {
    let body: Value = http
        .get(format!("{}/api/v1/world", world.base))
        .bearer_auth(token)
        .send()
        .await
        .ok()?
        .json()
        .await
        .ok()?;
    body["entities"]["groundItems"].as_i64()
}

/// The items of the character's open death locks in `store`'s world.
async fn locked_items(store: &Store, character: &str) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for lock in store.deaths().locked().await.unwrap() {
        if lock.character_id == character {
            for item in lock.items {
                *out.entry(item.item_id).or_default() += item.quantity;
            }
        }
    }
    out
}

fn added(a: &BTreeMap<String, i64>, b: &BTreeMap<String, i64>) -> BTreeMap<String, i64> {
    let mut out = a.clone();
    for (item, n) in b {
        *out.entry(item.clone()).or_default() += n;
    }
    out.retain(|_, n| *n != 0);
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_death_pile_stays_in_the_world_it_fell_in() {
    let Some(cluster) = Cluster::new().await else {
        return;
    };
    let http = &cluster.http;
    // Each store reads the death locks of one world, as that world's server does.
    let store_one = cluster.store().await.with_lease_world(1);
    let store_two = cluster.store().await.with_lease_world(2);
    let one = cluster.world(1).await;
    let (token, id) = player(http, &one, "Doomed").await;
    let (mut ws, sync) = enter(&one, &token).await;
    let kit = synced_items(&sync);
    assert!(!kit.is_empty());
    die_to_a_bandit(&mut ws.stream, ADMIN_CODE).await;
    super::eventually("the death lock written in world 1", || async {
        !locked_items(&store_one, &id).await.is_empty()
    })
    .await;
    drop(ws);
    super::eventually("the dead player's session saved and left", || async {
        store_one.leases().holder(&id).await.unwrap().is_none()
    })
    .await;

    // World 2 starts after the death, on the same database: it restores only its own piles.
    let two = cluster.world(2).await;
    // World 1 restarted (kill -9) restores the pile: the control that restoring happens at all,
    // and by the time it shows there, world 2 has long run its start-up restore and ticked.
    one.crash();
    let one = cluster.world(1).await;
    super::eventually("the pile back on world 1's ground", || async {
        ground_items(http, &one, &token).await.unwrap_or(0) > 0
    })
    .await;
    assert_eq!(
        ground_items(http, &two, &token).await,
        Some(0),
        "world 2 shows none of world 1's pile"
    );
    assert!(store_two.deaths().locked().await.unwrap().is_empty());

    // Every item exactly once: in the character's rows or in world 1's lock, and nowhere else.
    let stored = added(
        &owned(&store_one, &id).await,
        &locked_items(&store_one, &id).await,
    );
    assert_eq!(stored, kit, "the kit, once");
    // The player entering world 2 finds neither the pile's items on itself nor the pile there.
    let (mut ws, sync) = enter(&two, &token).await;
    assert_eq!(
        added(&synced_items(&sync), &locked_items(&store_one, &id).await),
        kit,
        "{sync}"
    );
    ws.send(ClientMessage::Sync).await;
    ws.expect("a sync in world 2", |m| m["type"] == "player:sync")
        .await;
    assert_eq!(ground_items(http, &two, &token).await, Some(0));
    assert_eq!(
        added(
            &owned(&store_one, &id).await,
            &locked_items(&store_one, &id).await
        ),
        kit,
        "still once after entering world 2"
    );
}
