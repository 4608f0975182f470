//! Wealth only from play (issue 50, docs/mechanics.md "Starting grants per address"): starting
//! items and coins go to at most 3 accounts per address (IPv6 by its /64) per 24 hours, counted
//! in the database in the transaction that creates the character, on SQLite and PostgreSQL.
//! Later accounts of the address get their characters without them, and the response says why.

use serde_json::{json, Value};

use crate::support::{
    admin_token, both_databases, economy_report_as, AppOptions, FreshDatabase, TestApp,
};

const LOAD_KEY: &str = "bots-welcome";

/// A server with the per-address limits on, behind a trusted proxy (each request names its
/// client in `X-Forwarded-For`), on `db`.
async fn proxied_app(db: Option<FreshDatabase>) -> TestApp {
    TestApp::spawn_with(AppOptions {
        env: vec![
            ("DISABLE_RATE_LIMIT", "false".into()),
            ("TRUSTED_PROXIES", "127.0.0.1".into()),
            // A long window: the REST budget of one address (100) does not refill mid-test.
            ("RATE_LIMIT_WINDOW_SECS", "6000".into()),
            ("LOAD_TEST_KEY", LOAD_KEY.into()),
        ],
        database: db,
        ..AppOptions::default()
    })
    .await
}

/// A guest account signed up from `address`: its token. The sign-up carries the load-test key,
/// which lifts the authentication limit (10 a minute per address) so that one test can sign up
/// 20 accounts at once, as an address would over two minutes; the character creations that
/// follow carry no key, so the rule of starting grants applies to them.
async fn sign_up(app: &TestApp, address: &str) -> String {
    let response = app
        .client
        .post(app.url("/api/auth/guest"))
        .header("x-forwarded-for", address)
        .header("x-load-test-key", LOAD_KEY)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.unwrap();
    body["token"].as_str().unwrap().to_owned()
}

/// `POST /api/character` from `address`: the 201 body.
async fn create(
    app: &TestApp,
    address: &str,
    token: &str,
    name: &str,
    template: Option<&str>,
) -> Value {
    let mut body = json!({ "name": name });
    if let Some(template) = template {
        body["templateId"] = json!(template);
    }
    let response = app
        .client
        .post(app.url("/api/character"))
        .header("x-forwarded-for", address)
        .bearer_auth(token)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        201,
        "{name}: {}",
        response.text().await.unwrap_or_default()
    );
    response.json().await.unwrap()
}

/// The merchant template's starting coins.
async fn merchant_coins(app: &TestApp) -> i64 {
    let template: Value = app
        .get("/api/template/merchant")
        .await
        .json()
        .await
        .unwrap();
    template["template"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["itemId"] == "coins")
        .unwrap()["quantity"]
        .as_i64()
        .unwrap()
}

/// Units of items a created character holds (its inventory, coins included).
fn units(created: &Value) -> i64 {
    created["character"]["inventory"]
        .as_array()
        .unwrap()
        .iter()
        .map(|slot| slot["quantity"].as_i64().unwrap_or(1))
        .sum()
}

fn assert_withheld(created: &Value) {
    assert_eq!(created["startingGrant"]["granted"], false, "{created}");
    assert_eq!(
        created["startingGrant"]["reason"], "address_limit",
        "{created}"
    );
    assert!(
        created["startingGrant"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("24 hours")),
        "{created}"
    );
    assert_eq!(created["character"]["coins"], 0, "{created}");
    assert_eq!(units(created), 0, "{created}");
}

fn assert_granted(created: &Value, coins: i64) {
    assert_eq!(
        created["startingGrant"],
        json!({"granted": true}),
        "{created}"
    );
    assert_eq!(created["character"]["coins"], coins, "{created}");
    assert!(units(created) > 0, "{created}");
}

