//! How fast each player may speak: a line rate per channel (global stricter than local and
//! private), the same line not repeated within a short window, and at most one notice a second
//! about either, so the notices do not become a flood of their own.
//!
//! Counted on the game's clock: the tick number, in tenths of a second of game time (a tick is
//! [`TICK_MS`], 600 ms, so 6 tenths). No wall clock, so a world replays identically, and every
//! sender is held to the same rule: players, agents, lines relayed to other worlds (the relay
//! publishes only what the sim accepted) and private messages to other worlds (counted here
//! before they leave, [`crate::World::admit_private_elsewhere`]).
//!
//! The rate is a GCRA (a token bucket kept as one number per channel: the game time at which the
//! channel is back to empty), so a player's whole state is [`ChatLimits`]: 64 bytes, no
//! allocation, nothing to do while they are silent.

use wayfarer_content::ticks::TICK_MS;
use wayfarer_protocol::ws::ChatChannel;

/// Game time in tenths of a second since the world started. It wraps after 13.6 years of game
/// time; every comparison is a wrapping difference, and state older than any window counts as
/// settled, so a wrap costs at most one misjudged line in 13.6 years.
type Decis = u32;

/// Tenths of a second in one tick.
const DECIS_PER_TICK: Decis = (TICK_MS / 100) as Decis;
const _: () = assert!(TICK_MS.is_multiple_of(100) && TICK_MS >= 100);

/// One channel's rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineRate {
    /// Game time between lines in the long run, in tenths of a second.
    pub interval_decis: u32,
    /// Lines that may be said at once after a silence.
    pub burst: u32,
    /// How long a line counts as recent, in tenths of a second: the same line again (cleaned,
    /// ignoring case; for private messages, to the same recipient) within it is not sent.
    pub repeat_window_decis: u32,
}

impl LineRate {
    /// How far ahead of now a channel's clock may run and still take a line.
    const fn tolerance(self) -> Decis {
        self.interval_decis * (self.burst - 1)
    }
}

/// Global reaches everyone in every world: one line every 3 s after a burst of 3, and a line
/// stays recent for 30 s (a spammer's favourite line is said once in half a minute at most).
pub const GLOBAL_LINE_RATE: LineRate = LineRate {
    interval_decis: 30,
    burst: 3,
    repeat_window_decis: 300,
};

/// Local reaches the players around: 2 lines a second after a burst of 5, faster than anyone
/// types; "ok" may be said again after 10 s.
pub const LOCAL_LINE_RATE: LineRate = LineRate {
    interval_decis: 5,
    burst: 5,
    repeat_window_decis: 100,
};

/// Private reaches one player: as local.
pub const PRIVATE_LINE_RATE: LineRate = LOCAL_LINE_RATE;

/// At most one `rate_limited` notice per sender in this much game time (tenths of a second).
pub const NOTICE_GAP_DECIS: u32 = 10;

/// Recent lines remembered per channel for the repeat check.
const RECENT_LINES: usize = 2;

/// The rule of a channel players speak on (`None` for `system` and `game`).
pub fn line_rate(channel: ChatChannel) -> Option<LineRate> {
    match channel {
        ChatChannel::Global => Some(GLOBAL_LINE_RATE),
        ChatChannel::Local => Some(LOCAL_LINE_RATE),
        ChatChannel::Private => Some(PRIVATE_LINE_RATE),
        ChatChannel::System | ChatChannel::Game => None,
    }
}

/// The game time of tick `tick`.
pub(crate) fn decis_of_tick(tick: u64) -> Decis {
    // Truncating, then wrapping: the same value modulo 2^32 as the exact product.
    (tick as u32).wrapping_mul(DECIS_PER_TICK)
}

/// Why a line was not sent, with how long until it would be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Held {
    /// Over the channel's rate.
    TooFast { wait_decis: u32 },
    /// The same as a recent line of the sender on that channel.
    Repeated { wait_decis: u32 },
}

impl Held {
    /// The sender's notice: which channel, and when they may speak again (in game seconds,
    /// rounded up).
    pub(crate) fn message(self, channel: ChatChannel) -> String {
        let name = channel_name(channel);
        match self {
            Held::TooFast { wait_decis } => format!(
                "you are sending {name} messages too fast: you may speak on {name} again in {} s",
                seconds(wait_decis)
            ),
            Held::Repeated { wait_decis } => format!(
                "you just said that on {name}: the same line may be said there again in {} s",
                seconds(wait_decis)
            ),
        }
    }
}

