//! The reference files served unchanged from a CDN: the server generates the island from their
//! `world-config.json`, lists its towns with their stations in `GET /api/v1/world/areas`, and a
//! player makes things at the stations the world placed (smelting, smithing, fletching, tanning,
//! crafting), got there by admin teleport with the inputs given (the manual clock).

use serde_json::{json, Value};
use wayfarer_protocol::ws::{ActionRequest, ClientMessage, Quantity};

use crate::support::messages::{chat, to_id};
use crate::support::{enter, player, AppOptions, Cdn, Clock, TestApp, WsClient};

const ADMIN_CODE: &str = "ref";
/// Ticks allowed for one step of the script (a teleport, a give, one make).
const STEP_TICKS: u64 = 40;

/// A manual-clock server whose content is the reference files, from a CDN.
async fn reference_app() -> Option<TestApp> {
    let set =
        wayfarer_content::ManifestSet::read_dir(&wayfarer_store::testing::reference_manifests()?)
            .expect("readable");
    let (cdn, url) = Cdn::start().await;
    *cdn.files.lock().unwrap() = set.files;
    Some(
        TestApp::spawn_with(AppOptions {
            env: vec![("PUBLIC_CDN_URL", url), ("ADMIN_CODE", ADMIN_CODE.into())],
            clock: Clock::Manual,
            ..Default::default()
        })
        .await,
    )
}

fn holds(message: &Value, item: &str) -> u64 {
    message["data"]["inventory"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["itemId"] == item)
        .map(|s| s["quantity"].as_u64().unwrap_or(0))
        .sum()
}

/// `/give`, stepping until the inventory holds it.
async fn give(app: &TestApp, ws: &mut WsClient, item: &str, quantity: u64) {
    ws.send(chat(format!("/give {item} {quantity}")), None)
        .await;
    ws.expect_within_ticks(app, STEP_TICKS, item, |m| {
        m["type"] == "inventory:update" && holds(m, item) >= quantity
    })
    .await;
}

/// `/tp` next to `position` (by way of the Wastes), stepping until the view shows an entity of
/// `type_id` near it; returns that entity's id.
///
/// Each leg is confirmed by what the world says (the Wastes' `zone:enter`, then the entity in
/// view), not by when the teleport was sent: a teleport may be applied between two ticks or in
/// the next one, and the messages it causes arrive accordingly.
async fn go_to(app: &TestApp, ws: &mut WsClient, position: &Value, type_id: &str) -> String {
    let (x, z) = (
        position["x"].as_f64().unwrap().floor() as i64,
        position["z"].as_f64().unwrap().floor() as i64,
    );
    // Out of view first (the Wastes are far from every town and hold no mobs), so the entity
    // is added anew.
    ws.send(chat("/tp 250 0"), None).await;
    ws.expect_within_ticks(app, STEP_TICKS, "the Wastes", |m| {
        m["type"] == "zone:enter" && m["data"]["pvp"] == true
    })
    .await;
    ws.send(chat(format!("/tp {x} {}", z + 2)), None).await;
    let near = |e: &Value| {
        e["typeId"] == type_id
            && (e["x"].as_i64().unwrap_or(i64::MAX) - x).abs() <= 3
            && (e["z"].as_i64().unwrap_or(i64::MAX) - z).abs() <= 3
    };
    // The view since the Wastes, from every update read (the one adding the entity may come in
    // the tick of the teleport or the next).
    let found = std::cell::RefCell::new(None::<String>);
    ws.expect_within_ticks(app, STEP_TICKS, type_id, |m| {
        if m["type"] == "world:update" {
            for e in m["data"]["added"].as_array().into_iter().flatten() {
                if near(e) {
                    *found.borrow_mut() = e["id"].as_str().map(str::to_owned);
                }
            }
        }
        found.borrow().is_some()
    })
    .await;
    found.into_inner().expect("accepted once found")
}

/// Makes `recipe` once (at `target` when given), stepping until `output` is held.
async fn make(app: &TestApp, ws: &mut WsClient, recipe: &str, target: Option<&str>, output: &str) {
    let mut request = ActionRequest::make(recipe, Quantity::Count(1));
    if let Some(target) = target {
        request = request.with_target(to_id(target));
    }
    ws.send(ClientMessage::Action(request), Some(json!(recipe)))
        .await;
    let got = ws
        .expect_within_ticks(app, STEP_TICKS, output, |m| {
            assert_ne!(m["type"], "error", "{recipe} refused: {m}");
            m["type"] == "inventory:update" && holds(m, output) > 0
        })
        .await;
    assert!(holds(&got, output) > 0, "{recipe} made {output}");
}

