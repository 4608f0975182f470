//! Recording a model's answers and playing them back (`wayfarer bench-agents --record DIR` /
//! `--replay DIR`): each answer is kept in `DIR/<hash>.json` under a hash of the prompt that got
//! it, so a recorded run plays again without a key, a network or a bill, and gives the same
//! result while the prompts are the same (the bench is deterministic: same seed, same prompts,
//! and prompts name entities by aliases stable within an episode, never by database ids).
//!
//! A run may ask the same prompt more than once (an agent waiting in place sees the same state
//! step after step) and get different answers: a sampled model's, or a timeout then an answer (a
//! timeout is the wall clock's, and a loaded machine makes one where an idle one does not). So
//! each asking is kept apart: the `n`th time a tape is asked a prompt, its answer is
//! `DIR/<hash>-<n>.json` (the first keeps `DIR/<hash>.json`), and a replay, asking the same
//! prompts in the same order, plays each the answer it got (kept only by the last asking, a
//! timeout recorded and then overwritten by the answer to the same prompt sent the replay down
//! another path: every later prompt missed). An `n`th asking the recording lacks plays the first
//! answer (a recording made before answers were kept apart).
//! Failures are kept too (a malformed answer, an HTTP error, a timeout), and every answer's
//! latency, so a replay counts the same fallbacks and reports the same latencies; `model.json`
//! keeps the model that answered (provider, name, address, sampling, fallback), which a replay
//! reports as its own.

use std::path::PathBuf;

use serde_json::{json, Value};

use super::llm::{Answer, LlmFailure, Prompt, ToolCall, Usage};

/// Whether answers are written or read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TapeMode {
    /// Ask the model and keep each answer.
    Record,
    /// Never ask: answer from what was kept (a prompt not kept is a `replay_miss`).
    Replay,
}

/// Where answers are kept, and how. Clones share the count of askings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tape {
    pub dir: PathBuf,
    pub mode: TapeMode,
    /// How many times each prompt (by hash) was asked of this tape so far.
    pub asked: Asked,
}

/// The askings of each prompt a tape has seen (shared by its clones; any two are equal: it is a
/// tape's state, not what it is).
#[derive(Debug, Clone, Default)]
pub struct Asked(std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, u32>>>);

impl PartialEq for Asked {
    fn eq(&self, _: &Asked) -> bool {
        true
    }
}

impl Eq for Asked {}

/// The prompt's hash: FNV-1a (64 bits) over the system text, the user message and the tool's
/// definition, in hex. Stable across builds and machines (no random state), which is all it needs.
pub fn prompt_hash(prompt: &Prompt) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for b in bytes {
            hash ^= u64::from(*b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        // A separator, so ("ab", "c") and ("a", "bc") differ.
        hash ^= 0xff;
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    };
    feed(prompt.system.as_bytes());
    feed(prompt.user.as_bytes());
    feed(prompt.tool.to_string().as_bytes());
    format!("{hash:016x}")
}

impl Tape {
    /// A tape in `dir`, nothing asked yet.
    pub fn new(dir: PathBuf, mode: TapeMode) -> Tape {
        Tape {
            dir,
            mode,
            asked: Asked::default(),
        }
    }

    /// The file of the `n`th asking of the prompt of `hash`.
    fn file(hash: &str, n: u32) -> String {
        if n <= 1 {
            format!("{hash}.json")
        } else {
            format!("{hash}-{n}.json")
        }
    }

    /// Counts an asking of `prompt`: which one it is (1 the first).
    pub fn next_asking(&self, prompt: &Prompt) -> u32 {
        let mut asked = self.asked.0.lock().unwrap_or_else(|p| p.into_inner());
        let n = asked.entry(prompt_hash(prompt)).or_default();
        *n += 1;
        *n
    }

    /// The kept answer to the first asking of `prompt`, if any.
    pub fn load(&self, prompt: &Prompt) -> Option<Answer> {
        self.load_nth(prompt, 1)
    }