fn seconds(decis: u32) -> u32 {
    decis.div_ceil(10).max(1)
}

fn channel_name(channel: ChatChannel) -> &'static str {
    match channel {
        ChatChannel::Local => "local",
        ChatChannel::Global => "global",
        ChatChannel::Private => "private",
        ChatChannel::System => "system",
        ChatChannel::Game => "game",
    }
}

/// A line as the repeat check knows it: a hash of its cleaned text in lower case (and, for a
/// private message, its recipient). Never 0, which marks an empty slot. Two different lines
/// share a hash once in 4 billion; the worst that does is hold one line back for a few seconds.
pub(crate) fn line_key(text: &str, recipient_key: Option<&str>) -> u32 {
    // FNV-1a: deterministic across runs and platforms, unlike the standard library's hasher.
    let mut hash: u32 = 0x811c_9dc5;
    let mut eat = |byte: u8| {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    };
    if let Some(recipient) = recipient_key {
        recipient.bytes().for_each(&mut eat);
        // A byte no UTF-8 text contains separates the recipient from the text.
        eat(0xff);
    }
    let mut buffer = [0u8; 4];
    for c in text.chars().flat_map(char::to_lowercase) {
        c.encode_utf8(&mut buffer).bytes().for_each(&mut eat);
    }
    hash.max(1)
}

#[derive(Debug, Clone, Copy, Default)]
struct Recent {
    /// [`line_key`]; 0: empty.
    key: u32,
    said_at: Decis,
}

#[derive(Debug, Clone, Copy, Default)]
struct Channel {
    /// When this channel is back to empty (no line counted against the burst): lines may be
    /// said while it is at most [`LineRate::tolerance`] ahead of now.
    empty_at: Decis,
    /// The last lines said, newest first.
    recent: [Recent; RECENT_LINES],
}

impl Channel {
    /// How far `empty_at` is ahead of `now`: 0 when it has passed. Anything beyond what an
    /// accepted line can leave (tolerance + one interval) is from before a wrap, long past.
    fn ahead(&self, now: Decis, rate: LineRate) -> Decis {
        let ahead = self.empty_at.wrapping_sub(now);
        if ahead <= rate.tolerance() + rate.interval_decis {
            ahead
        } else {
            0
        }
    }

    /// The time until a line with `key` may be said again (0: not recent).
    fn repeat_wait(&self, key: u32, now: Decis, rate: LineRate) -> Decis {
        self.recent
            .iter()
            .filter(|r| r.key == key)
            .map(|r| now.wrapping_sub(r.said_at))
            .filter(|&age| age < rate.repeat_window_decis)
            .map(|age| rate.repeat_window_decis - age)
            .max()
            .unwrap_or(0)
    }

    fn settled(&self, now: Decis, rate: LineRate) -> bool {
        self.ahead(now, rate) == 0
            && self
                .recent
                .iter()
                .all(|r| r.key == 0 || now.wrapping_sub(r.said_at) >= rate.repeat_window_decis)
    }
}

/// One player's chat limits: a channel clock and the recent lines for local, global and
/// private, and when they were last told they were held.
#[derive(Debug, Clone)]
pub(crate) struct ChatLimits {
    channels: [Channel; 3],
    noticed_at: Decis,
}

fn slot(channel: ChatChannel) -> usize {
    match channel {
        ChatChannel::Local | ChatChannel::System | ChatChannel::Game => 0,
        ChatChannel::Global => 1,
        ChatChannel::Private => 2,
    }
}

const RATES: [LineRate; 3] = [LOCAL_LINE_RATE, GLOBAL_LINE_RATE, PRIVATE_LINE_RATE];

impl ChatLimits {
    /// A player who has said nothing yet, at game time `now`.
    pub(crate) fn new(now: Decis) -> ChatLimits {
        ChatLimits {
            channels: [Channel {
                empty_at: now,
                recent: [Recent::default(); RECENT_LINES],
            }; 3],
            noticed_at: now.wrapping_sub(NOTICE_GAP_DECIS),
        }
    }

