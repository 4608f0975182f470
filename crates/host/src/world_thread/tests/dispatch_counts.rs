//! A measurement, not a check of behaviour: the tick and dispatch of global lines among 2,000
//! players, to count instructions under callgrind (nothing here is timed). From the workspace:
//!
//! ```text
//! cargo test -p wayfarer-server --lib --no-run   # prints the test binary, target/debug/deps/wayfarer_server-…
//! GLOBAL_LINES=4 valgrind --tool=callgrind --toggle-collect='*measured_tick*' \
//!     --callgrind-out-file=/tmp/dispatch.out target/debug/deps/wayfarer_server-… \
//!     --ignored --exact world_thread::tests::dispatch_counts::a_tick_of_global_lines_among_2000_players
//! callgrind_annotate --inclusive=yes /tmp/dispatch.out | grep -E 'measured_tick|tick_observed|Runner::dispatch'
//! ```

use super::*;

const PLAYERS: usize = 2_000;

/// The tick of the lines and its dispatch: what callgrind collects.
#[inline(never)]
fn measured_tick(runner: &mut Runner, commands: Vec<Command>) {
    let events = runner.world.tick(commands);
    runner.dispatch(events);
}

/// The chat lines in what a player's queue holds now.
fn lines_queued(rx: &mut crate::outbound_queue::OutboundReceiver) -> usize {
    fn count(outbound: Outbound) -> usize {
        match outbound {
            Outbound::Batch(batch) => batch.into_iter().map(count).sum(),
            Outbound::Text(_) => 1,
            _ => 0,
        }
    }
    use futures_util::FutureExt;
    let mut lines = 0;
    while let Some(Some(outbound)) = rx.recv().now_or_never() {
        lines += count(outbound);
    }
    lines
}

#[test]
#[ignore = "a measurement to run under callgrind (see the module's documentation)"]
fn a_tick_of_global_lines_among_2000_players() {
    let lines: usize = std::env::var("GLOBAL_LINES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(4);
    let (mut runner, _jobs) = runner();
    runner.context.joins_per_tick = PLAYERS;
    runner.context.joins_per_tick_max = PLAYERS;
    runner.world.set_chat_limits(false);
    let mut queues = Vec::with_capacity(PLAYERS);
    for i in 0..PLAYERS {
        let (input, rx) = join(&format!("p{i:04}"), &format!("s{i}"));
        runner.accept(input);
        queues.push(rx);
    }
    // Their entry, and a quiet tick after it.
    runner.step(Instant::now());
    runner.step(Instant::now());
    assert_eq!(runner.world.players_online(), PLAYERS);
    assert_eq!(runner.players.len(), PLAYERS);
    for rx in &mut queues {
        lines_queued(rx);
    }
    let commands = (0..lines)
        .map(|i| Command::Chat {
            id: format!("p{:04}", i * 7),
            channel: wayfarer_protocol::ws::ChatChannel::Global,
            text: format!("line {i}"),
            to: None,
            reference: None,
        })
        .collect();
    measured_tick(&mut runner, commands);
    for (i, rx) in queues.iter_mut().enumerate() {
        assert_eq!(lines_queued(rx), lines, "p{i:04}");
    }
}
