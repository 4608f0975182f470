//! Logging out across worlds (`cluster::revocations`): a token revoked on one world is refused on
//! the others and the sockets it opened there close with 4002 — at once over NATS, and with NATS
//! down from the database within `CATCH_UP_EVERY` (10 s).

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{enter, eventually, linked, player, Cluster, Read, Ws, WAIT};

/// Close code of a socket whose token was revoked.
const TOKEN_REVOKED: u16 = 4002;

async fn status_on(http: &reqwest::Client, base: &str, token: &str) -> u16 {
    http.get(format!("{base}/api/v1/player"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

async fn logout(http: &reqwest::Client, base: &str, token: &str, body: Value) {
    let response = http
        .post(format!("{base}/api/auth/logout"))
        .bearer_auth(token)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
}

/// Reads until the socket closes (within `wait`); its close code.
async fn closed_within(ws: &mut Ws, wait: Duration) -> Option<u16> {
    let deadline = Instant::now() + wait;
    loop {
        match ws
            .read(deadline.saturating_duration_since(Instant::now()))
            .await
        {
            Read::Message(_) => continue,
            Read::Closed(code) => return code,
            Read::TimedOut => panic!("the socket stayed open"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_logout_on_one_world_closes_the_tokens_sockets_and_is_refused_on_the_others() {
    let Some(cluster) = Cluster::new().await else {
        return;
    };
    let one = cluster.world(1).await;
    let two = cluster.world(2).await;
    let http = cluster.http.clone();
    linked(&http, &[&one, &two]).await;
    let (ann, _) = player(&http, &one, "Ann").await;
    let (bob, _) = player(&http, &one, "Bob").await;
    let (mut ann_ws, _) = enter(&two, &ann).await;
    let (mut bob_ws, _) = enter(&two, &bob).await;

    // One token, logged out on world 1: its socket on world 2 closes.
    logout(&http, &one.base, &ann, json!({})).await;
    assert_eq!(closed_within(&mut ann_ws, WAIT).await, Some(TOKEN_REVOKED));
    eventually("world 2 refuses the logged-out token", || async {
        status_on(&http, &two.base, &ann).await == 401
    })
    .await;
    assert_eq!(status_on(&http, &one.base, &ann).await, 401);

    // Everything of an account, on world 1: world 2 reads the account row for every request.
    logout(&http, &one.base, &bob, json!({"all": true})).await;
    assert_eq!(closed_within(&mut bob_ws, WAIT).await, Some(TOKEN_REVOKED));
    assert_eq!(status_on(&http, &two.base, &bob).await, 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_logout_while_nats_is_down_reaches_the_other_world_from_the_database() {
    let Some(mut cluster) = Cluster::new().await else {
        return;
    };
    let one = cluster.world(1).await;
    let two = cluster.world(2).await;
    let http = cluster.http.clone();
    linked(&http, &[&one, &two]).await;
    let (cy, _) = player(&http, &one, "Cy").await;
    let (mut cy_ws, _) = enter(&two, &cy).await;
    cluster.nats.stop();
    eventually("world 1 sees the link down", || async {
        one.worlds(&http).await["crossWorld"] == false
    })
    .await;

    logout(&http, &one.base, &cy, json!({})).await;
    // Within the catch-up period (10 s) and a margin.
    assert_eq!(
        closed_within(&mut cy_ws, Duration::from_secs(30)).await,
        Some(TOKEN_REVOKED)
    );
    assert_eq!(status_on(&http, &two.base, &cy).await, 401);
}
