//! Magic over a real socket on the manual clock (CONTRACT.md section 11): a Wind Strike cast at a
//! chicken takes its runes from the inventory and earns Magic XP.

use std::cell::RefCell;

use serde_json::Value;
use wayfarer_protocol::ws::{ActionRequest, ClientMessage};

use crate::support::messages::chat;
use crate::support::{player, AppOptions, Clock, TestApp, WsClient};

/// How many of `item` an `inventory:update` shows.
fn held(update: &Value, item: &str) -> i64 {
    update["data"]["inventory"].as_array().map_or(0, |a| {
        a.iter()
            .filter(|s| s["itemId"] == item)
            .filter_map(|s| s["quantity"].as_i64())
            .sum()
    })
}

#[tokio::test]
async fn a_wind_strike_at_a_chicken_uses_its_runes_and_earns_magic_xp() {
    let app = TestApp::spawn_with(AppOptions {
        clock: Clock::Manual,
        env: vec![("ADMIN_CODE", "code".into())],
        ..Default::default()
    })
    .await;
    let (token, id) = player(&app, "Wizard").await;
    let mut ws = WsClient::connect(&app, &format!("token={token}"))
        .await
        .unwrap();
    ws.expect_type("player:sync").await;
    app.in_world(&id).await;
    app.step(1).await;
    // Runes, and off to the chickens.
    let content = wayfarer_content::load_bundled();
    let spawner = content
        .areas
        .values()
        .flat_map(|a| &a.mob_spawns)
        .find(|m| m.mob_id == "chicken")
        .expect("the bundled world has chickens")
        .clone();
    let (cx, cz) = (
        spawner.position.x.floor() as i64,
        spawner.position.z.floor() as i64,
    );
    ws.send(chat("/admin code"), None).await;
    ws.send(chat("/give air_rune 10"), None).await;
    ws.send(chat("/give mind_rune 10"), None).await;
    ws.send(chat(format!("/tp {cx} {cz}")), None).await;
    ws.expect_within_ticks(&app, 5, "the runes", |m| {
        m["type"] == "inventory:update" && held(m, "air_rune") == 10 && held(m, "mind_rune") == 10
    })
    .await;
    let chicken = ws
        .expect_within_ticks(&app, 5, "a chicken in view", |m| {
            m["type"] == "world:update"
                && m["data"]["added"]
                    .as_array()
                    .is_some_and(|a| a.iter().any(|e| e["typeId"] == "chicken"))
        })
        .await["data"]["added"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["typeId"] == "chicken")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    ws.send(
        ClientMessage::Action(ActionRequest::cast("wind_strike", chicken.as_str())),
        None,
    )
    .await;
    let (hit, runes, xp) = (RefCell::new(None), RefCell::new(None), RefCell::new(None));
    ws.expect_within_ticks(&app, 20, "the cast, its runes and its XP", |m| {
        match m["type"].as_str() {
            Some("combat:hit") if m["data"]["targetId"] == chicken.as_str() => {
                *hit.borrow_mut() = Some(m.clone());
            }
            Some("inventory:update") if held(m, "air_rune") == 9 => {
                *runes.borrow_mut() = Some(m.clone());
            }
            Some("skill:xp") if m["data"]["skill"] == "magic" => {
                *xp.borrow_mut() = Some(m.clone());
            }
            _ => {}
        }
        hit.borrow().is_some() && runes.borrow().is_some() && xp.borrow().is_some()
    })
    .await;
    let (hit, runes, xp) = (
        hit.into_inner().unwrap(),
        runes.into_inner().unwrap(),
        xp.into_inner().unwrap(),
    );
    assert_eq!(hit["data"]["attackerId"], id.as_str(), "{hit}");
    assert_eq!(held(&runes, "mind_rune"), 9, "{runes}");
    // Wind Strike's 5.5 XP plus 2 per damage dealt.
    let damage = hit["data"]["damage"].as_f64().unwrap();
    assert_eq!(
        xp["data"]["xpGained"].as_f64(),
        Some(5.5 + 2.0 * damage),
        "{xp}"
    );
}
