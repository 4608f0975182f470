//! The economy against the real server: a shop (talk, open, buy, sell), a trade between two
//! agents through to completion with every item accounted for, dropItem stopping after three
//! refused drops, and depositing everything; with the agent's refusals and the server's.

use serde_json::{json, Value};
use wayfarer_agent::{AgentStatus, Outcome};

use crate::{code, holds, slot_of, stepped, TestAgent};

/// Logs and coins held, the two things the trade moves.
fn goods(status: &AgentStatus) -> (i64, i64) {
    (holds(status, "logs"), holds(status, "coins"))
}

/// The trade stage the agent's model shows (`None`: no trade).
fn stage(state: &Value) -> Option<String> {
    state["trade"]["trade"]["stage"].as_str().map(str::to_owned)
}

async fn wait_stage(agent: &TestAgent, want: Option<&str>) {
    agent
        .wait_state(1000, &format!("trade stage {want:?}"), |s| {
            (stage(s).as_deref() == want).then_some(())
        })
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shop_buys_and_sells_and_refuses_with_reason_codes() {
    let server = stepped().await;
    // The merchant: 500 coins, 10 logs, 5 bronze bars and a hammer (11 slots free).
    let agent = server.idle_agent("Shopper", Some("merchant")).await;
    let tobin = agent
        .nearest_id("npcs", |e| e["typeId"] == "merchant_tobin")
        .await;
    let talked = agent.command("talkToNpc", json!({"targetId": tobin})).await;
    assert!(talked.is_success(), "{talked}");
    // "Show me your wares." opens the store.
    let wares = agent.command("respondDialogue", json!({"index": 0})).await;
    assert!(wares.is_success(), "{wares}");
    agent
        .wait_state(500, "the open store", |s| {
            s["shop"]["shop"]["storeId"].as_str().map(str::to_owned)
        })
        .await;
    let refused = [
        (
            "buyItem",
            json!({"itemId": "dragon_platebody"}),
            "out_of_stock",
        ),
        (
            "buyItem",
            json!({"itemId": "bronze_pickaxe", "quantity": 100}),
            "not_enough_coins",
        ),
        (
            "sellItem",
            json!({"itemId": "dragon_platebody"}),
            "not_available",
        ),
    ];
    agent.refused_by_agent(refused).await;
    let coins = holds(&agent.status(), "coins");
    // Thirty tinderboxes are affordable but do not fit: the server refuses the whole purchase.
    let too_many = agent
        .command("buyItem", json!({"itemId": "tinderbox", "quantity": 30}))
        .await;
    assert_eq!(
        code(&too_many),
        ("server", "inventory_full".to_owned()),
        "{too_many}"
    );
    // The store does not buy coins.
    let coins_for_coins = agent
        .command("sellItem", json!({"itemId": "coins", "quantity": 1}))
        .await;
    assert_eq!(
        code(&coins_for_coins),
        ("server", "cannot_sell".to_owned()),
        "{coins_for_coins}"
    );
    let bought = agent
        .command("buyItem", json!({"itemId": "tinderbox", "quantity": 1}))
        .await;
    assert!(bought.is_success(), "{bought}");
    let status = agent.status();
    assert_eq!(holds(&status, "tinderbox"), 1);
    assert!(holds(&status, "coins") < coins, "paid for it");
    let paid = holds(&status, "coins");
    let sold = agent.command("sellItem", json!({"itemId": "logs"})).await;
    assert!(sold.is_success(), "{sold}");
    let status = agent.status();
    assert_eq!(holds(&status, "logs"), 9);
    assert!(holds(&status, "coins") > paid, "paid for the logs");
    agent.handle.shutdown().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trade_between_two_agents_completes_with_items_conserved() {
    let server = stepped().await;
    let (seller, buyer) = tokio::join!(
        server.idle_admin("Seller", Some("merchant")),
        server.idle_admin("Buyer", None)
    );
    buyer.give("coins", 100).await;
    // Apart first: too far to ask.
    seller.teleport(10, 10).await;
    buyer.teleport(-10, 10).await;
    let far = buyer.nearest_id("players", |e| e["name"] == "Seller").await;
    let asked_far = request_trade(&buyer, &far).await;
    assert_eq!(
        code(&asked_far),
        ("agent", "too_far".to_owned()),
        "{asked_far}"
    );
    let marta = buyer
        .nearest_id("npcs", |e| e["typeId"] == "old_marta")
        .await;
    let refused = [
        ("requestTrade", json!({"targetId": marta}), "invalid_target"),
        ("respondTrade", json!({"accept": true}), "invalid_trade"),
        ("offerTradeItem", json!({"slot": 0}), "invalid_trade"),
        ("cancelTrade", json!({}), "invalid_trade"),
    ];
    buyer.refused_by_agent(refused).await;
    // Side by side: ask, answer, offer, accept both screens.
    seller.teleport(4, 4).await;
    buyer.teleport(5, 4).await;
    let before = (goods(&seller.status()), goods(&buyer.status()));
    let seller_id = buyer.nearest_id("players", |e| e["name"] == "Seller").await;
    let asked = request_trade(&buyer, &seller_id).await;
    assert!(asked.is_success(), "{asked}");
    wait_stage(&seller, Some("requested")).await;
    let answered = seller
        .command("respondTrade", json!({"accept": true}))
        .await;
    assert!(answered.is_success(), "{answered}");
    wait_stage(&seller, Some("offer")).await;
    wait_stage(&buyer, Some("offer")).await;
    // While trading, drops are refused by the server: the drop run stops after three.
    let inventory_before = seller.status().state["inventory"].clone();
    let drop = seller.command("dropItem", json!({"all": true})).await;
    let Outcome::Failed { reason } = &drop else {
        panic!("{drop}")
    };
    assert!(
        reason.contains("3 consecutive failures (0 dropped)") && reason.contains("in_trade"),
        "{reason}"
    );
    assert_eq!(seller.status().state["inventory"], inventory_before);
    // An offer of nothing is refused by the server.
    let logs = slot_of(&seller.status(), "logs").expect("logs");
    let zero = seller
        .command("offerTradeItem", json!({"slot": logs, "quantity": 0}))
        .await;
    assert_eq!(
        code(&zero),
        ("server", "invalid_quantity".to_owned()),
        "{zero}"
    );
    let offered = seller
        .command("offerTradeItem", json!({"slot": logs}))
        .await;
    assert!(offered.is_success(), "{offered}");
    let coins = slot_of(&buyer.status(), "coins").expect("coins");
    let paid = buyer
        .command("offerTradeItem", json!({"slot": coins, "quantity": 60}))
        .await;
    assert!(paid.is_success(), "{paid}");
    // Both offers must be seen before accepting (an offer change resets acceptance).
    buyer
        .wait_state(500, "the seller's offer", |s| {
            let theirs = &s["trade"]["trade"]["theirs"];
            (!theirs.is_null() && theirs.to_string().contains("logs")).then_some(())
        })
        .await;
    seller
        .wait_state(500, "the buyer's offer", |s| {
            let theirs = &s["trade"]["trade"]["theirs"];
            (!theirs.is_null() && theirs.to_string().contains("coins")).then_some(())
        })
        .await;
    for agent in [&seller, &buyer] {
        let accepted = agent.command("acceptTrade", json!({})).await;
        assert!(accepted.is_success(), "{accepted}");
    }
    wait_stage(&seller, Some("confirm")).await;
    wait_stage(&buyer, Some("confirm")).await;
    for agent in [&seller, &buyer] {
        let accepted = agent.command("acceptTrade", json!({})).await;
        assert!(accepted.is_success(), "{accepted}");
    }
    wait_stage(&seller, None).await;
    wait_stage(&buyer, None).await;
    let ((seller_logs, seller_coins), (buyer_logs, buyer_coins)) = before;
    let after_seller = seller
        .wait_for(500, "the seller paid", move |s| {
            goods(s) == (seller_logs - 1, seller_coins + 60)
        })
        .await;
    let after_buyer = buyer
        .wait_for(500, "the buyer's logs", move |s| {
            goods(s) == (buyer_logs + 1, buyer_coins - 60)
        })
        .await;
    let (a, b) = (goods(&after_seller), goods(&after_buyer));
    assert_eq!(a.0 + b.0, seller_logs + buyer_logs, "logs conserved");
    assert_eq!(a.1 + b.1, seller_coins + buyer_coins, "coins conserved");
    // Everything into the bank, then nothing left to deposit.
    let deposited = seller.command("bankDeposit", json!({"all": true})).await;
    assert!(deposited.is_success(), "{deposited}");
    seller
        .wait_for(500, "an empty inventory", |s| {
            s.state["inventory"]["freeSlots"] == 28
        })
        .await;
    let nothing = seller.command("bankDeposit", json!({"all": true})).await;
    assert_eq!(
        code(&nothing),
        ("agent", "not_available".to_owned()),
        "{nothing}"
    );
    // The bank is known now: what it lacks is refused before walking there.
    let absent = seller
        .command(
            "bankWithdraw",
            json!({"itemId": "dragon_bones", "quantity": 1}),
        )
        .await;
    assert_eq!(code(&absent), ("agent", "not_found".to_owned()), "{absent}");
    let withdrawn = seller
        .command("bankWithdraw", json!({"itemId": "logs", "quantity": 2}))
        .await;
    assert!(withdrawn.is_success(), "{withdrawn}");
    seller
        .wait_for(500, "two logs back", |s| holds(s, "logs") == 2)
        .await;
    seller.handle.shutdown().await;
    buyer.handle.shutdown().await;
    server.stop().await;
}

async fn request_trade(agent: &TestAgent, target: &str) -> Outcome {
    agent
        .command("requestTrade", json!({"targetId": target}))
        .await
}

/// What the `duel` action's hint shows of the agent's duel (`None`: no duel).
fn duel_stage(state: &Value) -> Option<String> {
    state["availableActions"]["actions"]
        .as_array()?
        .iter()
        .find(|a| a["name"] == "duel")?["with"]["stage"]
        .as_str()
        .map(str::to_owned)
}

async fn wait_duel(agent: &TestAgent, want: &str) {
    agent
        .wait_state(1000, &format!("duel stage {want}"), |s| {
            (duel_stage(s).as_deref() == Some(want)).then_some(())
        })
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_agents_duel_through_the_duel_action_to_the_fight() {
    let server = stepped().await;
    let (a, b) = tokio::join!(
        server.idle_agent("Gallant", None),
        server.idle_agent("Bold", None)
    );
    // Nothing open yet: respond and accept are refused by the agent itself.
    let early = a.command("duel", json!({"step": "accept"})).await;
    assert_eq!(
        code(&early),
        ("agent", "invalid_trade".to_owned()),
        "{early}"
    );
    let bad = a.command("duel", json!({"step": "dance"})).await;
    assert_eq!(code(&bad), ("agent", "invalid_params".to_owned()), "{bad}");
    let bold = a.nearest_id("players", |e| e["name"] == "Bold").await;
    let sent = a
        .command("duel", json!({"step": "challenge", "targetId": bold}))
        .await;
    assert!(sent.is_success(), "{sent}");
    wait_duel(&b, "challenged").await;
    let answered = b
        .command("duel", json!({"step": "respond", "accept": true}))
        .await;
    assert!(answered.is_success(), "{answered}");
    wait_duel(&a, "rules").await;
    for screen in ["confirm", "fighting"] {
        for agent in [&a, &b] {
            let accepted = agent.command("duel", json!({"step": "accept"})).await;
            assert!(accepted.is_success(), "{accepted}");
        }
        wait_duel(&a, screen).await;
        wait_duel(&b, screen).await;
    }
    a.handle.shutdown().await;
    b.handle.shutdown().await;
    server.stop().await;
}
