//! Zones, death and a new character over the real socket (CONTRACT §10, issue 29 points 3–4): the
//! starter kit is given once at creation (bundled content and the reference files served from a
//! CDN), PvP is refused in a safe area with `safe_zone`, and a death outside PvP tells the player
//! what fell and where the gravestone is.

use std::collections::BTreeMap;

use serde_json::Value;
use wayfarer_protocol::ws::{ActionRequest, ClientMessage};

use crate::support::{
    bandit_tile, enter, messages::chat, player, AppOptions, Cdn, Clock, TestApp, WsClient,
    ADMIN_CODE,
};

/// Item counts of a Player's (or `player:sync`'s) inventory.
fn counts(inventory: &Value) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for slot in inventory.as_array().expect("an inventory array") {
        *out.entry(slot["itemId"].as_str().unwrap().to_owned())
            .or_default() += slot["quantity"].as_i64().unwrap();
    }
    out
}

/// The kit of `content`, as counts.
fn kit_of(content: &wayfarer_content::Content) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for line in content.starter_kit() {
        *out.entry(line.item_id.clone()).or_default() += i64::from(line.quantity);
    }
    out
}

async fn own_player(app: &TestApp, token: &str) -> Value {
    let body: Value = app
        .client
        .get(app.url("/api/v1/player"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    body["player"].clone()
}

#[tokio::test]
async fn a_new_character_holds_the_starter_kit_exactly_and_a_second_login_gives_nothing_more() {
    let app = TestApp::spawn_manual().await;
    let (token, id) = player(&app, "Kitted").await;
    let kit = kit_of(&wayfarer_content::load_bundled());
    assert!(kit.contains_key("bronze_hatchet") && kit.contains_key("bread"));
    let created = own_player(&app, &token).await;
    assert_eq!(counts(&created["inventory"]), kit);
    for _ in 0..2 {
        let (ws, sync) = enter(&app, &token).await;
        assert_eq!(
            counts(&sync["inventory"]),
            kit,
            "the same kit, not a second one"
        );
        ws.close().await;
        app.left(&id).await;
    }
    assert_eq!(counts(&own_player(&app, &token).await["inventory"]), kit);
}

#[tokio::test]
async fn a_new_character_in_the_reference_world_gets_the_default_kit_with_fallback_food() {
    let Some(dir) = wayfarer_store::testing::reference_manifests() else {
        return;
    };
    let reference = wayfarer_content::ManifestSet::read_dir(&dir).expect("readable");
    let (cdn, url) = Cdn::start().await;
    *cdn.files.lock().unwrap() = reference.files.clone();
    let app = TestApp::spawn_with(AppOptions {
        env: vec![("PUBLIC_CDN_URL", url)],
        clock: Clock::Manual,
        ..AppOptions::default()
    })
    .await;
    let (content, _) = wayfarer_content::Content::from_files(&reference).expect("loads");
    // The reference has no starterKit and no food: the default kit, with bundled shrimp and bread.
    let kit = kit_of(&content);
    for item in [
        "bronze_hatchet",
        "bronze_pickaxe",
        "small_fishing_net",
        "tinderbox",
        "shrimp",
        "bread",
    ] {
        assert!(kit.contains_key(item), "{item} in {kit:?}");
    }
    let (token, _) = player(&app, "Refkit").await;
    assert_eq!(counts(&own_player(&app, &token).await["inventory"]), kit);
    let (_ws, sync) = enter(&app, &token).await;
    assert_eq!(counts(&sync["inventory"]), kit);
}

#[tokio::test]
async fn pvp_is_refused_in_the_safe_starter_town_with_safe_zone() {
    let app = TestApp::spawn_manual().await;
    let (token_a, id_a) = player(&app, "Brawler").await;
    let (token_b, _) = player(&app, "Bystander").await;
    let (_b, _) = enter(&app, &token_b).await;
    // Entering the world in the starter town: zone:enter names it, right after the first view.
    let mut a = WsClient::connect(&app, &format!("token={token_a}"))
        .await
        .expect("connects");
    assert_eq!(a.next().await.unwrap()["type"], "player:sync");
    app.in_world(&id_a).await;
    app.step(1).await;
    let view = a.next().await.unwrap();
    assert_eq!(view["type"], "world:update");
    let target = view["data"]["added"]
        .as_array()
        .and_then(|added| added.iter().find(|e| e["name"] == "Bystander"))
        .expect("the bystander in the first view")["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let zone = a.next().await.unwrap();
    assert_eq!(zone["type"], "zone:enter", "{zone}");
    assert_eq!(zone["data"]["areaId"], "millbrook");
    assert_eq!(zone["data"]["safe"], true);
    assert_eq!(zone["data"]["pvp"], false);
    a.send(
        ClientMessage::Action(ActionRequest::new("attack").with_target(&target)),
        Some("hit".into()),
    )
    .await;
    let refused = a
        .expect_within_ticks(&app, 3, "safe_zone", |m| m["type"] == "error")
        .await;
    assert_eq!(refused["data"]["code"], "safe_zone", "{refused}");
    assert_eq!(refused["data"]["ref"], "hit");
}

#[tokio::test]
async fn a_death_outside_pvp_tells_the_player_what_fell_and_where_the_gravestone_is() {
    let app = TestApp::spawn_with(AppOptions {
        clock: Clock::Manual,
        admin_code: Some(ADMIN_CODE),
        ..AppOptions::default()
    })
    .await;
    let (token, _) = player(&app, "Doomed").await;
    let (mut ws, _) = enter(&app, &token).await;
    ws.send(chat(format!("/admin {ADMIN_CODE}")), None).await;
    let (x, z) = bandit_tile();
    ws.send(chat(format!("/tp {x} {z}")), None).await;
    let update = ws
        .expect_within_ticks(&app, 10, "a bandit in view", |m| {
            m["type"] == "world:update"
                && m["data"]["added"]
                    .as_array()
                    .is_some_and(|a| a.iter().any(|e| e["typeId"] == "bandit"))
        })
        .await;
    let bandit = update["data"]["added"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["typeId"] == "bandit")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    ws.send(
        ClientMessage::Action(ActionRequest::new("attack").with_target(&bandit)),
        None,
    )
    .await;
    let death = ws
        .expect_within_ticks(&app, 2_000, "player:death", |m| m["type"] == "player:death")
        .await;
    let data = &death["data"];
    assert_eq!(data["killerName"], "Bandit", "{data}");
    assert!(data["killerId"].is_string());
    // The 3 most valuable items are kept outside PvP too (CONTRACT.md section 14); the rest of
    // the kit fell, each item exactly once between the two.
    let content = wayfarer_content::load_bundled();
    let kept = counts(&data["kept"]);
    assert_eq!(kept.values().sum::<i64>(), 3, "{data}");
    let value = |id: &str| content.item(id).map_or(0, |i| i.value);
    let lost = counts(&data["lost"]);
    let least_kept = kept.keys().map(|id| value(id)).min().unwrap_or(0);
    assert!(
        lost.keys().all(|id| value(id) <= least_kept),
        "nothing lost is worth more than what was kept: {data}"
    );
    let mut both = lost.clone();
    for (id, n) in kept {
        *both.entry(id).or_default() += n;
    }
    assert_eq!(both, kit_of(&content), "the whole kit, kept or fallen");
    let spawn = wayfarer_content::load_bundled().spawn_point();
    assert_eq!(data["respawn"]["x"], spawn.x.floor() as i64);
    assert_eq!(data["respawn"]["z"], spawn.z.floor() as i64);
    let grave = &data["gravestone"];
    let expires = grave["expiresAt"]
        .as_i64()
        .expect("a gravestone with its expiry");
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    // Fifteen minutes of ticks (600 ms each on the manual clock's nominal tick) from the death.
    assert!(
        expires > now_ms + 800_000 && expires <= now_ms + 900_000,
        "{grave}"
    );
    assert!(grave["x"].is_i64() && grave["z"].is_i64());
}
