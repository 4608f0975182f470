//! The JSON Schema of every WebSocket event (`GET /api/protocol.json`), generated with schemars from
//! the very types the parser reads ([`ClientMessage`]) and the server writes ([`ServerMessage`]), so
//! the description cannot drift from the wire.
//!
//! The document is one JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1): `clientToServer` and
//! `serverToClient` map each event name to the schema of its whole frame (`{"type", "data", "ref"?}`),
//! and `$defs` holds the shapes they share; every `$ref` points into that `$defs`.

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{json, Map, Value};

use crate::ws::{ClientMessage, ServerMessage};

/// The JSON Schema dialect of the document (the one OpenAPI 3.1 uses).
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The protocol document served at `GET /api/protocol.json`.
pub fn protocol_document() -> Value {
    let mut generator = SchemaSettings::draft2020_12().into_generator();
    let mut client = events::<ClientMessage>(&mut generator);
    for frame in client.values_mut() {
        describe_client_frame(frame);
    }
    let server = events::<ServerMessage>(&mut generator);
    let definitions: Map<String, Value> = generator
        .definitions()
        .iter()
        .filter(|(name, _)| !matches!(name.as_str(), "ClientMessage" | "ServerMessage"))
        .map(|(name, schema)| (name.clone(), schema.clone()))
        .collect();
    json!({
        "$schema": DIALECT,
        "title": "Wayfarer WebSocket protocol",
        "description": "One JSON object per text frame: {\"type\": <event>, \"data\": {...}, \"ref\"?: string|number}. \
            clientToServer and serverToClient give the schema of each event's frame by name; \
            docs/protocol.md says what each does and when it is sent.",
        "clientToServer": client,
        "serverToClient": server,
        "$defs": definitions,
    })
}

/// Each variant of an adjacently tagged enum (`{"type", "data"}`), by its `type`.
fn events<T: JsonSchema>(generator: &mut SchemaGenerator) -> Map<String, Value> {
    let schema = T::json_schema(generator);
    let variants = schema
        .get("oneOf")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    variants
        .into_iter()
        .filter_map(|variant| {
            let name = variant
                .pointer("/properties/type/const")
                .and_then(Value::as_str)?
                .to_owned();
            let mut frame = json!({"title": name});
            if let (Some(frame), Value::Object(variant)) = (frame.as_object_mut(), variant) {
                frame.extend(variant);
            }
            Some((name, frame))
        })
        .collect()
}

/// What the server reads in a client frame besides its `type` and `data`: the optional `ref`, echoed
/// in the answer's error, and — for events without fields — `data` absent, `null` or an object.
fn describe_client_frame(frame: &mut Value) {
    let Some(properties) = frame.get_mut("properties").and_then(Value::as_object_mut) else {
        return;
    };
    properties.insert(
        "ref".to_owned(),
        json!({
            "description": "Echoed as `ref` in an error this frame causes.",
            "type": ["string", "number"],
        }),
    );
    properties.entry("data").or_insert_with(|| {
        json!({
            "description": "No fields: absent, null or an object (unknown fields are ignored).",
            "type": ["object", "null"],
        })
    });
}

/// For the tests that keep a generated document checked in (`docs/protocol.schema.json`,
/// `docs/openapi.json`): with `WAYFARER_BLESS=1` writes `document` to `path`; otherwise panics,
/// naming `bless_command`, when the file is not exactly the document, pretty-printed.
pub fn assert_checked_in(path: &str, document: &Value, bless_command: &str) {
    let generated = serde_json::to_string_pretty(document).expect("a JSON value prints") + "\n";
    if std::env::var_os("WAYFARER_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(path, &generated).expect("the checked-in document is writable");
        return;
    }
    let checked_in = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "{path} is not the document the code generates; refresh it with \
         `WAYFARER_BLESS=1 {bless_command}` and commit it"
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ws::{codes, CLIENT_MESSAGE_TYPES};

    #[test]
    fn every_client_event_is_one_the_parser_reads() {
        let document = protocol_document();
        let names: Vec<&str> = document["clientToServer"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        for name in &names {
            let (parsed, _) = ClientMessage::parse(&json!({ "type": name }).to_string());
            if let Err(err) = parsed {
                assert_ne!(err.code, codes::UNKNOWN_TYPE, "{name}: {}", err.message);
            }
        }
        let mut listed = CLIENT_MESSAGE_TYPES.to_vec();
        listed.sort_unstable();
        let mut documented = names.clone();
        documented.sort_unstable();
        assert_eq!(documented, listed);
    }

    #[test]
    fn every_server_event_has_a_frame_schema_with_its_data() {
        let document = protocol_document();
        let server = document["serverToClient"].as_object().unwrap();
        for name in [
            "player:sync",
            "world:update",
            "error",
            "tradeConfirmScreen",
            "quest:complete",
            "make:options",
        ] {
            let frame = &server[name];
            assert_eq!(frame["properties"]["type"]["const"], name);
            assert!(frame["properties"]["data"].is_object(), "{name}: {frame}");
        }
        let sent = serde_json::to_value(ServerMessage::error("x", "y", None)).unwrap();
        assert!(server.contains_key(sent["type"].as_str().unwrap()));
    }

    #[test]
    fn every_reference_resolves_inside_the_document() {
        fn refs<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
            match value {
                Value::Object(map) => {
                    if let Some(Value::String(target)) = map.get("$ref") {
                        out.push(target);
                    }
                    map.values().for_each(|v| refs(v, out));
                }
                Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
                _ => {}
            }
        }
        let document = protocol_document();
        let mut found = Vec::new();
        refs(&document, &mut found);
        assert!(!found.is_empty());
        for target in found {
            assert!(
                document.pointer(&target.replacen('#', "", 1)).is_some(),
                "{target} does not resolve"
            );
        }
    }

    /// `docs/protocol.schema.json` is this document, so client developers can read it without
    /// running a server.
    #[test]
    fn the_checked_in_protocol_schema_is_current() {
        assert_checked_in(
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../docs/protocol.schema.json"
            ),
            &protocol_document(),
            "cargo test -p wayfarer-protocol --lib the_checked_in_protocol_schema_is_current",
        );
    }
}
