//! Skills and combat over real WebSockets with the bundled world: a new player chops a tree near the
//! spawn with the starter hatchet and gets logs and XP; a player kills a mob and sees its drop.

use serde_json::{json, Value};
use wayfarer_protocol::ws::{ActionRequest, ClientMessage, UseRequest};

use crate::support::messages::{act_on, chat, to_slot};
use crate::support::{enter, player, AppOptions, TestApp, WsClient};

/// Entities of `kind` in a `world:update`'s `added` list.
fn added(update: &Value, kind: &str) -> Vec<Value> {
    update["data"]["added"]
        .as_array()
        .map(|a| a.iter().filter(|e| e["kind"] == kind).cloned().collect())
        .unwrap_or_default()
}

fn distance(a: &Value, x: i64, z: i64) -> i64 {
    (a["x"].as_i64().unwrap() - x)
        .abs()
        .max((a["z"].as_i64().unwrap() - z).abs())
}

/// Ticks a starter may take to get a log from a normal tree near the spawn: a few to walk there,
/// then a roll every few ticks that succeeds about one time in four (mechanics.md, "Gathering"),
/// so 300 ticks leave a chance below one in a billion of none.
const TICKS_TO_A_LOG: u64 = 300;

#[tokio::test]
async fn a_new_player_chops_a_tree_near_the_spawn_and_gets_logs_and_xp() {
    let app = TestApp::spawn_manual().await;
    let (token, id) = player(&app, "Lumberjack").await;
    let mut ws = WsClient::connect(&app, &format!("token={token}"))
        .await
        .unwrap();
    let sync = ws.expect_type("player:sync").await;
    app.in_world(&id).await;
    app.step(1).await;
    let (x, z) = (
        sync["data"]["tile"]["x"].as_i64().unwrap(),
        sync["data"]["tile"]["z"].as_i64().unwrap(),
    );
    assert!(sync["data"]["inventory"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["itemId"] == "bronze_hatchet"));
    let first = ws.expect_type("world:update").await;
    let mut trees: Vec<Value> = added(&first, "resource")
        .into_iter()
        .filter(|e| e["typeId"] == "tree_normal")
        .collect();
    trees.sort_by_key(|t| distance(t, x, z));
    let tree = trees
        .first()
        .expect("a normal tree within view of the spawn");
    ws.send(act_on("gather", &tree["id"]), None).await;
    // The player walks over, chops, and gets XP and logs (in one tick, in either order).
    let xp = std::cell::RefCell::new(None);
    let logs = std::cell::RefCell::new(None);
    ws.expect_within_ticks(&app, TICKS_TO_A_LOG, "woodcutting XP and logs", |m| {
        if m["type"] == "skill:xp" {
            *xp.borrow_mut() = Some(m.clone());
        }
        let holds_logs = m["data"]["inventory"]
            .as_array()
            .is_some_and(|a| a.iter().any(|s| s["itemId"] == "logs"));
        if m["type"] == "inventory:update" && holds_logs {
            *logs.borrow_mut() = Some(m.clone());
        }
        xp.borrow().is_some() && logs.borrow().is_some()
    })
    .await;
    let xp = xp.into_inner().unwrap();
    assert_eq!(xp["data"]["skill"], "woodcutting", "{xp}");
    assert_eq!(xp["data"]["xpGained"], 25.0, "{xp}");
    assert!(xp["data"]["xp"].as_i64() >= Some(25));
    // The record has it too.
    ws.send(ClientMessage::Sync, None).await;
    let sync = ws.expect_type("player:sync").await;
    assert!(sync["data"]["skills"]["woodcutting"]["xp"].as_i64() >= Some(25));

    // The economy audit counts the logs as gathered.
    let report = crate::support::economy_report(&app).await;
    assert!(
        report["entered"]["logs"]["gathered"].as_u64() >= Some(1),
        "{report}"
    );
    assert!(report["moved"].is_object(), "{report}");
}

