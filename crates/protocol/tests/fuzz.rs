//! Generated frames through the socket parser (`ClientMessage::parse`) and the slot rule: whatever
//! arrives, the parser returns (never panics), refuses with a documented code, never reads an array
//! where an object is expected, and keeps unknown fields harmless.

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use wayfarer_protocol::ws::{
    codes, inventory_slot, ClientMessage, MoveRequest, CLIENT_MESSAGE_TYPES, INVENTORY_SLOTS,
};

/// Field names the client messages use, so generated objects often hit real fields.
const FIELDS: &[&str] = &[
    "x",
    "z",
    "run",
    "text",
    "channel",
    "to",
    "action",
    "targetId",
    "slot",
    "itemId",
    "style",
    "targetSlot",
    "name",
    "accept",
    "tradeId",
    "inventorySlot",
    "quantity",
    "targetPlayerId",
    "storeId",
];

/// Numbers at the edges: zero, slots, i32/i64/u64 limits, negatives, fractions, huge floats.
fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-40i64..40).prop_map(Value::from),
        Just(json!(i64::MIN)),
        Just(json!(u64::MAX)),
        Just(json!(i32::MAX as i64 + 1)),
        Just(json!(i32::MIN as i64 - 1)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        Just(json!(1e300)),
        Just(json!(-1e300)),
        Just(json!(27.5)),
        Just(json!(3.0)),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::sample::select(FIELDS).prop_map(str::to_owned),
        1 => "[a-zA-Z]{1,8}",
    ]
}

/// Any JSON value, nested a few levels.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        number(),
        ".{0,12}".prop_map(Value::from),
        proptest::sample::select(&["all", "drop", "local", "attack", "/admin x", ""][..])
            .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(key(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A value nested `depth` levels deep in arrays or objects.
fn deep(depth: usize, arrays: bool) -> String {
    if arrays {
        "[".repeat(depth) + "1" + &"]".repeat(depth)
    } else {
        r#"{"a":"#.repeat(depth) + "1" + &"}".repeat(depth)
    }
}

/// A frame: mostly envelopes of known types with generated data, sometimes anything at all.
fn frame() -> impl Strategy<Value = String> {
    let kind = prop_oneof![
        4 => proptest::sample::select(CLIENT_MESSAGE_TYPES).prop_map(Value::from),
        1 => json_value(),
    ];
    let envelope = (
        kind,
        prop::option::of(json_value()),
        prop::option::of(json_value()),
        prop::option::of((key(), json_value())),
    )
        .prop_map(|(kind, data, reference, extra)| {
            let mut map = Map::new();
            map.insert("type".into(), kind);
            if let Some(data) = data {
                map.insert("data".into(), data);
            }
            if let Some(reference) = reference {
                map.insert("ref".into(), reference);
            }
            if let Some((k, v)) = extra {
                map.entry(k).or_insert(v);
            }
            Value::Object(map).to_string()
        });
    prop_oneof![
        6 => envelope,
        1 => json_value().prop_map(|v| v.to_string()),
        1 => ".{0,40}",
        1 => (proptest::sample::select(CLIENT_MESSAGE_TYPES), 1usize..300, any::<bool>())
            .prop_map(|(kind, depth, arrays)| {
                format!(r#"{{"type":"{kind}","data":{}}}"#, deep(depth, arrays))
            }),
    ]
}

/// Arrays in place of every object in `value` (the shape serde would read field by field).
fn objects_as_arrays(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Array(map.values().map(objects_as_arrays).collect()),
        Value::Array(items) => Value::Array(items.iter().map(objects_as_arrays).collect()),
        other => other.clone(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

    #[test]
    fn the_parser_never_panics_and_refuses_only_with_documented_codes(text in frame()) {
        let (parsed, reference) = ClientMessage::parse(&text);
        if let Err(err) = &parsed {
            prop_assert!(
                [codes::INVALID_MESSAGE, codes::UNKNOWN_TYPE].contains(&err.code),
                "{text}: {err:?}"
            );
            prop_assert!(!err.message.is_empty());
        }
        if let Some(reference) = reference {
            prop_assert!(reference.is_string() || reference.is_number());
        }
        let value: Option<Value> = serde_json::from_str(&text).ok();
        if parsed.is_ok() {
            // Only an object envelope with a known type, and data that is an object or absent.
            let value = value.expect("an accepted frame is JSON");
            prop_assert!(value.is_object());
            let kind = value["type"].as_str().unwrap_or_default();
            prop_assert!(CLIENT_MESSAGE_TYPES.contains(&kind));
            prop_assert!(value["data"].is_object() || value["data"].is_null(), "{text}");
        }
    }

    #[test]
    fn data_sent_as_an_array_is_always_refused(
        kind in proptest::sample::select(CLIENT_MESSAGE_TYPES),
        data in json_value(),
    ) {
        let frame = json!({"type": kind, "data": objects_as_arrays(&data)});
        let arrays = frame["data"].is_array();
        let (parsed, _) = ClientMessage::parse(&frame.to_string());
        if arrays {
            prop_assert_eq!(parsed.unwrap_err().code, codes::INVALID_MESSAGE);
        }
    }

    #[test]
    fn unknown_fields_change_nothing(
        x in any::<i32>(),
        z in any::<i32>(),
        extra in prop::collection::btree_map("[a-zA-Z]{1,8}", json_value(), 0..4),
    ) {
        let mut data = Map::new();
        for (k, v) in extra {
            data.insert(k, v);
        }
        data.insert("x".into(), json!(x));
        data.insert("z".into(), json!(z));
        data.remove("run");
        let frame = json!({"type": "player:move", "data": data, "future": [1, {"a": 2}]});
        let (parsed, _) = ClientMessage::parse(&frame.to_string());
        prop_assert_eq!(parsed.unwrap(), ClientMessage::Move(MoveRequest { x, z, run: false }));
    }

    #[test]
    fn one_slot_rule_for_every_value(value in json_value()) {
        let whole = value.as_f64().filter(|f| f.fract() == 0.0);
        match inventory_slot(&value) {
            Ok(slot) => {
                prop_assert!(slot < INVENTORY_SLOTS);
                prop_assert_eq!(whole, Some(slot as f64));
            }
            Err(err) if err.code == codes::INVALID_SLOT => {
                let whole = whole.expect("only whole numbers are out of range");
                prop_assert!(!(0.0..INVENTORY_SLOTS as f64).contains(&whole));
            }
            Err(err) => {
                prop_assert_eq!(err.code, codes::INVALID_MESSAGE);
                prop_assert!(whole.is_none(), "{value}");
            }
        }
        // The same value as a typed slot field agrees.
        let frame = json!({"type": "inventory:use", "data": {"slot": value}});
        let typed = match ClientMessage::parse(&frame.to_string()).0 {
            Ok(ClientMessage::Use(request)) => request.slot.index().map_err(|e| e.code),
            Ok(other) => panic!("{other:?}"),
            Err(err) => Err(err.code),
        };
        prop_assert_eq!(typed, inventory_slot(&value).map_err(|e| e.code));
    }

    #[test]
    fn any_text_is_answered(text in ".*") {
        let (parsed, _) = ClientMessage::parse(&text);
        if let Err(err) = parsed {
            prop_assert!([codes::INVALID_MESSAGE, codes::UNKNOWN_TYPE].contains(&err.code));
        }
    }
}
