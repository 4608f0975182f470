//! Chat limits over real sockets (issue 27 point 3): a flood reaches listeners at the channel's
//! rate, its sender is told `rate_limited`, repeated lines are held, and invisible characters are
//! taken out of what others hear.

use std::time::Duration;

use serde_json::{json, Value};
use wayfarer_content::ticks::TICK_MS;
use wayfarer_protocol::ws::ChatChannel;
use wayfarer_sim::{GLOBAL_LINE_RATE, NOTICE_GAP_DECIS};

use crate::support::messages::{chat, chat_on};
use crate::support::{enter, player, TestApp, WsClient};

/// The game's clock in tenths of a second per tick: chat limits count ticks of the nominal
/// length, whatever `TICK_MS` the test server runs at.
const DECIS_PER_TICK: u64 = TICK_MS / 100;

/// Ticks completed so far, as `/status` reports them.
async fn ticks(app: &TestApp) -> u64 {
    let status: Value = app.get("/status").await.json().await.unwrap();
    status["tick"]["number"].as_u64().unwrap()
}

/// Reads `ws` until the local line `marker` from `from`; what came before it.
async fn until_marker(ws: &mut WsClient, from: &str, marker: &str) -> Vec<Value> {
    let mut before = Vec::new();
    loop {
        let message = ws.next().await.expect("the socket stays open");
        if message["type"] == "chat:message"
            && message["data"]["fromName"] == from
            && message["data"]["text"] == marker
        {
            return before;
        }
        before.push(message);
    }
}

fn chat_lines<'a>(messages: &'a [Value], from: &'a str, channel: &'a str) -> Vec<&'a Value> {
    messages
        .iter()
        .filter(|m| {
            m["type"] == "chat:message"
                && m["data"]["fromName"] == from
                && m["data"]["channel"] == channel
        })
        .collect()
}

fn rate_limited(messages: &[Value]) -> Vec<&Value> {
    messages
        .iter()
        .filter(|m| m["type"] == "error" && m["data"]["code"] == "rate_limited")
        .collect()
}

#[tokio::test]
async fn a_global_flood_from_one_socket_reaches_a_listener_at_the_global_rate() {
    let app = TestApp::spawn_limited().await;
    let (flooder_token, _) = player(&app, "Flooder").await;
    let (listener_token, _) = player(&app, "Hearer").await;
    let (mut flooder, _) = enter(&app, &flooder_token).await;
    let (mut listener, _) = enter(&app, &listener_token).await;

    // Every accepted line is said in a tick after this one.
    let first = ticks(&app).await;
    // 100 different global lines, 5 every 100 ms: 50 a second, inside the connection's 60.
    let mut sent = 0;
    for _ in 0..20 {
        for _ in 0..5 {
            flooder
                .send(
                    chat_on(ChatChannel::Global, format!("buy my stuff #{sent}")),
                    Some(json!(sent)),
                )
                .await;
            sent += 1;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // A local line after them: heard once every global line before it has been dealt with.
    flooder.send(chat("done"), None).await;
    let heard = until_marker(&mut listener, "Flooder", "done").await;
    // No accepted line is said in a tick after the marker's, whose number `/status` reports at
    // most one tick late: the lines span at most `last - first` ticks.
    let last = ticks(&app).await + 1;
    let told = until_marker(&mut flooder, "Flooder", "done").await;

    let span_decis = (last - first) * DECIS_PER_TICK;
    let rate = GLOBAL_LINE_RATE;
    let most = u64::from(rate.burst) + span_decis / u64::from(rate.interval_decis);
    let global = chat_lines(&heard, "Flooder", "global");
    assert!(
        global.len() as u64 >= u64::from(rate.burst),
        "the burst is heard: {} lines",
        global.len()
    );
    assert!(
        global.len() as u64 <= most,
        "{} global lines heard in {} ticks; at most {most} allowed",
        global.len(),
        last - first
    );

    let notices = rate_limited(&told);
    assert!(!notices.is_empty(), "the flooder was told");
    assert!(
        notices.len() as u64 <= 1 + span_decis / u64::from(NOTICE_GAP_DECIS),
        "{} notices in {} ticks: at most one a second",
        notices.len(),
        last - first
    );
    let notice = &notices[0]["data"];
    let message = notice["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "you are sending global messages too fast: you may speak on global again in"
        ),
        "{message}"
    );
    assert!(
        notice["ref"]
            .as_u64()
            .is_some_and(|r| r >= u64::from(rate.burst)),
        "the notice names a held line: {notice}"
    );
    // The flooder's own echo of global lines matches what others heard.
    assert_eq!(chat_lines(&told, "Flooder", "global").len(), global.len());
}

#[tokio::test]
async fn a_repeated_line_is_held_and_its_sender_told() {
    let app = TestApp::spawn_limited().await;
    let (speaker_token, _) = player(&app, "Parrot").await;
    let (listener_token, _) = player(&app, "Ear").await;
    let (mut speaker, _) = enter(&app, &speaker_token).await;
    let (mut listener, _) = enter(&app, &listener_token).await;

    speaker.send(chat("Polly wants a cracker"), None).await;
    speaker
        .send(
            chat(" POLLY wants\u{200B} a cracker "),
            Some(json!("again")),
        )
        .await;
    speaker.send(chat("done"), None).await;
    let heard = until_marker(&mut listener, "Parrot", "done").await;
    let lines: Vec<&Value> = chat_lines(&heard, "Parrot", "local");
    assert_eq!(lines.len(), 1, "{heard:?}");
    assert_eq!(lines[0]["data"]["text"], "Polly wants a cracker");
    let told = until_marker(&mut speaker, "Parrot", "done").await;
    let notices = rate_limited(&told);
    assert_eq!(notices.len(), 1, "{told:?}");
    assert_eq!(notices[0]["data"]["ref"], "again");
    assert!(notices[0]["data"]["message"]
        .as_str()
        .unwrap()
        .starts_with("you just said that on local"));
}

#[tokio::test]
async fn invisible_characters_are_taken_out_and_a_line_of_nothing_else_is_refused() {
    let app = TestApp::spawn().await;
    let (speaker_token, _) = player(&app, "Sly").await;
    let (listener_token, _) = player(&app, "Reader").await;
    let (mut speaker, _) = enter(&app, &speaker_token).await;
    let (mut listener, _) = enter(&app, &listener_token).await;

    // U+202E would show the rest of the line reversed ("gnp.exe" as "exe.png").
    speaker
        .send(chat_on(ChatChannel::Global, "see pic\u{202E}gnp.exe"), None)
        .await;
    let heard = listener
        .expect("the global line", |m| {
            m["type"] == "chat:message" && m["data"]["fromName"] == "Sly"
        })
        .await;
    assert_eq!(heard["data"]["text"], "see picgnp.exe");

    speaker
        .send(chat("\u{200B}\u{200B}"), Some(json!("blank")))
        .await;
    let error = speaker.expect_type("error").await;
    assert_eq!(error["data"]["code"], "invalid_text");
    assert_eq!(error["data"]["ref"], "blank");
    // Nor did the listener hear an empty line: the next thing from Sly is the marker.
    speaker.send(chat("done"), None).await;
    let before = until_marker(&mut listener, "Sly", "done").await;
    assert!(chat_lines(&before, "Sly", "local").is_empty(), "{before:?}");
}
