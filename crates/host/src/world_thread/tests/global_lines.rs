//! Which records a line to everyone reaches: every record the dispatch holds but those the sim
//! names, so one that entered after the line in its tick, or left before it, or is still in the
//! join queue, gets none of it; a notice held for a waiting player still follows its entry.

use serde_json::Value;

use super::*;

fn say(id: &str, text: &str) -> WorldInput {
    WorldInput::Sim(Command::Chat {
        id: id.into(),
        channel: wayfarer_protocol::ws::ChatChannel::Global,
        text: text.into(),
        to: None,
        reference: None,
    })
}

/// What a player's queue holds now, in order: the text of each chat line, and `error` for each
/// error (the notice here); the rest (views, entry messages) is left out.
fn heard(rx: &mut crate::outbound_queue::OutboundReceiver) -> Vec<String> {
    kinds_and_texts(rx)
        .into_iter()
        .filter(|k| !k.contains(':'))
        .collect()
}

fn kinds_and_texts(rx: &mut crate::outbound_queue::OutboundReceiver) -> Vec<String> {
    fn collect(outbound: Outbound, out: &mut Vec<String>) {
        match outbound {
            Outbound::Batch(batch) => batch.into_iter().for_each(|o| collect(o, out)),
            Outbound::Message(m) | Outbound::Reply { message: m, .. } => {
                out.push(m.kind().to_owned())
            }
            Outbound::Text(text) => {
                let message: Value = serde_json::from_str(&text).unwrap();
                match message["data"]["text"].as_str() {
                    Some(line) if message["type"] == "chat:message" => out.push(line.to_owned()),
                    _ => out.push(message["type"].as_str().unwrap_or("").to_owned()),
                }
            }
            Outbound::Picks { .. } => out.push("picks".to_owned()),
            Outbound::Close(code, _) => out.push(format!("close {code}")),
        }
    }
    let mut out = Vec::new();
    use futures_util::FutureExt;
    while let Some(Some(outbound)) = rx.recv().now_or_never() {
        collect(outbound, &mut out);
    }
    out
}

#[test]
fn a_line_to_everyone_reaches_the_records_of_those_in_the_world_when_it_was_said() {
    let (mut runner, _jobs) = runner();
    runner.context.joins_per_tick = 2;
    runner.context.joins_per_tick_max = 2;
    let mut queues = std::collections::HashMap::new();
    for id in ["a", "b", "c", "d", "e"] {
        let (input, rx) = join(id, &format!("s-{id}"));
        runner.accept(input);
        queues.insert(id, rx);
    }
    // a and b enter with the first tick; c and d are taken in after it; e waits.
    runner.step(Instant::now());
    let mut heard_by = |id: &str| heard(queues.get_mut(id).unwrap());
    assert!(runner.players.contains_key("c") && runner.joins.contains("e"));

    // The second tick: c and d enter, b leaves, then a speaks. e, still waiting, is told
    // something meanwhile.
    let (left, _saved) = leave("b", "s-b");
    runner.accept(left);
    runner.accept(say("a", "one"));
    let notice = Arc::new(ServerMessage::error(
        wayfarer_protocol::ws::codes::INVALID_MESSAGE,
        "a notice",
        None,
    ));
    runner.accept(WorldInput::Notify {
        to: vec!["e".into()],
        message: notice,
    });
    runner.step(Instant::now());
    for id in ["a", "c", "d"] {
        assert_eq!(heard_by(id), ["one"], "{id}");
    }
    assert!(
        !heard_by("b").contains(&"one".to_owned()),
        "b left before it"
    );
    assert_eq!(heard_by("e"), Vec::<String>::new(), "e waits");

    // The third tick: e enters, a speaks, then f joins (nobody waits, the budget has room).
    assert!(runner.players.contains_key("e") && runner.joins.len() == 0);
    runner.accept(say("a", "two"));
    let (input, f) = join("f", "s-f");
    runner.accept(input);
    queues.insert("f", f);
    let mut heard_by = |id: &str| heard(queues.get_mut(id).unwrap());
    runner.step(Instant::now());
    for id in ["a", "c", "d"] {
        assert_eq!(heard_by(id), ["two"], "{id}");
    }
    assert_eq!(
        heard_by("e"),
        ["two", "error"],
        "e hears the line said after its entry, and then its held notice"
    );
    assert!(
        !heard_by("f").contains(&"two".to_owned()),
        "f entered after it"
    );
    assert!(runner.players.contains_key("f"));
}