    /// The kept answer to the `n`th asking of `prompt` (the first's when that one was not kept).
    pub fn load_nth(&self, prompt: &Prompt, n: u32) -> Option<Answer> {
        let hash = prompt_hash(prompt);
        let text = std::fs::read_to_string(self.dir.join(Tape::file(&hash, n)))
            .or_else(|_| std::fs::read_to_string(self.dir.join(Tape::file(&hash, 1))))
            .ok()?;
        let value: Value = serde_json::from_str(&text).ok()?;
        let latency_ms = value["latencyMs"].as_u64().unwrap_or(0);
        if let Some(kind) = value["failure"].as_str() {
            let detail = value["detail"].as_str().unwrap_or_default();
            return Some(Answer {
                result: Err(LlmFailure::from_kind(kind, detail)?),
                latency_ms,
            });
        }
        let call = ToolCall {
            name: value["name"].as_str()?.to_owned(),
            arguments: value["arguments"].clone(),
        };
        let usage = Usage {
            input: value["inputTokens"].as_u64().unwrap_or(0),
            output: value["outputTokens"].as_u64().unwrap_or(0),
            cached: value["cachedTokens"].as_u64().unwrap_or(0),
        };
        Some(Answer {
            result: Ok((call, usage)),
            latency_ms,
        })
    }

    /// The kept answer to `prompt`, or `None` after a warning that says which prompt missed: its
    /// hash and, against the recorded prompt nearest to it (the most lines in common), the first
    /// line that differs, so a replay that strays from its recording shows where at once.
    pub fn load_or_warn(&self, prompt: &Prompt, n: u32) -> Option<Answer> {
        let answer = self.load_nth(prompt, n);
        if answer.is_none() {
            let hash = prompt_hash(prompt);
            match self.nearest_difference(prompt) {
                Some((nearest, recorded, replayed)) => tracing::warn!(
                    prompt = %hash,
                    nearest = %nearest,
                    recorded = %recorded,
                    replayed = %replayed,
                    "replay miss: no recorded answer for this prompt; the first line that differs from the nearest recorded prompt"
                ),
                None => {
                    tracing::warn!(prompt = %hash, dir = %self.dir.display(), "replay miss: no recorded answer for this prompt")
                }
            }
        }
        answer
    }

    /// The recorded prompt nearest to `prompt` (the most user-message lines in common, then the
    /// first in name order) and the first line where they differ: `(its hash, its line, ours)`
    /// (`<none>` past a text's end).
    pub fn nearest_difference(&self, prompt: &Prompt) -> Option<(String, String, String)> {
        let ours: Vec<&str> = prompt.user.lines().collect();
        let mut files: Vec<PathBuf> = std::fs::read_dir(&self.dir)
            .ok()?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        let mut best: Option<(usize, String, String)> = None;
        for path in files {
            let Some(user) = std::fs::read_to_string(&path)
                .ok()
                .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                .and_then(|v| v["user"].as_str().map(str::to_owned))
            else {
                continue;
            };
            let common = user.lines().filter(|l| ours.contains(l)).count();
            if best.as_ref().is_none_or(|(n, _, _)| common > *n) {
                let hash = path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                best = Some((common, hash, user));
            }
        }
        let (_, hash, user) = best?;
        let theirs: Vec<&str> = user.lines().collect();
        let n = (0..ours.len().max(theirs.len()))
            .find(|&i| ours.get(i) != theirs.get(i))
            .unwrap_or(0);
        let at = |lines: &[&str]| {
            lines
                .get(n)
                .map_or("<none>".to_owned(), |l| (*l).to_owned())
        };
        Some((hash, at(&theirs), at(&ours)))
    }

    /// Keeps the answer to the first asking of `prompt`.
    pub fn save(&self, prompt: &Prompt, answer: &Answer) {
        self.save_nth(prompt, 1, answer);
    }

    /// Keeps the answer to the `n`th asking of `prompt` (a failure to write is logged: the run
    /// goes on), with the prompt's user message (read back only to explain a replay's miss).
    pub fn save_nth(&self, prompt: &Prompt, n: u32, answer: &Answer) {
        let mut value = match &answer.result {
            Ok((call, usage)) => json!({
                "name": call.name,
                "arguments": call.arguments,
                "inputTokens": usage.input,
                "outputTokens": usage.output,
                "cachedTokens": usage.cached,
                "latencyMs": answer.latency_ms,
            }),
            Err(failure) => json!({
                "failure": failure.kind(),
                "detail": failure.detail(),
                "latencyMs": answer.latency_ms,
            }),
        };
        value["user"] = Value::String(prompt.user.clone());
        self.write(&Tape::file(&prompt_hash(prompt), n), &value);
    }

    /// Keeps the model's description (`MODEL_FILE`) for the replay to report.
    pub fn save_model(&self, model: &Value) {
        self.write(MODEL_FILE, model);
    }

    /// The model's description kept with the recording, if any.
    pub fn load_model(&self) -> Option<Value> {
        let text = std::fs::read_to_string(self.dir.join(MODEL_FILE)).ok()?;
        serde_json::from_str(&text).ok()
    }