/// 20 merchants from one address: 3 accounts' worth of coins and items, every character made.
async fn twenty_sign_ups(db: FreshDatabase) {
    let app = proxied_app(Some(db)).await;
    let coins = merchant_coins(&app).await;
    assert!(coins > 0);
    let farm = "203.0.113.9";
    let mut tokens = Vec::new();
    let mut total_coins = 0;
    for n in 0..20 {
        let token = sign_up(&app, farm).await;
        let created = create(&app, farm, &token, &format!("Farm{n}"), Some("merchant")).await;
        if n < 3 {
            assert_granted(&created, coins);
        } else {
            // The 4th address-mate and every later one: a character, no grant.
            assert_withheld(&created);
        }
        total_coins += created["character"]["coins"].as_i64().unwrap();
        tokens.push(token);
    }
    assert_eq!(total_coins, 3 * coins, "3 accounts' worth");
    // An account the address did grant keeps its own 3 characters' grants: still 3 accounts.
    let second = create(&app, farm, &tokens[0], "FarmTwo", Some("merchant")).await;
    assert_granted(&second, coins);
    // A later account's second character gets nothing either.
    assert_withheld(&create(&app, farm, &tokens[5], "FarmSix", Some("merchant")).await);
    // Another address has its own grants; so does the first player's `POST /api/v1/player`.
    let other = "198.51.100.7";
    let token = sign_up(&app, other).await;
    assert_granted(
        &create(&app, other, &token, "Neighbour", Some("merchant")).await,
        coins,
    );
    let token = sign_up(&app, farm).await;
    let response = app
        .client
        .post(app.url("/api/v1/player"))
        .header("x-forwarded-for", farm)
        .bearer_auth(&token)
        .json(&json!({"name": "FarmLast"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["startingGrant"]["reason"], "address_limit", "{body}");
    assert!(body["player"]["inventory"].as_array().unwrap().is_empty());

    // The economy report: the address's accounts and grants in the last 24 hours, most first,
    // and the audit counts only what was granted.
    let admin = admin_token(&app).await;
    let report = economy_report_as(&app, &admin).await;
    let by_address = report["grantsByAddress"].as_array().unwrap();
    let row = |address: &str| {
        by_address
            .iter()
            .find(|r| r["address"] == address)
            .unwrap_or_else(|| panic!("{address} in {by_address:?}"))
            .clone()
    };
    assert_eq!(by_address[0]["address"], farm, "{by_address:?}");
    let farm_row = row(farm);
    assert_eq!(farm_row["accounts"], 3, "{farm_row}");
    assert_eq!(farm_row["grants"], 4, "{farm_row}");
    assert_eq!(farm_row["coins"], 4 * coins, "{farm_row}");
    assert_eq!(farm_row["withheld"], 19, "{farm_row}");
    assert_eq!(farm_row["exempt"], 0, "{farm_row}");
    assert_eq!(row(other)["grants"], 1);
    assert_eq!(
        report["entered"]["coins"]["template"].as_i64().unwrap(),
        5 * coins,
        "the audit counts the 4 + 1 merchants granted"
    );
}

both_databases!(
    twenty_sign_ups_from_one_address_bring_three_accounts_worth,
    |db| { twenty_sign_ups(db) }
);

/// Sign-ups from one address at once: exactly 3 accounts are granted, whatever the interleaving.
async fn concurrent_sign_ups(db: FreshDatabase) {
    let app = proxied_app(Some(db)).await;
    let farm = "203.0.113.77";
    let mut tokens = Vec::new();
    for _ in 0..12 {
        tokens.push(sign_up(&app, farm).await);
    }
    let creations = tokens
        .iter()
        .enumerate()
        .map(|(n, token)| {
            let app = &app;
            async move { create(app, farm, token, &format!("Racer{n}"), None).await }
        })
        .collect::<Vec<_>>();
    let created = futures_util::future::join_all(creations).await;
    let granted = created
        .iter()
        .filter(|c| c["startingGrant"]["granted"] == true)
        .count();
    assert_eq!(granted, 3, "{created:?}");
    for c in created
        .iter()
        .filter(|c| c["startingGrant"]["granted"] == false)
    {
        assert_withheld(c);
    }
}

both_databases!(
    concurrent_sign_ups_from_one_address_grant_exactly_three,
    |db| { concurrent_sign_ups(db) }
);

async fn ipv6_neighbours(db: FreshDatabase) {
    let app = proxied_app(Some(db)).await;
    let coins = merchant_coins(&app).await;
    for (n, address) in [
        "2001:db8:1:2::1",
        "2001:db8:1:2::2",
        "2001:db8:1:2:aaaa:bbbb:cccc:dddd",
    ]
    .into_iter()
    .enumerate()
    {
        let token = sign_up(&app, address).await;
        let created = create(&app, address, &token, &format!("Six{n}"), Some("merchant")).await;
        assert_granted(&created, coins);
    }
    // A fourth address of the same /64 is the same network.
    let mate = "2001:db8:1:2:ffff::9";
    let token = sign_up(&app, mate).await;
    assert_withheld(&create(&app, mate, &token, "SixMate", Some("merchant")).await);
    // The next /64 is another network.
    let next = "2001:db8:1:3::1";
    let token = sign_up(&app, next).await;
    assert_granted(
        &create(&app, next, &token, "SixNext", Some("merchant")).await,
        coins,
    );
    let report = economy_report_as(&app, &admin_token(&app).await).await;
    let net = report["grantsByAddress"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["address"] == "2001:db8:1:2::")
        .cloned()
        .unwrap_or_else(|| panic!("the /64 in {report}"));
    assert_eq!(
        (net["accounts"].as_i64(), net["withheld"].as_i64()),
        (Some(3), Some(1))
    );
}

both_databases!(ipv6_addresses_of_one_64_count_together, |db| {
    ipv6_neighbours(db)
});

/// With the rate limits off (development and test), as with the load-test key, the rule does
/// not apply: the creation is granted and recorded as exempt.
#[tokio::test]
async fn the_rule_is_lifted_where_the_per_address_limits_are() {
    let app = proxied_app(None).await;
    let coins = merchant_coins(&app).await;
    let bots = "192.0.2.50";
    for n in 0..4 {
        let token = sign_up(&app, bots).await;
        let response = app
            .client
            .post(app.url("/api/character"))
            .header("x-forwarded-for", bots)
            .header("x-load-test-key", LOAD_KEY)
            .bearer_auth(&token)
            .json(&json!({"name": format!("Bot{n}"), "templateId": "merchant"}))
            .send()
            .await
            .unwrap();
        let created: Value = response.json().await.unwrap();
        assert_granted(&created, coins);
    }
    let report = economy_report_as(&app, &admin_token(&app).await).await;
    let row = report["grantsByAddress"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["address"] == bots)
        .cloned()
        .unwrap();
    assert_eq!(
        (row["grants"].as_i64(), row["exempt"].as_i64()),
        (Some(4), Some(4))
    );

    let open = TestApp::spawn().await;
    for n in 0..5 {
        let (token, _) = crate::support::player(&open, &format!("Dev{n}")).await;
        assert!(!token.is_empty());
    }
    let created = open
        .client
        .post(open.url("/api/auth/guest"))
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    let token = created["token"].as_str().unwrap();
    let body: Value = open
        .client
        .post(open.url("/api/character"))
        .bearer_auth(token)
        .json(&json!({"name": "DevSix", "templateId": "merchant"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_granted(&body, coins);
}
