//! What a load run does: the server, how many bots, for how long, and how they behave.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::LoadError;

/// The scenarios, each once: its variant, its name (command line, reports and JSON) and what it
/// does. The enum, [`Scenario::ALL`], [`Scenario::as_str`] and the parse error's list all come
/// from this one table.
macro_rules! scenarios {
    ($($(#[doc = $doc:expr])* $variant:ident => $name:literal,)+) => {
        /// How the bots behave once in the world.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum Scenario {
            $($(#[doc = $doc])* #[serde(rename = $name)] $variant,)+
        }

        impl Scenario {
            /// Every scenario, in the order of the CLI's help.
            pub const ALL: [Scenario; [$($name),+].len()] = [$(Scenario::$variant),+];

            /// The name used on the command line and in reports.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Scenario::$variant => $name,)+
                }
            }
        }
    };
}

scenarios! {
    /// Walk to a random tile within [`WANDER_RADIUS_TILES`](super::scenario::WANDER_RADIUS_TILES)
    /// of the current position every 1–3 s.
    Wander => "wander",
    /// Chat every 2–5 s, mostly on the local channel and sometimes on the global one.
    Chat => "chat",
    /// Chop the nearest tree every few seconds (dropping logs when the inventory fills), with the
    /// starter hatchet, walking there first as the server does for any action on an entity.
    Gather => "gather",
    /// Trade with another bot: bots `2k` and `2k + 1` swap one coin each way, again and again,
    /// standing where they entered.
    Trade => "trade",
    /// Wander and chat, each on its own timer.
    Mixed => "mixed",
    /// Enter the world and do nothing (not even the round-trip probe): the memory cost of
    /// connected players.
    Idle => "idle",
    /// `trade` as fast as the server lets the pairs: the next request as soon as the last trade
    /// completed. Each trade is one durable commit (the server says `tradeCompleted` only once
    /// its transaction committed), so the report's trades a second are the store's durable
    /// commits a second under many pairs, with the same coin check.
    TradePairs => "trade-pairs",
    /// Players spread as a living world has them: one in ten in a crowd at the spawn, the others
    /// travelling to the world's towns to wander and chat there or gather in their outskirts
    /// (`spread` module).
    Spread => "spread",
    /// As `idle`, then every bot drops its socket at the same moment and reconnects at once with
    /// the same account and character, as every player does after a restart (a third of the way
    /// from the ramp's end to the deadline). The report adds the reconnect times.
    ReconnectStorm => "reconnect-storm",
}

impl Scenario {
    /// Whether bots of this scenario walk around.
    pub fn wanders(self) -> bool {
        matches!(self, Scenario::Wander | Scenario::Mixed | Scenario::Spread)
    }

    /// Whether bots of this scenario chat.
    pub fn chats(self) -> bool {
        matches!(self, Scenario::Chat | Scenario::Mixed | Scenario::Spread)
    }

    /// How often its chatting bots talk (the pause after each line is drawn between the two):
    /// `spread` at [`SPREAD_CHAT_EVERY`](super::scenario::SPREAD_CHAT_EVERY), a player's pace;
    /// `chat` and `mixed` at [`CHAT_EVERY`](super::scenario::CHAT_EVERY), chattier on purpose (their
    /// recorded figures use it). `--chat-every` overrides either.
    pub fn chat_every(self) -> (Duration, Duration) {
        if self == Scenario::Spread {
            super::scenario::SPREAD_CHAT_EVERY
        } else {
            super::scenario::CHAT_EVERY
        }
    }

    /// Whether bots of this scenario chop trees.
    pub fn gathers(self) -> bool {
        self == Scenario::Gather
    }

    /// Whether bots of this scenario trade in pairs.
    pub fn trades(self) -> bool {
        matches!(self, Scenario::Trade | Scenario::TradePairs)
    }

    /// Whether bots of this scenario probe the round trip with `player:sync`.
    pub fn probes(self) -> bool {
        !matches!(self, Scenario::Idle | Scenario::ReconnectStorm)
    }
}

impl fmt::Display for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A scenario name that is none of [`Scenario::ALL`]'s.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown scenario {0:?} (expected one of {names})", names = scenario_names())]
pub struct UnknownScenario(pub String);

/// Every scenario's name, comma-separated.
fn scenario_names() -> String {
    Scenario::ALL.map(Scenario::as_str).join(", ")
}

impl FromStr for Scenario {
    type Err = UnknownScenario;

    /// Parses a scenario name, ignoring case and surrounding spaces.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim();
        Scenario::ALL
            .into_iter()
            .find(|scenario| scenario.as_str().eq_ignore_ascii_case(wanted))
            .ok_or_else(|| UnknownScenario(s.to_owned()))
    }
}

