//! How a bot behaves: its random choices (names, targets, chat lines) and the timing of its actions.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use wayfarer_protocol::ws::TilePos;

use super::Scenario;

/// How far a wandering bot walks at most, in tiles from where it stands (Chebyshev).
pub const WANDER_RADIUS_TILES: i32 = 10;
/// A wandering bot moves every 1–3 s.
pub const MOVE_EVERY: (Duration, Duration) = (Duration::from_secs(1), Duration::from_secs(3));
/// A bot of `chat` or `mixed` chats every 2–5 s: a stress, about 17 lines a minute each, kept so
/// that those scenarios' recorded figures stay comparable. In a crowd every client then receives
/// about 70 local lines a second (255 speakers in view), far more than anyone can read.
pub const CHAT_EVERY: (Duration, Duration) = (Duration::from_secs(2), Duration::from_secs(5));
/// A `spread` bot chats every 30–90 s, one line a minute on average. An assumption, not a
/// measurement: studies of MMORPG play (e.g. Suznjevic, Dobrijevic and Matijasevic, "Hack, Slash,
/// and Chat", NetGames 2009, World of Warcraft) measure time spent communicating, not lines said,
/// and we found no published line rate. The figure is set by the reader instead: a client with a
/// full view (255 players) then receives about 4 local lines a second, already the most a chat box
/// shows readably, so real crowds talk at this pace or less. `--chat-every` makes a run chattier.
pub const SPREAD_CHAT_EVERY: (Duration, Duration) =
    (Duration::from_secs(30), Duration::from_secs(90));
/// One chat message in this many goes to the global channel; the others are local. Games of this
/// kind have no world-wide channel at all, and where one exists it is a small share of the talk:
/// every global message goes to everyone online, so at one in five 2,000 players would send
/// 170,000 messages a second between them, a load no real crowd makes.
pub const GLOBAL_CHAT_ONE_IN: u64 = 100;
/// A bot asks for `player:sync` (the round-trip probe) every 1.8–2.2 s.
pub const SYNC_EVERY: (Duration, Duration) =
    (Duration::from_millis(1800), Duration::from_millis(2200));
/// The first probe goes out this soon after entering, so that short runs still measure.
pub const FIRST_SYNC_WITHIN: (Duration, Duration) =
    (Duration::from_millis(100), Duration::from_millis(1000));
/// Longest character name the server accepts.
pub const MAX_NAME_CHARS: usize = 12;

const CHAT_LINES: &[&str] = &[
    "hello there",
    "anyone up for a quest?",
    "nice weather today",
    "where is the bank?",
    "selling logs, cheap",
    "gl everyone",
    "this place is busy",
    "lol",
    "how do I get to the mines?",
    "brb",
    "good morning",
    "wave",
];

/// A small, fast pseudo-random generator (SplitMix64): good enough for choosing tiles and timings,
/// not for anything secret. Each bot owns one.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator with a fixed seed (tests).
    pub fn seeded(seed: u64) -> Self {
        Rng(seed)
    }

    /// A generator seeded from the process's random hasher keys, the clock and `salt` (the bot's
    /// index), so that bots and runs differ.
    pub fn from_entropy(salt: u64) -> Self {
        let mut hasher = RandomState::new().build_hasher();
        hasher.write_u64(salt);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        hasher.write_u128(nanos);
        Rng(hasher.finish())
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0; 0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }

    /// An integer in `low..=high`.
    pub fn between(&mut self, low: i32, high: i32) -> i32 {
        let span = (i64::from(high) - i64::from(low)).max(0) as u64 + 1;
        (i64::from(low) + self.below(span) as i64) as i32
    }

    /// A duration in `low..=high`, to the millisecond.
    pub fn duration(&mut self, (low, high): (Duration, Duration)) -> Duration {
        let low_ms = low.as_millis() as u64;
        let high_ms = (high.as_millis() as u64).max(low_ms);
        Duration::from_millis(low_ms + self.below(high_ms - low_ms + 1))
    }

    /// Whether an event of probability 1/`n` happens.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }
}

/// Writes `n` in base 36 (digits, then lowercase letters).
pub fn base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    // Only ASCII digits and letters were pushed.
    String::from_utf8(out).unwrap_or_default()
}

