//! Dialogue and quests over WebSockets with content from a test CDN: the bundled content plus two
//! quests written here in the reference format (`courier_run`: talk, kill a chicken, talk;
//! `courier_note`: talk, talk) started and completed from Captain Holt's dialogue. Rewards once
//! (the last answer sent twice, and raced by a second connection of the same character), progress
//! across restarts on SQLite and PostgreSQL, the owner-only REST view and the public quest points.

use std::time::Duration;

use serde_json::{json, Value};
use wayfarer_protocol::ws::{ActionRequest, ClientMessage, DialogueRespond};

use crate::support::messages::{act_on, added_of_type, chat, to_id, walk_to};
use crate::support::{
    both_databases, player, AppOptions, Cdn, Clock, FreshDatabase, TestApp, WsClient,
};

const HOLT: &str = "captain_holt";

/// The test's quests and Captain Holt's extra lines.
fn add_courier_quests(cdn: &Cdn) {
    cdn.edit("quests.json", |quests| {
        quests["courier_run"] = json!({
            "id": "courier_run", "name": "Courier Run",
            "description": "Holt needs a road cleared \u{2014} one chicken will do.",
            "difficulty": "novice", "questPoints": 1, "replayable": false,
            "requirements": {"quests": [], "skills": {}, "items": []},
            "startNpc": HOLT,
            "stages": [
                {"id": "start", "type": "dialogue", "description": "Talk to Holt", "npcId": HOLT},
                {"id": "chicken", "type": "kill", "description": "Kill a chicken", "target": "chicken", "count": 1},
                {"id": "return", "type": "dialogue", "description": "Back to Holt", "npcId": HOLT}
            ],
            "onStart": {"items": [{"itemId": "bronze_dagger", "quantity": 1}], "dialogue": "courier_go"},
            "rewards": {"questPoints": 1, "items": [{"itemId": "trout", "quantity": 3}], "xp": {"attack": 40}}
        });
        quests["courier_note"] = json!({
            "id": "courier_note", "name": "Courier Note", "questPoints": 2, "replayable": false,
            "requirements": {"quests": [], "skills": {}, "items": []},
            "startNpc": HOLT,
            "stages": [
                {"id": "start", "type": "dialogue", "description": "Talk to Holt", "npcId": HOLT},
                {"id": "return", "type": "dialogue", "description": "Hand over the note", "npcId": HOLT}
            ],
            "rewards": {"questPoints": 2, "items": [{"itemId": "coins", "quantity": 1000}]}
        });
    });
    cdn.edit("npcs.json", |npcs| {
        let holt = npcs
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|n| n["id"] == HOLT)
            .unwrap();
        let dialogue = &mut holt["dialogue"];
        dialogue["questOverrides"]["courier_run"] = json!({"ready_to_complete": "courier_ready"});
        dialogue["questOverrides"]["courier_note"] = json!({"ready_to_complete": "note_ready"});
        let nodes = dialogue["nodes"].as_array_mut().unwrap();
        let greeting = nodes.iter_mut().find(|n| n["id"] == "greeting").unwrap();
        let responses = greeting["responses"].as_array_mut().unwrap();
        responses.push(json!({"text": "Need a courier?", "nextNodeId": "farewell",
                              "effect": "startQuest:courier_run",
                              "condition": "questStatus:courier_run:not_started"}));
        responses.push(json!({"text": "A note to deliver?", "nextNodeId": "farewell",
                              "effect": "startQuest:courier_note",
                              "condition": "questStatus:courier_note:not_started"}));
        nodes.push(json!({"id": "courier_go", "text": "Take this dagger. One chicken."}));
        nodes.push(json!({"id": "courier_ready", "text": "Done?", "responses": [
            {"text": "Done.", "nextNodeId": "courier_thanks", "effect": "completeQuest:courier_run"}]}));
        nodes.push(json!({"id": "courier_thanks", "text": "Here, trout."}));
        nodes.push(json!({"id": "note_ready", "text": "The note?", "responses": [
            {"text": "Here.", "nextNodeId": "courier_thanks", "effect": "completeQuest:courier_note"}]}));
    });
}

/// A server whose content comes from a CDN with the courier quests, on `db` (else SQLite).
async fn courier_app(db: Option<FreshDatabase>) -> (TestApp, Cdn, String) {
    courier_app_on(db, Clock::Manual).await
}

async fn courier_app_on(db: Option<FreshDatabase>, clock: Clock) -> (TestApp, Cdn, String) {
    let (cdn, url) = Cdn::start().await;
    add_courier_quests(&cdn);
    let app = TestApp::spawn_with(AppOptions {
        env: vec![("PUBLIC_CDN_URL", url.clone()), ("ADMIN_CODE", "q".into())],
        database: db,
        clock,
        ..Default::default()
    })
    .await;
    (app, cdn, url)
}

