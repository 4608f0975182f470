//! Chat limits across worlds (issue 27 point 3): what reaches another world is what the
//! sender's world let through, for global lines (the relay publishes what the game accepted)
//! and for private messages (counted before they leave).

use serde_json::Value;
use wayfarer_protocol::ws::ChatChannel;
use wayfarer_testkit::messages::{chat, chat_on, private};

use super::{enter, linked, player, Cluster, Read, Ws, WAIT};

/// Limits on (the test worlds switch them off otherwise), and global chat across worlds.
const LIMITED: [(&str, &str); 2] = [
    ("DISABLE_RATE_LIMIT", "false"),
    ("CROSS_WORLD_GLOBAL_CHAT", "true"),
];

/// Reads until `accept`, returning every message read up to and including it.
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

fn texts(messages: &[Value], channel: &str) -> Vec<String> {
    messages
        .iter()
        .filter(|m| {
            m["type"] == "chat:message"
                && m["data"]["channel"] == channel
                && m["data"]["fromName"] == "Ann"
        })
        .map(|m| m["data"]["text"].as_str().unwrap().to_owned())
        .collect()
}

fn is_local_marker(m: &Value) -> bool {
    m["type"] == "chat:message" && m["data"]["channel"] == "local" && m["data"]["text"] == "done"
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_world_hears_only_the_global_lines_the_senders_world_let_through() {
    let Some(cluster) = Cluster::new().await else {
        return;
    };
    let one = cluster.world_with(1, &LIMITED).await;
    let two = cluster.world_with(2, &LIMITED).await;
    let http = cluster.http.clone();
    linked(&http, &[&one, &two]).await;
    let (ann_token, _) = player(&http, &one, "Ann").await;
    let (bob_token, _) = player(&http, &two, "Bob").await;
    let (mut ann, _) = enter(&one, &ann_token).await;
    let (mut bob, _) = enter(&two, &bob_token).await;

    // 30 different global lines at once (inside the connection's 60 a second), then a local
    // line: once Ann hears it, her world has dealt with every global line before it.
    for i in 0..30 {
        ann.send(chat_on(ChatChannel::Global, format!("sale {i}")))
            .await;
    }
    ann.send(chat("done")).await;
    let own = read_until(&mut ann, "Ann's marker", is_local_marker).await;
    let accepted = texts(&own, "global");
    assert!(accepted.len() >= 3, "the burst of 3 passed: {accepted:?}");
    assert!(
        own.iter()
            .any(|m| m["type"] == "error" && m["data"]["code"] == "rate_limited"),
        "Ann was told"
    );
    // World 2 hears exactly those, in order.
    let last = accepted.last().unwrap().clone();
    let heard = read_until(&mut bob, "Ann's last accepted line", |m| {
        m["type"] == "chat:message" && m["data"]["text"] == last.as_str()
    })
    .await;
    assert_eq!(texts(&heard, "global"), accepted);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_message_to_another_world_is_held_when_repeated() {
    let Some(cluster) = Cluster::new().await else {
        return;
    };
    let one = cluster.world_with(1, &LIMITED).await;
    let two = cluster.world_with(2, &LIMITED).await;
    let http = cluster.http.clone();
    linked(&http, &[&one, &two]).await;
    let (ann_token, _) = player(&http, &one, "Ann").await;
    let (bob_token, _) = player(&http, &two, "Bob").await;
    let (mut ann, _) = enter(&one, &ann_token).await;
    let (mut bob, _) = enter(&two, &bob_token).await;

    let private = |text: &str| private("Bob", text);
    for text in ["are you there?", "ARE YOU THERE?", "are you\u{200B} there?"] {
        ann.send(private(text)).await;
    }
    ann.send(private("\u{202E}bye")).await;
    ann.send(private("\u{200B}")).await;
    let heard = read_until(&mut bob, "Ann's goodbye", |m| {
        m["type"] == "chat:message" && m["data"]["text"] == "bye"
    })
    .await;
    assert_eq!(texts(&heard, "private"), ["are you there?", "bye"]);

    // The echoes come through Ann's world after a tick; refusals straight from her connection.
    let mut told = read_until(&mut ann, "the echo of the goodbye", |m| {
        m["type"] == "chat:message" && m["data"]["text"] == "bye"
    })
    .await;
    if !told.iter().any(|m| m["data"]["code"] == "invalid_text") {
        told.extend(
            read_until(&mut ann, "the refusal of the empty line", |m| {
                m["type"] == "error" && m["data"]["code"] == "invalid_text"
            })
            .await,
        );
    }
    assert_eq!(
        texts(&told, "private"),
        ["are you there?", "bye"],
        "the echoes"
    );
    let notices: Vec<&Value> = told
        .iter()
        .filter(|m| m["type"] == "error" && m["data"]["code"] == "rate_limited")
        .collect();
    // Each private message to another world is counted after a tick of its own, so the two
    // repeats are held one or more ticks apart: one notice, or two if a second had passed.
    assert!((1..=2).contains(&notices.len()), "{told:?}");
    for notice in notices {
        assert!(
            notice["data"]["message"]
                .as_str()
                .unwrap()
                .starts_with("you just said that on private"),
            "{notice}"
        );
    }
}
