//! The home teleport and emotes over real WebSockets (CONTRACT §14, issue 54): a cast that lands
//! after 17 ticks and a cooldown that is refused with `remainingSeconds`, kept with the character
//! across a relog on SQLite and PostgreSQL and told in `player:sync`; an emote reaching a watcher
//! beside the emoter; `GET /api/v1/emotes`.

use wayfarer_protocol::ws::{ActionRequest, ClientMessage, EmoteRequest};

use crate::support::{both_databases, enter, player, AppOptions, Clock, FreshDatabase, TestApp};

async fn home_teleport_cooldown_survives_a_relog(db: FreshDatabase) {
    let app = TestApp::spawn_with(AppOptions {
        database: Some(db),
        clock: Clock::Manual,
        ..Default::default()
    })
    .await;
    let (token, id) = player(&app, "Homebody").await;
    let (mut ws, sync) = enter(&app, &token).await;
    assert_eq!(sync["homeTeleportCooldown"], 0, "ready at first: {sync}");

    ws.send(
        ClientMessage::Action(ActionRequest::new("homeTeleport")),
        None,
    )
    .await;
    ws.barrier().await;
    let casting = ws
        .expect_within_ticks(&app, 2, "the cast", |m| m["type"] == "player:homeTeleport")
        .await;
    assert_eq!(casting["data"]["status"], "casting", "{casting}");
    assert_eq!(casting["data"]["castTicks"], 17, "{casting}");
    // The sync asked for in the tick that told it: read, so none is outstanding.
    ws.expect_type("player:sync").await;
    let arrived = ws
        .expect_within_ticks(&app, 18, "the landing", |m| {
            m["type"] == "player:homeTeleport" && m["data"]["status"] != "casting"
        })
        .await;
    assert_eq!(arrived["data"]["status"], "arrived", "{arrived}");
    assert_eq!(arrived["data"]["cooldownSeconds"], 1_800, "{arrived}");
    // The rest of that tick's messages and the sync asked for with it, read before going on.
    ws.expect_type("player:sync").await;

    ws.send(
        ClientMessage::Action(ActionRequest::new("homeTeleport")),
        None,
    )
    .await;
    // In the world's queue before the next step (and no sync reply outstanding).
    ws.barrier().await;
    let refused = ws
        .expect_within_ticks(&app, 3, "the refusal", |m| m["type"] == "error")
        .await;
    assert_eq!(refused["data"]["code"], "cooldown", "{refused}");
    let left = refused["data"]["remainingSeconds"]
        .as_u64()
        .expect("remainingSeconds");
    assert!((1_790..=1_800).contains(&left), "{refused}");
    let sync = ws.barrier().await;
    let shown = sync["data"]["homeTeleportCooldown"].as_u64().unwrap();
    assert!((1_790..=1_800).contains(&shown), "{sync}");

    ws.close().await;
    app.left(&id).await;
    let stored = app.store().characters().get(&id).await.unwrap().unwrap();
    assert!(
        stored.home_teleport_ready_at_ms.is_some(),
        "saved with the record"
    );
    let (mut ws, sync) = enter(&app, &token).await;
    let shown = sync["homeTeleportCooldown"].as_u64().unwrap();
    assert!(
        (1_700..=1_800).contains(&shown),
        "the cooldown runs on after a relog: {sync}"
    );
    ws.send(
        ClientMessage::Action(ActionRequest::new("homeTeleport")),
        None,
    )
    .await;
    // In the world's queue before the next step (and no sync reply outstanding).
    ws.barrier().await;
    let refused = ws
        .expect_within_ticks(&app, 2, "the refusal after the relog", |m| {
            m["type"] == "error"
        })
        .await;
    assert_eq!(refused["data"]["code"], "cooldown", "{refused}");
}

both_databases!(home_teleport_cooldown_survives_a_relog, |db| {
    home_teleport_cooldown_survives_a_relog(db)
});

#[tokio::test]
async fn an_emote_reaches_a_watcher() {
    let app = TestApp::spawn_with(AppOptions {
        clock: Clock::Manual,
        ..Default::default()
    })
    .await;
    let (ada_token, ada) = player(&app, "Waver").await;
    let (bo_token, _) = player(&app, "Watcher").await;
    let (mut a, _) = enter(&app, &ada_token).await;
    let (mut b, _) = enter(&app, &bo_token).await;
    a.send(
        ClientMessage::Emote(EmoteRequest {
            emote: "wave".into(),
        }),
        None,
    )
    .await;
    a.barrier().await;
    let seen = b
        .expect_within_ticks(&app, 2, "the wave", |m| m["type"] == "player:emote")
        .await;
    assert_eq!(seen["data"]["playerId"], ada.as_str(), "{seen}");
    assert_eq!(seen["data"]["emote"], "wave", "{seen}");

    a.send(
        ClientMessage::Emote(EmoteRequest {
            emote: "moonwalk".into(),
        }),
        None,
    )
    .await;
    a.barrier().await;
    let refused = a
        .expect_within_ticks(&app, 3, "the refusal", |m| m["type"] == "error")
        .await;
    assert_eq!(refused["data"]["code"], "unknown_emote", "{refused}");

    let listed: serde_json::Value = app.get("/api/v1/emotes").await.json().await.unwrap();
    let emotes = listed["emotes"].as_array().expect("emotes");
    assert_eq!(emotes.len(), 12, "{listed}");
    assert!(emotes.iter().any(|e| e == "salute"), "{listed}");
}
