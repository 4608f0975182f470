//! Global chat across worlds (`CROSS_WORLD_GLOBAL_CHAT=true`): a line said in one world reaches
//! every world with the sender's world, ignore lists are honoured where it is heard, and with
//! NATS down the line still reaches its own world while the sender is told once.

use serde_json::Value;
use wayfarer_protocol::ws::{ChatChannel, ClientMessage};
use wayfarer_testkit::messages::chat_on;

use super::{enter, linked, player, Cluster, Read, Ws, WAIT};

const CROSS_WORLD_CHAT: (&str, &str) = ("CROSS_WORLD_GLOBAL_CHAT", "true");

fn global_line(m: &Value, text: &str) -> bool {
    m["type"] == "chat:message" && m["data"]["channel"] == "global" && m["data"]["text"] == text
}

/// Reads until `what` arrives, returning every message read before it as well.
async fn read_until(ws: &mut Ws, what: &str, accept: impl Fn(&Value) -> bool) -> Vec<Value> {
    let deadline = std::time::Instant::now() + WAIT;
    let mut seen = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match ws.read(left).await {
            Read::Message(m) => {
                let done = accept(&m);
                seen.push(m);
                if done {
                    return seen;
                }
            }
            other => panic!("{other:?} while waiting for {what}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn global_chat_reaches_every_world_with_the_senders_world() {
    let Some(mut cluster) = Cluster::new().await else {
        return;
    };
    let one = cluster.world_with(1, &[CROSS_WORLD_CHAT]).await;
    let two = cluster.world_with(2, &[CROSS_WORLD_CHAT]).await;
    let http = cluster.http.clone();
    linked(&http, &[&one, &two]).await;
    let (ann_token, _) = player(&http, &one, "Ann").await;
    let (dee_token, _) = player(&http, &one, "Dee").await;
    let (bob_token, _) = player(&http, &two, "Bob").await;
    let (cy_token, _) = player(&http, &two, "Cy").await;
    let (mut ann, _) = enter(&one, &ann_token).await;
    let (mut dee, _) = enter(&one, &dee_token).await;
    let (mut bob, _) = enter(&two, &bob_token).await;
    let (mut cy, _) = enter(&two, &cy_token).await;
    cy.ignore("Ann").await;

    ann.send(chat_on(ChatChannel::Global, "hello, worlds"))
        .await;
    for (who, ws) in [("Ann", &mut ann), ("Dee", &mut dee), ("Bob", &mut bob)] {
        let line = ws
            .expect(&format!("Ann's line at {who}"), |m| {
                global_line(m, "hello, worlds")
            })
            .await;
        assert_eq!(line["data"]["fromName"], "Ann", "{line}");
        assert_eq!(line["data"]["world"], 1, "said in world 1: {line}");
    }
    // Bob answers after hearing Ann, so anything of Ann's Cy were to hear would come first.
    bob.send(chat_on(ChatChannel::Global, "hi Ann")).await;
    let before = read_until(&mut cy, "Bob's line at Cy", |m| global_line(m, "hi Ann")).await;
    assert_eq!(before.last().unwrap()["data"]["world"], 2);
    assert!(
        !before.iter().any(|m| global_line(m, "hello, worlds")),
        "Cy ignores Ann: {before:?}"
    );
    let back = ann
        .expect("Bob's line back in world 1", |m| global_line(m, "hi Ann"))
        .await;
    assert_eq!(back["data"]["world"], 2, "{back}");

    // NATS down: the line still reaches world 1, and Ann is told once that it went no further.
    cluster.nats.stop();
    super::eventually("world 1 sees the link down", || async {
        one.worlds(&http).await["crossWorld"] == false
    })
    .await;
    ann.send(chat_on(ChatChannel::Global, "anyone out there?"))
        .await;
    dee.expect("Ann's line within world 1", |m| {
        global_line(m, "anyone out there?")
    })
    .await;
    let mut seen = read_until(&mut ann, "the refusal", |m| {
        m["type"] == "error" && m["data"]["code"] == "cross_world_unavailable"
    })
    .await;
    assert!(
        seen.iter().any(|m| global_line(m, "anyone out there?")),
        "the sender's own line: {seen:?}"
    );
    // A sync answered after the refusal shows there was no second one.
    ann.send(ClientMessage::Sync).await;
    seen.extend(read_until(&mut ann, "a sync", |m| m["type"] == "player:sync").await);
    let refusals = seen
        .iter()
        .filter(|m| m["type"] == "error" && m["data"]["code"] == "cross_world_unavailable")
        .count();
    assert_eq!(refusals, 1, "{seen:?}");

    // Back up: lines cross again without a restart.
    cluster.nats.resume().await;
    linked(&http, &[&one, &two]).await;
    ann.send(chat_on(ChatChannel::Global, "back again")).await;
    bob.expect("the line after recovery", |m| global_line(m, "back again"))
        .await;
}
