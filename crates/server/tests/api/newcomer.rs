//! A newcomer knows what to do (CONTRACT §13): a new character's first entry brings a welcome line
//! in the game channel naming the first thing to do, the quest giver it names shows an
//! `available` marker in the `added` entry the player first sees it by, and the marker changes
//! (a `changed` entry) as the quest starts.

use serde_json::Value;
use wayfarer_protocol::ws::{ClientMessage, DialogueRespond};

use crate::support::messages::{act_on, to_id};
use crate::support::{player, TestApp, WsClient};

/// Answers the dialogue `open` with the response reading `text`.
async fn answer(ws: &mut WsClient, open: &Value, text: &str) {
    let index = open["data"]["responses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["text"] == text)
        .unwrap_or_else(|| panic!("{text:?} not offered in {open}"))["index"]
        .as_u64()
        .unwrap();
    ws.send(
        ClientMessage::DialogueRespond(DialogueRespond {
            npc_id: to_id(&open["data"]["npcId"]),
            index: u32::try_from(index).unwrap(),
        }),
        None,
    )
    .await;
}

#[tokio::test]
async fn a_new_character_is_welcomed_and_sees_the_guides_quest_marker_change_as_it_starts() {
    let app = TestApp::spawn().await;
    let (token, _) = player(&app, "Greenhorn").await;
    let mut ws = WsClient::connect(&app, &format!("token={token}"))
        .await
        .unwrap();
    assert_eq!(ws.next().await.unwrap()["type"], "player:sync");
    let view = ws.expect_type("world:update").await;
    let holt = view["data"]["added"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["typeId"] == "captain_holt")
        .unwrap_or_else(|| panic!("the guide is in view: {view}"))
        .clone();
    assert_eq!(holt["quest"], "available", "{holt}");
    let banker = view["data"]["added"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["typeId"] == "banker_elsie")
        .cloned();
    if let Some(banker) = banker {
        assert!(
            banker.get("quest").is_none(),
            "no quest, no marker: {banker}"
        );
    }
    let welcome = ws
        .expect("the welcome", |m| {
            m["type"] == "chat:message" && m["data"]["channel"] == "game"
        })
        .await;
    let text = welcome["data"]["text"].as_str().unwrap();
    assert!(
        text.contains("Welcome to Millbrook") && text.contains("Captain Holt"),
        "{text}"
    );

    // Taking his task turns the marker to `active`.
    ws.send(act_on("interact", &holt["id"]), None).await;
    let open = ws.expect_type("dialogue:open").await;
    answer(&mut ws, &open, "I can help.").await;
    let task = ws
        .expect("the task", |m| {
            m["type"] == "dialogue:open" && m["data"]["nodeId"] == "task"
        })
        .await;
    answer(&mut ws, &task, "Understood.").await;
    let changed = ws
        .expect("the marker's change", |m| {
            m["type"] == "world:update"
                && m["data"]["changed"]
                    .as_array()
                    .is_some_and(|c| c.iter().any(|c| c["id"] == holt["id"]))
        })
        .await;
    let entry = changed["data"]["changed"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == holt["id"])
        .unwrap()
        .clone();
    assert_eq!(entry["quest"], "active", "{entry}");
}
