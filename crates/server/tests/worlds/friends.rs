//! Friend requests across worlds (issue 50): two players on two worlds who send each other a
//! friend request at the same instant end as friends on both sides exactly once. Each world
//! looked for the other's request before it was committed, so both stayed pending for good.

use std::time::Duration;

use wayfarer_protocol::ws::{ClientMessage, NameRequest};

use super::{enter, linked, player, Cluster};

fn names(list: &serde_json::Value) -> Vec<String> {
    list.as_array()
        .map(|entries| {
            entries
                .iter()
                .filter_map(|e| e["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutual_friend_requests_on_two_worlds_end_as_one_friendship() {
    let Some(cluster) = Cluster::new().await else {
        return;
    };
    let one = cluster.world(1).await;
    let two = cluster.world(2).await;
    let http = &cluster.http;
    // Lists and requests reach the other world over NATS: begin once both are linked.
    linked(http, &[&one, &two]).await;
    let store = cluster.store().await;
    for (round, offset_ms) in [0u64, 0, 1, 5, 10, 25, 50].into_iter().enumerate() {
        let (a_name, b_name) = (format!("Wa{round}"), format!("Wb{round}"));
        let (a_token, a_id) = player(http, &one, &a_name).await;
        let (b_token, b_id) = player(http, &two, &b_name).await;
        let (mut a, _) = enter(&one, &a_token).await;
        let (mut b, _) = enter(&two, &b_token).await;
        let ask = |name: &str| {
            ClientMessage::FriendRequest(NameRequest {
                name: name.to_owned(),
            })
        };
        a.send(ask(&b_name)).await;
        if offset_ms > 0 {
            tokio::time::sleep(Duration::from_millis(offset_ms)).await;
        }
        b.send(ask(&a_name)).await;
        for (ws, other) in [(&mut a, &b_name), (&mut b, &a_name)] {
            ws.expect(&format!("{other} as a friend"), |m| {
                m["type"] == "friend:list" && names(&m["data"]["friends"]) == [other.clone()]
            })
            .await;
        }
        for (me, other) in [(&a_id, &b_id), (&b_id, &a_id)] {
            let lists = store.friends().lists(me).await.unwrap();
            let ids: Vec<&str> = lists.friends.iter().map(|c| c.id.as_str()).collect();
            assert_eq!(ids, [other.as_str()], "round {round} (+{offset_ms} ms)");
            assert!(
                lists.incoming.is_empty() && lists.outgoing.is_empty(),
                "round {round} (+{offset_ms} ms): {lists:?}"
            );
        }
    }
}