    /// Counts a line with `key` on `channel` at `now`: `Ok` and remembered when it may be said,
    /// else why not (and nothing is counted: a held line costs nothing).
    pub(crate) fn count(&mut self, channel: ChatChannel, key: u32, now: Decis) -> Result<(), Held> {
        let Some(rate) = line_rate(channel) else {
            return Ok(());
        };
        let state = &mut self.channels[slot(channel)];
        let ahead = state.ahead(now, rate);
        if ahead > rate.tolerance() {
            return Err(Held::TooFast {
                wait_decis: ahead - rate.tolerance(),
            });
        }
        let wait = state.repeat_wait(key, now, rate);
        if wait > 0 {
            return Err(Held::Repeated { wait_decis: wait });
        }
        state.empty_at = now.wrapping_add(ahead + rate.interval_decis);
        state.recent.rotate_right(1);
        state.recent[0] = Recent { key, said_at: now };
        Ok(())
    }

    /// Whether a held line earns its sender a notice now (one per [`NOTICE_GAP_DECIS`]); if so,
    /// the notice is counted.
    pub(crate) fn notice(&mut self, now: Decis) -> bool {
        if now.wrapping_sub(self.noticed_at) < NOTICE_GAP_DECIS {
            return false;
        }
        self.noticed_at = now;
        true
    }

    /// Whether these limits are as a silent player's: nothing to remember about them.
    pub(crate) fn settled(&self, now: Decis) -> bool {
        self.channels
            .iter()
            .zip(RATES)
            .all(|(channel, rate)| channel.settled(now, rate))
            && now.wrapping_sub(self.noticed_at) >= NOTICE_GAP_DECIS
    }
}

/// The limits of players who left while they still counted (a line within its window, a
/// channel not yet back to empty), given back if they come back: leaving and entering again
/// does not reset a flooder's budget. Only unsettled limits are kept, and the table is swept
/// whenever it has doubled, so it holds at most about twice the players who left in the last
/// 30 s of game time, and costs nothing per tick.
#[derive(Debug, Default)]
pub(crate) struct LeftLimits {
    by_id: std::collections::HashMap<String, ChatLimits>,
    sweep_at: usize,
}

/// The smallest size at which [`LeftLimits`] sweeps.
const LEFT_SWEEP_MIN: usize = 64;

impl LeftLimits {
    /// Keeps the limits of player `id`, who leaves at `now`, if they still count.
    pub(crate) fn keep(&mut self, id: &str, limits: ChatLimits, now: Decis) {
        if limits.settled(now) {
            return;
        }
        self.by_id.insert(id.to_owned(), limits);
        if self.by_id.len() >= self.sweep_at.max(LEFT_SWEEP_MIN) {
            self.by_id.retain(|_, limits| !limits.settled(now));
            self.sweep_at = self.by_id.len() * 2;
        }
    }

