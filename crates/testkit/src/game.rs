//! Game moves tests make often: admin gifts, a death.

use std::time::{Duration, Instant};

use serde_json::Value;

use wayfarer_protocol::ws::{ActionRequest, ClientMessage};

use crate::messages::chat;
use crate::socket::{read, send_message, Read, Stream, WsClient};

/// `/admin <code>` and `/give <item> <quantity>` on a player's socket; returns the inventory slot
/// holding the item once an `inventory:update` shows it.
pub async fn admin_give(ws: &mut WsClient, code: &str, item: &str, quantity: i64) -> Value {
    ws.send(chat(format!("/admin {code}")), None).await;
    ws.send(chat(format!("/give {item} {quantity}")), None)
        .await;
    let holds = |m: &Value| {
        m["data"]["inventory"]
            .as_array()
            .and_then(|a| a.iter().find(|s| s["itemId"] == item))
            .map(|s| s["slot"].clone())
    };
    let update = ws
        .expect(item, |m| {
            m["type"] == "inventory:update" && holds(m).is_some()
        })
        .await;
    holds(&update).unwrap()
}

/// The tile of a bandit spawn outside PvP areas (where a player can be killed by a mob).
pub fn bandit_tile() -> (i64, i64) {
    let content = wayfarer_content::load_bundled();
    let spawner = content
        .areas
        .values()
        .filter(|a| !a.pvp)
        .flat_map(|a| &a.mob_spawns)
        .find(|m| m.mob_id == "bandit")
        .expect("the bundled world has bandits outside PvP areas");
    (
        spawner.position.x.floor() as i64,
        spawner.position.z.floor() as i64,
    )
}

/// Makes the player admin (`/admin admin_code`), takes it to a bandit outside PvP areas and picks
/// a fight it cannot win; returns once the `inventory:update` after its `player:death` came (the
/// death was dispatched; the 3 most valuable items are kept).
pub async fn die_to_a_bandit(stream: &mut Stream, admin_code: &str) {
    send_message(stream, &chat(format!("/admin {admin_code}"))).await;
    let (x, z) = bandit_tile();
    send_message(stream, &chat(format!("/tp {x} {z}"))).await;
    let mut attacked = false;
    let mut died = false;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let m = match read(stream, left).await {
            Read::Message(m) => m,
            other => panic!("{other:?} while waiting to die"),
        };
        if !attacked && m["type"] == "world:update" {
            let bandit = m["data"]["added"]
                .as_array()
                .and_then(|a| a.iter().find(|e| e["typeId"] == "bandit"))
                .cloned();
            if let Some(bandit) = bandit {
                let bandit_id = bandit["id"].as_str().expect("an entity id is a string");
                let attack = ActionRequest::new("attack").with_target(bandit_id);
                send_message(stream, &ClientMessage::Action(attack)).await;
                attacked = true;
            }
        }
        // The death, then the inventory it left (the 3 most valuable items are kept: it is not
        // empty).
        if m["type"] == "player:death" {
            died = true;
        }
        if died && m["type"] == "inventory:update" {
            return;
        }
    }
}
