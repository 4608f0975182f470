//! The bench's score: per task over seeds, and overall Crafter's geometric mean of the tasks'
//! credit (Hafner 2021: `exp(mean ln(1 + sᵢ)) − 1`, sᵢ in percent), with a 95% confidence
//! interval over seeds. A task's credit is its success rate where the check is done or not (a
//! quest, a duel, the owner's control) and its mean progress where the check is a threshold (a
//! level, XP, items, kills, coins): a run that ends one log short of the line is not scored as one
//! that never started, so one roll of the dice cannot swing the score (issue 51: shared-trees
//! alone moved the planner's score between 71.6 and 100). A failed run (a death in a deathless
//! task) earns nothing.

use std::collections::BTreeMap;

use serde::Serialize;

/// One task on one seed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Run {
    pub task: String,
    pub seed: u64,
    pub success: bool,
    /// 0..=100.
    pub progress: f64,
    /// What the run earns towards the score, 0..=1 (the module's doc).
    pub credit: f64,
    pub ticks: u64,
    pub deaths: u64,
    pub refused: u64,
    pub tokens: u64,
    /// The model's own decisions played (valid answers), over the run's agents.
    pub model_decisions: u64,
    /// Steps the model did not serve, by why (CONTRACT §16: a wait in a scored run).
    pub fallbacks: BTreeMap<String, u64>,
    /// Answers that were no valid action (malformed, or refused by the action table).
    pub invalid: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cached_tokens: u64,
    /// The layout this seed played on (`bench_agents::layout_hash`).
    pub layout_hash: String,
    /// Each answer's latency (the latest of each agent, `brain::LATENCY_WINDOW`), for the task's
    /// percentiles.
    #[serde(skip)]
    pub latencies_ms: Vec<u64>,
}

/// Latency percentiles, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Latency {
    pub p50: u64,
    pub p95: u64,
}

/// The `p`th percentile (nearest rank) of `values`, `None` when empty.
fn percentile(sorted: &[u64], p: usize) -> Option<u64> {
    let rank = (p * sorted.len()).div_ceil(100).max(1);
    sorted.get(rank - 1).copied()
}

/// One task over the seeds (CONTRACT.md sections 12 and 16).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskScore {
    pub id: String,
    /// The share of seeds that succeeded, 0..=1.
    pub success: f64,
    /// The mean credit over seeds, 0..=1: what the score takes.
    pub credit: f64,
    /// Mean progress, 0..=100.
    pub progress: f64,
    /// Mean ticks used (the limit for a run that did not succeed).
    pub ticks: f64,
    /// Deaths, in all.
    pub deaths: u64,
    /// Actions refused (by the agent's own check or the server), mean per run.
    pub refused: f64,
    /// Model tokens, mean per run.
    pub tokens: f64,
    /// The rest are totals over the seeds.
    pub model_decisions: u64,
    pub fallbacks: BTreeMap<String, u64>,
    pub invalid: u64,
    /// `null` when no model answered.
    pub latency_ms: Option<Latency>,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cached_tokens: u64,
    /// One a seed, in the order of the seeds.
    pub layout_hashes: Vec<String>,
}

/// Crafter's score of success rates given as shares (0..=1): the geometric mean of `1 + s` in
/// percent, less 1. 0 when nothing succeeds, 100 when everything does.
pub fn crafter(successes: &[f64]) -> f64 {
    if successes.is_empty() {
        return 0.0;
    }
    let mean = successes
        .iter()
        .map(|s| (1.0 + 100.0 * s).ln())
        .sum::<f64>()
        / successes.len() as f64;
    // exp(ln 101) is 101 and a hair: the score stays on its scale.
    (mean.exp() - 1.0).clamp(0.0, 100.0)
}

/// The per-task scores, in task order.
pub fn by_task(tasks: &[String], runs: &[Run]) -> Vec<TaskScore> {
    tasks
        .iter()
        .map(|id| {
            let mine: Vec<&Run> = runs.iter().filter(|r| &r.task == id).collect();
            let n = mine.len().max(1) as f64;
            let mean = |f: &dyn Fn(&Run) -> f64| mine.iter().map(|r| f(r)).sum::<f64>() / n;
            let total = |f: &dyn Fn(&Run) -> u64| mine.iter().map(|r| f(r)).sum::<u64>();
            let mut fallbacks = BTreeMap::new();
            for (why, count) in mine.iter().flat_map(|r| &r.fallbacks) {
                *fallbacks.entry(why.clone()).or_default() += count;
            }
            let mut latencies: Vec<u64> =
                mine.iter().flat_map(|r| r.latencies_ms.clone()).collect();
            latencies.sort_unstable();
            let latency_ms = percentile(&latencies, 50).map(|p50| Latency {
                p50,
                p95: percentile(&latencies, 95).unwrap_or(p50),
            });
            TaskScore {
                id: id.clone(),
                success: mean(&|r| f64::from(u8::from(r.success))),
                credit: mean(&|r| r.credit),
                progress: mean(&|r| r.progress),
                ticks: mean(&|r| r.ticks as f64),
                deaths: mine.iter().map(|r| r.deaths).sum(),
                refused: mean(&|r| r.refused as f64),
                tokens: mean(&|r| r.tokens as f64),
                model_decisions: total(&|r| r.model_decisions),
                fallbacks,
                invalid: total(&|r| r.invalid),
                latency_ms,
                tokens_in: total(&|r| r.tokens_in),
                tokens_out: total(&|r| r.tokens_out),
                cached_tokens: total(&|r| r.cached_tokens),
                layout_hashes: mine.iter().map(|r| r.layout_hash.clone()).collect(),
            }
        })
        .collect()
}

