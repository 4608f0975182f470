//! Which brain picks the next action: the built-in planner, or a language model. A step the model
//! cannot serve (a failed, invalid or refused answer, the breaker open) is played by the
//! [`Fallback`] its configuration names: the planner (live play), or a wait (a scored benchmark:
//! the planner never plays for the model, CONTRACT §16).

pub mod llm;
pub mod prompt;
pub mod tape;

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use serde::Serialize;

pub use llm::{LlmConfig, LlmFailure, Provider, KEY_VARIABLES};

/// `--brain`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrainChoice {
    Planner,
    Llm,
    /// The model when a key is set, else the planner.
    Auto,
}

impl std::str::FromStr for BrainChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "planner" => Ok(BrainChoice::Planner),
            "llm" => Ok(BrainChoice::Llm),
            "auto" => Ok(BrainChoice::Auto),
            other => Err(format!("--brain must be planner, llm or auto, not {other}")),
        }
    }
}

/// The brain chosen at start.
#[derive(Debug, Clone)]
pub enum Brain {
    Planner,
    Llm(LlmConfig),
}

/// What plays a step the model could not serve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fallback {
    /// The planner plays the step (live play: an agent keeps working through a model's outage).
    #[default]
    Planner,
    /// The agent waits that step (the benchmark's scored runs: the score is the model's alone).
    Wait,
}

impl Fallback {
    /// Its name in the report and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Fallback::Planner => "planner",
            Fallback::Wait => "wait",
        }
    }
}

impl std::str::FromStr for Fallback {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "planner" => Ok(Fallback::Planner),
            "wait" | "none" => Ok(Fallback::Wait),
            other => Err(format!("--fallback must be planner or wait, not {other}")),
        }
    }
}

/// Answers that were no valid action: fallbacks of these kinds (the model's own mistakes, not an
/// outage or a budget).
pub const INVALID_KINDS: [&str; 2] = ["malformed", "refused"];

/// `--brain llm` with none of the three keys set.
#[derive(Debug, thiserror::Error)]
#[error("--brain llm needs one of OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENROUTER_API_KEY")]
pub struct NoModelKey;

impl Brain {
    /// Resolves `--brain` against the keys `lookup` finds.
    pub fn select(
        choice: BrainChoice,
        lookup: impl Fn(&str) -> Option<String>,
        model: Option<String>,
    ) -> Result<Brain, NoModelKey> {
        let config = LlmConfig::from_lookup(lookup, model);
        match (choice, config) {
            (BrainChoice::Planner, _) => Ok(Brain::Planner),
            (BrainChoice::Llm, None) => Err(NoModelKey),
            (_, Some(config)) => Ok(Brain::Llm(config)),
            (BrainChoice::Auto, None) => Ok(Brain::Planner),
        }
    }

    /// One line for the start-up log.
    pub fn describe(&self) -> String {
        match self {
            Brain::Planner => "the built-in planner (no model key set, or --brain planner)".into(),
            Brain::Llm(c) => format!(
                "{} model {} at {}, {}",
                c.provider.name(),
                c.model,
                c.base_url,
                match c.fallback {
                    Fallback::Planner => "the planner as fallback",
                    Fallback::Wait => "a wait for an unusable answer",
                }
            ),
        }
    }
}

/// Calls a minute and tokens an hour, over sliding windows.
#[derive(Debug)]
pub struct Budget {
    calls_per_minute: u32,
    tokens_per_hour: u64,
    calls: VecDeque<Instant>,
    tokens: VecDeque<(Instant, u64)>,
}

impl Budget {
    /// A budget with these limits.
    pub fn new(calls_per_minute: u32, tokens_per_hour: u64) -> Budget {
        Budget {
            calls_per_minute,
            tokens_per_hour,
            calls: VecDeque::new(),
            tokens: VecDeque::new(),
        }
    }

