//! The machine-readable descriptions: `GET /api/openapi.json` covers every route the router
//! registers (and every documented route is routed), with its security and error bodies, and
//! `GET /api/protocol.json` has a JSON Schema for every WebSocket event.

use serde_json::Value;
use wayfarer_protocol::ws::CLIENT_MESSAGE_TYPES;

use crate::support::TestApp;

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

async fn json(app: &TestApp, path: &str) -> Value {
    let response = app.get(path).await;
    assert_eq!(response.status(), 200, "{path}");
    assert!(response.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("application/json"));
    response.json().await.unwrap()
}

/// OpenAPI writes axum's catch-all `{*file}` as `{file}`.
fn openapi_path(axum_path: &str) -> String {
    axum_path.replace("{*", "{")
}

#[tokio::test]
async fn every_route_the_router_registers_is_in_the_openapi_document() {
    let app = TestApp::spawn().await;
    let registered = json(&app, "/__test/routes").await;
    let document = json(&app, "/api/openapi.json").await;
    let paths = document["paths"].as_object().unwrap();
    let registered = registered.as_array().unwrap();
    assert!(registered.len() > 30, "{registered:?}");
    for route in registered {
        let path = route["path"].as_str().unwrap();
        if path.starts_with("/__test/") {
            continue;
        }
        assert_eq!(
            route["documented"], true,
            "{path} is routed without an OpenAPI operation: register it with routes!() and #[utoipa::path]"
        );
        let item = paths
            .get(&openapi_path(path))
            .unwrap_or_else(|| panic!("{path} is routed but not in /api/openapi.json"));
        for method in route["methods"].as_array().unwrap() {
            let method = method.as_str().unwrap();
            assert!(item.get(method).is_some(), "{method} {path} not documented");
        }
    }
    let routed: Vec<String> = registered
        .iter()
        .map(|r| openapi_path(r["path"].as_str().unwrap()))
        .collect();
    for path in paths.keys() {
        assert!(routed.contains(path), "{path} is documented but not routed");
    }
}