/// Mean progress over the tasks (0..=100): partial credit, beside the score's successes.
pub fn mean_progress(scores: &[TaskScore]) -> f64 {
    if scores.is_empty() {
        return 0.0;
    }
    let mean = scores.iter().map(|t| t.progress).sum::<f64>() / scores.len() as f64;
    (mean * 10.0).round() / 10.0
}

/// The score over all seeds, and a 95% interval from the spread of each seed's own score (a
/// normal approximation; one seed has no spread, so its interval is the score itself).
pub fn overall(tasks: &[String], seeds: &[u64], runs: &[Run]) -> (f64, [f64; 2]) {
    let scores = by_task(tasks, runs);
    let score = crafter(&scores.iter().map(|t| t.credit).collect::<Vec<_>>());
    let per_seed: Vec<f64> = seeds
        .iter()
        .map(|seed| {
            let successes: Vec<f64> = tasks
                .iter()
                .map(|id| {
                    runs.iter()
                        .find(|r| &r.task == id && r.seed == *seed)
                        .map_or(0.0, |r| r.credit)
                })
                .collect();
            crafter(&successes)
        })
        .collect();
    if per_seed.len() < 2 {
        return (score, [score, score]);
    }
    let n = per_seed.len() as f64;
    let mean = per_seed.iter().sum::<f64>() / n;
    let variance = per_seed.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let half = 1.96 * (variance / n).sqrt();
    (score, [(score - half).max(0.0), (score + half).min(100.0)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crafter_s_score_is_0_for_nothing_100_for_everything_and_favours_breadth() {
        assert_eq!(crafter(&[0.0, 0.0]), 0.0);
        assert!((crafter(&[1.0, 1.0]) - 100.0).abs() < 1e-9);
        // Half of the tasks always scores less than all of the tasks half the time.
        assert!(crafter(&[1.0, 0.0]) < crafter(&[0.5, 0.5]));
        assert!((crafter(&[1.0, 0.0]) - (101f64.sqrt() - 1.0)).abs() < 1e-9);
    }

    fn run(task: &str, seed: u64, success: bool) -> Run {
        Run {
            task: task.into(),
            seed,
            success,
            progress: if success { 100.0 } else { 40.0 },
            credit: if success { 1.0 } else { 0.0 },
            ticks: 10,
            deaths: 0,
            refused: 1,
            tokens: 0,
            model_decisions: 3,
            fallbacks: BTreeMap::from([("malformed".to_owned(), 2)]),
            invalid: 2,
            tokens_in: 100,
            tokens_out: 10,
            cached_tokens: 50,
            layout_hash: format!("layout-{seed}"),
            latencies_ms: vec![seed * 10, seed * 100],
        }
    }

    #[test]
    fn tasks_are_scored_over_seeds_with_an_interval() {
        let tasks = vec!["a".to_owned(), "b".to_owned()];
        let runs = vec![
            run("a", 1, true),
            run("a", 2, true),
            run("b", 1, true),
            run("b", 2, false),
        ];
        let scores = by_task(&tasks, &runs);
        assert_eq!(scores[0].success, 1.0);
        assert_eq!(scores[1].success, 0.5);
        assert_eq!(scores[1].progress, 70.0);
        assert_eq!(mean_progress(&scores), 85.0);
        // Totals over the seeds, one layout a seed, latency over every answer.
        assert_eq!(scores[0].model_decisions, 6);
        assert_eq!(scores[0].fallbacks["malformed"], 4);
        assert_eq!(scores[0].invalid, 4);
        assert_eq!(
            (
                scores[0].tokens_in,
                scores[0].tokens_out,
                scores[0].cached_tokens
            ),
            (200, 20, 100)
        );
        assert_eq!(scores[0].layout_hashes, ["layout-1", "layout-2"]);
        assert_eq!(scores[0].latency_ms, Some(Latency { p50: 20, p95: 200 }));
        let (score, [lo, hi]) = overall(&tasks, &[1, 2], &runs);
        assert!((score - crafter(&[1.0, 0.5])).abs() < 1e-9);
        assert!(lo <= score && score <= hi && lo < hi);
        let (one, interval) = overall(&tasks, &[1], &runs);
        assert_eq!(interval, [one, one]);
    }
}
