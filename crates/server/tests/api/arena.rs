//! The arena's ladder over real WebSockets (issue 55, CONTRACT §15), on the manual clock: two
//! characters join, are matched, fight in a pit after the countdown, and get `arena:result` with
//! their ratings, written to the store once; the leaderboard and fights routes answer.

use serde_json::Value;
use wayfarer_protocol::ws::ClientMessage;
use wayfarer_protocol::Skill;
use wayfarer_store::Store;

use crate::support::messages::act_on;
use crate::support::{enter, player, TestApp, WsClient};

/// Makes a stored character strong (attack and strength 99) before it enters, so the fight ends
/// soon.
async fn prime(store: &Store, id: &str) {
    let mut character = store.characters().get(id).await.unwrap().unwrap();
    for skill in [Skill::Attack, Skill::Strength] {
        character.skills.insert(
            skill,
            wayfarer_store::SkillLevel {
                level: 99,
                xp: 13_034_431,
            },
        );
    }
    store.characters().save(&character).await.unwrap();
}

async fn send(app: &TestApp, ws: &mut WsClient, message: ClientMessage) {
    ws.send(message, None).await;
    ws.barrier().await;
    app.step(1).await;
}

async fn expect(ws: &mut WsClient, kind: &str) -> Value {
    ws.expect(kind, |m| m["type"] == kind).await["data"].clone()
}

#[tokio::test]
async fn two_characters_are_matched_fight_and_their_ratings_are_written_once() {
    let app = TestApp::spawn().await;
    let (token_a, a_id) = player(&app, "Gladia").await;
    let (token_b, b_id) = player(&app, "Brutus").await;
    prime(app.store(), &a_id).await;
    let (mut a, _) = enter(&app, &token_a).await;
    let (mut b, _) = enter(&app, &token_b).await;

    send(&app, &mut a, ClientMessage::ArenaJoin).await;
    let queued = expect(&mut a, "arena:queued").await;
    assert_eq!(queued["position"], 1);
    assert_eq!(queued["rating"], 1500.0);
    send(&app, &mut b, ClientMessage::ArenaJoin).await;
    let matched = expect(&mut a, "arena:match").await;
    assert_eq!(matched["opponentId"], b_id.as_str());
    assert_eq!(matched["opponentName"], "Brutus");
    let fight_id = matched["fightId"].as_str().unwrap().to_owned();
    assert!(fight_id.starts_with("fight-"), "{fight_id}");
    assert!(matched["startsAt"].as_i64().unwrap() > 0);
    assert_eq!(
        expect(&mut b, "arena:match").await["fightId"],
        fight_id.as_str()
    );

    // The fight is listed as scheduled until the countdown ends.
    let listed: Value = app
        .client
        .get(app.url("/api/v1/arena/fights?state=scheduled"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(listed["fights"][0]["fightId"], fight_id.as_str());
    assert_eq!(listed["fights"][0]["state"], "scheduled");
    assert_eq!(listed["fights"][0]["a"]["id"], a_id.as_str());
    assert_eq!(listed["fights"][0]["pool"]["a"], 0);

    a.expect_within_ticks(&app, 120, "duel:start", |m| m["type"] == "duel:start")
        .await;
    expect(&mut b, "duel:start").await;
    a.send(act_on("attack", &b_id), None).await;
    b.send(act_on("attack", &a_id), None).await;
    a.barrier().await;
    b.barrier().await;
    app.step(1).await;
    let result = a
        .expect_within_ticks(&app, 600, "arena:result", |m| m["type"] == "arena:result")
        .await["data"]
        .clone();
    assert_eq!(result["fightId"], fight_id.as_str());
    let winner = result["winnerId"].as_str().unwrap().to_owned();
    let loser = result["loserId"].as_str().unwrap().to_owned();
    assert_ne!(winner, loser);
    let after_w = result["ratings"][&winner]["after"].as_f64().unwrap();
    let after_l = result["ratings"][&loser]["after"].as_f64().unwrap();
    assert_eq!(result["ratings"][&winner]["before"], 1500.0);
    // Two newcomers (Glicko-2 by hand): 1500 ± 162.31.
    assert!((after_w - 1662.31).abs() < 0.05, "{result}");
    assert!((after_l - 1337.69).abs() < 0.05, "{result}");
    assert_eq!(expect(&mut b, "arena:result").await, result);

    // Written once, in the result's transaction.
    let store = app.store();
    assert_eq!(store.arena().count().await.unwrap(), 1);
    assert_eq!(store.arena().record(&winner).await.unwrap(), (1, 0));
    assert_eq!(store.arena().record(&loser).await.unwrap(), (0, 1));
    let stored = store.arena().rating(&winner).await.unwrap().unwrap();
    assert_eq!(stored.rating, after_w);
    app.step(5).await;
    assert_eq!(store.arena().count().await.unwrap(), 1);

    // The routes: the leaderboard (with an ETag and 304), the finished fight.
    let response = app
        .client
        .get(app.url("/api/v1/arena/leaderboard?limit=10"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let etag = response.headers()["etag"].to_str().unwrap().to_owned();
    let board: Value = response.json().await.unwrap();
    assert_eq!(board["players"][0]["characterId"], winner.as_str());
    assert_eq!(board["players"][0]["rank"], 1);
    assert_eq!(board["players"][0]["wins"], 1);
    assert_eq!(board["players"][0]["isAgent"], false);
    assert_eq!(board["players"][1]["losses"], 1);
    let again = app
        .client
        .get(app.url("/api/v1/arena/leaderboard?limit=10"))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
    let done: Value = app
        .client
        .get(app.url("/api/v1/arena/fights?state=done"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(done["fights"][0]["fightId"], fight_id.as_str());
    assert_eq!(done["fights"][0]["winnerId"], winner.as_str());
    let bad = app
        .client
        .get(app.url("/api/v1/arena/fights?state=soon"))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);
}

#[tokio::test]
async fn a_disconnect_before_the_start_cancels_the_fight() {
    let app = TestApp::spawn().await;
    let (token_a, _) = player(&app, "Stayer").await;
    let (token_b, _) = player(&app, "Leaver").await;
    let (mut a, _) = enter(&app, &token_a).await;
    let (b, _) = enter(&app, &token_b).await;
    let mut b = b;
    send(&app, &mut a, ClientMessage::ArenaJoin).await;
    send(&app, &mut b, ClientMessage::ArenaJoin).await;
    let matched = expect(&mut a, "arena:match").await;
    drop(b);
    let cancelled = a
        .expect_within_ticks(&app, 20, "arena:cancelled", |m| {
            m["type"] == "arena:cancelled"
        })
        .await["data"]
        .clone();
    assert_eq!(cancelled["fightId"], matched["fightId"]);
    assert_eq!(cancelled["reason"], "disconnected");
    assert_eq!(expect(&mut a, "arena:queued").await["position"], 1);
    send(&app, &mut a, ClientMessage::ArenaLeave).await;
    expect(&mut a, "arena:left").await;
    assert_eq!(app.store().arena().count().await.unwrap(), 0);
}
