//! Strict input shapes over a real server: arrays are never read as objects (socket and REST), one
//! rule for inventory slots in every message, the WebSocket close codes 1007 and 1009, and
//! generated malformed frames that leave the socket open and the player's holdings as they were.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
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
    ws.send_raw("player:sync", json!({}), None).await;
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
        ws.send_raw(kind, data, Some(reference.clone())).await;
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
        ws.send_raw(kind, data.clone(), Some(reference.clone()))
            .await;
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
        ws.send_raw(kind, data.clone(), Some(reference.clone()))
            .await;
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
    // player:sync (after the replaced session's final save, in a step of a manual world), then
    // world:update (in the next tick).
    for n in 0..2 {
        if n == 1 && app.is_manual() {
            app.step(1).await;
        }
        let mut message = None;
        for _ in 0..100 {
            match tokio::time::timeout(Duration::from_millis(50), stream.next()).await {
                Ok(read) => {
                    message = read;
                    break;
                }
                Err(_) if app.is_manual() => {
                    app.step(1).await;
                }
                Err(_) => {}
            }
        }
        let Some(Ok(Message::Text(text))) = message else {
            panic!("not a text message: {message:?}");
        };
        if n == 0 && app.is_manual() {
            let sync: serde_json::Value = serde_json::from_str(text.as_str()).unwrap();
            app.in_world(sync["data"]["id"].as_str().unwrap()).await;
        }
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

// ---- Generated malformed frames over a real socket ----

/// A value of the wrong type for a field that needs `expected` ("string", "bool", "integer", or
/// "count_or_all": a whole number or "all"); `null` only where the field is required (an optional
/// field reads `null` as absent).
fn wrong_for(expected: &'static str, optional: bool) -> BoxedStrategy<Value> {
    let mut options: Vec<BoxedStrategy<Value>> = vec![
        prop::collection::vec(any::<i32>().prop_map(Value::from), 0..4)
            .prop_map(Value::Array)
            .boxed(),
        Just(json!({"nested": {"deeper": [1, 2]}})).boxed(),
        (1usize..60)
            .prop_map(|depth| {
                let mut v = json!(1);
                for _ in 0..depth {
                    v = json!([v]);
                }
                v
            })
            .boxed(),
    ];
    if !optional {
        options.push(Just(Value::Null).boxed());
    }
    if expected != "string" {
        options.push(
            "[a-z0-9]{0,6}"
                .prop_filter("\"all\" is a count", move |s| {
                    expected != "count_or_all" || s != "all"
                })
                .prop_map(Value::from)
                .boxed(),
        );
    }
    if expected != "bool" {
        options.push(any::<bool>().prop_map(Value::from).boxed());
    }
    if expected == "count_or_all" {
        // A whole number (`5.0` too, JSON having one number type) or "all": fractions are not.
        options.push(
            (-1000i32..1000)
                .prop_map(|n| json!(f64::from(n) + 0.5))
                .boxed(),
        );
    } else if expected != "integer" {
        options.push(any::<i64>().prop_map(Value::from).boxed());
    } else {
        // Fractions, and integers past 32 bits where the field is i32 or 64 where it is i64.
        options.push(
            (-1000i32..1000)
                .prop_map(|n| json!(f64::from(n) + 0.5))
                .boxed(),
        );
        options.push(Just(json!(1e300)).boxed());
        options.push(Just(json!(-1e300)).boxed());
    }
    proptest::strategy::Union::new(options).boxed()
}

/// An inventory slot number outside 0–27: negative, just over, huge.
fn slot_out_of_range() -> impl Strategy<Value = Value> {
    prop_oneof![
        (i64::MIN..0).prop_map(Value::from),
        (28i64..1000).prop_map(Value::from),
        (1000u64..=u64::MAX).prop_map(Value::from),
        Just(json!(1e300)),
        Just(json!(-1e300)),
    ]
}

/// Something that is not a whole number, where a slot is expected.
fn slot_not_a_number() -> impl Strategy<Value = Value> {
    prop_oneof![
        "[a-z0-9]{0,4}".prop_map(Value::from),
        (0i32..28).prop_map(|n| json!(f64::from(n) + 0.25)),
        any::<bool>().prop_map(Value::from),
        Just(json!([0])),
        Just(json!({"slot": 0})),
    ]
}

/// Unknown fields, which never make a refused message acceptable.
fn unknown_fields() -> impl Strategy<Value = Vec<(String, Value)>> {
    prop::collection::vec(
        (
            "zz[a-z]{1,6}",
            prop_oneof![
                Just(Value::Null),
                any::<i64>().prop_map(Value::from),
                Just(json!([[[]]])),
                "[a-z]{0,5}".prop_map(Value::from),
            ],
        ),
        0..3,
    )
}

/// A frame that must be refused, with the code it must be refused with (`None` when it carries
/// no `ref` to match its reply by).
#[derive(Debug, Clone)]
struct Malformed {
    text: String,
    code: &'static str,
    reference: Option<Value>,
}

/// One generated data object for `kind` with `field` set to `value` (other fields valid).
fn with_field(kind: &str, field: &str, value: Value) -> Value {
    let mut data = match kind {
        "player:move" => json!({"x": 1, "z": 1}),
        "player:chat" => json!({"text": "hello"}),
        "player:action" => json!({"action": "drop", "slot": 0}),
        "inventory:use" => json!({"slot": 0}),
        "friend:request" | "friend:remove" | "ignore:add" | "ignore:remove" => {
            json!({"name": "Nobody"})
        }
        "friend:respond" => json!({"name": "Nobody", "accept": false}),
        "tradeRequest" => json!({"targetPlayerId": "nobody"}),
        "tradeRequestRespond" => json!({"tradeId": "t", "accept": false}),
        "tradeAddItem" | "tradeRemoveItem" => json!({"tradeId": "t", "inventorySlot": 0}),
        "tradeAccept" | "tradeCancel" => json!({"tradeId": "t"}),
        "bank:deposit" => json!({"slot": 0}),
        "bank:withdraw" => json!({"itemId": "logs", "quantity": 1}),
        "shop:buy" => json!({"storeId": "s", "itemId": "logs"}),
        "shop:sell" => json!({"storeId": "s", "slot": 0}),
        other => panic!("no template for {other}"),
    };
    data[field] = value;
    data
}

/// The fields whose wrong type makes each message refused: the type they need, and whether they
/// are optional (`Option`: `null` reads as absent) or required (`null` is refused; a field with a
/// default value is required in this sense).
const TYPED_FIELDS: &[(&str, &str, &str, bool)] = &[
    ("player:move", "x", "integer", false),
    ("player:move", "z", "integer", false),
    ("player:move", "run", "bool", false),
    ("player:chat", "text", "string", false),
    ("player:chat", "channel", "string", true),
    ("player:action", "action", "string", false),
    ("player:action", "targetId", "string", true),
    ("inventory:use", "targetId", "string", true),
    ("friend:request", "name", "string", false),
    ("friend:respond", "accept", "bool", false),
    ("friend:remove", "name", "string", false),
    ("ignore:add", "name", "string", false),
    ("ignore:remove", "name", "string", false),
    ("tradeRequest", "targetPlayerId", "string", false),
    ("tradeRequestRespond", "accept", "bool", false),
    ("tradeAddItem", "tradeId", "string", false),
    ("tradeAddItem", "quantity", "integer", true),
    ("tradeRemoveItem", "tradeId", "string", false),
    ("tradeAccept", "tradeId", "string", false),
    ("tradeCancel", "tradeId", "string", false),
    ("bank:deposit", "quantity", "count_or_all", true),
    ("bank:withdraw", "itemId", "string", false),
    ("bank:withdraw", "quantity", "count_or_all", false),
    ("shop:buy", "storeId", "string", false),
    ("shop:buy", "quantity", "integer", false),
    ("shop:sell", "storeId", "string", false),
];

/// Where each message keeps its inventory slot.
const SLOT_FIELDS: &[(&str, &str)] = &[
    ("player:action", "slot"),
    ("inventory:use", "slot"),
    ("inventory:use", "targetSlot"),
    ("bank:deposit", "slot"),
    ("shop:sell", "slot"),
    ("tradeAddItem", "inventorySlot"),
    ("tradeRemoveItem", "inventorySlot"),
];

fn envelope(kind: &str, data: Value, extra: Vec<(String, Value)>, reference: &Value) -> String {
    let mut data = data;
    if let Some(map) = data.as_object_mut() {
        for (k, v) in extra {
            map.insert(k, v);
        }
    }
    json!({"type": kind, "data": data, "ref": reference}).to_string()
}

/// Generated malformed frames, numbered by `index` (their `ref`).
fn malformed(index: usize) -> BoxedStrategy<Malformed> {
    let reference = json!(index);
    let r = reference.clone();
    let wrong_type = (proptest::sample::select(TYPED_FIELDS), unknown_fields())
        .prop_flat_map(|((kind, field, expected, optional), extra)| {
            (Just((kind, field, extra)), wrong_for(expected, optional))
        })
        .prop_map(move |((kind, field, extra), value)| Malformed {
            text: envelope(kind, with_field(kind, field, value), extra, &r),
            code: "invalid_message",
            reference: Some(r.clone()),
        });
    let r = reference.clone();
    let missing = (proptest::sample::select(TYPED_FIELDS), unknown_fields())
        .prop_filter(
            "fields that must be there",
            |((_, field, _, optional), _)| {
                // `run` and `shop:buy`'s `quantity` have defaults.
                !optional && *field != "run" && *field != "quantity"
            },
        )
        .prop_map(move |((kind, field, _, _), extra)| {
            let mut data = with_field(kind, field, Value::Null);
            data.as_object_mut().unwrap().remove(field);
            Malformed {
                text: envelope(kind, data, extra, &r),
                code: "invalid_message",
                reference: Some(r.clone()),
            }
        });
    let r = reference.clone();
    let slot_range = (
        proptest::sample::select(SLOT_FIELDS),
        slot_out_of_range(),
        unknown_fields(),
    )
        .prop_map(move |((kind, field), slot, extra)| Malformed {
            text: envelope(kind, with_field(kind, field, slot), extra, &r),
            code: "invalid_slot",
            reference: Some(r.clone()),
        });
    let r = reference.clone();
    let slot_shape = (
        proptest::sample::select(SLOT_FIELDS),
        slot_not_a_number(),
        unknown_fields(),
    )
        .prop_filter("\"all\" is a bank:deposit slot", |((kind, _), slot, _)| {
            !(*kind == "bank:deposit" && *slot == json!("all"))
        })
        .prop_map(move |((kind, field), slot, extra)| Malformed {
            text: envelope(kind, with_field(kind, field, slot), extra, &r),
            code: "invalid_message",
            reference: Some(r.clone()),
        });
    let r = reference.clone();
    let data_not_object = (
        proptest::sample::select(wayfarer_protocol::ws::CLIENT_MESSAGE_TYPES),
        prop_oneof![
            prop::collection::vec(any::<i64>().prop_map(Value::from), 0..4).prop_map(Value::Array),
            Just(json!(["drop", null, 0])),
            Just(json!([5, 5])),
            any::<i64>().prop_map(Value::from),
            "[a-z]{0,5}".prop_map(Value::from),
            any::<bool>().prop_map(Value::from),
        ],
    )
        .prop_map(move |(kind, data)| Malformed {
            text: json!({"type": kind, "data": data, "ref": r}).to_string(),
            code: "invalid_message",
            reference: Some(r.clone()),
        });
    let r = reference.clone();
    let unknown_type = "[a-z:]{1,12}"
        .prop_filter("not a message type", |kind| {
            !wayfarer_protocol::ws::CLIENT_MESSAGE_TYPES.contains(&kind.as_str())
        })
        .prop_map(move |kind| Malformed {
            text: json!({"type": kind, "data": {}, "ref": r}).to_string(),
            code: "unknown_type",
            reference: Some(r.clone()),
        });
    let r = reference;
    let bad_type = wrong_for("string", false).prop_map(move |kind| Malformed {
        text: json!({"type": kind, "data": {}, "ref": r}).to_string(),
        code: "invalid_message",
        reference: Some(r.clone()),
    });
    let not_an_envelope = prop_oneof![
        Just(r#"["player:move",{"x":5,"z":5}]"#.to_owned()),
        any::<i64>().prop_map(|n| n.to_string()),
        Just("null".to_owned()),
        (1usize..200).prop_map(|depth| "[".repeat(depth) + &"]".repeat(depth)),
        (1usize..200).prop_map(|depth| "{\"a\":".repeat(depth) + "1" + &"}".repeat(depth)),
        // Truncated: never JSON.
        "[a-z]{0,8}".prop_map(|s| format!(r#"{{"type":"player:move","data":{{"x":"{s}""#)),
    ]
    .prop_map(|text| Malformed {
        text,
        code: "invalid_message",
        reference: None,
    });
    prop_oneof![
        4 => wrong_type,
        2 => missing,
        3 => slot_range,
        2 => slot_shape,
        2 => data_not_object,
        1 => unknown_type,
        1 => bad_type,
        1 => not_an_envelope,
    ]
    .boxed()
}

/// Every code a refusal may carry (docs/protocol.md).
fn documented_codes() -> Vec<&'static str> {
    use wayfarer_protocol::{trade, ws};
    vec![
        ws::codes::INVALID_MESSAGE,
        ws::codes::UNKNOWN_TYPE,
        ws::codes::MESSAGE_TOO_LARGE,
        ws::codes::RATE_LIMITED,
        ws::codes::MOVE_TOO_FAR,
        ws::codes::INVALID_TEXT,
        ws::codes::PLAYER_OFFLINE,
        ws::codes::IGNORED,
        ws::codes::FORBIDDEN,
        ws::codes::UNKNOWN_COMMAND,
        ws::codes::INVALID_TARGET,
        ws::codes::CANNOT_DO,
        ws::codes::INVALID_SLOT,
        ws::codes::INVALID_ACTION,
        ws::codes::PLAYER_NOT_FOUND,
        ws::codes::LIMIT_REACHED,
        ws::codes::NOT_FOUND,
        ws::codes::NOT_NEAR_BANK,
        ws::codes::BANK_FULL,
        ws::codes::INVENTORY_FULL,
        ws::codes::NOT_NEAR_SHOP,
        ws::codes::OUT_OF_STOCK,
        ws::codes::NOT_ENOUGH_COINS,
        ws::codes::CANNOT_SELL,
        trade::codes::TOO_FAR,
        trade::codes::SELF_TRADE,
        trade::codes::PLAYER_BUSY,
        trade::codes::UNTRADEABLE_ITEM,
        trade::codes::INVALID_QUANTITY,
        trade::codes::INVALID_TRADE,
        trade::codes::NOT_ON_SCREEN,
        trade::codes::IN_TRADE,
        "server_busy",
    ]
}

/// How many generated frames one run sends (paced under the 60-a-second limit: about 8 s).
const FRAMES: usize = 400;

#[tokio::test]
async fn generated_malformed_frames_keep_the_socket_and_the_holdings() {
    let seed: u64 = std::env::var("STRICT_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        });
    println!("STRICT_FUZZ_SEED={seed}");
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes),
    );
    let frames: Vec<Malformed> = (0..FRAMES)
        .map(|i| malformed(i).new_tree(&mut runner).unwrap().current())
        .collect();

    let app = app().await;
    let (token, _) = player(&app, "Fuzzed").await;
    let (mut ws, _) = enter(&app, &token).await;
    // Something to lose: coins and a few logs besides the starter kit.
    ws.send_raw(
        "player:chat",
        json!({"text": format!("/admin {CODE}")}),
        None,
    )
    .await;
    ws.expect("admin granted", |m| {
        m["type"] == "chat:message" && m["data"]["text"].as_str().unwrap_or("").contains("granted")
    })
    .await;
    for (item, quantity) in [("coins", 5_000), ("logs", 1)] {
        ws.send_raw(
            "player:chat",
            json!({"text": format!("/give {item} {quantity}")}),
            None,
        )
        .await;
        ws.expect(item, |m| {
            m["type"] == "inventory:update"
                && m["data"]["inventory"]
                    .as_array()
                    .is_some_and(|a| a.iter().any(|s| s["itemId"] == item))
        })
        .await;
    }
    let before = holdings(&mut ws).await;
    assert!(before["coins"].as_i64().unwrap() >= 5_000);

    // Every frame is answered by exactly one refusal with the expected, documented code. Sent in
    // batches whose replies are read before the next, so nothing piles up unread.
    let documented = documented_codes();
    let mut by_ref: HashMap<String, Value> = HashMap::new();
    let mut without_ref = Vec::new();
    let started = Instant::now();
    for (batch, chunk) in frames.chunks(10).enumerate() {
        for (i, frame) in chunk.iter().enumerate() {
            ws.send_text(frame.text.clone()).await;
            // 50 a second: under the limit of 60 with room for timer jitter.
            let sent = (batch * 10 + i + 1) as u64;
            tokio::time::sleep_until((started + Duration::from_millis(20 * sent)).into()).await;
        }
        let answered = batch * 10 + chunk.len();
        while by_ref.len() + without_ref.len() < answered {
            let message = ws
                .next()
                .await
                .unwrap_or_else(|code| panic!("socket closed ({code:?}); seed {seed}"));
            let kind = message["type"].as_str().unwrap_or_default();
            if kind != "error" && kind != "tradeError" {
                continue;
            }
            let code = message["data"]["code"].as_str().unwrap_or_default();
            assert!(
                documented.contains(&code),
                "undocumented code {code}: {message}; seed {seed}"
            );
            match &message["data"]["ref"] {
                Value::Null => without_ref.push(message),
                reference => {
                    let previous = by_ref.insert(reference.to_string(), message.clone());
                    assert!(
                        previous.is_none(),
                        "two replies to {reference}; seed {seed}"
                    );
                }
            }
        }
    }
    for (i, frame) in frames.iter().enumerate() {
        if let Some(reference) = &frame.reference {
            let reply = by_ref
                .get(&reference.to_string())
                .unwrap_or_else(|| panic!("no reply to {}; seed {seed}", frame.text));
            assert_eq!(
                reply["data"]["code"], frame.code,
                "frame {i}: {} got {reply}; seed {seed}",
                frame.text
            );
        }
    }
    let unreferenced = frames.iter().filter(|f| f.reference.is_none()).count();
    assert_eq!(without_ref.len(), unreferenced, "seed {seed}");
    assert!(without_ref
        .iter()
        .all(|m| m["data"]["code"] == "invalid_message"));

    // The socket is open and the holdings are as they were.
    assert_eq!(holdings(&mut ws).await, before, "seed {seed}");
    ws.close().await;
}

#[tokio::test]
async fn refusals_say_which_field_is_wrong_and_what_it_must_be() {
    let app = app().await;
    let admin = crate::support::admin_token(&app).await;
    let post = |path: &str, body: &str| {
        app.client
            .post(app.url(path))
            .bearer_auth(&admin)
            .header("content-type", "application/json")
            .body(body.to_owned())
            .send()
    };
    // REST bodies: the field by its wire name, what it must be, and never serde's type names.
    for (path, body, code, message) in [
        (
            "/api/admin/ban",
            r#"{"accountId": "a", "reason": "r", "minutes": "ten"}"#,
            "bad_request",
            "`minutes` must be a whole number, not a string",
        ),
        (
            "/api/admin/ban",
            r#"{"accountId": "a", "reason": "r", "minutes": 2.5}"#,
            "bad_request",
            "`minutes` must be a whole number, not 2.5",
        ),
        (
            "/api/admin/ban",
            r#"{"accountId": "a", "reason": "r", "minutes": -5}"#,
            "bad_request",
            "`minutes` must be a whole number from 0 to 18446744073709551615, not -5",
        ),
        (
            "/api/admin/ban",
            r#"{"accountId": 7, "reason": "r"}"#,
            "bad_request",
            "`accountId` must be a string, not 7",
        ),
        (
            "/api/admin/ban",
            r#"{"accountId": "a"}"#,
            "bad_request",
            "`reason` is missing",
        ),
        (
            "/api/auth/guest",
            r#"{"name": ["x"]}"#,
            "bad_request",
            "`name` must be a string, not a list",
        ),
        (
            "/api/auth/guest",
            "[]",
            "bad_request",
            "the request body must be an object, not a list",
        ),
        (
            "/api/auth/guest",
            r#"{"name": tru}"#,
            "invalid_json",
            "the request body is not valid JSON (line 1, column 13)",
        ),
    ] {
        let response = post(path, body).await.unwrap();
        let error = assert_error(response, 400, code).await;
        assert_eq!(error["message"], message, "{path} {body}");
    }

    // The socket's query string.
    let twice = app
        .client
        .get(app.url("/ws?token=a&token=b"))
        .send()
        .await
        .unwrap();
    let error = assert_error(twice, 400, "bad_request").await;
    assert_eq!(
        error["message"],
        "the query string may give `token` and `characterId` once each"
    );

    // The socket: `invalid_message` names the message, the field and what it must be.
    let (token, _) = player(&app, "Worded").await;
    let (mut ws, _) = enter(&app, &token).await;
    for (i, (frame, message)) in [
        (
            json!({"type": "player:move", "data": {"x": "one", "z": 2}}),
            "bad data for player:move: `x` must be a whole number, not a string",
        ),
        (
            json!({"type": "player:move", "data": {"x": 1}}),
            "bad data for player:move: `z` is missing",
        ),
        (
            json!({"type": "player:chat", "data": {"text": 5}}),
            "bad data for player:chat: `text` must be a string, not 5",
        ),
        (
            json!({"type": "player:chat", "data": {"text": "hi", "channel": "shout"}}),
            "bad data for player:chat: `channel` must be one of `local`, `global`, `private`, `system`, `game`",
        ),
        (
            json!({"type": "player:move", "data": [1, 2]}),
            "bad data for player:move: `data` must be an object, not a list",
        ),
        (
            json!({"type": 5, "data": {}}),
            "not a message envelope ({\"type\", \"data\"}): `type` must be a string, not 5",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let mut frame = frame;
        frame["ref"] = json!(i);
        ws.send_text(frame.to_string()).await;
        let error = refusal(&mut ws, &json!(i)).await;
        assert_eq!(error["data"]["code"], "invalid_message", "{frame}");
        assert_eq!(error["data"]["message"], message, "{frame}");
    }
    ws.send_text("{\"type\": ").await;
    let error = ws.expect_type("error").await;
    assert_eq!(
        error["data"]["message"],
        "the message is not valid JSON: it ends before it is complete (line 1, column 9)"
    );
}

/// Issue 50, over a real socket: a frame with two `type`s is `invalid_message` (it was read as
/// the last one, silently); an id echoed in a refusal is cut to 64 characters; a quantity past
/// 2^63 is told as above the bound, not as 9223372036854775807; attacking oneself is
/// `invalid_target` in the safe spawn (it was `safe_zone`).
#[tokio::test]
async fn ambiguous_frames_long_ids_huge_quantities_and_oneself_are_refused_plainly() {
    let app = app().await;
    let (token, id) = player(&app, "Plainly").await;
    let (mut ws, _) = enter(&app, &token).await;
    ws.send_text(r#"{"type":"player:sync","type":"player:move","data":{"x":1,"z":1}}"#)
        .await;
    let error = ws.expect("the refusal", |m| m["type"] == "error").await;
    assert_eq!(error["data"]["code"], "invalid_message", "{error}");
    assert!(
        error["data"]["message"]
            .as_str()
            .unwrap()
            .contains(r#"the key "type" appears twice"#),
        "{error}"
    );

    let long = "r".repeat(4_000);
    let cases = [
        (
            json!({"type": "player:action", "ref": 1,
                   "data": {"action": "make", "recipeId": long, "quantity": 1}}),
            "unknown_recipe",
        ),
        (
            json!({"type": long.clone(), "ref": 2, "data": {}}),
            "unknown_type",
        ),
        (
            json!({"type": "player:action", "ref": 3,
                   "data": {"action": "make", "recipeId": "smithing:bronze_dagger",
                            "quantity": 18_446_744_073_709_551_615u64}}),
            "invalid_message",
        ),
        (
            json!({"type": "player:action", "ref": 4, "data": {"action": "attack", "targetId": id}}),
            "invalid_target",
        ),
    ];
    for (frame, code) in cases {
        ws.send_text(frame.to_string()).await;
        let error = refusal(&mut ws, &frame["ref"]).await;
        assert_eq!(error["data"]["code"], code, "{error}");
        let message = error["data"]["message"].as_str().unwrap();
        assert!(message.chars().count() < 120, "{message}");
        assert!(!message.contains("9223372036854775807"), "{message}");
    }
    ws.send_text(
        json!({"type": "player:action", "ref": 5,
               "data": {"action": "make", "recipeId": "smithing:bronze_dagger", "quantity": 1e30}})
        .to_string(),
    )
    .await;
    let error = refusal(&mut ws, &json!(5)).await;
    assert_eq!(
        error["data"]["message"],
        "`quantity` must be 1 to 10000, or \"all\"; it is above 10000"
    );
}
