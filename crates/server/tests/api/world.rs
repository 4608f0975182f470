//! The living world over real WebSockets: entry, view, movement, chat, bad input, limits,
//! replacement, admin commands and persistence.

use std::time::Instant;

use serde_json::{json, Value};
use wayfarer_protocol::ws::{ChatChannel, ClientMessage};

use crate::support::messages::{chat, chat_on, private, walk_to};
use crate::support::{
    both_databases, enter, player, AppOptions, FreshDatabase, TestApp, WsClient, TEST_WORLD_SEED,
    WAIT,
};

fn has_entity(update: &Value, list: &str, id: &str) -> bool {
    update["data"][list]
        .as_array()
        .is_some_and(|items| items.iter().any(|e| e == id || e["id"] == id))
}

#[tokio::test]
async fn the_token_is_checked_before_the_upgrade() {
    let app = TestApp::spawn().await;
    assert_eq!(WsClient::connect(&app, "").await.err(), Some(401));
    assert_eq!(
        WsClient::connect(&app, "token=garbage").await.err(),
        Some(401)
    );
    let (token, _) = crate::auth::guest(&app).await;
    assert_eq!(
        WsClient::connect(&app, &format!("token={token}"))
            .await
            .err(),
        Some(409),
        "no character yet"
    );
    let (token, _) = player(&app, "Door").await;
    assert_eq!(
        WsClient::connect(&app, &format!("token={token}&characterId=someone-else"))
            .await
            .err(),
        Some(404)
    );
}

#[tokio::test]
async fn entry_sends_player_sync_then_world_update_with_everything_in_view() {
    let app = TestApp::spawn().await;
    let (token, id) = player(&app, "Arrival").await;
    let mut ws = WsClient::connect(&app, &format!("token={token}"))
        .await
        .unwrap();
    let sync = ws.next().await.unwrap();
    assert_eq!(sync["type"], "player:sync");
    assert_eq!(sync["data"]["id"], Value::String(id.clone()));
    assert!(sync["data"]["tile"]["x"].is_i64());
    assert_eq!(sync["data"]["online"], true);
    let update = ws.next().await.unwrap();
    assert_eq!(update["type"], "world:update", "{update}");
    let added = update["data"]["added"].as_array().unwrap();
    assert!(
        added
            .iter()
            .any(|e| e["kind"] == "npc" || e["kind"] == "resource"),
        "the town is in view: {update}"
    );
    for entity in added {
        let dx =
            (entity["x"].as_i64().unwrap() - sync["data"]["tile"]["x"].as_i64().unwrap()).abs();
        let dz =
            (entity["z"].as_i64().unwrap() - sync["data"]["tile"]["z"].as_i64().unwrap()).abs();
        assert!(dx.max(dz) <= 32, "only within 32 tiles: {entity}");
    }
    // player:sync on request.
    ws.send(ClientMessage::Sync, None).await;
    let again = ws.expect_type("player:sync").await;
    assert_eq!(again["data"]["id"], Value::String(id));
}

#[tokio::test]
async fn two_players_see_each_other_enter_move_and_leave() {
    let app = TestApp::spawn().await;
    let (token_a, id_a) = player(&app, "Alpha").await;
    let (token_b, id_b) = player(&app, "Beta").await;
    let (mut a, sync_a) = enter(&app, &token_a).await;
    let (mut b, _) = enter(&app, &token_b).await;
    a.expect("B added", |m| {
        m["type"] == "world:update" && has_entity(m, "added", &id_b)
    })
    .await;

    let start = &sync_a["tile"];
    let target = walk_to(
        start["x"].as_i64().unwrap() + 3,
        start["z"].as_i64().unwrap(),
    );
    a.send(target, Some(json!("m1"))).await;
    b.expect("A moved", |m| {
        m["type"] == "world:update"
            && m["data"]["moved"]
                .as_array()
                .is_some_and(|ms| ms.iter().any(|e| e["id"] == id_a.as_str()))
    })
    .await;

    drop(a);
    b.expect("A removed", |m| {
        m["type"] == "world:update" && has_entity(m, "removed", &id_a)
    })
    .await;
}

