//! Prayer over WebSockets: `prayer:toggle` and its errors, `prayer:update` on every change, the
//! drain to 0 switching the prayer off, the points saved with the character, and the Millbrook
//! altar restoring them.

use serde_json::{json, Value};
use wayfarer_protocol::ws::{ClientMessage, PrayerToggle};

use crate::support::messages::act_on;
use crate::support::{enter, player, TestApp, WsClient};

/// The next `prayer:update`'s data.
async fn prayer_update(ws: &mut WsClient) -> Value {
    ws.expect_type("prayer:update").await["data"].clone()
}

#[tokio::test]
async fn prayers_toggle_drain_to_zero_are_saved_and_the_altar_restores_them() {
    let app = TestApp::spawn().await;
    let (token, id) = player(&app, "Pilgrim").await;
    let (mut ws, _) = enter(&app, &token).await;

    ws.send(
        ClientMessage::PrayerToggle(PrayerToggle {
            prayer_id: "smite".into(),
            active: true,
        }),
        Some(json!("p1")),
    )
    .await;
    let error = ws.expect_type("error").await;
    assert_eq!(error["data"]["code"], "unknown_prayer");
    assert_eq!(error["data"]["ref"], "p1");
    // Granite Skin needs Prayer 10; a new character has 1.
    ws.send(
        ClientMessage::PrayerToggle(PrayerToggle {
            prayer_id: "granite_skin".into(),
            active: true,
        }),
        None,
    )
    .await;
    assert_eq!(
        ws.expect_type("error").await["data"]["code"],
        "prayer_level_too_low"
    );
    ws.send_raw("prayer:toggle", json!({"prayerId": "stone_skin"}), None)
        .await;
    assert_eq!(
        ws.expect_type("error").await["data"]["code"],
        "invalid_message"
    );

    ws.send(
        ClientMessage::PrayerToggle(PrayerToggle {
            prayer_id: "stone_skin".into(),
            active: true,
        }),
        None,
    )
    .await;
    let update = prayer_update(&mut ws).await;
    assert_eq!(
        update,
        json!({"points": 1, "maxPoints": 1, "active": ["stone_skin"]})
    );
    // Drain 1 a tick against 60: the one point goes 60 ticks after the tick that switched the
    // prayer on, and the prayer with it (each tick's messages are read before the next runs,
    // so the tick the world is at is the tick a message came in).
    let switched_on = app.step(0).await;
    let update = prayer_update(&mut ws).await;
    assert_eq!(update, json!({"points": 0, "maxPoints": 1, "active": []}));
    assert_eq!(app.step(0).await - switched_on, 60);
    ws.send(
        ClientMessage::PrayerToggle(PrayerToggle {
            prayer_id: "stone_skin".into(),
            active: true,
        }),
        None,
    )
    .await;
    assert_eq!(
        ws.expect_type("error").await["data"]["code"],
        "no_prayer_points"
    );
    ws.close().await;
    let saved = app.store().characters().get(&id).await.unwrap().unwrap();
    assert_eq!(saved.prayer_points, Some(0));

    // Back in: still empty; the altar south of the spawn (in view from it) refills.
    let mut ws = WsClient::connect(&app, &format!("token={token}"))
        .await
        .unwrap();
    assert_eq!(ws.next().await.unwrap()["type"], "player:sync");
    let view = ws.next().await.unwrap();
    assert_eq!(view["type"], "world:update");
    let update = prayer_update(&mut ws).await;
    assert_eq!(update, json!({"points": 0, "maxPoints": 1, "active": []}));
    let altar_id = view["data"]["added"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["resourceType"] == "altar")
        .unwrap()["id"]
        .clone();
    ws.send(act_on("interact", altar_id), None).await;
    let update = ws
        .expect("points restored", |m| {
            m["type"] == "prayer:update" && m["data"]["points"] == 1
        })
        .await;
    assert_eq!(update["data"]["active"], json!([]));
}
