//! Recording a model's answers and playing them back (`wayfarer bench-agents --record DIR` /
//! `--replay DIR`): each answer is kept in `DIR/<hash>.json` under a hash of the prompt that got
//! it, so a recorded run plays again without a key, a network or a bill, and gives the same
//! result while the prompts are the same (the bench is deterministic: same seed, same prompts,
//! and prompts name entities by aliases stable within an episode, never by database ids).
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

/// Where answers are kept, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tape {
    pub dir: PathBuf,
    pub mode: TapeMode,
}

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
    fn path(&self, hash: &str) -> PathBuf {
        self.dir.join(format!("{hash}.json"))
    }

    /// The kept answer to `prompt`, if any.
    pub fn load(&self, prompt: &Prompt) -> Option<Answer> {
        let text = std::fs::read_to_string(self.path(&prompt_hash(prompt))).ok()?;
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

    /// Keeps the answer to `prompt` (a failure to write is logged: the run goes on).
    pub fn save(&self, prompt: &Prompt, answer: &Answer) {
        let value = match &answer.result {
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
        self.write(&format!("{}.json", prompt_hash(prompt)), &value);
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
        let tape = Tape {
            dir: dir.path().join("tape"),
            mode: TapeMode::Record,
        };
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
        assert_eq!(tape.load(&prompt("a")), Some(answer));
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
        assert_eq!(prompt_hash(&prompt("a")), prompt_hash(&prompt("a")));
        assert_ne!(prompt_hash(&prompt("a")), prompt_hash(&prompt("b")));
    }
}