    /// The limits of player `id`, entering at `now`: what they left with, or fresh.
    pub(crate) fn take(&mut self, id: &str, now: Decis) -> ChatLimits {
        self.by_id
            .remove(id)
            .unwrap_or_else(|| ChatLimits::new(now))
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.by_id.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCAL: ChatChannel = ChatChannel::Local;
    const GLOBAL: ChatChannel = ChatChannel::Global;

    /// The game time of tick `n`.
    fn at(n: u64) -> Decis {
        decis_of_tick(n)
    }

    /// Says `count` different lines on `channel` at tick `tick`; how many were taken.
    fn say_many(limits: &mut ChatLimits, channel: ChatChannel, tick: u64, count: u32) -> u32 {
        (0..count)
            .filter(|i| {
                limits
                    .count(channel, line_key(&format!("{tick}/{i}"), None), at(tick))
                    .is_ok()
            })
            .count() as u32
    }

    #[test]
    fn a_tick_is_six_tenths_of_a_second() {
        assert_eq!(DECIS_PER_TICK, 6);
        assert_eq!(decis_of_tick(10), 60);
        assert_eq!(
            decis_of_tick(u64::from(u32::MAX) + 2),
            decis_of_tick(1),
            "wraps consistently"
        );
    }

    #[test]
    fn a_global_burst_passes_the_next_line_is_held_and_the_rate_comes_back_after_five_ticks() {
        let mut limits = ChatLimits::new(at(100));
        assert_eq!(
            say_many(&mut limits, GLOBAL, 100, 3),
            3,
            "the burst of 3 passes"
        );
        // The last allowed was the third; the fourth is the first refused, for one interval (3 s).
        assert_eq!(
            limits.count(GLOBAL, line_key("fourth", None), at(100)),
            Err(Held::TooFast { wait_decis: 30 })
        );
        // 3 s is 5 ticks: held at tick 104 (2.4 s later), taken at 105 (3.0 s).
        assert_eq!(
            limits.count(GLOBAL, line_key("fourth", None), at(104)),
            Err(Held::TooFast { wait_decis: 6 })
        );
        assert_eq!(
            limits.count(GLOBAL, line_key("fourth", None), at(105)),
            Ok(())
        );
        assert!(limits
            .count(GLOBAL, line_key("fifth", None), at(105))
            .is_err());
        // A silence of 3 intervals (15 ticks) after that gives the whole burst back.
        assert_eq!(say_many(&mut limits, GLOBAL, 120, 10), 3);
    }

    #[test]
    fn a_sustained_flood_gets_one_line_per_interval_after_the_burst() {
        for (channel, rate) in [(GLOBAL, GLOBAL_LINE_RATE), (LOCAL, LOCAL_LINE_RATE)] {
            let mut limits = ChatLimits::new(at(0));
            let mut taken = 0;
            for tick in 0..=100 {
                taken += say_many(&mut limits, channel, tick, 10);
            }
            // 100 ticks are 600 tenths of a second.
            assert_eq!(
                taken,
                rate.burst + 600 / rate.interval_decis,
                "{channel:?}: the burst, then one line per interval"
            );
        }
    }

    #[test]
    fn global_is_stricter_than_local_and_channels_count_apart() {
        let mut limits = ChatLimits::new(at(0));
        assert_eq!(say_many(&mut limits, GLOBAL, 0, 20), 3);
        assert_eq!(
            say_many(&mut limits, LOCAL, 0, 20),
            5,
            "global spent nothing of local"
        );
        assert_eq!(
            say_many(&mut limits, ChatChannel::Private, 0, 20),
            5,
            "nor of private"
        );
        // A second later (2 ticks, 1.2 s): local has two lines back, global none.
        assert_eq!(say_many(&mut limits, GLOBAL, 2, 20), 0);
        assert_eq!(say_many(&mut limits, LOCAL, 2, 20), 2);
        const { assert!(GLOBAL_LINE_RATE.interval_decis > LOCAL_LINE_RATE.interval_decis) };
        const { assert!(GLOBAL_LINE_RATE.burst < LOCAL_LINE_RATE.burst) };
    }

    #[test]
    fn the_same_line_is_held_until_its_window_has_passed() {
        let mut limits = ChatLimits::new(at(0));
        let spam = line_key("BUY GOLD", None);
        assert_eq!(limits.count(GLOBAL, spam, at(0)), Ok(()));
        // Ignoring case, after cleaning (the caller cleans).
        assert_eq!(line_key("buy gold", None), spam);
        // 10 ticks later the rate would allow it: the repeat window (30 s = 50 ticks) does not.
        assert_eq!(
            limits.count(GLOBAL, spam, at(10)),
            Err(Held::Repeated {
                wait_decis: 300 - 60
            })
        );
        assert_eq!(
            limits.count(GLOBAL, line_key("hello", None), at(10)),
            Ok(())
        );
        // The last tick inside the window (49 ticks: 29.4 s), then the first outside (30 s).
        assert!(matches!(
            limits.count(GLOBAL, spam, at(49)),
            Err(Held::Repeated { wait_decis: 6 })
        ));
        assert_eq!(limits.count(GLOBAL, spam, at(50)), Ok(()));
        // A held line costs nothing: the rate is untouched by the refusals above.
        assert_eq!(
            limits.count(GLOBAL, line_key("third", None), at(50)),
            Ok(())
        );
    }

    #[test]
    fn a_repeat_counts_per_channel_and_per_recipient() {
        let mut limits = ChatLimits::new(at(0));
        let ok = line_key("ok", None);
        assert_eq!(limits.count(LOCAL, ok, at(0)), Ok(()));
        assert_eq!(limits.count(GLOBAL, ok, at(0)), Ok(()), "another channel");
        assert!(limits.count(LOCAL, ok, at(1)).is_err());
        // Local's window is 10 s (17 ticks: 10.2 s).
        assert_eq!(limits.count(LOCAL, ok, at(17)), Ok(()));
        let private = ChatChannel::Private;
        assert_eq!(
            limits.count(private, line_key("ok", Some("ada")), at(20)),
            Ok(())
        );
        assert_eq!(
            limits.count(private, line_key("ok", Some("bob")), at(20)),
            Ok(()),
            "the same words to someone else"
        );
        assert!(limits
            .count(private, line_key("OK", Some("ada")), at(21))
            .is_err());
    }

    #[test]
    fn only_the_last_two_lines_are_remembered() {
        let mut limits = ChatLimits::new(at(0));
        for (tick, text) in [(0, "a"), (1, "b"), (2, "c")] {
            assert_eq!(limits.count(LOCAL, line_key(text, None), at(tick)), Ok(()));
        }
        assert!(limits.count(LOCAL, line_key("b", None), at(3)).is_err());
        assert_eq!(limits.count(LOCAL, line_key("a", None), at(3)), Ok(()));
    }

    #[test]
    fn at_most_one_notice_a_second() {
        let mut limits = ChatLimits::new(at(7));
        assert!(limits.notice(at(7)), "the first is given at once");
        assert!(!limits.notice(at(7)));
        // 1 tick is 0.6 s: too soon; 2 ticks (1.2 s) is the first allowed.
        assert!(!limits.notice(at(8)));
        assert!(limits.notice(at(9)));
        let given = (10..=110).filter(|&tick| limits.notice(at(tick))).count();
        assert_eq!(given, 50, "one every other tick over 100 ticks (60 s)");
    }

    #[test]
    fn limits_survive_the_clock_wrapping() {
        let start = u32::MAX - 20;
        let mut limits = ChatLimits::new(start);
        for i in 0..3 {
            assert_eq!(
                limits.count(GLOBAL, line_key(&i.to_string(), None), start),
                Ok(())
            );
        }
        assert!(limits
            .count(GLOBAL, line_key("x", None), start.wrapping_add(29))
            .is_err());
        assert_eq!(
            limits.count(GLOBAL, line_key("x", None), start.wrapping_add(30)),
            Ok(())
        );
        // Long after (a day of game time), everything is settled again.
        let later = start.wrapping_add(864_000);
        assert!(limits.settled(later));
        assert_eq!(say_many_at(&mut limits, later), 3);
    }

    fn say_many_at(limits: &mut ChatLimits, now: Decis) -> u32 {
        (0..10)
            .filter(|i| {
                limits
                    .count(GLOBAL, line_key(&format!("{i}"), None), now)
                    .is_ok()
            })
            .count() as u32
    }

    #[test]
    fn leaving_keeps_unsettled_limits_and_forgets_settled_ones() {
        let mut left = LeftLimits::default();
        let mut busy = ChatLimits::new(at(0));
        say_many(&mut busy, GLOBAL, 0, 3);
        left.keep("flooder", busy, at(0));
        left.keep("quiet", ChatLimits::new(at(0)), at(0));
        assert_eq!(left.len(), 1, "a silent player leaves nothing behind");
        let mut back = left.take("flooder", at(1));
        assert_eq!(
            say_many(&mut back, GLOBAL, 1, 3),
            0,
            "coming back does not refill the burst"
        );
        assert_eq!(left.len(), 0);
        // Sweeps drop what has settled: 100 leavers, then one more after their windows.
        for i in 0..100 {
            let mut limits = ChatLimits::new(at(0));
            say_many(&mut limits, LOCAL, 0, 1);
            left.keep(&format!("p{i}"), limits, at(0));
        }
        assert!(left.len() <= 100);
        for i in 0..LEFT_SWEEP_MIN * 2 {
            let mut limits = ChatLimits::new(at(100));
            say_many(&mut limits, GLOBAL, 100, 1);
            left.keep(&format!("q{i}"), limits, at(100));
        }
        assert!(
            left.len() <= LEFT_SWEEP_MIN * 2,
            "the settled leavers were swept: {}",
            left.len()
        );
        assert!(!left.by_id.keys().any(|id| id.starts_with('p')));
    }

    #[test]
    fn the_limits_of_a_player_stay_small() {
        assert_eq!(std::mem::size_of::<ChatLimits>(), 64);
    }
}