#[tokio::test]
async fn moves_beyond_200_tiles_are_refused_with_the_ref() {
    let app = TestApp::spawn().await;
    let (token, _) = player(&app, "Walker").await;
    let (mut ws, sync) = enter(&app, &token).await;
    let x = sync["tile"]["x"].as_i64().unwrap();
    let z = sync["tile"]["z"].as_i64().unwrap();
    ws.send(walk_to(x + 201, z), Some(json!("far"))).await;
    let error = ws.expect_type("error").await;
    assert_eq!(error["data"]["code"], "move_too_far");
    assert_eq!(error["data"]["ref"], "far");
}

#[tokio::test]
async fn chat_reaches_local_global_and_private_listeners() {
    let app = TestApp::spawn().await;
    let (ta, _) = player(&app, "Talker").await;
    let (tb, listener) = player(&app, "Listener").await;
    let (mut a, _) = enter(&app, &ta).await;
    let (mut b, _) = enter(&app, &tb).await;
    // Both in the world together: b saw a in its first update; a sees b arrive.
    a.expect("the listener in view", |m| {
        m["type"] == "world:update" && has_entity(m, "added", &listener)
    })
    .await;

    a.send(chat("  hello there  "), None).await;
    let heard = b
        .expect("local chat", |m| {
            // Anything but the game channel (a newcomer's welcome, CONTRACT §13).
            m["type"] == "chat:message" && m["data"]["channel"] != "game"
        })
        .await;
    assert_eq!(heard["data"]["channel"], "local");
    assert_eq!(heard["data"]["text"], "hello there");
    assert_eq!(heard["data"]["fromName"], "Talker");
    assert!(heard["data"]["ts"].as_i64().unwrap() > 1_700_000_000_000);

    a.send(chat_on(ChatChannel::Global, "to all"), None).await;
    let heard = b
        .expect("global chat", |m| {
            // Anything but the game channel (a newcomer's welcome, CONTRACT §13).
            m["type"] == "chat:message" && m["data"]["channel"] != "game"
        })
        .await;
    assert_eq!(heard["data"]["channel"], "global");

    a.send(private("listener", "psst"), None).await;
    let heard = b
        .expect("private chat", |m| {
            // Anything but the game channel (a newcomer's welcome, CONTRACT §13).
            m["type"] == "chat:message" && m["data"]["channel"] != "game"
        })
        .await;
    assert_eq!(heard["data"]["channel"], "private");
    assert_eq!(heard["data"]["text"], "psst");

    a.send(private("Nobody", "anyone?"), Some(json!(9))).await;
    let error = a.expect_type("error").await;
    assert_eq!(error["data"]["code"], "player_offline");
    assert_eq!(error["data"]["ref"], 9);

    a.send(chat("x".repeat(201)), Some(json!("long"))).await;
    let error = a.expect_type("error").await;
    assert_eq!(error["data"]["code"], "invalid_text");
    assert_eq!(error["data"]["ref"], "long");
}

#[tokio::test]
async fn bad_frames_are_answered_and_the_socket_stays_open() {
    let app = TestApp::spawn().await;
    let (token, _) = player(&app, "Fuzzer").await;
    let (mut ws, _) = enter(&app, &token).await;
    let cases: Vec<(String, &str)> = vec![
        ("not json".into(), "invalid_message"),
        (
            json!({"type": "dance", "data": {}, "ref": "r"}).to_string(),
            "unknown_type",
        ),
        (
            json!({"type": "player:move", "data": {"x": "one", "z": 2}}).to_string(),
            "invalid_message",
        ),
        (json!({"data": {}}).to_string(), "invalid_message"),
        (
            json!({"type": "player:chat", "data": {"text": 5}}).to_string(),
            "invalid_message",
        ),
        (
            json!({"type": "player:chat", "data": {"text": "x".repeat(17 * 1024)}}).to_string(),
            "message_too_large",
        ),
    ];
    for (frame, code) in cases {
        ws.send_text(frame.clone()).await;
        let error = ws.expect_type("error").await;
        assert_eq!(
            error["data"]["code"],
            code,
            "for {}",
            &frame[..frame.len().min(60)]
        );
    }
    ws.send(ClientMessage::Sync, None).await;
    ws.expect_type("player:sync").await;
}

