//! Strict input shapes over a real server: arrays are never read as objects (socket and REST), one
//! rule for inventory slots in every message, and the WebSocket close codes 1007 and 1009.

use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::Message;

use crate::support::{assert_error, enter, player, AppOptions, TestApp, WsClient, WAIT};

const CODE: &str = "strict-code";

async fn app() -> TestApp {
    TestApp::spawn_with(AppOptions {
        env: vec![("ADMIN_CODE", CODE.into())],
        ..Default::default()
    })
    .await
    .unwrap()
}

/// The `error` or `tradeError` that echoes `reference`, skipping everything else.
async fn refusal(ws: &mut WsClient, reference: &Value) -> Value {
    ws.expect(&format!("the refusal of {reference}"), |m| {
        (m["type"] == "error" || m["type"] == "tradeError") && m["data"]["ref"] == *reference
    })
    .await
}

/// What the player holds, from a fresh `player:sync`.
async fn holdings(ws: &mut WsClient) -> Value {
    ws.send("player:sync", json!({}), None).await;
    let sync = ws.expect_type("player:sync").await;
    json!({
        "inventory": sync["data"]["inventory"],
        "coins": sync["data"]["coins"],
        "equipment": sync["data"]["equipment"],
        "tile": sync["data"]["tile"],
    })
}

