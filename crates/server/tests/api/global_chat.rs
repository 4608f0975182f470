//! Global chat within one world on the stepped clock: who gets a line (everyone in the world when
//! it is said, but those ignoring its speaker; not whoever enters after it in the same tick), and
//! in what order a player's lines arrive.

use serde_json::Value;
use wayfarer_protocol::ws::ChatChannel;

use crate::support::messages::{chat, chat_on, private};
use crate::support::{enter, player, TestApp, WsClient};

fn global(m: &Value) -> bool {
    m["type"] == "chat:message" && m["data"]["channel"] == "global"
}

fn chat_line(m: &Value) -> bool {
    // Players' lines: not the world's own (`system`, and `game`: a newcomer's welcome).
    m["type"] == "chat:message"
        && !["system", "game"].contains(&m["data"]["channel"].as_str().unwrap_or(""))
}

/// Says `text` on global and steps the world one tick with it.
async fn say_global(app: &TestApp, ws: &mut WsClient, text: &str) {
    ws.send(chat_on(ChatChannel::Global, text), None).await;
    ws.barrier().await;
    app.step(1).await;
}

#[tokio::test]
async fn a_global_line_reaches_everyone_but_those_ignoring_the_speaker_who_hears_it_too() {
    let app = TestApp::spawn_manual().await;
    let (tp, pest) = player(&app, "Pest").await;
    let (tq, quiet) = player(&app, "Quiet").await;
    let (tt, _) = player(&app, "Third").await;
    app.store().ignores().add(&quiet, &pest).await.unwrap();
    let (mut p, _) = enter(&app, &tp).await;
    let (mut q, _) = enter(&app, &tq).await;
    let (mut t, _) = enter(&app, &tt).await;

    say_global(&app, &mut p, "buy my stuff").await;
    for (who, ws) in [("Pest", &mut p), ("Third", &mut t)] {
        let line = ws.expect(&format!("the line at {who}"), global).await;
        assert_eq!(line["data"]["text"], "buy my stuff", "{who}");
        assert_eq!(line["data"]["fromName"], "Pest");
    }
    // Quiet's first global line is the next one said: Pest's never came.
    say_global(&app, &mut t, "anyone selling logs?").await;
    let line = q.expect("Third's line at Quiet", global).await;
    assert_eq!(line["data"]["text"], "anyone selling logs?");
}

#[tokio::test]
async fn a_global_line_skips_whoever_enters_after_it_in_its_tick() {
    let app = TestApp::spawn_manual().await;
    let (ts, _) = player(&app, "Speaker").await;
    let (te, early) = player(&app, "Early").await;
    let (tl, late) = player(&app, "Late").await;
    let (mut speaker, _) = enter(&app, &ts).await;

    // One tick runs, in this order: Early's join, the line, Late's join.
    let mut e = WsClient::connect(&app, &format!("token={te}"))
        .await
        .unwrap();
    e.expect_type("player:sync").await;
    app.in_world(&early).await;
    speaker
        .send(chat_on(ChatChannel::Global, "who is there?"), None)
        .await;
    speaker.barrier().await;
    let mut l = WsClient::connect(&app, &format!("token={tl}"))
        .await
        .unwrap();
    l.expect_type("player:sync").await;
    app.in_world(&late).await;
    app.step(1).await;

    for (who, ws) in [("Speaker", &mut speaker), ("Early", &mut e)] {
        let line = ws.expect(&format!("the line at {who}"), global).await;
        assert_eq!(line["data"]["text"], "who is there?", "{who}");
    }
    // Late's first tick, up to its first view (the tick's chat comes before it): no line.
    loop {
        let m = l.next().await.expect("Late's entry");
        assert!(!global(&m), "Late got the line said before it entered: {m}");
        if m["type"] == "world:update" {
            break;
        }
    }
    // Nor later: its first global line is the next one said.
    say_global(&app, &mut speaker, "welcome, Late").await;
    let line = l.expect("the next line at Late", global).await;
    assert_eq!(line["data"]["text"], "welcome, Late");
}

#[tokio::test]
async fn a_players_global_private_and_local_lines_arrive_in_the_order_said() {
    let app = TestApp::spawn_manual().await;
    let (ts, _) = player(&app, "Teller").await;
    let (th, _) = player(&app, "Hearer").await;
    let (mut teller, _) = enter(&app, &ts).await;
    let (mut hearer, _) = enter(&app, &th).await;

    // Within a tick global and private lines keep the order said (the tick's local lines follow
    // them, heard once every command is in); across ticks every line does.
    teller.send(chat("local before"), None).await;
    teller.barrier().await;
    app.step(1).await;
    for message in [
        private("Hearer", "private one"),
        chat_on(ChatChannel::Global, "global"),
        private("Hearer", "private two"),
    ] {
        teller.send(message, None).await;
    }
    teller.barrier().await;
    app.step(1).await;
    teller.send(chat("local after"), None).await;
    teller.barrier().await;
    app.step(1).await;

    let mut heard = Vec::new();
    while heard.len() < 5 {
        let line = hearer.expect("a chat line", chat_line).await;
        heard.push(line["data"]["text"].as_str().unwrap().to_owned());
    }
    assert_eq!(
        heard,
        [
            "local before",
            "private one",
            "global",
            "private two",
            "local after"
        ]
    );
}