    fn write(&self, file: &str, value: &Value) {
        let written = std::fs::create_dir_all(&self.dir)
            .and_then(|()| std::fs::write(self.dir.join(file), value.to_string()));
        if let Err(e) = written {
            tracing::warn!(dir = %self.dir.display(), error = %e, "a model answer was not recorded");
        }
    }
}

/// The file of a recording that describes the model which answered.
pub const MODEL_FILE: &str = "model.json";

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(user: &str) -> Prompt {
        Prompt {
            system: "s".into(),
            user: user.into(),
            tool: crate::brain::prompt::act_tool(),
        }
    }

    #[test]
    fn an_answer_recorded_for_a_prompt_plays_back_for_that_prompt_only() {
        let dir = tempfile::tempdir().unwrap();
        let tape = Tape::new(dir.path().join("tape"), TapeMode::Record);
        let call = ToolCall {
            name: "idle".into(),
            arguments: json!({"ticks": 5}),
        };
        let usage = Usage {
            input: 120,
            output: 7,
            cached: 100,
        };
        let answer = Answer {
            result: Ok((call, usage)),
            latency_ms: 42,
        };
        tape.save(&prompt("a"), &answer);
        assert_eq!(tape.load(&prompt("a")), Some(answer.clone()));
        assert!(tape.load(&prompt("b")).is_none());
        // A failure plays back as the same failure, with its latency.
        let failed = Answer {
            result: Err(LlmFailure::Malformed("no tool call in the answer".into())),
            latency_ms: 7,
        };
        tape.save(&prompt("c"), &failed);
        assert_eq!(tape.load(&prompt("c")), Some(failed));
        let status = Answer {
            result: Err(LlmFailure::Status(503)),
            latency_ms: 1,
        };
        tape.save(&prompt("d"), &status);
        assert_eq!(tape.load(&prompt("d")), Some(status));
        // A miss is explained against the nearest recorded prompt: its first differing line.
        tape.save(&prompt("Goal: x\nMe: hp 9/10\nNow: idle"), &answer);
        let (nearest, recorded, replayed) = tape
            .nearest_difference(&prompt("Goal: x\nMe: hp 8/10\nNow: idle"))
            .expect("a recorded prompt");
        assert_eq!(
            nearest,
            prompt_hash(&prompt("Goal: x\nMe: hp 9/10\nNow: idle"))
        );
        assert_eq!(
            (recorded.as_str(), replayed.as_str()),
            ("Me: hp 9/10", "Me: hp 8/10")
        );
        assert!(tape
            .load_or_warn(&prompt("Goal: x\nMe: hp 8/10\nNow: idle"), 1)
            .is_none());
        assert_eq!(prompt_hash(&prompt("a")), prompt_hash(&prompt("a")));
    }

    /// The same prompt asked twice, a timeout then an answer: both kept, and played back in
    /// that order (kept by the prompt alone, the answer overwrote the timeout and the replay
    /// went another way).
    #[test]
    fn each_asking_of_a_prompt_keeps_its_own_answer() {
        let dir = tempfile::tempdir().unwrap();
        let record = Tape::new(dir.path().to_path_buf(), TapeMode::Record);
        let timeout = Answer {
            result: Err(LlmFailure::Timeout),
            latency_ms: 10_000,
        };
        let idle = Answer {
            result: Ok((
                ToolCall {
                    name: "idle".into(),
                    arguments: json!({}),
                },
                Usage::default(),
            )),
            latency_ms: 40,
        };
        let waiting = prompt("Goal: x\nNow: idle");
        let first = record.clone();
        assert_eq!(first.next_asking(&waiting), 1);
        record.save_nth(&waiting, 1, &timeout);
        assert_eq!(record.next_asking(&waiting), 2, "clones share the count");
        record.save_nth(&waiting, 2, &idle);
        assert_eq!(record.next_asking(&prompt("other")), 1);

        let replay = Tape::new(dir.path().to_path_buf(), TapeMode::Replay);
        let n = replay.next_asking(&waiting);
        assert_eq!(replay.load_or_warn(&waiting, n), Some(timeout));
        let n = replay.next_asking(&waiting);
        assert_eq!(replay.load_or_warn(&waiting, n), Some(idle));
        // An asking the recording lacks plays the first answer.
        assert!(replay
            .load_nth(&waiting, 3)
            .is_some_and(|a| a.result.is_err()));
        assert_ne!(prompt_hash(&prompt("a")), prompt_hash(&prompt("b")));
    }
}
