//! Making over the real socket (CONTRACT.md section 9) in the bundled world: bars used on an anvil
//! answer `make:options` with every smithing recipe of that bar, `canMake` and why not; `make`
//! with a quantity makes exactly that many, told on the `game` channel; its refusals carry their
//! codes and its quantity is bounded.

use serde_json::{json, Value};
use wayfarer_protocol::ws::{ActionRequest, ChatChannel, ClientMessage, Quantity, UseRequest};

use crate::support::messages::{added_of_type, chat_on, to_id, to_slot};
use crate::support::{admin_give, player, AppOptions, TestApp, WsClient};

const ADMIN_CODE: &str = "mk";

async fn app() -> TestApp {
    TestApp::spawn_with(AppOptions {
        env: vec![("ADMIN_CODE", ADMIN_CODE.into())],
        ..Default::default()
    })
    .await
}

/// A new character's socket and the anvil's entity id (Millbrook's anvil is in view of the
/// spawn).
async fn enter_near_anvil(app: &TestApp, name: &str) -> (WsClient, String) {
    let (token, _) = player(app, name).await;
    let mut ws = WsClient::connect(app, &format!("token={token}"))
        .await
        .expect("connects");
    ws.expect_type("player:sync").await;
    let view = ws.expect_type("world:update").await;
    let anvil = added_of_type(&view["data"], "anvil").expect("the anvil is in view of the spawn");
    (ws, anvil)
}

/// How many of `item` an `inventory:update` or `player:sync` holds.
fn held(message: &Value, item: &str) -> u64 {
    message["data"]["inventory"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["itemId"] == item)
        .map(|s| s["quantity"].as_u64().unwrap_or(0))
        .sum()
}

#[tokio::test]
async fn bars_on_an_anvil_offer_every_recipe_of_the_bar_and_make_makes_exactly_that_many() {
    let app = app().await;
    let (mut ws, anvil) = enter_near_anvil(&app, "Smith").await;
    admin_give(&mut ws, ADMIN_CODE, "hammer", 1).await;
    let bar = admin_give(&mut ws, ADMIN_CODE, "bronze_bar", 5).await;

    ws.send(
        ClientMessage::Use(UseRequest {
            target_id: Some(to_id(&anvil)),
            ..UseRequest::new(to_slot(&bar))
        }),
        Some(json!("use")),
    )
    .await;
    let offered = ws.expect_type("make:options").await;
    let data = &offered["data"];
    assert_eq!(data["context"]["targetId"], anvil.as_str());
    assert_eq!(data["context"]["stationType"], "anvil");
    assert_eq!(data["context"]["slots"], json!([bar]));
    let options: Vec<(String, bool, Value)> = data["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["recipeId"].as_str().unwrap().to_owned(),
                o["canMake"].as_bool().unwrap(),
                o["reason"].clone(),
            )
        })
        .collect();
    let can = |id: &str| (id.to_owned(), true, Value::Null);
    let cannot = |id: &str| (id.to_owned(), false, json!("level_too_low"));
    // A new smith (level 1): every bronze recipe, in content order, the higher ones greyed.
    assert_eq!(
        options,
        [
            can("smithing:bronze_dagger"),
            cannot("smithing:bronze_sword"),
            can("smithing:bronze_hatchet"),
            can("smithing:bronze_pickaxe"),
            cannot("smithing:bronze_arrowtips"),
            cannot("smithing:bronze_helmet"),
            cannot("smithing:bronze_platebody"),
        ]
    );
    let dagger = &data["options"][0];
    assert_eq!(dagger["name"], "Bronze Dagger");
    assert_eq!(dagger["skill"], "smithing");
    assert_eq!(dagger["level"], 1);
    assert_eq!(dagger["xp"], 12.5);
    assert_eq!(
        dagger["inputs"],
        json!([{"itemId": "bronze_bar", "quantity": 1}])
    );
    assert_eq!(dagger["tools"], json!(["hammer"]));
    assert_eq!(
        dagger["outputs"],
        json!([{"itemId": "bronze_dagger", "quantity": 1}])
    );

    ws.send(
        ClientMessage::Action(
            ActionRequest::make("smithing:bronze_dagger", Quantity::Count(3))
                .with_target(to_id(&anvil)),
        ),
        Some(json!("make")),
    )
    .await;
    let mut lines = Vec::new();
    let mut xp = Vec::new();
    let finish = "You made 3 bronze daggers.";
    while lines.last().map(String::as_str) != Some(finish) {
        let message = ws.next().await.expect("open");
        match message["type"].as_str() {
            Some("chat:message") if message["data"]["channel"] == "game" => {
                lines.push(message["data"]["text"].as_str().unwrap().to_owned());
            }
            Some("skill:xp") => xp.push(message["data"]["xpGained"].clone()),
            Some("error") => panic!("refused: {message}"),
            _ => {}
        }
    }
    assert_eq!(
        lines,
        [
            "You begin smithing 3 bronze daggers.",
            "You hammer out a bronze dagger.",
            "You hammer out a bronze dagger.",
            "You hammer out a bronze dagger.",
            finish,
        ]
    );
    assert_eq!(xp, [json!(12.5), json!(12.5), json!(12.5)]);
    ws.send(ClientMessage::Sync, None).await;
    let sync = ws.expect_type("player:sync").await;
    assert_eq!(held(&sync, "bronze_dagger"), 3);
    assert_eq!(held(&sync, "bronze_bar"), 2, "exactly three bars used");
    let smithing_xp = sync["data"]["skills"]["smithing"]["xp"].as_f64().unwrap();
    assert!((37.0..=38.0).contains(&smithing_xp), "{smithing_xp}");
}