#[tokio::test]
async fn every_documented_operation_reaches_a_route() {
    let app = TestApp::spawn().await;
    let document = json(&app, "/api/openapi.json").await;
    for (path, item) in document["paths"].as_object().unwrap() {
        let concrete = path
            .split('/')
            .map(|segment| {
                if segment.starts_with('{') {
                    "x"
                } else {
                    segment
                }
            })
            .collect::<Vec<_>>()
            .join("/");
        for method in METHODS.iter().filter(|m| item.get(**m).is_some()) {
            let response = app
                .client
                .request(method.to_uppercase().parse().unwrap(), app.url(&concrete))
                .send()
                .await
                .unwrap();
            let status = response.status();
            let body: Value = response.json().await.unwrap_or(Value::Null);
            assert_ne!(status, 405, "{method} {path}: {body}");
            let unrouted = body["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("no route for"));
            assert!(!unrouted, "{method} {path} is documented but not routed");
        }
    }
}

#[tokio::test]
async fn the_openapi_document_gives_security_parameters_and_error_bodies() {
    let app = TestApp::spawn().await;
    let doc = json(&app, "/api/openapi.json").await;
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(
        doc["components"]["securitySchemes"]["bearer"]["scheme"],
        "bearer"
    );
    let error = &doc["components"]["schemas"]["ErrorBody"];
    for field in ["error", "message"] {
        assert!(
            error["required"]
                .as_array()
                .unwrap()
                .contains(&Value::from(field)),
            "{error}"
        );
    }
    let codes = doc["components"]["schemas"]["ErrorCode"]["enum"]
        .as_array()
        .unwrap();
    assert!(codes.contains(&Value::from("rate_limited")), "{codes:?}");

    let error_ref = "#/components/schemas/ErrorBody";
    let get_player = &doc["paths"]["/api/v1/player"]["get"];
    assert_eq!(get_player["security"][0]["bearer"], Value::Array(vec![]));
    for status in ["401", "403", "404", "429"] {
        assert_eq!(
            get_player["responses"][status]["content"]["application/json"]["schema"]["$ref"],
            error_ref,
            "{status}: {get_player}"
        );
    }
    assert_eq!(
        get_player["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/PlayerBody"
    );
    let player = &doc["components"]["schemas"]["Player"]["properties"];
    for field in [
        "id",
        "accountId",
        "combatLevel",
        "skills",
        "inventory",
        "equipment",
    ] {
        assert!(player.get(field).is_some(), "Player.{field}: {player}");
    }

    let health = &doc["paths"]["/health"]["get"];
    assert!(health.get("security").is_none(), "{health}");
    assert!(health["responses"].get("401").is_none(), "{health}");

    let guest = &doc["paths"]["/api/auth/guest"]["post"];
    assert!(guest["requestBody"]["content"]["application/json"].is_object());
    for status in ["201", "400", "413", "429"] {
        assert!(
            guest["responses"].get(status).is_some(),
            "{status}: {guest}"
        );
    }

    let online = &doc["paths"]["/api/player/online"]["get"]["parameters"];
    let names: Vec<&str> = online
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["page", "limit"]);

    let ws = &doc["paths"]["/ws"]["get"];
    assert!(ws["responses"].get("101").is_some(), "{ws}");
    let ws_params: Vec<&str> = ws["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(ws_params, ["token", "characterId"]);

    let manifest = &doc["paths"]["/manifests/{file}"]["get"];
    assert!(manifest["responses"].get("304").is_some(), "{manifest}");
    assert_eq!(
        doc["paths"]["/metrics"]["get"]["responses"]["200"]["content"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["text/plain"]
    );
}

#[tokio::test]
async fn the_protocol_document_has_a_schema_for_every_event() {
    let app = TestApp::spawn().await;
    let doc = json(&app, "/api/protocol.json").await;
    assert_eq!(
        doc["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    let client = doc["clientToServer"].as_object().unwrap();
    let mut names: Vec<&str> = client.keys().map(String::as_str).collect();
    names.sort_unstable();
    let mut expected = CLIENT_MESSAGE_TYPES.to_vec();
    expected.sort_unstable();
    assert_eq!(names, expected);
    assert_eq!(
        client["player:move"]["properties"]["data"]["$ref"],
        "#/$defs/MoveRequest"
    );
    let move_request = &doc["$defs"]["MoveRequest"];
    assert_eq!(move_request["required"], serde_json::json!(["x", "z"]));
    assert!(client["player:sync"]["properties"]["ref"].is_object());

    let server = doc["serverToClient"].as_object().unwrap();
    for event in [
        "player:sync",
        "world:update",
        "chat:message",
        "inventory:update",
        "skill:xp",
        "error",
        "tradeCompleted",
        "bank:update",
        "shop:open",
        "prayer:update",
        "dialogue:open",
        "quest:complete",
    ] {
        let frame = &server[event];
        assert_eq!(frame["properties"]["type"]["const"], event, "{frame}");
        assert!(frame["properties"]["data"].is_object(), "{event}: {frame}");
    }
    let world_update = &doc["$defs"]["WorldUpdate"]["properties"];
    for field in ["tick", "added", "moved", "changed", "removed"] {
        assert!(world_update.get(field).is_some(), "{field}: {world_update}");
    }
}

#[tokio::test]
async fn every_agent_route_describes_its_success_body_with_a_named_schema() {
    let app = TestApp::spawn().await;
    let doc = json(&app, "/api/openapi.json").await;
    let mut checked = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        if !path.starts_with("/api/agent") {
            continue;
        }
        for method in METHODS.iter().filter(|m| item.get(**m).is_some()) {
            let responses = item[*method]["responses"].as_object().unwrap();
            let (status, success) = responses
                .iter()
                .find(|(status, _)| status.starts_with('2'))
                .unwrap_or_else(|| panic!("{method} {path}: no success response"));
            let schema = &success["content"]["application/json"]["schema"]["$ref"];
            let name = schema
                .as_str()
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
                .unwrap_or_else(|| {
                    panic!("{method} {path} {status}: not a named schema: {success}")
                });
            let described = &doc["components"]["schemas"][name];
            assert!(
                described["properties"].is_object() || described["allOf"].is_array(),
                "{method} {path}: {name} has no properties: {described}"
            );
            checked += 1;
        }
    }
    // register, list, decisions, goal (get, set), stop, resume, message, quick-actions, mapping.
    assert!(checked >= 10, "agent operations checked: {checked}");
    let summary = &doc["components"]["schemas"]["AgentSummary"]["properties"];
    for field in [
        "agentId",
        "characterId",
        "connected",
        "goal",
        "paused",
        "status",
        "createdAt",
    ] {
        assert!(
            summary.get(field).is_some(),
            "AgentSummary.{field}: {summary}"
        );
    }
}