    /// Whether a call may be made now (and counts it when so).
    pub fn try_call(&mut self, now: Instant) -> bool {
        while self
            .calls
            .front()
            .is_some_and(|t| now.duration_since(*t) >= Duration::from_secs(60))
        {
            self.calls.pop_front();
        }
        while self
            .tokens
            .front()
            .is_some_and(|(t, _)| now.duration_since(*t) >= Duration::from_secs(3600))
        {
            self.tokens.pop_front();
        }
        let spent: u64 = self.tokens.iter().map(|(_, n)| n).sum();
        if self.calls.len() as u32 >= self.calls_per_minute || spent >= self.tokens_per_hour {
            return false;
        }
        self.calls.push_back(now);
        true
    }

    /// Records tokens a call used.
    pub fn spend(&mut self, now: Instant, tokens: u64) {
        self.tokens.push_back((now, tokens));
    }
}

/// After repeated failures, the planner alone for a while.
#[derive(Debug)]
pub struct Breaker {
    threshold: u32,
    open_for: Duration,
    failures: u32,
    open_until: Option<Instant>,
    /// Times it opened.
    pub opened: u64,
}

impl Breaker {
    /// Opens after `threshold` failures in a row, for `open_for`.
    pub fn new(threshold: u32, open_for: Duration) -> Breaker {
        Breaker {
            threshold,
            open_for,
            failures: 0,
            open_until: None,
            opened: 0,
        }
    }

    /// Whether the model may be asked.
    pub fn allows(&mut self, now: Instant) -> bool {
        match self.open_until {
            Some(until) if now < until => false,
            Some(_) => {
                // Half-open: one more try; a failure opens it again at once.
                self.open_until = None;
                self.failures = self.threshold.saturating_sub(1);
                true
            }
            None => true,
        }
    }

    /// Records a call's result.
    pub fn record(&mut self, ok: bool, now: Instant) {
        if ok {
            self.failures = 0;
            return;
        }
        self.failures += 1;
        if self.failures >= self.threshold {
            self.open_until = Some(now + self.open_for);
            self.opened += 1;
            self.failures = 0;
        }
    }

    /// Whether it is open now.
    pub fn is_open(&self, now: Instant) -> bool {
        self.open_until.is_some_and(|u| now < u)
    }
}

/// What the model has cost and how often the planner stood in (part of the agent's status).
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelStats {
    pub calls: u64,
    pub decisions: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Input tokens the provider read from its prompt cache (part of `input_tokens`).
    pub cached_tokens: u64,
    /// Steps the model did not serve, by why (played by the [`Fallback`]).
    pub fallbacks: BTreeMap<&'static str, u64>,
    pub breaker_opened: u64,
    /// Answers received (a failure included) and their summed wait, for the mean latency.
    pub answers: u64,
    pub latency_ms_total: u64,
    /// The latest [`LATENCY_WINDOW`] answers' latencies, in milliseconds, for the percentiles.
    #[serde(skip)]
    pub latencies: std::collections::VecDeque<u64>,
}

/// Answers whose latency the percentiles are taken over (the latest).
pub const LATENCY_WINDOW: usize = 256;

impl ModelStats {
    /// Total fallbacks.
    pub fn fallback_total(&self) -> u64 {
        self.fallbacks.values().sum()
    }

    /// Answers that were no valid action ([`INVALID_KINDS`]).
    pub fn invalid(&self) -> u64 {
        INVALID_KINDS
            .iter()
            .filter_map(|k| self.fallbacks.get(k))
            .sum()
    }

    /// Mean milliseconds from a call to its answer.
    pub fn mean_latency_ms(&self) -> Option<u64> {
        self.latency_ms_total.checked_div(self.answers)
    }

    /// Counts an answer that took `ms` milliseconds.
    pub fn record_latency(&mut self, ms: u64) {
        self.answers += 1;
        self.latency_ms_total = self.latency_ms_total.saturating_add(ms);
        if self.latencies.len() == LATENCY_WINDOW {
            self.latencies.pop_front();
        }
        self.latencies.push_back(ms);
    }

    /// The `p`th percentile (0..=100, nearest rank) of the latest latencies.
    pub fn latency_percentile(&self, p: u64) -> Option<u64> {
        if self.latencies.is_empty() {
            return None;
        }
        let mut sorted: Vec<u64> = self.latencies.iter().copied().collect();
        sorted.sort_unstable();
        let rank = (p.min(100) * sorted.len() as u64).div_ceil(100).max(1);
        sorted.get(rank as usize - 1).copied()
    }