/// Everything a load run needs. Build it with [`LoadOptions::new`] and adjust the public fields,
/// or fill every field from command-line arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadOptions {
    /// The server's base URL, `http://host:port` (no path), or several worlds' separated by
    /// commas: the bots are spread over them round-robin ([`world_of`]). `https` is refused: the
    /// bots' WebSocket client is built without TLS.
    pub url: String,
    /// How many bots connect.
    pub bots: usize,
    /// How long the run lasts from the first bot's start, ramp included, in seconds.
    pub seconds: u64,
    /// Bots start evenly spread over this many seconds (0: all at once). Shorter than `seconds`.
    pub ramp_seconds: u64,
    /// What the bots do.
    pub scenario: Scenario,
    /// The server's `LOAD_TEST_KEY`, sent as `x-load-test-key` on every REST request so that bots
    /// from one address skip the per-address limits (authentication, REST per address).
    pub key: Option<String>,
    /// Where to write the report as JSON, if anywhere (the caller writes it, with
    /// [`super::LoadReport::write_json`]).
    pub json_out: Option<PathBuf>,
    /// How often a chatting bot talks, instead of its scenario's pace
    /// ([`Scenario::chat_every`]): the pause after each line is drawn evenly between the two.
    pub chat_every: Option<(Duration, Duration)>,
}

impl LoadOptions {
    /// Default bot count.
    pub const DEFAULT_BOTS: usize = 10;
    /// Default duration in seconds.
    pub const DEFAULT_SECONDS: u64 = 30;
    /// Default ramp in seconds.
    pub const DEFAULT_RAMP_SECONDS: u64 = 0;

    /// Options for `url` with the defaults: 10 bots, 30 s, no ramp, `mixed`, no key, no JSON file.
    pub fn new(url: impl Into<String>) -> Self {
        LoadOptions {
            url: url.into(),
            bots: Self::DEFAULT_BOTS,
            seconds: Self::DEFAULT_SECONDS,
            ramp_seconds: Self::DEFAULT_RAMP_SECONDS,
            scenario: Scenario::Mixed,
            key: None,
            json_out: None,
            chat_every: None,
        }
    }

    /// The pause between a chatting bot's lines in this run.
    pub fn chat_every(&self) -> (Duration, Duration) {
        self.chat_every.unwrap_or(self.scenario.chat_every())
    }

    /// Checks the options before anything connects: at least one bot, a duration, a ramp shorter
    /// than the run, and `http://host[:port]` URLs, each once. Returns the worlds' endpoints.
    pub fn validate(&self) -> Result<Vec<Endpoints>, LoadError> {
        if self.bots == 0 {
            return Err(LoadError::InvalidOptions(
                "--bots must be at least 1".into(),
            ));
        }
        if self.seconds == 0 {
            return Err(LoadError::InvalidOptions(
                "--seconds must be at least 1".into(),
            ));
        }
        if self.ramp_seconds > 0 && self.ramp_seconds >= self.seconds {
            return Err(LoadError::InvalidOptions(format!(
                "--ramp ({} s) must be shorter than --seconds ({} s) so that every bot gets to play",
                self.ramp_seconds, self.seconds
            )));
        }
        if let Some(every) = self.chat_every {
            check_chat_every(every).map_err(LoadError::InvalidOptions)?;
        }
        let mut worlds: Vec<Endpoints> = Vec::new();
        for url in self.url.split(',').map(str::trim) {
            let endpoints = Endpoints::from_base(url)?;
            if worlds.contains(&endpoints) {
                return Err(LoadError::InvalidUrl {
                    url: url.to_owned(),
                    reason: "given twice: list each world once".into(),
                });
            }
            worlds.push(endpoints);
        }
        Ok(worlds)
    }
}

/// Shortest pause `--chat-every` allows between a bot's lines: well inside the server's local
/// rate (2 lines a second after a burst of 5, docs/mechanics.md), so bots never meet it.
pub const CHAT_EVERY_MIN: Duration = Duration::from_secs(1);
/// Longest pause `--chat-every` allows: an hour (a quieter run is one that does not chat).
pub const CHAT_EVERY_MAX: Duration = Duration::from_secs(3600);

/// Reads `--chat-every`: `MIN-MAX` or one number, in whole seconds (`2-5`, `60`).
pub fn parse_chat_every(text: &str) -> Result<(Duration, Duration), String> {
    let seconds = |s: &str| {
        s.trim().parse::<u64>().map(Duration::from_secs).map_err(|_| {
            format!("--chat-every {text:?}: expected whole seconds, MIN-MAX or one number (e.g. 2-5)")
        })
    };
    let every = match text.split_once('-') {
        Some((min, max)) => (seconds(min)?, seconds(max)?),
        None => {
            let at = seconds(text)?;
            (at, at)
        }
    };
    check_chat_every(every)?;
    Ok(every)
}