/// Connects and reads the entry: (socket, player:sync data, first world:update data).
async fn session(app: &TestApp, token: &str) -> (WsClient, Value, Value) {
    let mut ws = WsClient::connect(app, &format!("token={token}"))
        .await
        .expect("connects");
    let sync = ws.next().await.unwrap();
    assert_eq!(sync["type"], "player:sync", "{sync}");
    let view = ws.next().await.unwrap();
    assert_eq!(view["type"], "world:update", "{view}");
    (ws, sync["data"].clone(), view["data"].clone())
}

fn npc_in(view: &Value, type_id: &str) -> String {
    added_of_type(view, type_id).unwrap_or_else(|| panic!("{type_id} in view"))
}

/// Talks to Holt (entity `holt`): the first `dialogue:open`'s data.
async fn talk(ws: &mut WsClient, holt: &str) -> Value {
    ws.send(act_on("interact", holt), None).await;
    ws.expect_type("dialogue:open").await["data"].clone()
}

/// The index of the shown response with `text`, if shown.
fn response(open: &Value, text: &str) -> Option<u64> {
    open["responses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["text"] == text)
        .map(|r| r["index"].as_u64().unwrap())
}

async fn respond(ws: &mut WsClient, index: u64) {
    ws.send(
        ClientMessage::DialogueRespond(DialogueRespond {
            npc_id: to_id(HOLT),
            index: u32::try_from(index).unwrap(),
        }),
        None,
    )
    .await;
}

/// Units of `item` the store holds for character `id` (inventory and bank).
async fn stored(app: &TestApp, id: &str, item: &str) -> i64 {
    let inventory = app.store().inventories().get(id).await.unwrap();
    let bank = app.store().inventories().bank(id).await.unwrap();
    inventory
        .iter()
        .filter(|s| s.item_id == item)
        .map(|s| s.quantity)
        .chain(
            bank.iter()
                .filter(|b| b.item_id == item)
                .map(|b| b.quantity),
        )
        .sum()
}

/// Polls the store until `check` holds (immediate saves are written by the save task).
async fn eventually(what: &str, mut check: impl AsyncFnMut() -> bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !check().await {
        assert!(std::time::Instant::now() < deadline, "never: {what}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

async fn quest_row(app: &TestApp, id: &str, quest: &str) -> Option<wayfarer_store::StoredQuest> {
    app.store()
        .quests()
        .list(id)
        .await
        .unwrap()
        .into_iter()
        .find(|q| q.quest_id == quest)
}

#[tokio::test]
async fn a_reference_format_quest_plays_end_to_end_over_the_socket_and_rewards_once() {
    let (app, _cdn, _) = courier_app(None).await;
    let (token, id) = player(&app, "Courier").await;
    let (mut ws, sync, view) = session(&app, &token).await;
    let list = ws.expect_type("quest:list").await;
    let courier = list["data"]["quests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["questId"] == "courier_run")
        .unwrap()
        .clone();
    assert_eq!(courier["status"], "not_started");
    assert_eq!(list["data"]["questPoints"], 0);
    let holt = npc_in(&view, HOLT);

    // Conditions: the courier line shows while not started.
    let open = talk(&mut ws, &holt).await;
    assert_eq!(open["npcId"], HOLT);
    assert_eq!(open["entityId"], holt.as_str());
    assert_eq!(open["nodeId"], "greeting");
    // The vermin line (not started) shows; the bounty line (needs vermin done) does not.
    assert!(response(&open, "I can help.").is_some());
    assert!(response(&open, "Any more work, Captain?").is_none());
    let start = response(&open, "Need a courier?").unwrap();
    // A bad index or NPC: an error, nothing changes.
    respond(&mut ws, 99).await;
    assert_eq!(
        ws.expect_type("error").await["data"]["code"],
        "invalid_dialogue"
    );
    ws.send(
        ClientMessage::DialogueRespond(DialogueRespond {
            npc_id: "merchant_tobin".into(),
            index: u32::try_from(start).unwrap(),
        }),
        None,
    )
    .await;
    assert_eq!(
        ws.expect_type("error").await["data"]["code"],
        "invalid_dialogue"
    );
    respond(&mut ws, start).await;
    let update = ws.expect_type("quest:update").await;
    assert_eq!(
        update["data"],
        json!({"questId": "courier_run", "status": "in_progress", "stageId": "chicken",
               "progress": 0, "count": 1})
    );
    let open = ws.expect_type("dialogue:open").await;
    assert_eq!(open["data"]["nodeId"], "courier_go");
    assert_eq!(open["data"]["responses"], json!([]));
    let close = ws.expect_type("dialogue:close").await;
    assert_eq!(close["data"], json!({"npcId": HOLT, "reason": "end"}));
    // Started and its dagger given in one immediate save.
    eventually("the start saved with its item", async || {
        quest_row(&app, &id, "courier_run")
            .await
            .is_some_and(|q| q.status == "in_progress" && q.stage.as_deref() == Some("chicken"))
            && stored(&app, &id, "bronze_dagger").await == 1
    })
    .await;

    // Kill a chicken: the stage counts it.
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
    ws.send(chat("/admin q"), None).await;
    let content = wayfarer_content::load_bundled();
    let spawner = content
        .areas
        .values()
        .flat_map(|a| &a.mob_spawns)
        .find(|m| m.mob_id == "chicken")
        .unwrap()
        .clone();
    let (cx, cz) = (
        spawner.position.x.floor() as i64,
        spawner.position.z.floor() as i64,
    );
    ws.send(chat(format!("/tp {cx} {cz}")), None).await;
    let update = ws
        .expect("chickens in view", |m| {
            m["type"] == "world:update"
                && m["data"]["added"]
                    .as_array()
                    .is_some_and(|a| a.iter().any(|e| e["typeId"] == "chicken"))
        })
        .await;
    let chicken = update["data"]["added"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["typeId"] == "chicken")
        .unwrap()["id"]
        .clone();
    ws.send(act_on("attack", &chicken), None).await;
    let update = ws
        .expect("the kill counted", |m| {
            m["type"] == "quest:update" && m["data"]["questId"] == "courier_run"
        })
        .await;
    assert_eq!(update["data"]["status"], "ready_to_complete");
    assert_eq!(update["data"]["stageId"], "return");

    // Back to Holt: the ready override; the last answer sent twice pays once.
    ws.send(chat("/tp 3 8"), None).await;
    let open = talk(&mut ws, &holt).await;
    assert_eq!(open["nodeId"], "courier_ready");
    respond(&mut ws, 0).await;
    respond(&mut ws, 0).await;
    let mut completes = 0;
    let mut errors = 0;
    while errors == 0 {
        let m = ws.next().await.unwrap();
        match m["type"].as_str() {
            Some("quest:complete") => {
                completes += 1;
                assert_eq!(m["data"]["questId"], "courier_run");
                assert_eq!(m["data"]["questPoints"], 1);
                assert_eq!(
                    m["data"]["rewards"],
                    json!({"questPoints": 1, "items": [{"itemId": "trout", "quantity": 3}],
                           "xp": {"attack": 40.0}})
                );
            }
            Some("error") => {
                assert_eq!(m["data"]["code"], "invalid_dialogue");
                errors += 1;
            }
            _ => {}
        }
    }
    assert_eq!(completes, 1);
    eventually("the completion saved with its reward", async || {
        quest_row(&app, &id, "courier_run")
            .await
            .is_some_and(|q| q.status == "completed" && q.completions == 1)
            && stored(&app, &id, "trout").await == 3
    })
    .await;
    // Completed: the start line is hidden now.
    let open = talk(&mut ws, &holt).await;
    assert_eq!(open["nodeId"], "greeting");
    assert!(response(&open, "Need a courier?").is_none());

    // REST: the owner sees the quests; anyone else gets 404; the public profile has the points.
    let body: Value = app
        .client
        .get(app.url(&format!("/api/characters/{id}/quests")))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(body["questPoints"], 1);
    let row = body["quests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["questId"] == "courier_run")
        .unwrap()
        .clone();
    assert_eq!(row["status"], "completed");
    assert_eq!(row["completions"], 1);
    let (other, _) = player(&app, "Nosy").await;
    let response = app
        .client
        .get(app.url(&format!("/api/characters/{id}/quests")))
        .bearer_auth(&other)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    let profile: Value = app
        .get(&format!("/api/characters/{id}/skills"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(profile["questPoints"], 1);
}

#[tokio::test]
async fn two_connections_racing_the_last_answer_are_paid_once() {
    // The race is in wall time: B connects some milliseconds after A's answer, while the world
    // ticks on its own.
    let (app, _cdn, _) = courier_app_on(None, Clock::timed()).await;
    for (round, delay_ms) in [0u64, 5, 30].into_iter().enumerate() {
        let (token, id) = player(&app, &format!("Racer{round}")).await;
        let (mut a, _, view) = session(&app, &token).await;
        let holt = npc_in(&view, HOLT);
        let open = talk(&mut a, &holt).await;
        respond(&mut a, response(&open, "A note to deliver?").unwrap()).await;
        a.expect("ready", |m| {
            m["type"] == "quest:update" && m["data"]["status"] == "ready_to_complete"
        })
        .await;
        // The answer's next node (a leaf) and the end of the dialogue.
        a.expect_type("dialogue:close").await;
        let open = talk(&mut a, &holt).await;
        assert_eq!(open["nodeId"], "note_ready");
        let before = stored(&app, &id, "coins").await;
        // A answers; B, the same character, connects (replacing A) and answers too.
        respond(&mut a, 0).await;
        tokio::time::sleep(Duration::from_millis(delay_ms)).await;
        let (mut b, _, view) = session(&app, &token).await;
        let holt_b = npc_in(&view, HOLT);
        let open = talk(&mut b, &holt_b).await;
        if let Some(i) = response(&open, "Here.") {
            respond(&mut b, i).await;
        }
        b.send(ClientMessage::QuestList, None).await;
        let list = b.expect_type("quest:list").await;
        let note = list["data"]["quests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|q| q["questId"] == "courier_note")
            .unwrap()
            .clone();
        // Completed by exactly one of them (A's answer came before its leave).
        assert_eq!(note["status"], "completed", "round {round}: {note}");
        b.close().await;
        eventually("saved", async || {
            quest_row(&app, &id, "courier_note")
                .await
                .is_some_and(|q| q.status == "completed")
        })
        .await;
        let row = quest_row(&app, &id, "courier_note").await.unwrap();
        assert_eq!(row.completions, 1, "round {round}");
        assert_eq!(
            stored(&app, &id, "coins").await,
            before + 1000,
            "round {round}: the reward once"
        );
        drop(a);
    }
}

async fn progress_survives_a_restart(db: FreshDatabase) {
    let (app, _cdn, url) = courier_app(Some(db)).await;
    let (token, id) = player(&app, "Keeper").await;
    let (mut ws, _, view) = session(&app, &token).await;
    let holt = npc_in(&view, HOLT);
    let open = talk(&mut ws, &holt).await;
    respond(&mut ws, response(&open, "A note to deliver?").unwrap()).await;
    ws.expect("ready", |m| {
        m["type"] == "quest:update" && m["data"]["status"] == "ready_to_complete"
    })
    .await;
    ws.expect_type("dialogue:close").await;
    ws.close().await;
    let stopped = app.stop().await;
    let restart = |stopped: &crate::support::StoppedApp| AppOptions {
        env: vec![("PUBLIC_CDN_URL", url.clone())],
        world_dir: Some(stopped.world_dir.clone()),
        database_url: Some(stopped.database_url.clone()),
        ..Default::default()
    };
    let app = TestApp::spawn_with(restart(&stopped)).await;
    let (mut ws, _, view) = session(&app, &token).await;
    let list = ws.expect_type("quest:list").await;
    let note = list["data"]["quests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["questId"] == "courier_note")
        .unwrap()
        .clone();
    assert_eq!(
        note,
        json!({"questId": "courier_note", "name": "Courier Note", "status": "ready_to_complete",
               "stageId": "return", "progress": 0})
    );
    let holt = npc_in(&view, HOLT);
    let open = talk(&mut ws, &holt).await;
    assert_eq!(open["nodeId"], "note_ready");
    respond(&mut ws, 0).await;
    ws.expect_type("quest:complete").await;
    ws.close().await;
    let _stopped = app.stop().await;
    let app = TestApp::spawn_with(restart(&stopped)).await;
    let (mut ws, _, _) = session(&app, &token).await;
    let list = ws.expect_type("quest:list").await;
    assert_eq!(list["data"]["questPoints"], 2);
    let row = quest_row(&app, &id, "courier_note").await.unwrap();
    assert_eq!((row.status.as_str(), row.completions), ("completed", 1));
    ws.close().await;
}

both_databases!(quest_progress_survives_a_restart, |db| {
    progress_survives_a_restart(db)
});

#[tokio::test]
async fn walking_away_closes_the_dialogue() {
    let (app, _cdn, _) = courier_app(None).await;
    let (token, _) = player(&app, "Wanderer").await;
    let (mut ws, _, view) = session(&app, &token).await;
    let holt = npc_in(&view, HOLT);
    talk(&mut ws, &holt).await;
    ws.send(walk_to(3, 20), None).await;
    let close = ws.expect_type("dialogue:close").await;
    assert_eq!(
        close["data"],
        json!({"npcId": HOLT, "reason": "walked_away"})
    );
    // Nothing open any more.
    respond(&mut ws, 0).await;
    assert_eq!(
        ws.expect_type("error").await["data"]["code"],
        "invalid_dialogue"
    );
}
