//! Recording a model's answers and playing them back (`wayfarer bench-agents --record DIR` /
//! `--replay DIR`): each answer is kept in `DIR/<hash>.json` under a hash of the prompt that got
//! it, so a recorded run plays again without a key, a network or a bill, and gives the same
//! result while the prompts are the same (the bench is deterministic: same seed, same prompts).

use std::path::PathBuf;

use serde_json::{json, Value};

use super::llm::{Prompt, ToolCall, Usage};

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
    pub fn load(&self, prompt: &Prompt) -> Option<(ToolCall, Usage)> {
        let text = std::fs::read_to_string(self.path(&prompt_hash(prompt))).ok()?;
        let value: Value = serde_json::from_str(&text).ok()?;
        let call = ToolCall {
            name: value["name"].as_str()?.to_owned(),
            arguments: value["arguments"].clone(),
        };
        let usage = Usage {
            input: value["inputTokens"].as_u64().unwrap_or(0),
            output: value["outputTokens"].as_u64().unwrap_or(0),
        };
        Some((call, usage))
    }

    /// Keeps the answer to `prompt` (a failure to write is logged: the run goes on).
    pub fn save(&self, prompt: &Prompt, call: &ToolCall, usage: Usage) {
        let value = json!({
            "name": call.name,
            "arguments": call.arguments,
            "inputTokens": usage.input,
            "outputTokens": usage.output,
        });
        let written = std::fs::create_dir_all(&self.dir)
            .and_then(|()| std::fs::write(self.path(&prompt_hash(prompt)), value.to_string()));
        if let Err(e) = written {
            tracing::warn!(dir = %self.dir.display(), error = %e, "a model answer was not recorded");
        }
    }
}

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
        tape.save(
            &prompt("a"),
            &call,
            Usage {
                input: 120,
                output: 7,
            },
        );
        let (again, usage) = tape.load(&prompt("a")).expect("kept");
        assert_eq!(again.name, "idle");
        assert_eq!(again.arguments, json!({"ticks": 5}));
        assert_eq!(
            usage,
            Usage {
                input: 120,
                output: 7
            }
        );
        assert!(tape.load(&prompt("b")).is_none());
        assert_eq!(prompt_hash(&prompt("a")), prompt_hash(&prompt("a")));
        assert_ne!(prompt_hash(&prompt("a")), prompt_hash(&prompt("b")));
    }
}
