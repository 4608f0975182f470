//! Auto-retaliate over real WebSockets: on for a new character and told in `player:sync`,
//! switched off with `player:action {action: "auto_retaliate", enabled}`, still off after a relog
//! (the record saved and read back) on SQLite and PostgreSQL; `enabled` missing is refused.

use serde_json::Value;
use wayfarer_protocol::ws::{ActionRequest, ClientMessage};

use crate::support::{
    both_databases, enter, player, AppOptions, Clock, FreshDatabase, TestApp, WsClient,
};

/// Sends `auto_retaliate` and returns the `player:sync` after the tick that applied it. A sync is
/// answered as the world reads it, in the connection's order: the first one's answer says the
/// action is queued, so the step after it applies it.
async fn switched(app: &TestApp, ws: &mut WsClient, enabled: bool) -> Value {
    ws.send(
        ClientMessage::Action(ActionRequest::auto_retaliate(enabled)),
        None,
    )
    .await;
    ws.send(ClientMessage::Sync, None).await;
    ws.expect_type("player:sync").await;
    app.step(1).await;
    ws.send(ClientMessage::Sync, None).await;
    ws.expect_type("player:sync").await
}

async fn auto_retaliate_survives_a_relog(db: FreshDatabase) {
    let app = TestApp::spawn_with(AppOptions {
        database: Some(db),
        clock: Clock::Manual,
        ..Default::default()
    })
    .await;
    let (token, id) = player(&app, "Answerer").await;
    let (mut ws, sync) = enter(&app, &token).await;
    assert_eq!(
        sync["autoRetaliate"], true,
        "on for a new character: {sync}"
    );

    let now = switched(&app, &mut ws, false).await;
    assert_eq!(now["data"]["autoRetaliate"], false, "{now}");

    ws.close().await;
    app.left(&id).await;
    let stored = app.store().characters().get(&id).await.unwrap().unwrap();
    assert!(!stored.auto_retaliate, "saved with the record");
    let (mut ws, sync) = enter(&app, &token).await;
    assert_eq!(sync["autoRetaliate"], false, "after the relog: {sync}");

    // Without `enabled` the action says what it needs; the setting stays.
    ws.send(
        ClientMessage::Action(ActionRequest::new("auto_retaliate")),
        None,
    )
    .await;
    let refused = ws.expect_type("error").await;
    assert_eq!(refused["data"]["code"], "invalid_message", "{refused}");
    let now = switched(&app, &mut ws, true).await;
    assert_eq!(now["data"]["autoRetaliate"], true, "{now}");
}

both_databases!(auto_retaliate_survives_a_relog, |db| {
    auto_retaliate_survives_a_relog(db)
});