    /// Tokens in and out per model call, rounded.
    pub fn tokens_per_decision(&self) -> Option<u64> {
        let tokens = self.input_tokens + self.output_tokens;
        (self.calls > 0).then(|| (tokens + self.calls / 2) / self.calls)
    }

    /// As `agent:status` reports it (`None` for an agent that never called a model).
    pub fn report(&self) -> Option<wayfarer_protocol::agent::ModelReport> {
        (self.calls > 0 || !self.fallbacks.is_empty()).then(|| {
            wayfarer_protocol::agent::ModelReport {
                calls: self.calls,
                decisions: self.decisions,
                fallbacks: self
                    .fallbacks
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), *v))
                    .collect(),
                input_tokens: self.input_tokens,
                output_tokens: self.output_tokens,
                cached_tokens: self.cached_tokens,
                mean_latency_ms: self.mean_latency_ms(),
                p50_latency_ms: self.latency_percentile(50),
                p95_latency_ms: self.latency_percentile(95),
                tokens_per_decision: self.tokens_per_decision(),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_has_the_latency_percentiles_of_the_latest_answers_and_tokens_per_call() {
        let mut stats = ModelStats::default();
        assert_eq!(stats.latency_percentile(50), None);
        for ms in 1..=100 {
            stats.record_latency(ms);
        }
        assert_eq!(stats.latency_percentile(50), Some(50));
        assert_eq!(stats.latency_percentile(95), Some(95));
        assert_eq!(stats.mean_latency_ms(), Some(50));
        // Only the latest window counts for the percentiles; the mean keeps every answer.
        for _ in 0..LATENCY_WINDOW {
            stats.record_latency(1_000);
        }
        assert_eq!(stats.latencies.len(), LATENCY_WINDOW);
        assert_eq!(stats.latency_percentile(50), Some(1_000));
        assert_eq!(stats.answers, 100 + LATENCY_WINDOW as u64);
        stats.calls = 3;
        stats.input_tokens = 3_000;
        stats.output_tokens = 40;
        let report = stats.report().expect("a model was called");
        assert_eq!(report.tokens_per_decision, Some(1_013));
        assert_eq!(report.p95_latency_ms, Some(1_000));
    }

    #[test]
    fn the_budget_counts_calls_a_minute_and_tokens_an_hour() {
        let start = Instant::now();
        let mut b = Budget::new(2, 100);
        assert!(b.try_call(start));
        assert!(b.try_call(start));
        assert!(!b.try_call(start));
        assert!(b.try_call(start + Duration::from_secs(61)));
        b.spend(start + Duration::from_secs(61), 100);
        assert!(!b.try_call(start + Duration::from_secs(200)));
        assert!(b.try_call(start + Duration::from_secs(3700)));
    }

    #[test]
    fn the_breaker_opens_after_failures_and_half_opens_later() {
        let t = Instant::now();
        let mut b = Breaker::new(3, Duration::from_secs(10));
        for _ in 0..3 {
            assert!(b.allows(t));
            b.record(false, t);
        }
        assert!(!b.allows(t));
        assert!(b.allows(t + Duration::from_secs(11)));
        b.record(false, t + Duration::from_secs(11));
        assert!(!b.allows(t + Duration::from_secs(12)));
        assert_eq!(b.opened, 2);
    }

    #[test]
    fn llm_without_a_key_stops_and_auto_falls_back_to_the_planner() {
        let none = |_: &str| None;
        assert!(Brain::select(BrainChoice::Llm, none, None).is_err());
        assert!(matches!(
            Brain::select(BrainChoice::Auto, none, None),
            Ok(Brain::Planner)
        ));
        let key = |k: &str| (k == "OPENAI_API_KEY").then(|| "k".to_owned());
        assert!(matches!(
            Brain::select(BrainChoice::Auto, key, None),
            Ok(Brain::Llm(_))
        ));
        assert!(matches!(
            Brain::select(BrainChoice::Planner, key, None),
            Ok(Brain::Planner)
        ));
    }
}