/// A character name for bot `index`: `B`, the index in base 36, then up to 6 random base-36
/// characters, as many as fit in [`MAX_NAME_CHARS`], so that names differ between runs against the
/// same database. Always 1–12 ASCII letters and digits.
pub fn bot_name(index: usize, rng: &mut Rng) -> String {
    let mut name = format!("B{}", base36(index as u64));
    name.truncate(MAX_NAME_CHARS);
    let suffix_len = (MAX_NAME_CHARS - name.len()).min(6);
    let suffix = base36(rng.next_u64());
    let suffix: String = suffix.chars().rev().take(suffix_len).collect();
    name.push_str(&suffix);
    name
}

/// How far a wandering bot's first walk may take it: players spread over the world instead of
/// standing in one crowd at the spawn (the server walks them to the closest reachable tile).
pub const SPREAD_RADIUS_TILES: i32 = 120;

/// A tile to walk to: within [`WANDER_RADIUS_TILES`] of `from` on both axes, never `from` itself.
pub fn wander_target(from: TilePos, rng: &mut Rng) -> TilePos {
    target_within(from, WANDER_RADIUS_TILES, rng)
}

/// A tile within `radius` of `from` on both axes, never `from` itself.
pub fn target_within(from: TilePos, radius: i32, rng: &mut Rng) -> TilePos {
    loop {
        let x = from.x + rng.between(-radius, radius);
        let z = from.z + rng.between(-radius, radius);
        if (x, z) != (from.x, from.z) {
            return TilePos { x, z };
        }
    }
}

/// The last two chat lines a bot said on each channel (indices into the lines; local first, then
/// global), so the next on that channel differs from both.
pub type Said = [[usize; 2]; 2];

/// Nothing said yet.
pub const NOTHING_SAID: Said = [[usize::MAX; 2]; 2];

/// A chat line and whether it goes to the global channel (one in [`GLOBAL_CHAT_ONE_IN`]). Never
/// one of the bot's last two on that channel (`said`, updated): the server holds a line repeating
/// one of the sender's last two on its channel (docs/mechanics.md, "Chat limits"), which would
/// count as an error in the report. Per channel, because that is how the server remembers them: a
/// local line said before a global one is still among the last two local lines.
pub fn chat_line(rng: &mut Rng, said: &mut Said) -> (String, bool) {
    let global = rng.one_in(GLOBAL_CHAT_ONE_IN);
    let recent = &mut said[usize::from(global)];
    let fresh: Vec<usize> = (0..CHAT_LINES.len())
        .filter(|i| !recent.contains(i))
        .collect();
    let pick = fresh[rng.below(fresh.len() as u64) as usize];
    *recent = [pick, recent[0]];
    (CHAT_LINES[pick].to_owned(), global)
}

/// How often a gathering bot (re)starts chopping.
pub const GATHER_EVERY: (Duration, Duration) = (Duration::from_secs(3), Duration::from_secs(6));

/// When an idle bot would probe: never within any run.
const NEVER: Duration = Duration::from_secs(u32::MAX as u64);

/// One kind of thing a bot does on a timer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Ask for `player:sync` (the round-trip probe).
    Sync,
    /// Walk somewhere near.
    Move,
    /// Say something.
    Chat,
    /// Chop a tree (or drop a log when full).
    Gather,
    /// The trade cycle's next step (a request, or the stall check): timed by the bot's
    /// [`Trader`](super::trade::Trader), not by the plan.
    Trade,
}

/// When a bot next does each of its actions, as offsets from the moment it entered the world.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Next sync probe.
    pub sync: Duration,
    /// Next move, for wandering scenarios.
    pub r#move: Option<Duration>,
    /// Next chat, for chatting scenarios.
    pub chat: Option<Duration>,
    /// Next gathering step, for the gathering scenario.
    pub gather: Option<Duration>,
    /// The pause after each line said.
    pub chat_every: (Duration, Duration),
}