#[tokio::test]
async fn sixty_messages_a_second_pass_and_more_are_dropped_with_one_error() {
    let app = TestApp::spawn_limited().await;
    let (token, _) = player(&app, "Chatty").await;
    let (mut ws, _) = enter(&app, &token).await;
    for _ in 0..60 {
        ws.send(ClientMessage::Sync, None).await;
    }
    let mut syncs = 0;
    while syncs < 60 {
        let m = ws.next().await.unwrap();
        assert_ne!(
            m["data"]["code"], "rate_limited",
            "60 messages in a second pass"
        );
        if m["type"] == "player:sync" {
            syncs += 1;
        }
    }
    for _ in 0..20 {
        ws.send(ClientMessage::Sync, None).await;
    }
    let error = ws.expect("rate_limited", |m| m["type"] == "error").await;
    assert_eq!(error["data"]["code"], "rate_limited");
}

#[tokio::test]
async fn the_same_character_twice_replaces_the_older_connection_with_4000() {
    let app = TestApp::spawn().await;
    let (token, _) = player(&app, "Twice").await;
    let (mut first, _) = enter(&app, &token).await;
    let (mut second, _) = enter(&app, &token).await;
    assert_eq!(first.expect_close().await, Some(4000));
    second.send(ClientMessage::Sync, None).await;
    second.expect_type("player:sync").await;
}

#[tokio::test]
async fn admin_commands_need_the_code() {
    let app = TestApp::spawn_with(AppOptions {
        env: vec![("ADMIN_CODE", "open-sesame".into())],
        ..Default::default()
    })
    .await;
    let (token, _) = player(&app, "Boss").await;
    let (tv, victim) = player(&app, "Victim").await;
    let (mut ws, sync) = enter(&app, &token).await;
    let (mut v, _) = enter(&app, &tv).await;

    ws.send(chat("/broadcast hi"), Some(json!("b"))).await;
    let error = ws.expect_type("error").await;
    assert_eq!(error["data"]["code"], "forbidden");

    ws.send(chat("/admin wrong"), None).await;
    let reply = ws
        .expect("system reply", |m| {
            m["type"] == "chat:message" && m["data"]["channel"] == "system"
        })
        .await;
    assert!(reply["data"]["text"].as_str().unwrap().contains("Wrong"));
    ws.send(chat("/admin open-sesame"), None).await;
    ws.expect("granted", |m| {
        m["type"] == "chat:message"
            && m["data"]["text"]
                .as_str()
                .is_some_and(|t| t.contains("granted"))
    })
    .await;

    ws.send(chat("/broadcast Server restart soon"), None).await;
    let heard = v
        .expect("broadcast", |m| {
            m["type"] == "chat:message" && m["data"]["channel"] == "system"
        })
        .await;
    assert_eq!(heard["data"]["text"], "Server restart soon");

    ws.send(chat("/give coins 100"), None).await;
    let update = ws.expect_type("inventory:update").await;
    assert_eq!(update["data"]["coins"], 125);

    let x = sync["tile"]["x"].as_i64().unwrap();
    let z = sync["tile"]["z"].as_i64().unwrap();
    ws.send(chat(format!("/tp {} {}", x + 2, z + 1)), None)
        .await;
    ws.send(chat("/frobnicate"), None).await;
    let reply = ws
        .expect("unknown", |m| {
            m["type"] == "chat:message"
                && m["data"]["text"]
                    .as_str()
                    .is_some_and(|t| t.contains("Unknown command"))
        })
        .await;
    assert_eq!(reply["data"]["channel"], "system");

    ws.send(chat("/kick victim"), None).await;
    assert_eq!(v.expect_close().await, Some(4001));
    let _ = victim;
}