#[tokio::test]
async fn arrays_are_never_read_as_objects_on_the_socket_or_over_rest() {
    let app = app().await;
    let (token, _) = player(&app, "Arrayed").await;

    // REST: valid JSON of the wrong shape is 400 bad_request, never acted on.
    let post = |path: &'static str, body: &'static str, token: Option<String>| {
        let mut request = app
            .client
            .post(app.url(path))
            .header("content-type", "application/json")
            .body(body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send()
    };
    let rename = post("/api/v1/player", r#"["Bobby"]"#, Some(token.clone()))
        .await
        .unwrap();
    assert_error(rename, 400, "bad_request").await;
    let me: Value = app
        .client
        .get(app.url("/api/v1/player"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(me["player"]["name"], "Arrayed", "not renamed");
    for body in [
        "[]",
        r#"["Arrayname",1]"#,
        r#"{"name":["x"]}"#,
        r#"{"name":5}"#,
        "7",
        "\"name\"",
    ] {
        let response = post("/api/auth/guest", body, None).await.unwrap();
        assert_error(response, 400, "bad_request").await;
    }
    // Nested deeper than serde_json reads, but valid JSON: the wrong shape, not invalid JSON.
    let deep: &'static str = Box::leak(("[".repeat(300) + &"]".repeat(300)).into_boxed_str());
    assert_error(
        post("/api/auth/guest", deep, None).await.unwrap(),
        400,
        "bad_request",
    )
    .await;
    // Text that is not JSON stays invalid_json; an empty body still reads as `{}`.
    for body in ["[", r#"{"name":"x""#, "[1,]"] {
        let response = post("/api/auth/guest", body, None).await.unwrap();
        assert_error(response, 400, "invalid_json").await;
    }
    assert_eq!(
        post("/api/auth/guest", "", None).await.unwrap().status(),
        201
    );

    // Socket: each is refused with invalid_message and changes nothing.
    let (mut ws, _) = enter(&app, &token).await;
    let before = holdings(&mut ws).await;
    for (i, (kind, data)) in [
        ("player:move", json!([5, 5])),
        ("player:action", json!(["drop", null, 0])),
        ("player:chat", json!(["hi"])),
        ("inventory:use", json!([0])),
        ("bank:deposit", json!(["all"])),
        ("player:sync", json!([])),
    ]
    .into_iter()
    .enumerate()
    {
        let reference = json!(i);
        ws.send(kind, data, Some(reference.clone())).await;
        let refused = refusal(&mut ws, &reference).await;
        assert_eq!(refused["type"], "error", "{kind}");
        assert_eq!(
            refused["data"]["code"], "invalid_message",
            "{kind}: {refused}"
        );
    }
    // No chat line was spoken either.
    ws.send_text(r#"["player:chat",{"text":"hi"}]"#).await;
    let refused = ws.expect_type("error").await;
    assert_eq!(refused["data"]["code"], "invalid_message");
    let after = holdings(&mut ws).await;
    assert_eq!(before, after, "no move, no drop");
    ws.close().await;
}

#[tokio::test]
async fn every_slot_outside_0_to_27_is_invalid_slot_in_every_message() {
    let app = app().await;
    let (token, _) = player(&app, "Slotted").await;
    let (mut ws, _) = enter(&app, &token).await;
    let before = holdings(&mut ws).await;
    let out_of_range = [json!(-1), json!(28), json!(1e30), json!(i64::MIN)];
    let mut frames = Vec::new();
    for slot in &out_of_range {
        frames.push(("inventory:use", json!({ "slot": slot })));
        frames.push(("inventory:use", json!({"slot": 0, "targetSlot": slot})));
        frames.push(("player:action", json!({"action": "drop", "slot": slot})));
        frames.push(("player:action", json!({"action": "equip", "slot": slot})));
        frames.push((
            "player:action",
            json!({"action": "light_fire", "slot": slot}),
        ));
        frames.push(("bank:deposit", json!({ "slot": slot })));
        frames.push(("shop:sell", json!({"storeId": "s", "slot": slot})));
        frames.push((
            "tradeAddItem",
            json!({"tradeId": "t", "inventorySlot": slot}),
        ));
        frames.push((
            "tradeRemoveItem",
            json!({"tradeId": "t", "inventorySlot": slot}),
        ));
    }
    for (i, (kind, data)) in frames.iter().enumerate() {
        let reference = json!(format!("r{i}"));
        ws.send(kind, data.clone(), Some(reference.clone())).await;
        let refused = refusal(&mut ws, &reference).await;
        let expected_type = if kind.starts_with("trade") {
            "tradeError"
        } else {
            "error"
        };
        assert_eq!(refused["type"], expected_type, "{kind} {data}");
        assert_eq!(
            refused["data"]["code"], "invalid_slot",
            "{kind} {data}: {refused}"
        );
        if expected_type == "tradeError" {
            assert_eq!(refused["data"]["tradeId"], "t");
        }
        // Paced under 60 messages a second.
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Not a whole number: invalid_message, for every message alike.
    for (i, (kind, data)) in [
        ("inventory:use", json!({"slot": "3"})),
        ("inventory:use", json!({"slot": 1.5})),
        ("player:action", json!({"action": "drop", "slot": "0"})),
        ("player:action", json!({"action": "drop", "slot": [0]})),
        ("bank:deposit", json!({"slot": true})),
        ("shop:sell", json!({"storeId": "s", "slot": null})),
        (
            "tradeAddItem",
            json!({"tradeId": "t", "inventorySlot": "0"}),
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let reference = json!(format!("m{i}"));
        ws.send(kind, data.clone(), Some(reference.clone())).await;
        let refused = refusal(&mut ws, &reference).await;
        assert_eq!(refused["type"], "error", "{kind} {data}");
        assert_eq!(
            refused["data"]["code"], "invalid_message",
            "{kind} {data}: {refused}"
        );
    }
    assert_eq!(holdings(&mut ws).await, before);
    ws.close().await;
}

/// A raw client socket to `/ws`, after the entry messages.
async fn raw_socket(
    app: &TestApp,
    token: &str,
) -> tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>> {
    let url = format!("{}/ws?token={token}", app.base.replace("http://", "ws://"));
    let (mut stream, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    // player:sync, then world:update.
    for _ in 0..2 {
        let message = tokio::time::timeout(WAIT, stream.next()).await.unwrap();
        assert!(matches!(message, Some(Ok(Message::Text(_)))));
    }
    stream
}

/// Reads until the server's close frame; its code.
async fn close_code(
    stream: &mut tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
) -> Option<u16> {
    let deadline = Instant::now() + WAIT;
    while Instant::now() < deadline {
        match tokio::time::timeout(WAIT, stream.next()).await.unwrap() {
            Some(Ok(Message::Close(frame))) => return frame.map(|f| u16::from(f.code)),
            Some(Ok(_)) => continue,
            other => panic!("the connection ended without a close frame: {other:?}"),
        }
    }
    panic!("no close frame");
}

#[tokio::test]
async fn bad_utf8_closes_with_1007_and_frames_over_64_kib_with_1009() {
    let app = app().await;
    let (token, _) = player(&app, "Framed").await;

    let mut stream = raw_socket(&app, &token).await;
    let not_utf8 = Frame::message(
        b"{\"type\":\"player:chat\",\"data\":{\"text\":\"\xff\xfe\"}}".to_vec(),
        OpCode::Data(Data::Text),
        true,
    );
    stream.send(Message::Frame(not_utf8)).await.unwrap();
    assert_eq!(close_code(&mut stream).await, Some(1007));
    drop(stream);

    let mut stream = raw_socket(&app, &token).await;
    // Between 16 and 64 KiB: an error, the socket kept.
    stream
        .send(Message::Text(format!("\"{}\"", "x".repeat(20_000)).into()))
        .await
        .unwrap();
    let reply = tokio::time::timeout(WAIT, async {
        loop {
            if let Some(Ok(Message::Text(text))) = stream.next().await {
                let v: Value = serde_json::from_str(text.as_str()).unwrap();
                if v["type"] == "error" {
                    return v;
                }
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(reply["data"]["code"], "message_too_large");
    // Over 64 KiB: closed with 1009.
    stream
        .send(Message::Text("x".repeat(64 * 1024 + 1).into()))
        .await
        .unwrap();
    assert_eq!(close_code(&mut stream).await, Some(1009));
    drop(stream);

    // The player can come back.
    let (ws, _) = enter(&app, &token).await;
    ws.close().await;
}