impl Plan {
    /// The first actions of a bot that just entered. The first move and chat come within their
    /// shortest interval, so every bot acts early even in a short run, and bots do not act in step.
    /// A chatting bot talks every `chat_every`.
    pub fn start(scenario: Scenario, chat_every: (Duration, Duration), rng: &mut Rng) -> Plan {
        Plan {
            sync: if scenario.probes() {
                rng.duration(FIRST_SYNC_WITHIN)
            } else {
                NEVER
            },
            r#move: scenario
                .wanders()
                .then(|| rng.duration((Duration::ZERO, MOVE_EVERY.0))),
            chat: scenario
                .chats()
                .then(|| rng.duration((Duration::ZERO, chat_every.0))),
            gather: scenario
                .gathers()
                .then(|| rng.duration((Duration::ZERO, GATHER_EVERY.0))),
            chat_every,
        }
    }

    /// The first actions of a `spread` bot of `role`: the crowd and the townsfolk wander and
    /// chat (travellers walk their journey on the move timer), gatherers gather (their journey on
    /// the gathering timer) and chat.
    pub fn for_role(
        role: super::spread::Role,
        chat_every: (Duration, Duration),
        rng: &mut Rng,
    ) -> Plan {
        use super::spread::Role;
        let mut plan = Plan::start(Scenario::Mixed, chat_every, rng);
        if role == Role::Gatherer {
            plan.r#move = None;
            plan.gather = Some(rng.duration((Duration::ZERO, GATHER_EVERY.0)));
        }
        plan
    }