/// Sends `message` and returns the code of the error echoing `reference`.
async fn refused(ws: &mut WsClient, message: ClientMessage, reference: &str) -> String {
    ws.send(message, Some(json!(reference))).await;
    refusal(ws, reference).await
}

/// [`refused`] for `player:action` data no typed message can carry (a quantity of the wrong type).
async fn refused_raw(ws: &mut WsClient, data: Value, reference: &str) -> String {
    ws.send_raw("player:action", data, Some(json!(reference)))
        .await;
    refusal(ws, reference).await
}

/// The code of the error echoing `reference`.
async fn refusal(ws: &mut WsClient, reference: &str) -> String {
    let error = ws
        .expect("the refusal", |m| {
            m["type"] == "error" && m["data"]["ref"] == reference
        })
        .await;
    error["data"]["code"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn make_refusals_carry_their_codes_and_the_quantity_is_bounded() {
    let app = app().await;
    let (mut ws, anvil) = enter_near_anvil(&app, "Tinker").await;
    let make = |quantity: i64| {
        let sword = ActionRequest::make("smithing:bronze_sword", Quantity::Count(quantity));
        ClientMessage::Action(sword.with_target(to_id(&anvil)))
    };
    // The largest count is read (and then refused for the level); the next is not read at all.
    let largest = i64::from(wayfarer_sim::MAX_MAKE_QUANTITY);
    assert_eq!(
        refused(&mut ws, make(largest), "largest").await,
        "level_too_low"
    );
    for (quantity, reference) in [(largest + 1, "beyond"), (0, "zero"), (-2, "negative")] {
        assert_eq!(
            refused(&mut ws, make(quantity), reference).await,
            "invalid_message",
            "{reference}"
        );
    }
    // Not a count at all: only hand-written JSON can say it.
    for (quantity, reference) in [(json!("some"), "word"), (json!(1.5), "half")] {
        let data = json!({"action": "make", "recipeId": "smithing:bronze_sword",
                          "quantity": quantity, "targetId": anvil});
        assert_eq!(
            refused_raw(&mut ws, data, reference).await,
            "invalid_message",
            "{reference}"
        );
    }
    assert_eq!(
        refused(
            &mut ws,
            ClientMessage::Action(ActionRequest {
                recipe_id: Some("smithing:bronze_crown".into()),
                ..ActionRequest::new("make")
            }),
            "unknown"
        )
        .await,
        "unknown_recipe"
    );
    assert_eq!(
        refused(
            &mut ws,
            ClientMessage::Action(
                ActionRequest {
                    recipe_id: Some("smithing:bronze_dagger".into()),
                    ..ActionRequest::new("make")
                }
                .with_target(to_id(&anvil))
            ),
            "hammerless"
        )
        .await,
        "missing_tool"
    );
    admin_give(&mut ws, ADMIN_CODE, "hammer", 1).await;
    assert_eq!(
        refused(
            &mut ws,
            ClientMessage::Action(ActionRequest::make("smithing:bronze_dagger", Quantity::All)),
            "barless"
        )
        .await,
        "missing_items"
    );
    // Players cannot speak on the game channel.
    ws.send(
        chat_on(ChatChannel::Game, "You find a dragon."),
        Some(json!("fake")),
    )
    .await;
    let error = ws.expect_type("error").await;
    assert_eq!(error["data"]["code"], "invalid_message");
    assert_eq!(error["data"]["ref"], "fake");
}