/// `GET /api/v1/world/areas`.
async fn world_areas(app: &TestApp, token: &str) -> Value {
    app.client
        .get(app.url("/api/v1/world/areas"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

fn station<'a>(town: &'a Value, kind: &str) -> &'a Value {
    town["stations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["station"] == kind)
        .map(|s| &s["position"])
        .unwrap_or_else(|| panic!("{} has a {kind}", town["id"]))
}

#[tokio::test]
async fn the_reference_world_lists_its_towns_and_a_player_makes_things_at_their_stations() {
    let Some(app) = reference_app().await else {
        return;
    };
    let (token, _) = player(&app, "Wanderer").await;
    let body = world_areas(&app, &token).await;
    assert!(body["areas"].is_array(), "{body}");
    let towns: Vec<&Value> = body["areas"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["group"] == "town")
        .collect();
    assert!(towns.len() >= 8, "{} towns", towns.len());
    for town in &towns {
        assert_eq!(town["safeZone"], true, "{town}");
        assert!(town["townSize"].is_string(), "{town}");
        assert!(!town["stations"].as_array().unwrap().is_empty(), "{town}");
        for key in ["minX", "maxX", "minZ", "maxZ"] {
            assert!(town["bounds"][key].is_number(), "{town}");
        }
    }
    let town = *towns
        .iter()
        .find(|t| t["townSize"] == "town")
        .expect("a town of the largest size");
    let tanner = town["npcs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["role"] == "tanner")
        .expect("the town has a tanner")["position"]
        .clone();

    let (mut ws, _) = enter(&app, &token).await;
    ws.send(chat(format!("/admin {ADMIN_CODE}")), None).await;
    for (item, quantity) in [
        ("copper_ore", 1),
        ("tin_ore", 1),
        ("hammer", 1),
        ("logs", 1),
        ("knife", 1),
        ("cowhide", 1),
        ("coins", 10),
        ("needle", 1),
        ("thread", 5),
    ] {
        give(&app, &mut ws, item, quantity).await;
    }

    let furnace = go_to(&app, &mut ws, station(town, "furnace"), "furnace").await;
    make(
        &app,
        &mut ws,
        "smithing:bronze_bar",
        Some(&furnace),
        "bronze_bar",
    )
    .await;
    let anvil = go_to(&app, &mut ws, station(town, "anvil"), "anvil").await;
    // The reference smiths no dagger: its first bronze item is the sword.
    make(
        &app,
        &mut ws,
        "smithing:bronze_sword",
        Some(&anvil),
        "bronze_sword",
    )
    .await;
    make(
        &app,
        &mut ws,
        "fletching:arrow_shaft:logs",
        None,
        "arrow_shaft",
    )
    .await;
    let tanner_id = go_to(&app, &mut ws, &tanner, "tanner").await;
    make(
        &app,
        &mut ws,
        "tanning:leather",
        Some(&tanner_id),
        "leather",
    )
    .await;
    make(
        &app,
        &mut ws,
        "crafting:leather_gloves",
        None,
        "leather_gloves",
    )
    .await;
}

/// Steps until a `skill:xp` of `skill` comes; returns its XP gained.
async fn xp_in(app: &TestApp, ws: &mut WsClient, skill: &str) -> f64 {
    let got = ws
        .expect_within_ticks(app, 3 * STEP_TICKS, skill, |m| {
            assert_ne!(m["type"], "error", "{skill}: {m}");
            m["type"] == "skill:xp" && m["data"]["skill"] == skill
        })
        .await;
    got["data"]["xpGained"].as_f64().unwrap_or(0.0)
}

#[tokio::test]
async fn a_new_character_has_its_constitution_health_then_cooks_on_the_spawn_range_and_lights_logs()
{
    let Some(app) = reference_app().await else {
        return;
    };
    let (token, _) = player(&app, "Cook").await;
    let (mut ws, sync) = enter(&app, &token).await;
    // The first player:sync: health is the maximum that Constitution gives (level 10), not 100.
    let constitution = sync["skills"]["constitution"]["level"].as_i64().unwrap();
    assert_eq!(constitution, 10, "{sync}");
    assert_eq!(
        (sync["health"].as_i64(), sync["maxHealth"].as_i64()),
        (Some(constitution), Some(constitution)),
        "{sync}"
    );
    // The starter kit's tinderbox.
    assert!(
        sync["inventory"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["itemId"] == "tinderbox"),
        "{sync}"
    );
    // The spawn town's range, placed by the world (the reference places none near the spawn).
    let body = world_areas(&app, &token).await;
    let haven = body["areas"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == "central_haven")
        .expect("Central Haven");
    let range = station(haven, "range").clone();

    ws.send(chat(format!("/admin {ADMIN_CODE}")), None).await;
    // Enough shrimp that one is cooked, not burnt, at level 1.
    give(&app, &mut ws, "raw_shrimp", 10).await;
    give(&app, &mut ws, "logs", 1).await;
    let range_id = go_to(&app, &mut ws, &range, "range").await;
    let request =
        ActionRequest::make("cooking:shrimp", Quantity::All).with_target(to_id(&range_id));
    ws.send(ClientMessage::Action(request), Some(json!("cook")))
        .await;
    assert!(xp_in(&app, &mut ws, "cooking").await > 0.0);
    let request = ActionRequest::make("firemaking:logs", Quantity::Count(1));
    ws.send(ClientMessage::Action(request), Some(json!("light")))
        .await;
    assert!(xp_in(&app, &mut ws, "firemaking").await > 0.0);
}
