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
    let guide = view["data"]["added"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["typeId"] == "guide_rowan")
        .unwrap_or_else(|| panic!("the guide is in view: {view}"))
        .clone();
    assert_eq!(guide["quest"], "available", "{guide}");
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
        text.contains("Welcome to Millbrook") && text.contains("Rowan the Guide"),
        "{text}"
    );

    // Taking the guided first quest turns the marker to `active`.
    ws.send(act_on("interact", &guide["id"]), None).await;
    let open = ws.expect_type("dialogue:open").await;
    answer(&mut ws, &open, "Yes, show me around.").await;
    let tour = ws
        .expect("the tour", |m| {
            m["type"] == "dialogue:open" && m["data"]["nodeId"] == "tour"
        })
        .await;
    answer(&mut ws, &tour, "I'm ready.").await;
    let changed = ws
        .expect("the marker's change", |m| {
            m["type"] == "world:update"
                && m["data"]["changed"]
                    .as_array()
                    .is_some_and(|c| c.iter().any(|c| c["id"] == guide["id"]))
        })
        .await;
    let entry = changed["data"]["changed"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == guide["id"])
        .unwrap()
        .clone();
    assert_eq!(entry["quest"], "active", "{entry}");
}