/// The one rule for a chat pace: from [`CHAT_EVERY_MIN`] to [`CHAT_EVERY_MAX`], the shorter first.
fn check_chat_every((min, max): (Duration, Duration)) -> Result<(), String> {
    if min < CHAT_EVERY_MIN || max > CHAT_EVERY_MAX || min > max {
        return Err(format!(
            "--chat-every {}-{} s: both between {} and {} s, the first no longer than the second",
            min.as_secs(),
            max.as_secs(),
            CHAT_EVERY_MIN.as_secs(),
            CHAT_EVERY_MAX.as_secs()
        ));
    }
    Ok(())
}

/// The world (index into the URLs) bot `index` plays in: round-robin, except that the two bots
/// of a trading pair (`2k`, `2k + 1`) share a world, since trades do not cross worlds.
pub fn world_of(scenario: Scenario, index: usize, worlds: usize) -> usize {
    let slot = if scenario.trades() { index / 2 } else { index };
    slot % worlds.max(1)
}

/// The URLs a bot talks to, derived from [`LoadOptions::url`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoints {
    /// `http://host:port`, without a trailing slash.
    pub http_base: String,
    /// `ws://host:port/ws` (a bot appends `?token=…`).
    pub ws: String,
}

impl Endpoints {
    /// Reads `http://host[:port][/]`.
    pub fn from_base(url: &str) -> Result<Endpoints, LoadError> {
        let trimmed = url.trim().trim_end_matches('/');
        let invalid = |why: &str| LoadError::InvalidUrl {
            url: url.to_owned(),
            reason: why.to_owned(),
        };
        let authority =
            match trimmed.split_once("://") {
                Some(("http", rest)) => rest,
                Some(("https", _)) => return Err(invalid(
                    "https is not supported: the load generator's WebSocket client has no TLS; \
                     point it at the server's plain http address",
                )),
                Some((scheme, _)) => {
                    return Err(invalid(&format!(
                        "scheme {scheme:?} is not supported; use http://host:port"
                    )))
                }
                None => return Err(invalid("expected http://host:port")),
            };
        if authority.is_empty() {
            return Err(invalid("no host"));
        }
        if authority.contains(['/', '?', '#', '@', ' ']) {
            return Err(invalid(
                "expected only http://host:port, without a path, query or user",
            ));
        }
        Ok(Endpoints {
            http_base: format!("http://{authority}"),
            ws: format!("ws://{authority}/ws"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenarios_parse_by_name_ignoring_case() {
        assert_eq!("wander".parse::<Scenario>(), Ok(Scenario::Wander));
        assert_eq!("Chat".parse::<Scenario>(), Ok(Scenario::Chat));
        assert_eq!(" GATHER ".parse::<Scenario>(), Ok(Scenario::Gather));
        assert_eq!("trade".parse::<Scenario>(), Ok(Scenario::Trade));
        assert_eq!("trade-pairs".parse::<Scenario>(), Ok(Scenario::TradePairs));
        assert_eq!("mixed".parse::<Scenario>(), Ok(Scenario::Mixed));
        assert_eq!(
            "fly".parse::<Scenario>(),
            Err(UnknownScenario("fly".into()))
        );
        assert!("".parse::<Scenario>().is_err());
        let refused = UnknownScenario("fly".into()).to_string();
        for scenario in Scenario::ALL {
            assert_eq!(scenario.to_string().parse::<Scenario>(), Ok(scenario));
            // One name everywhere: the command line's, the JSON's and the error's list.
            let name = scenario.as_str();
            assert_eq!(
                serde_json::to_string(&scenario).unwrap(),
                format!("\"{name}\"")
            );
            assert!(refused.contains(name), "{refused}");
        }
    }

    #[test]
    fn scenarios_say_what_they_do() {
        assert!(Scenario::Wander.wanders() && !Scenario::Wander.chats());
        assert!(Scenario::Chat.chats() && !Scenario::Chat.wanders());
        assert!(Scenario::Mixed.chats() && Scenario::Mixed.wanders());
        assert!(Scenario::Gather.gathers());
        assert!(!Scenario::Idle.probes() && !Scenario::Idle.wanders() && !Scenario::Idle.chats());
        let storm = Scenario::ReconnectStorm;
        assert!(!storm.probes() && !storm.wanders() && !storm.chats() && !storm.gathers());
        assert_eq!(
            "reconnect-storm".parse::<Scenario>(),
            Ok(Scenario::ReconnectStorm)
        );
        assert_eq!(
            serde_json::to_string(&storm).unwrap(),
            "\"reconnect-storm\""
        );
        // Traders stay where they entered (trading needs them near each other) and still probe.
        assert!(
            Scenario::Trade.probes() && !Scenario::Trade.wanders() && !Scenario::Trade.gathers()
        );
    }

    #[test]
    fn scenarios_serialise_lowercase() {
        assert_eq!(
            serde_json::to_string(&Scenario::Mixed).unwrap(),
            "\"mixed\""
        );
    }

    #[test]
    fn the_chat_pace_is_the_scenarios_unless_given_and_bounded_at_both_ends() {
        let secs = Duration::from_secs;
        let mut o = LoadOptions::new("http://127.0.0.1:1");
        assert_eq!(o.chat_every(), (secs(2), secs(5)));
        o.scenario = Scenario::Spread;
        assert_eq!(o.chat_every(), (secs(30), secs(90)));
        assert_eq!(parse_chat_every("2-5"), Ok((secs(2), secs(5))));
        assert_eq!(parse_chat_every(" 60 "), Ok((secs(60), secs(60))));
        // The bounds: 1 s and 3,600 s are the last allowed, 0 and 3,601 the first refused.
        assert_eq!(
            parse_chat_every("1-3600"),
            Ok((CHAT_EVERY_MIN, CHAT_EVERY_MAX))
        );
        for refused in ["0-5", "1-3601", "5-2", "", "fast", "2-", "-1-5", "1.5"] {
            let error = parse_chat_every(refused).expect_err(refused);
            assert!(error.starts_with("--chat-every"), "{refused}: {error}");
        }
        o.chat_every = Some((secs(3), secs(4)));
        assert_eq!(o.chat_every(), (secs(3), secs(4)));
        assert!(o.validate().is_ok());
        o.chat_every = Some((secs(0), secs(4)));
        assert!(
            matches!(o.validate(), Err(LoadError::InvalidOptions(m)) if m.contains("--chat-every"))
        );
    }

    #[test]
    fn endpoints_come_from_the_base_url() {
        let e = Endpoints::from_base("http://127.0.0.1:5601/").unwrap();
        assert_eq!(e.http_base, "http://127.0.0.1:5601");
        assert_eq!(e.ws, "ws://127.0.0.1:5601/ws");
        let e = Endpoints::from_base("http://localhost").unwrap();
        assert_eq!(e.ws, "ws://localhost/ws");
        for bad in [
            "https://example.com",
            "ftp://x",
            "127.0.0.1:5601",
            "http://",
            "http://host/api",
        ] {
            assert!(
                matches!(Endpoints::from_base(bad), Err(LoadError::InvalidUrl { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn several_worlds_share_the_bots_round_robin() {
        let mut o = LoadOptions::new("http://127.0.0.1:1, http://127.0.0.1:2,http://127.0.0.1:3/");
        let worlds = o.validate().unwrap();
        assert_eq!(
            worlds.iter().map(|w| w.ws.as_str()).collect::<Vec<_>>(),
            [
                "ws://127.0.0.1:1/ws",
                "ws://127.0.0.1:2/ws",
                "ws://127.0.0.1:3/ws"
            ]
        );
        let spread = |scenario| (0..6).map(|i| world_of(scenario, i, 3)).collect::<Vec<_>>();
        assert_eq!(spread(Scenario::Mixed), [0, 1, 2, 0, 1, 2]);
        assert_eq!(
            spread(Scenario::Trade),
            [0, 0, 1, 1, 2, 2],
            "pairs together"
        );
        assert_eq!(world_of(Scenario::Idle, 7, 1), 0);
        // A world twice, or an empty entry, is a mistake worth naming.
        o.url = "http://127.0.0.1:1,http://127.0.0.1:1/".into();
        assert!(matches!(o.validate(), Err(LoadError::InvalidUrl { .. })));
        o.url = "http://127.0.0.1:1,".into();
        assert!(matches!(o.validate(), Err(LoadError::InvalidUrl { .. })));
    }

    #[test]
    fn options_are_checked() {
        let ok = LoadOptions::new("http://127.0.0.1:1");
        assert!(ok.validate().is_ok());
        assert_eq!(ok.scenario, Scenario::Mixed);
        let mut o = ok.clone();
        o.bots = 0;
        assert!(matches!(o.validate(), Err(LoadError::InvalidOptions(_))));
        let mut o = ok.clone();
        o.seconds = 0;
        assert!(matches!(o.validate(), Err(LoadError::InvalidOptions(_))));
        let mut o = ok.clone();
        o.seconds = 5;
        o.ramp_seconds = 5;
        assert!(matches!(o.validate(), Err(LoadError::InvalidOptions(_))));
        o.ramp_seconds = 4;
        assert!(o.validate().is_ok());
        let mut o = ok.clone();
        for scenario in Scenario::ALL {
            o.scenario = scenario;
            assert!(o.validate().is_ok(), "{scenario}");
        }
    }
}