#[tokio::test]
async fn a_player_kills_a_chicken_and_sees_its_drop() {
    let app = TestApp::spawn_with(AppOptions {
        env: vec![("ADMIN_CODE", "code".into())],
        ..Default::default()
    })
    .await;
    let content = wayfarer_content::load_bundled();
    let spawner = content
        .areas
        .values()
        .flat_map(|a| &a.mob_spawns)
        .find(|m| m.mob_id == "chicken")
        .expect("the bundled world has chickens")
        .clone();
    let (token, _) = player(&app, "Hunter").await;
    let (mut ws, sync) = enter(&app, &token).await;
    // Wield the starter sword, then go to the chickens.
    let sword = sync["inventory"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["itemId"] == "bronze_sword")
        .unwrap()["slot"]
        .clone();
    ws.send(
        ClientMessage::Action(ActionRequest::new("equip").with_slot(json!(sword))),
        None,
    )
    .await;
    ws.expect_type("equipment:update").await;
    ws.send(chat("/admin code"), None).await;
    let (cx, cz) = (
        spawner.position.x.floor() as i64,
        spawner.position.z.floor() as i64,
    );
    ws.send(chat(format!("/tp {cx} {cz}")), None).await;
    let update = ws
        .expect("chickens in view", |m| {
            m["type"] == "world:update" && added(m, "npc").iter().any(|e| e["typeId"] == "chicken")
        })
        .await;
    let chicken = added(&update, "npc")
        .into_iter()
        .filter(|e| e["typeId"] == "chicken")
        .min_by_key(|e| distance(e, cx, cz))
        .unwrap();
    let chicken_id = chicken["id"].as_str().unwrap().to_owned();
    ws.send(act_on("attack", &chicken_id), None).await;
    // Hits land until the chicken is gone; its drop appears as a ground item.
    let mut hits = 0;
    let mut xp = false;
    let drop = loop {
        let m = ws.next().await.expect("still connected");
        match m["type"].as_str() {
            Some("combat:hit") if m["data"]["targetId"] == chicken_id.as_str() => {
                hits += 1;
                assert!(m["data"]["targetMaxHealth"].as_i64() > Some(0), "{m}");
            }
            Some("skill:xp") => xp = true,
            Some("world:update") => {
                let items = added(&m, "groundItem");
                if let Some(item) = items.first() {
                    break item.clone();
                }
            }
            _ => {}
        }
    };
    assert!(hits >= 1);
    assert!(xp, "damage gives XP");
    assert!(drop["itemId"].is_string());
    // The drop is the killer's to take.
    ws.send(act_on("pickup", &drop["id"]), None).await;
    let inventory = ws
        .expect("the drop in the inventory", |m| {
            m["type"] == "inventory:update"
                && m["data"]["inventory"]
                    .as_array()
                    .is_some_and(|a| a.iter().any(|s| s["itemId"] == drop["itemId"]))
        })
        .await;
    assert_eq!(inventory["type"], "inventory:update");
    // The kill is counted.
    let id = sync["id"].as_str().unwrap().to_owned();
    let deadline = std::time::Instant::now() + crate::support::WAIT;
    loop {
        let kills = app.store().deaths().kills(&id).await.unwrap();
        if kills.iter().any(|(npc, n)| npc == "chicken" && *n >= 1) {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{kills:?}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn rest_shows_xp_gained_over_the_socket_at_once_while_online() {
    // No periodic save during the test: whatever REST shows while online comes from the world.
    let app = TestApp::spawn_with(AppOptions {
        env: vec![
            ("ADMIN_CODE", "bones".into()),
            ("SAVE_INTERVAL", "3600".into()),
        ],
        ..Default::default()
    })
    .await;
    let (token, id) = player(&app, "Digger").await;
    let (mut ws, _) = crate::support::enter(&app, &token).await;
    let slot = crate::support::admin_give(&mut ws, "bones", "bones", 1).await;
    ws.send(ClientMessage::Use(UseRequest::new(to_slot(&slot))), None)
        .await;
    let xp = ws.expect_type("skill:xp").await;
    assert_eq!(xp["data"]["skill"], "prayer");
    let gained = xp["data"]["xp"].as_f64().unwrap();
    assert!(gained > 0.0);

    // The store has not seen it yet; REST answers from the world.
    let stored = app.store().characters().get(&id).await.unwrap().unwrap();
    assert_eq!(stored.skills[&wayfarer_content::Skill::Prayer].xp, 0);
    let skills: serde_json::Value = app
        .get(&format!("/api/characters/{id}/skills"))
        .await
        .json()
        .await
        .unwrap();
    assert!(
        skills["skills"]["prayer"]["xp"].as_f64().unwrap() > 0.0,
        "{skills}"
    );
    let player: serde_json::Value = app
        .client
        .get(app.url("/api/v1/player"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let player = &player["player"];
    assert_eq!(player["online"], true);
    assert_eq!(player["skills"], skills["skills"], "{player}");
    assert!(
        player["inventory"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["itemId"] != "bones"),
        "the buried bones are gone: {player}"
    );

    // Offline, the store answers, and it holds the same.
    ws.close().await;
    let offline: serde_json::Value = app
        .get(&format!("/api/characters/{id}/skills"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(offline["skills"], skills["skills"]);
}
