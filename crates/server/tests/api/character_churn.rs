//! Character churn cannot mint wealth (docs/mechanics.md, "Starting items and character churn"):
//! an account receives starting items for its first 3 characters only, every grant is counted as
//! `entered` and a deleted character's holdings as `left` in the economy audit; and the
//! 3-characters rule holds under concurrent creation on SQLite and PostgreSQL.

use std::collections::BTreeMap;
use std::time::Instant;

use serde_json::{json, Value};
use wayfarer_protocol::trade::{TradeAddItem, TradeIdOnly};
use wayfarer_protocol::ws::ClientMessage;

use crate::support::messages::to_slot;
use crate::support::{
    admin_token, assert_error, both_databases, economy_report_as, enter, player, AppOptions,
    FreshDatabase, TestApp, WsClient, WAIT,
};
use crate::trade::{expect_trade, slot_of, start};

async fn guest(app: &TestApp) -> String {
    let body: Value = app
        .client
        .post(app.url("/api/auth/guest"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    body["token"].as_str().unwrap().to_owned()
}

/// Units per item id of one direction of the audit (`entered` or `left`), all reasons summed.
fn summed(report: &Value, direction: &str) -> BTreeMap<String, i64> {
    report[direction]
        .as_object()
        .unwrap()
        .iter()
        .map(|(item, reasons)| {
            let units = reasons
                .as_object()
                .unwrap()
                .values()
                .map(|n| n.as_i64().unwrap())
                .sum();
            (item.clone(), units)
        })
        .collect()
}

/// The economy audit, asserting that every item's units in the world are what the world started
/// with plus what entered minus what left.
pub(crate) struct Audit {
    admin: String,
    start: BTreeMap<String, i64>,
}

impl Audit {
    fn in_world(report: &Value) -> BTreeMap<String, i64> {
        report["items"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(item, totals)| (item.clone(), totals["inWorld"].as_i64().unwrap()))
            .collect()
    }

    /// Takes the world as it is now as the start.
    pub(crate) async fn begin(app: &TestApp) -> Audit {
        let admin = admin_token(app).await;
        let report = economy_report_as(app, &admin).await;
        let (entered, left) = (summed(&report, "entered"), summed(&report, "left"));
        let mut start = Audit::in_world(&report);
        for (item, units) in start.iter_mut() {
            *units -=
                entered.get(item).copied().unwrap_or(0) - left.get(item).copied().unwrap_or(0);
        }
        Audit { admin, start }
    }

    /// Asserts holdings = start + entered − left for every item; returns the report.
    pub(crate) async fn balanced(&self, app: &TestApp, step: &str) -> Value {
        let report = economy_report_as(app, &self.admin).await;
        let in_world = Audit::in_world(&report);
        let (entered, left) = (summed(&report, "entered"), summed(&report, "left"));
        let items: std::collections::BTreeSet<&String> = in_world
            .keys()
            .chain(entered.keys())
            .chain(left.keys())
            .chain(self.start.keys())
            .collect();
        for item in items {
            let at = |map: &BTreeMap<String, i64>| map.get(item).copied().unwrap_or(0);
            assert_eq!(
                at(&in_world),
                at(&self.start) + at(&entered) - at(&left),
                "{step}: {item} is not start + entered - left: {report}"
            );
        }
        report
    }
}

/// `DELETE /api/character/<id>`, retried while the character is still online or being saved.
async fn delete_when_offline(app: &TestApp, token: &str, id: &str) {
    let deadline = Instant::now() + WAIT;
    loop {
        let response = app
            .client
            .delete(app.url(&format!("/api/character/{id}")))
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        match response.status().as_u16() {
            200 => return,
            409 => {}
            other => panic!(
                "delete answered {other}: {}",
                response.text().await.unwrap()
            ),
        }
        assert!(Instant::now() < deadline, "{id} never went offline");
        app.pass_time().await;
    }
}

/// Trades every coin of `from` to `to` (both in the world); returns how many.
async fn trade_all_coins(from: &mut WsClient, to: &mut WsClient, to_id: &str, coins: i64) {
    let slot = slot_of(from, "coins").await;
    let id = start(from, to, to_id).await;
    from.send(
        ClientMessage::TradeAddItem(TradeAddItem {
            trade_id: id.clone(),
            inventory_slot: to_slot(slot),
            quantity: Some(coins),
        }),
        None,
    )
    .await;
    expect_trade(to, "tradeUpdated").await;
    for ws in [&mut *from, &mut *to] {
        ws.send(
            ClientMessage::TradeAccept(TradeIdOnly {
                trade_id: id.clone(),
            }),
            None,
        )
        .await;
    }
    for ws in [&mut *from, &mut *to] {
        expect_trade(ws, "tradeConfirmScreen").await;
    }
    for ws in [&mut *from, &mut *to] {
        ws.send(
            ClientMessage::TradeAccept(TradeIdOnly {
                trade_id: id.clone(),
            }),
            None,
        )
        .await;
    }
    let received = expect_trade(to, "tradeCompleted").await;
    assert_eq!(
        received["receivedItems"],
        json!([{"itemId": "coins", "quantity": coins}])
    );
    expect_trade(from, "tradeCompleted").await;
}

/// Five rounds of: create a merchant (500 coins while the account has grants), trade its coins to
/// a main character, log out, delete it. Only the first three rounds pay; the audit balances after
/// every step.
async fn merchant_churn(db: FreshDatabase) {
    let app = TestApp::spawn_with(AppOptions {
        database: Some(db),
        ..AppOptions::default()
    })
    .await;
    let audit = Audit::begin(&app).await;
    let (main_token, main_id) = player(&app, "Main").await;
    let (mut main_ws, main_sync) = enter(&app, &main_token).await;
    let main_coins = main_sync["coins"].as_i64().unwrap();
    assert!(main_coins > 0, "the starter kit has coins: {main_sync}");
    audit.balanced(&app, "main created").await;

    let template: Value = app
        .get("/api/template/merchant")
        .await
        .json()
        .await
        .unwrap();
    let template = &template["template"];
    let merchant_coins = template["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["itemId"] == "coins")
        .unwrap()["quantity"]
        .as_i64()
        .unwrap();

    let churner = guest(&app).await;
    for round in 1..=5 {
        let response = app
            .client
            .post(app.url("/api/character"))
            .bearer_auth(&churner)
            .json(&json!({"name": format!("Merchant{round}"), "templateId": "merchant"}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 201, "round {round}");
        let created: Value = response.json().await.unwrap();
        let merchant = &created["character"];
        let merchant_id = merchant["id"].as_str().unwrap().to_owned();
        // The same shape every round; its skills are the template's every round.
        for (skill, level) in template["skills"].as_object().unwrap() {
            assert_eq!(merchant["skills"][skill]["level"], *level, "{skill}");
        }
        let granted = round <= 3;
        if granted {
            assert_eq!(merchant["coins"], merchant_coins, "round {round}");
            assert!(!merchant["inventory"].as_array().unwrap().is_empty());
        } else {
            assert_eq!(merchant["coins"], 0, "round {round}: {merchant}");
            assert_eq!(merchant["inventory"], json!([]), "round {round}");
        }
        let report = audit
            .balanced(&app, &format!("round {round} created"))
            .await;
        assert_eq!(
            report["entered"]["coins"]["template"].as_i64().unwrap_or(0),
            merchant_coins * round.min(3),
            "round {round}: {report}"
        );

        let (mut merchant_ws, _) = enter(&app, &churner).await;
        if granted {
            trade_all_coins(&mut merchant_ws, &mut main_ws, &main_id, merchant_coins).await;
            audit.balanced(&app, &format!("round {round} traded")).await;
        }
        merchant_ws.close().await;
        delete_when_offline(&app, &churner, &merchant_id).await;
        let report = audit
            .balanced(&app, &format!("round {round} deleted"))
            .await;
        // What the merchant still held (its logs, bars and hammer) left with it.
        assert_eq!(
            report["left"]["hammer"]["deleted"].as_i64().unwrap_or(0),
            round.min(3),
            "round {round}: {report}"
        );
    }

    // Three merchants' coins and no more: what one new account could have had.
    let main: Value = app
        .client
        .get(app.url("/api/v1/player"))
        .bearer_auth(&main_token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(main["player"]["coins"], main_coins + 3 * merchant_coins);
    main_ws.close().await;
    audit.balanced(&app, "main logged out").await;
}

both_databases!(
    merchant_churn_pays_three_times_per_account_and_the_audit_balances,
    |db| merchant_churn(db)
);

/// 30 concurrent creations through `path` on one account: exactly 3 answer 201, the rest 409.
async fn concurrent_creations(app: &TestApp, path: &'static str) {
    let token = guest(app).await;
    let mut tasks = tokio::task::JoinSet::new();
    for n in 0..30 {
        let client = app.client.clone();
        let url = app.url(path);
        let token = token.clone();
        tasks.spawn(async move {
            client
                .post(url)
                .bearer_auth(token)
                .json(&json!({"name": format!("Racer{n}")}))
                .send()
                .await
                .unwrap()
        });
    }
    let mut created = 0;
    while let Some(response) = tasks.join_next().await {
        let response = response.unwrap();
        if response.status() == 201 {
            created += 1;
        } else {
            assert_error(response, 409, "conflict").await;
        }
    }
    assert_eq!(created, 3, "{path}");
    let list: Value = app
        .client
        .get(app.url("/api/character"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list["characters"].as_array().unwrap().len(), 3, "{path}");
}

async fn creation_race(db: FreshDatabase) {
    let app = TestApp::spawn_with(AppOptions {
        database: Some(db),
        ..AppOptions::default()
    })
    .await;
    concurrent_creations(&app, "/api/character").await;
    concurrent_creations(&app, "/api/agent/register").await;
}

both_databases!(thirty_concurrent_creations_leave_three_characters, |db| {
    creation_race(db)
});

/// A plain character's starter kit is granted the same way: the fourth character an account ever
/// creates starts empty, and the audit counts each kit as `starterKit`.
#[tokio::test]
async fn a_fourth_plain_character_starts_without_the_starter_kit() {
    let app = TestApp::spawn().await;
    let audit = Audit::begin(&app).await;
    let token = guest(&app).await;
    let create = |name: &'static str| {
        let app = &app;
        let token = token.clone();
        async move {
            let response = app
                .client
                .post(app.url("/api/character"))
                .bearer_auth(token)
                .json(&json!({ "name": name }))
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 201, "{name}");
            response.json::<Value>().await.unwrap()["character"].clone()
        }
    };
    let first = create("Plain One").await;
    let kit_coins = first["coins"].as_i64().unwrap();
    assert!(kit_coins > 0);
    create("Plain Two").await;
    create("Plain Three").await;
    let report = audit.balanced(&app, "three created").await;
    assert_eq!(report["entered"]["coins"]["starterKit"], 3 * kit_coins);
    let deleted = first["id"].as_str().unwrap();
    delete_when_offline(&app, &token, deleted).await;
    let report = audit.balanced(&app, "one deleted").await;
    assert_eq!(report["left"]["coins"]["deleted"], kit_coins);
    let fourth = create("Plain Four").await;
    assert_eq!(fourth["coins"], 0);
    assert_eq!(fourth["inventory"], json!([]));
    let report = audit.balanced(&app, "fourth created").await;
    assert_eq!(report["entered"]["coins"]["starterKit"], 3 * kit_coins);
    // Full again: the fourth at once is refused, whatever the grants.
    let response = app
        .client
        .post(app.url("/api/character"))
        .bearer_auth(&token)
        .json(&json!({ "name": "Plain Five" }))
        .send()
        .await
        .unwrap();
    assert_error(response, 409, "conflict").await;
}