#[tokio::test]
async fn the_admin_kick_route_closes_a_connection() {
    let app = TestApp::spawn().await;
    let (admin_token, admin_account) = crate::auth::guest(&app).await;
    app.store()
        .users()
        .set_roles(&admin_account, &["admin".into()])
        .await
        .unwrap();
    let (token, id) = player(&app, "Kicked").await;
    let (mut ws, _) = enter(&app, &token).await;
    let response = app
        .client
        .post(app.url("/api/admin/kick"))
        .bearer_auth(&admin_token)
        .json(&json!({"characterId": id}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(ws.expect_close().await, Some(4001));
    let again = app
        .client
        .post(app.url("/api/admin/kick"))
        .bearer_auth(&admin_token)
        .json(&json!({"characterId": id}))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 404);
}

/// Tests walk a few tiles from the spawn by offset; with the test seed nothing procedural stands
/// there (a fishing spot blocks its tile, and one on a walk's target once stopped a walk short).
#[test]
fn the_test_layout_keeps_the_spawn_open() {
    let (content, _) = wayfarer_content::Content::from_files(&wayfarer_content::bundled()).unwrap();
    let world = wayfarer_sim::World::with_seeds(std::sync::Arc::new(content), TEST_WORLD_SEED, 0);
    let spawn = world.spawn_tile();
    for dx in -5..=5 {
        for dz in -5..=5 {
            let tile = wayfarer_protocol::ws::TilePos {
                x: spawn.x + dx,
                z: spawn.z + dz,
            };
            assert!(
                world.is_walkable(tile),
                "{tile:?} is blocked near the spawn"
            );
        }
    }
}

async fn position_survives_logout_and_restart(db: FreshDatabase) {
    let app = TestApp::spawn_with(AppOptions {
        database: Some(db),
        ..Default::default()
    })
    .await;
    let (token, id) = player(&app, "Persist").await;
    let (mut ws, sync) = enter(&app, &token).await;
    let x = sync["tile"]["x"].as_i64().unwrap() + 2;
    let z = sync["tile"]["z"].as_i64().unwrap() + 1;
    ws.send(walk_to(x, z), None).await;
    ws.wait_for_tile(x, z).await;
    ws.close().await;
    // Logging out saves; the REST view shows the saved tile once the session is closed.
    let deadline = Instant::now() + WAIT;
    loop {
        let position: Value = app
            .client
            .get(app.url(&format!("/api/characters/{id}/position")))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if position["online"] == false && position["tile"] == json!({"x": x, "z": z}) {
            break;
        }
        assert!(Instant::now() < deadline, "not saved: {position}");
        app.pass_time().await;
    }
    let stopped = app.stop().await;
    let (app, _stopped) = stopped.restart().await;
    let (_ws, sync) = enter(&app, &token).await;
    assert_eq!(sync["tile"], json!({"x": x, "z": z}));
    let sessions = app.store().sessions().for_character(&id).await.unwrap();
    assert!(sessions
        .iter()
        .any(|s| s.close_reason.as_deref() == Some("logout")));
}

both_databases!(position_survives_logout_and_restart, |db| {
    position_survives_logout_and_restart(db)
});

#[tokio::test]
async fn shutdown_saves_players_still_online() {
    let app = TestApp::spawn().await;
    let (token, id) = player(&app, "Stayer").await;
    let (mut ws, sync) = enter(&app, &token).await;
    let x = sync["tile"]["x"].as_i64().unwrap() + 1;
    let z = sync["tile"]["z"].as_i64().unwrap();
    ws.send(walk_to(x, z), None).await;
    ws.wait_for_tile(x, z).await;
    let stopped = app.stop().await;
    assert_eq!(ws.expect_close().await, Some(1001));
    let (app, _stopped) = stopped.restart().await;
    let character = app.store().characters().get(&id).await.unwrap().unwrap();
    assert_eq!(character.position[0].floor() as i64, x);
    assert_eq!(character.position[2].floor() as i64, z);
}

/// Reads chat until as many lines as `said` have arrived: each of them once, each speaker's
/// (the text's first field) in the order said.
async fn hears_all(ws: &mut WsClient, said: &[String]) {
    let mut heard = Vec::with_capacity(said.len());
    while heard.len() < said.len() {
        let line = ws
            .expect("the tick's lines", |m| {
                // Anything but the game channel (a newcomer's welcome, CONTRACT §13).
                m["type"] == "chat:message" && m["data"]["channel"] != "game"
            })
            .await;
        heard.push(line["data"]["text"].as_str().unwrap().to_owned());
    }
    let speaker = |text: &String| text.split('-').next().unwrap().to_owned();
    let speakers: std::collections::BTreeSet<String> = said.iter().map(speaker).collect();
    for who in speakers {
        let of = |lines: &[String]| -> Vec<String> {
            lines
                .iter()
                .filter(|t| speaker(t) == who)
                .cloned()
                .collect()
        };
        assert_eq!(of(&heard), of(said), "speaker {who}'s lines");
    }
}

/// Global lines each spammer says in each tick of the flood.
const FLOOD_LINES_PER_TICK: usize = 5;
/// Ticks of flood within which the client that never reads must be dropped: once the kernel's
/// buffers hold a few dozen ticks of lines, its socket write stalls (dropped after 10 s of that)
/// while its outbound queue fills (dropped at 128 ticks' batches), whichever comes first.
const FLOOD_TICKS: u64 = 400;

#[tokio::test]
async fn a_client_that_never_reads_is_dropped_while_every_tick_and_line_reaches_the_others() {
    let app = TestApp::spawn_manual().await;
    let (slow_token, slow_id) = player(&app, "Sleeper").await;
    let mut slow = WsClient::connect_slow(&app, &format!("token={slow_token}")).await;
    // It reads nothing from here on.
    let _ = &mut slow;
    app.in_world(&slow_id).await;
    let mut spammers = Vec::new();
    for i in 0..4 {
        let (token, _) = player(&app, &format!("Spam{i}")).await;
        spammers.push(enter(&app, &token).await.0);
    }
    let (observer_token, _) = player(&app, "Watcher").await;
    let (mut observer, _) = enter(&app, &observer_token).await;

    let mut tick = app.step(0).await;
    let mut dropped = false;
    let mut flood_ticks = 0;
    while !dropped {
        assert!(
            flood_ticks < FLOOD_TICKS,
            "the slow client was not dropped within {FLOOD_TICKS} ticks"
        );
        // Each spammer's lines of this tick, all in the world's queue before the step.
        let mut said = Vec::new();
        for (i, spammer) in spammers.iter_mut().enumerate() {
            for line in 0..FLOOD_LINES_PER_TICK {
                let text = format!("{i}-{tick}-{line}-{}", "x".repeat(180));
                spammer
                    .send(chat_on(ChatChannel::Global, text.clone()), None)
                    .await;
                said.push(text);
            }
            spammer.barrier().await;
        }
        // Every tick happens, whatever the slow client does.
        tick += 1;
        assert_eq!(app.step(1).await, tick);
        flood_ticks += 1;
        // Everyone who reads hears every line of the tick (rate and chat limits are off in the
        // test server, so none is refused), in the order said by each speaker.
        for reader in spammers.iter_mut().chain(std::iter::once(&mut observer)) {
            hears_all(reader, &said).await;
        }
        let sessions = app
            .store()
            .sessions()
            .for_character(&slow_id)
            .await
            .unwrap();
        dropped = sessions
            .iter()
            .any(|s| s.close_reason.as_deref() == Some("slow_client"));
    }
    let status: Value = app.get("/status").await.json().await.unwrap();
    assert_eq!(status["tick"]["number"], tick);
}

#[tokio::test]
async fn private_messages_to_someone_who_ignores_you_are_refused() {
    let app = TestApp::spawn().await;
    let (ta, id_a) = player(&app, "Pest").await;
    let (tb, id_b) = player(&app, "Quiet").await;
    app.store().ignores().add(&id_b, &id_a).await.unwrap();
    let (mut a, _) = enter(&app, &ta).await;
    let (mut b, _) = enter(&app, &tb).await;
    a.send(private("Quiet", "hey"), Some(json!("p"))).await;
    let error = a.expect_type("error").await;
    assert_eq!(error["data"]["code"], "ignored");
    assert_eq!(error["data"]["ref"], "p");
    // Nor does local chat from the ignored reach them, while the reverse still works.
    a.send(chat("can you hear me"), None).await;
    b.send(chat("marker"), None).await;
    let heard = b
        .expect("own marker", |m| {
            // Anything but the game channel (a newcomer's welcome, CONTRACT §13).
            m["type"] == "chat:message" && m["data"]["channel"] != "game"
        })
        .await;
    assert_eq!(
        heard["data"]["text"], "marker",
        "the ignored player's message never arrived first"
    );
}

#[tokio::test]
async fn a_banned_account_is_refused_before_the_upgrade() {
    let app = TestApp::spawn().await;
    let (token, id) = player(&app, "Banned").await;
    let account = app
        .store()
        .characters()
        .get(&id)
        .await
        .unwrap()
        .unwrap()
        .account_id;
    app.store()
        .bans()
        .create(&account, "griefing", None, None)
        .await
        .unwrap();
    assert_eq!(
        WsClient::connect(&app, &format!("token={token}"))
            .await
            .err(),
        Some(403)
    );
}

#[tokio::test]
async fn a_plain_request_to_the_game_socket_is_refused_with_400_after_the_token_check() {
    let app = TestApp::spawn().await;
    let (token, _) = player(&app, "Plain").await;
    // No upgrade headers: the token is good, the request is not a WebSocket upgrade.
    let response = app
        .client
        .get(app.url(&format!("/ws?token={token}")))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert!(
        body.to_string().contains("expected a WebSocket upgrade"),
        "{body}"
    );
    // A bad token is reported before the missing upgrade.
    let response = app
        .client
        .get(app.url("/ws?token=not-a-token"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
}

#[tokio::test]
async fn online_players_are_saved_every_save_interval_and_items_survive_a_restart() {
    let app = TestApp::spawn_with(AppOptions {
        env: vec![("SAVE_INTERVAL", "1".into()), ("ADMIN_CODE", "code".into())],
        ..Default::default()
    })
    .await;
    let (token, id) = player(&app, "Autosave").await;
    let (mut ws, sync) = enter(&app, &token).await;
    ws.send(chat("/admin code"), None).await;
    ws.send(chat("/give coins 75"), None).await;
    let update = ws.expect_type("inventory:update").await;
    assert_eq!(update["data"]["coins"], 100);
    let x = sync["tile"]["x"].as_i64().unwrap() + 2;
    let z = sync["tile"]["z"].as_i64().unwrap() + 2;
    ws.send(walk_to(x, z), None).await;
    ws.wait_for_tile(x, z).await;
    // Still online: the periodic save writes position and coins.
    let deadline = Instant::now() + WAIT;
    loop {
        let stored = app.store().characters().get(&id).await.unwrap().unwrap();
        if stored.position[0].floor() as i64 == x
            && stored.position[2].floor() as i64 == z
            && stored.coins == 100
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the periodic save never happened: {stored:?}"
        );
        app.pass_time().await;
    }
    let stopped = app.stop().await;
    let (app, _stopped) = stopped.restart().await;
    let (_ws, sync) = enter(&app, &token).await;
    assert_eq!(sync["coins"], 100);
    assert_eq!(sync["tile"], json!({"x": x, "z": z}));
}
