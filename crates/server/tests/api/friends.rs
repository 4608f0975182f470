//! Friends and ignore lists end to end over real sockets: request, accept, online and offline
//! pushes, removal, ignoring (chat, private messages and friend requests from the ignored go
//! nowhere), and the errors.

use serde_json::{json, Value};
use wayfarer_protocol::ws::{ClientMessage, FriendRespond, NameRequest};

use crate::support::messages::{chat, private};
use crate::support::{enter, player, TestApp, WsClient};

/// The next `friend:list`.
async fn list(ws: &mut WsClient) -> Value {
    ws.expect_type("friend:list").await["data"].clone()
}

fn names(entries: &Value) -> Vec<String> {
    entries
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_friend_request_accepted_shows_both_online_and_logouts_are_pushed() {
    let app = TestApp::spawn().await;
    let (ada_token, ada_id) = player(&app, "Ada").await;
    let (bob_token, bob_id) = player(&app, "Bobby").await;
    let (mut ada, _) = enter(&app, &ada_token).await;
    let first = list(&mut ada).await;
    assert_eq!(
        first,
        json!({"friends": [], "incoming": [], "outgoing": [], "ignored": []})
    );
    let (mut bob, _) = enter(&app, &bob_token).await;
    list(&mut bob).await;

    ada.send(
        ClientMessage::FriendRequest(NameRequest {
            name: "bobby".into(),
        }),
        None,
    )
    .await;
    let mine = list(&mut ada).await;
    assert_eq!(names(&mine["outgoing"]), vec!["Bobby"]);
    let incoming = bob.expect_type("friend:incoming").await;
    assert_eq!(
        incoming["data"],
        json!({"fromId": ada_id, "fromName": "Ada"})
    );
    let theirs = list(&mut bob).await;
    assert_eq!(names(&theirs["incoming"]), vec!["Ada"]);

    bob.send(
        ClientMessage::FriendRespond(FriendRespond {
            name: "Ada".into(),
            accept: true,
        }),
        None,
    )
    .await;
    let theirs = list(&mut bob).await;
    assert_eq!(
        theirs["friends"],
        json!([{"id": ada_id, "name": "Ada", "online": true}])
    );
    assert_eq!(theirs["incoming"], json!([]));
    let mine = list(&mut ada).await;
    assert_eq!(
        mine["friends"],
        json!([{"id": bob_id, "name": "Bobby", "online": true}])
    );

    // Bob leaves and comes back: Ada is told both times.
    bob.close().await;
    let status = ada.expect_type("friend:status").await;
    assert_eq!(
        status["data"],
        json!({"id": bob_id, "name": "Bobby", "online": false})
    );
    let (_bob, _) = enter(&app, &bob_token).await;
    let status = ada.expect_type("friend:status").await;
    assert_eq!(status["data"]["online"], true);

    // Removing ends it on both sides; removing again is not_found.
    ada.send(
        ClientMessage::FriendRemove(NameRequest {
            name: "Bobby".into(),
        }),
        None,
    )
    .await;
    assert_eq!(list(&mut ada).await["friends"], json!([]));
    ada.send(
        ClientMessage::FriendRemove(NameRequest {
            name: "Bobby".into(),
        }),
        Some(json!("r")),
    )
    .await;
    let error = ada.expect_type("error").await;
    assert_eq!(error["data"]["code"], "not_found");
    assert_eq!(error["data"]["ref"], "r");
}

#[tokio::test]
async fn the_ignored_cannot_chat_privately_or_ask_to_be_friends() {
    let app = TestApp::spawn().await;
    let (ada_token, _) = player(&app, "Quiet").await;
    let (pest_token, _) = player(&app, "Pest").await;
    let (mut ada, _) = enter(&app, &ada_token).await;
    list(&mut ada).await;
    let (mut pest, _) = enter(&app, &pest_token).await;
    list(&mut pest).await;

    ada.send(
        ClientMessage::IgnoreAdd(NameRequest {
            name: "PEST".into(),
        }),
        None,
    )
    .await;
    assert_eq!(names(&list(&mut ada).await["ignored"]), vec!["Pest"]);

    // A private message is refused with `ignored`; local chat does not reach Ada.
    pest.send(private("Quiet", "hello"), Some(json!(1))).await;
    let error = pest.expect_type("error").await;
    assert_eq!(error["data"]["code"], "ignored");
    // A friend request goes nowhere, and Pest is not told why.
    pest.send(
        ClientMessage::FriendRequest(NameRequest {
            name: "Quiet".into(),
        }),
        None,
    )
    .await;
    let pest_list = list(&mut pest).await;
    assert_eq!(pest_list["outgoing"], json!([]));
    pest.send(chat("anyone?"), None).await;
    // Ada sends herself a marker: everything before it has been delivered.
    ada.send(chat("marker"), None).await;
    let mut seen = Vec::new();
    loop {
        let m = ada.next().await.unwrap();
        if m["type"] == "chat:message" {
            let text = m["data"]["text"].as_str().unwrap().to_owned();
            if text == "marker" {
                break;
            }
            seen.push(text);
        }
        assert_ne!(m["type"], "friend:incoming", "{m}");
    }
    assert!(seen.is_empty(), "{seen:?}");

    // Unignored, the private message goes through.
    ada.send(
        ClientMessage::IgnoreRemove(NameRequest {
            name: "Pest".into(),
        }),
        None,
    )
    .await;
    assert_eq!(list(&mut ada).await["ignored"], json!([]));
    pest.send(private("Quiet", "hi again"), None).await;
    let message = ada
        .expect("the private message", |m| {
            m["type"] == "chat:message" && m["data"]["channel"] == "private"
        })
        .await;
    assert_eq!(message["data"]["text"], "hi again");
}

#[tokio::test]
async fn unknown_names_and_yourself_are_refused_with_codes() {
    let app = TestApp::spawn().await;
    let (token, _) = player(&app, "Lonely").await;
    let (mut ws, _) = enter(&app, &token).await;
    list(&mut ws).await;
    let name = |name: &str| NameRequest { name: name.into() };
    for (message, code) in [
        (
            ClientMessage::FriendRequest(name("Nobody")),
            "player_not_found",
        ),
        (
            ClientMessage::FriendRequest(name("lonely")),
            "invalid_target",
        ),
        (
            ClientMessage::FriendRespond(FriendRespond {
                name: "Nobody".into(),
                accept: true,
            }),
            "player_not_found",
        ),
        (ClientMessage::IgnoreAdd(name("Lonely")), "invalid_target"),
    ] {
        let kind = message.kind();
        ws.send(message, Some(json!(kind))).await;
        let error = ws.expect_type("error").await;
        assert_eq!(error["data"]["code"], code, "{kind}: {error}");
        assert_eq!(error["data"]["ref"], kind);
    }
    // Malformed: a field missing, hand-written as no typed message can be.
    for (kind, data) in [
        ("friend:request", json!({})),
        ("friend:respond", json!({"name": "Lonely"})),
    ] {
        ws.send_raw(kind, data.clone(), Some(json!(kind))).await;
        let error = ws.expect_type("error").await;
        assert_eq!(
            error["data"]["code"], "invalid_message",
            "{kind} {data}: {error}"
        );
        assert_eq!(error["data"]["ref"], kind);
    }
    ws.send(ClientMessage::FriendList, None).await;
    list(&mut ws).await;
}

/// Issue 50: two players sending each other a friend request at (nearly) the same instant end as
/// friends on both sides exactly once, whatever the offset. On PostgreSQL each request looked for
/// the other before it was committed: both stayed pending, each player keeping the other in
/// `incoming` and `outgoing` for good.
async fn mutual_requests_race(db: crate::support::FreshDatabase) {
    use std::time::Duration;

    let app = TestApp::spawn_with(crate::support::AppOptions {
        database: Some(db),
        ..Default::default()
    })
    .await;
    for (round, offset_ms) in [0u64, 0, 1, 2, 5, 10, 20, 35, 50].into_iter().enumerate() {
        let (a_name, b_name) = (format!("Mutua{round}"), format!("Mutub{round}"));
        let (a_token, a_id) = player(&app, &a_name).await;
        let (b_token, b_id) = player(&app, &b_name).await;
        let (mut a, _) = enter(&app, &a_token).await;
        let (mut b, _) = enter(&app, &b_token).await;
        list(&mut a).await;
        list(&mut b).await;
        let ask = |name: &str| {
            ClientMessage::FriendRequest(NameRequest {
                name: name.to_owned(),
            })
        };
        // Even rounds send a's request first, odd ones b's.
        let (first, second) = if round % 2 == 0 {
            (&mut a, &mut b)
        } else {
            (&mut b, &mut a)
        };
        let (first_asks, second_asks) = if round % 2 == 0 {
            (ask(&b_name), ask(&a_name))
        } else {
            (ask(&a_name), ask(&b_name))
        };
        first.send(first_asks, None).await;
        if offset_ms > 0 {
            tokio::time::sleep(Duration::from_millis(offset_ms)).await;
        }
        second.send(second_asks, None).await;
        // Each side is told the friendship (the request that found the other pushes both lists).
        for (ws, other) in [(&mut a, &b_name), (&mut b, &a_name)] {
            ws.expect(&format!("{other} as a friend"), |m| {
                m["type"] == "friend:list" && names(&m["data"]["friends"]) == [other.clone()]
            })
            .await;
        }
        // The database holds the one friendship, both directions, and nothing pending.
        for (me, other) in [(&a_id, &b_id), (&b_id, &a_id)] {
            let lists = app.store().friends().lists(me).await.unwrap();
            let ids: Vec<&str> = lists.friends.iter().map(|c| c.id.as_str()).collect();
            assert_eq!(ids, [other.as_str()], "round {round} (+{offset_ms} ms)");
            assert!(
                lists.incoming.is_empty() && lists.outgoing.is_empty(),
                "round {round} (+{offset_ms} ms): {lists:?}"
            );
        }
        a.close().await;
        b.close().await;
    }
}

crate::support::both_databases!(mutual_friend_requests_end_as_one_friendship, |db| {
    mutual_requests_race(db)
});