    /// The action due first and when.
    pub fn next(&self) -> (Action, Duration) {
        let mut next = (Action::Sync, self.sync);
        for (action, at) in [
            (Action::Move, self.r#move),
            (Action::Chat, self.chat),
            (Action::Gather, self.gather),
        ] {
            if let Some(at) = at {
                if at < next.1 {
                    next = (action, at);
                }
            }
        }
        next
    }

    /// Schedules the following `action` after the one done at `now`.
    pub fn reschedule(&mut self, action: Action, now: Duration, rng: &mut Rng) {
        match action {
            Action::Sync => self.sync = now + rng.duration(SYNC_EVERY),
            Action::Move => self.r#move = Some(now + rng.duration(MOVE_EVERY)),
            Action::Chat => self.chat = Some(now + rng.duration(self.chat_every)),
            Action::Gather => self.gather = Some(now + rng.duration(GATHER_EVERY)),
            Action::Trade => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid_name(name: &str) -> bool {
        (1..=MAX_NAME_CHARS).contains(&name.len())
            && name.chars().all(|c| c.is_ascii_alphanumeric())
    }

    #[test]
    fn base36_counts() {
        assert_eq!(base36(0), "0");
        assert_eq!(base36(35), "z");
        assert_eq!(base36(36), "10");
        assert_eq!(base36(u64::MAX), "3w5e11264sgsf");
    }

    #[test]
    fn bot_names_are_valid_and_distinct() {
        let mut rng = Rng::seeded(1);
        let mut seen = std::collections::HashSet::new();
        for index in [0, 1, 35, 36, 1_000, 99_999, 10_000_000, usize::MAX] {
            let name = bot_name(index, &mut rng);
            assert!(valid_name(&name), "{name}");
            assert!(name.starts_with('B'));
            assert!(seen.insert(name.to_lowercase()));
        }
        let a = bot_name(7, &mut rng);
        let b = bot_name(7, &mut rng);
        assert_ne!(a, b, "a retry gets another name");
        assert_eq!(&a[..2], "B7");
    }

    #[test]
    fn wander_targets_stay_near() {
        let mut rng = Rng::seeded(2);
        let from = TilePos { x: 100, z: -40 };
        for _ in 0..1000 {
            let t = wander_target(from, &mut rng);
            assert!((t.x - from.x).abs() <= WANDER_RADIUS_TILES);
            assert!((t.z - from.z).abs() <= WANDER_RADIUS_TILES);
            assert_ne!(t, from);
        }
    }

    #[test]
    fn random_ranges_are_inclusive_and_bounded() {
        let mut rng = Rng::seeded(3);
        let (mut low, mut high) = (false, false);
        for _ in 0..2000 {
            let v = rng.between(-2, 2);
            assert!((-2..=2).contains(&v));
            low |= v == -2;
            high |= v == 2;
            let d = rng.duration(CHAT_EVERY);
            assert!(d >= CHAT_EVERY.0 && d <= CHAT_EVERY.1);
        }
        assert!(low && high);
        assert_eq!(rng.below(0), 0);
    }

    #[test]
    fn chat_is_mostly_local() {
        let mut rng = Rng::seeded(4);
        let mut said = NOTHING_SAID;
        let global = (0..10_000)
            .filter(|_| chat_line(&mut rng, &mut said).1)
            .count();
        assert!((60..=140).contains(&global), "{global}");
    }

    #[test]
    fn a_bot_never_repeats_one_of_its_last_two_lines_on_a_channel() {
        let mut rng = Rng::seeded(6);
        let mut said = NOTHING_SAID;
        let lines: Vec<(String, bool)> = (0..20_000)
            .map(|_| chat_line(&mut rng, &mut said))
            .collect();
        let mut globals = 0;
        for global in [false, true] {
            let channel: Vec<&String> = lines
                .iter()
                .filter(|(_, g)| *g == global)
                .map(|(text, _)| text)
                .collect();
            if global {
                globals = channel.len();
            }
            for window in channel.windows(3) {
                assert!(
                    window[2] != window[0] && window[2] != window[1],
                    "{window:?}"
                );
            }
        }
        assert!(
            globals > 50,
            "both channels are exercised: {globals} global"
        );
    }

    #[test]
    fn plans_follow_the_scenario() {
        let mut rng = Rng::seeded(5);
        let wander = Plan::start(Scenario::Wander, Scenario::Wander.chat_every(), &mut rng);
        assert!(wander.r#move.is_some() && wander.chat.is_none());
        assert!(wander.r#move.unwrap() <= MOVE_EVERY.0);
        let chat = Plan::start(Scenario::Chat, Scenario::Chat.chat_every(), &mut rng);
        assert!(chat.r#move.is_none() && chat.chat.is_some());
        let mut mixed = Plan::start(Scenario::Mixed, Scenario::Mixed.chat_every(), &mut rng);
        assert!(mixed.sync >= FIRST_SYNC_WITHIN.0 && mixed.sync <= FIRST_SYNC_WITHIN.1);
        // Walking the plan visits every action, in time order.
        let mut last = Duration::ZERO;
        let mut done = std::collections::HashMap::new();
        for _ in 0..100 {
            let (action, at) = mixed.next();
            assert!(at >= last);
            last = at;
            *done.entry(action).or_insert(0) += 1;
            mixed.reschedule(action, at, &mut rng);
        }
        assert_eq!(done.len(), 3, "{done:?}");
        let gather = Plan::start(Scenario::Gather, Scenario::Gather.chat_every(), &mut rng);
        assert!(gather.gather.is_some() && gather.r#move.is_none() && gather.chat.is_none());
        use crate::load::spread::Role;
        for role in [Role::Crowd, Role::Townsfolk] {
            let plan = Plan::for_role(role, SPREAD_CHAT_EVERY, &mut rng);
            assert!(plan.r#move.is_some() && plan.chat.is_some() && plan.gather.is_none());
        }
        let gatherer = Plan::for_role(Role::Gatherer, SPREAD_CHAT_EVERY, &mut rng);
        assert!(gatherer.gather.is_some() && gatherer.chat.is_some() && gatherer.r#move.is_none());
        // A spread bot talks at a player's pace: its first line within the shortest pause, the
        // next one a pause later.
        let mut townsfolk = Plan::for_role(Role::Townsfolk, SPREAD_CHAT_EVERY, &mut rng);
        let first = townsfolk.chat.unwrap();
        assert!(first <= SPREAD_CHAT_EVERY.0);
        townsfolk.reschedule(Action::Chat, first, &mut rng);
        let pause = townsfolk.chat.unwrap() - first;
        assert!(pause >= SPREAD_CHAT_EVERY.0 && pause <= SPREAD_CHAT_EVERY.1);
        let idle = Plan::start(Scenario::Idle, Scenario::Idle.chat_every(), &mut rng);
        assert!(idle.gather.is_none() && idle.r#move.is_none() && idle.chat.is_none());
        assert!(
            idle.next().1 > Duration::from_secs(86_400 * 365),
            "idle bots never act"
        );
    }
}
