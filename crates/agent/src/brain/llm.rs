//! Language-model backends: OpenAI-compatible chat completions, Anthropic messages and
//! OpenRouter (OpenAI-compatible at its own address). One tool, `act` (`brain::prompt::act_tool`),
//! the same every step so providers' prefix caching applies; the model must answer with one call
//! of it, naming an action of the table and its parameters.

use std::time::Duration;

use serde_json::{json, Value};

use crate::http::{Http, Request};

/// Which API a key belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    OpenAi,
    Anthropic,
    OpenRouter,
}

/// The three key variables, in the order they are looked for.
pub const KEY_VARIABLES: [&str; 3] = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY"];

impl Provider {
    /// The provider's key variable, base-URL variable and default address and model.
    fn defaults(self) -> (&'static str, &'static str, &'static str, &'static str) {
        match self {
            Provider::OpenAi => (
                "OPENAI_API_KEY",
                "OPENAI_BASE_URL",
                "https://api.openai.com/v1",
                "gpt-4o-mini",
            ),
            Provider::Anthropic => (
                "ANTHROPIC_API_KEY",
                "ANTHROPIC_BASE_URL",
                "https://api.anthropic.com",
                "claude-3-5-haiku-latest",
            ),
            Provider::OpenRouter => (
                "OPENROUTER_API_KEY",
                "OPENROUTER_BASE_URL",
                "https://openrouter.ai/api/v1",
                "openai/gpt-4o-mini",
            ),
        }
    }

    /// Its name in logs and the status.
    pub fn name(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
            Provider::OpenRouter => "openrouter",
        }
    }
}

/// How to reach a model and how much it may cost.
#[derive(Debug, Clone)]
pub struct LlmConfig {
    pub provider: Provider,
    pub api_key: String,
    pub base_url: String,
    pub model: String,
    /// Longest wait for one answer; a later answer is dropped.
    pub timeout: Duration,
    pub calls_per_minute: u32,
    pub tokens_per_hour: u64,
    /// Failures in a row that open the circuit breaker, and how long it stays open.
    pub breaker_failures: u32,
    pub breaker_open: Duration,
    /// Answers recorded or played back by prompt hash (`brain::tape`); `None`: always ask.
    pub tape: Option<super::tape::Tape>,
    /// Sampling sent to the provider; `None`: the provider's default (Anthropic's `max_tokens`,
    /// which it requires, is then [`DEFAULT_ANTHROPIC_MAX_TOKENS`]).
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    /// What plays a step the model could not serve.
    pub fallback: super::Fallback,
}

/// Default longest wait for an answer.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(15);
/// Default calls a minute.
pub const DEFAULT_CALLS_PER_MINUTE: u32 = 20;
/// Default tokens an hour.
pub const DEFAULT_TOKENS_PER_HOUR: u64 = 200_000;
/// Default failures in a row before the breaker opens.
pub const DEFAULT_BREAKER_FAILURES: u32 = 3;
/// Default time the breaker stays open.
pub const DEFAULT_BREAKER_OPEN: Duration = Duration::from_secs(60);
/// Anthropic's `max_tokens` when none is set (its API requires one).
pub const DEFAULT_ANTHROPIC_MAX_TOKENS: u32 = 512;

impl LlmConfig {
    /// The first provider whose key is set in `lookup` (OpenAI, then Anthropic, then OpenRouter),
    /// with its base URL variable or default, and `model` or the provider's default.
    pub fn from_lookup(
        lookup: impl Fn(&str) -> Option<String>,
        model: Option<String>,
    ) -> Option<LlmConfig> {
        [Provider::OpenAi, Provider::Anthropic, Provider::OpenRouter]
            .into_iter()
            .find_map(|provider| {
                let (key_var, url_var, url, default_model) = provider.defaults();
                let key = lookup(key_var).filter(|k| !k.trim().is_empty())?;
                Some(LlmConfig {
                    provider,
                    api_key: key,
                    base_url: lookup(url_var)
                        .filter(|u| !u.trim().is_empty())
                        .unwrap_or_else(|| url.to_owned())
                        .trim_end_matches('/')
                        .to_owned(),
                    model: model.clone().unwrap_or_else(|| default_model.to_owned()),
                    timeout: DEFAULT_TIMEOUT,
                    calls_per_minute: DEFAULT_CALLS_PER_MINUTE,
                    tokens_per_hour: DEFAULT_TOKENS_PER_HOUR,
                    breaker_failures: DEFAULT_BREAKER_FAILURES,
                    breaker_open: DEFAULT_BREAKER_OPEN,
                    tape: None,
                    temperature: None,
                    max_tokens: None,
                    fallback: super::Fallback::Planner,
                })
            })
    }

    /// From the process environment.
    pub fn from_env(model: Option<String>) -> Option<LlmConfig> {
        LlmConfig::from_lookup(|k| std::env::var(k).ok(), model)
    }
}

/// The model's choice: one action and its parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub name: String,
    pub arguments: Value,
}

/// Tokens one call used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    /// Of `input`, read from the provider's prompt cache.
    pub cached: u64,
}

/// One call's result and how long it took (recorded with it on a tape, so a replay reports the
/// recorded run's latency).
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub result: Result<(ToolCall, Usage), LlmFailure>,
    pub latency_ms: u64,
}

/// Why a call gave no usable action (each is counted as a fallback to the planner).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LlmFailure {
    Timeout,
    /// The API answered with an error status.
    Status(u16),
    /// The answer had no tool call, or its arguments were not a JSON object.
    Malformed(String),
    /// The tool named is not one offered, or the action table refused its arguments.
    Refused(String),
    /// The request did not reach the API.
    Transport(String),
    BudgetExhausted,
    CircuitOpen,
    /// Playing back a recording that has no answer for this prompt.
    ReplayMiss,
}

impl LlmFailure {
    /// Its detail text ("" for the kinds that have none).
    pub fn detail(&self) -> String {
        match self {
            LlmFailure::Status(code) => code.to_string(),
            LlmFailure::Malformed(d) | LlmFailure::Refused(d) | LlmFailure::Transport(d) => {
                d.clone()
            }
            _ => String::new(),
        }
    }

    /// The failure of this [`LlmFailure::kind`] and detail (as a tape keeps it).
    pub fn from_kind(kind: &str, detail: &str) -> Option<LlmFailure> {
        Some(match kind {
            "timeout" => LlmFailure::Timeout,
            "http_error" => LlmFailure::Status(detail.parse().ok()?),
            "malformed" => LlmFailure::Malformed(detail.to_owned()),
            "refused" => LlmFailure::Refused(detail.to_owned()),
            "transport" => LlmFailure::Transport(detail.to_owned()),
            "budget_exhausted" => LlmFailure::BudgetExhausted,
            "circuit_open" => LlmFailure::CircuitOpen,
            "replay_miss" => LlmFailure::ReplayMiss,
            _ => return None,
        })
    }
}

impl LlmFailure {
    /// The counter name.
    pub fn kind(&self) -> &'static str {
        match self {
            LlmFailure::Timeout => "timeout",
            LlmFailure::Status(_) => "http_error",
            LlmFailure::Malformed(_) => "malformed",
            LlmFailure::Refused(_) => "refused",
            LlmFailure::Transport(_) => "transport",
            LlmFailure::BudgetExhausted => "budget_exhausted",
            LlmFailure::CircuitOpen => "circuit_open",
            LlmFailure::ReplayMiss => "replay_miss",
        }
    }
}

/// A prompt: what the agent sees and the one tool it calls.
pub struct Prompt {
    pub system: String,
    pub user: String,
    /// `{"name", "description", "parameters"}` (`brain::prompt::act_tool`).
    pub tool: &'static Value,
}

/// The action an `act` call names, with its parameters; any other tool name, or an `act` without
/// an action name, is malformed.
pub fn unwrap_act(call: ToolCall) -> Result<ToolCall, LlmFailure> {
    if call.name != super::prompt::TOOL_NAME {
        return Err(LlmFailure::Malformed(format!(
            "the tool is act, not {}",
            call.name
        )));
    }
    let action = call
        .arguments
        .get("action")
        .and_then(Value::as_str)
        .ok_or_else(|| LlmFailure::Malformed("act without an action".into()))?;
    let params = match call.arguments.get("params") {
        None | Some(Value::Null) => json!({}),
        Some(p) if p.is_object() => p.clone(),
        Some(_) => {
            return Err(LlmFailure::Malformed(
                "act's params are not an object".into(),
            ))
        }
    };
    Ok(ToolCall {
        name: action.to_owned(),
        arguments: params,
    })
}

/// Asks the model once, within the configured timeout. A tape records every answer, a failure
/// included, with its latency, and plays them back so: a replay is the recorded run.
pub async fn ask(http: &Http, config: &LlmConfig, prompt: &Prompt) -> Answer {
    use super::tape::TapeMode;
    // Which asking of this prompt this is: a tape keeps each apart (`brain::tape`).
    let asking = config.tape.as_ref().map_or(1, |t| t.next_asking(prompt));
    if let Some(tape) = config.tape.as_ref().filter(|t| t.mode == TapeMode::Replay) {
        return tape.load_or_warn(prompt, asking).unwrap_or(Answer {
            result: Err(LlmFailure::ReplayMiss),
            latency_ms: 0,
        });
    }
    let asked = std::time::Instant::now();
    let result = match tokio::time::timeout(config.timeout, request(http, config, prompt)).await {
        Ok(result) => result.and_then(|(call, usage)| Ok((unwrap_act(call)?, usage))),
        Err(_) => Err(LlmFailure::Timeout),
    };
    let answer = Answer {
        result,
        latency_ms: u64::try_from(asked.elapsed().as_millis()).unwrap_or(u64::MAX),
    };
    if let Some(tape) = &config.tape {
        tape.save_nth(prompt, asking, &answer);
    }
    answer
}

/// The two request formats: OpenAI's chat completions (OpenAI and OpenRouter, and any
/// OpenAI-compatible address) and Anthropic's messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WireFormat {
    ChatCompletions,
    Messages,
}

impl Provider {
    /// The format its API speaks: OpenRouter is OpenAI-compatible, so the two share one path.
    fn format(self) -> WireFormat {
        match self {
            Provider::OpenAi | Provider::OpenRouter => WireFormat::ChatCompletions,
            Provider::Anthropic => WireFormat::Messages,
        }
    }
}

async fn request(
    http: &Http,
    config: &LlmConfig,
    prompt: &Prompt,
) -> Result<(ToolCall, Usage), LlmFailure> {
    let format = config.provider.format();
    let (url, body, builder) = match format {
        WireFormat::ChatCompletions => chat_completions_request(config, prompt),
        WireFormat::Messages => messages_request(config, prompt),
    };
    let response = http
        .send(builder.json(&body))
        .await
        .map_err(|e| LlmFailure::Transport(format!("{url}: {e}")))?;
    if !response.is_success() {
        return Err(LlmFailure::Status(response.status));
    }
    let answer: Value = serde_json::from_slice(&response.body)
        .map_err(|e| LlmFailure::Malformed(format!("not JSON: {e}")))?;
    match format {
        WireFormat::ChatCompletions => read_openai(&answer),
        WireFormat::Messages => read_anthropic(&answer),
    }
}

/// A chat-completions request: its address, body and authorised builder.
fn chat_completions_request(config: &LlmConfig, prompt: &Prompt) -> (String, Value, Request) {
    let tools = json!([{"type": "function", "function": prompt.tool}]);
    let url = format!("{}/chat/completions", config.base_url);
    let body = json!({
        "model": config.model,
        "messages": [
            {"role": "system", "content": prompt.system},
            {"role": "user", "content": prompt.user},
        ],
        "tools": tools,
        "tool_choice": "required",
    });
    let mut body = body;
    if let Some(t) = config.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(n) = config.max_tokens {
        body["max_tokens"] = json!(n);
    }
    let builder = Request::post(&url).bearer_auth(&config.api_key);
    (url, body, builder)
}

/// An Anthropic messages request: its address, body and authorised builder. Anthropic caches
/// only what a request marks: the system block carries `cache_control`, which caches the prefix
/// up to it (the tool, then the system text: the same bytes every step), so each step pays full
/// price only for the user message (the answer's `cache_read_input_tokens`).
fn messages_request(config: &LlmConfig, prompt: &Prompt) -> (String, Value, Request) {
    let tools = json!([{"name": prompt.tool["name"], "description": prompt.tool["description"], "input_schema": prompt.tool["parameters"]}]);
    let url = format!("{}/v1/messages", config.base_url);
    let body = json!({
        "model": config.model,
        "max_tokens": config.max_tokens.unwrap_or(DEFAULT_ANTHROPIC_MAX_TOKENS),
        "system": [{"type": "text", "text": prompt.system, "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": prompt.user}],
        "tools": tools,
        "tool_choice": {"type": "any"},
    });
    let mut body = body;
    if let Some(t) = config.temperature {
        body["temperature"] = json!(t);
    }
    let builder = Request::post(&url)
        .header("x-api-key", &config.api_key)
        .header("anthropic-version", "2023-06-01");
    (url, body, builder)
}

/// The tool call of a chat-completions answer.
pub fn read_openai(answer: &Value) -> Result<(ToolCall, Usage), LlmFailure> {
    let call = answer
        .pointer("/choices/0/message/tool_calls/0/function")
        .ok_or_else(|| LlmFailure::Malformed("no tool call in the answer".into()))?;
    let name = call
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| LlmFailure::Malformed("a tool call without a name".into()))?;
    // Arguments come as a JSON text; a model may also send the object itself.
    let arguments = match call.get("arguments") {
        Some(Value::String(text)) if text.trim().is_empty() => json!({}),
        Some(Value::String(text)) => serde_json::from_str(text)
            .map_err(|e| LlmFailure::Malformed(format!("arguments are not JSON: {e}")))?,
        Some(other) => other.clone(),
        None => json!({}),
    };
    called(
        answer,
        name,
        arguments,
        "arguments are not an object",
        [
            "/usage/prompt_tokens",
            "/usage/completion_tokens",
            "/usage/prompt_tokens_details/cached_tokens",
        ],
    )
}

/// The tool use of an Anthropic messages answer.
pub fn read_anthropic(answer: &Value) -> Result<(ToolCall, Usage), LlmFailure> {
    let block = answer
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
        .ok_or_else(|| LlmFailure::Malformed("no tool_use block in the answer".into()))?;
    let name = block
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| LlmFailure::Malformed("a tool_use without a name".into()))?;
    let arguments = block.get("input").cloned().unwrap_or_else(|| json!({}));
    let (call, mut usage) = called(
        answer,
        name,
        arguments,
        "input is not an object",
        [
            "/usage/input_tokens",
            "/usage/output_tokens",
            "/usage/cache_read_input_tokens",
        ],
    )?;
    // Anthropic counts the tokens read from and written to its cache apart from input_tokens.
    let written = answer
        .pointer("/usage/cache_creation_input_tokens")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    usage.input += usage.cached + written;
    Ok((call, usage))
}

/// The call a reader found, checked (its arguments must be an object, else `not_object`), with
/// the answer's token counts at the provider's `tokens` pointers (input, output, cached).
fn called(
    answer: &Value,
    name: &str,
    arguments: Value,
    not_object: &str,
    tokens: [&str; 3],
) -> Result<(ToolCall, Usage), LlmFailure> {
    if !arguments.is_object() {
        return Err(LlmFailure::Malformed(not_object.into()));
    }
    let count = |pointer: &str| answer.pointer(pointer).and_then(Value::as_u64).unwrap_or(0);
    Ok((
        ToolCall {
            name: name.to_owned(),
            arguments,
        },
        Usage {
            input: count(tokens[0]),
            output: count(tokens[1]),
            cached: count(tokens[2]),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_key_set_chooses_the_provider_and_its_base_url() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        assert!(LlmConfig::from_lookup(env(&[]), None).is_none());
        let c = LlmConfig::from_lookup(
            env(&[
                ("ANTHROPIC_API_KEY", "a"),
                ("ANTHROPIC_BASE_URL", "http://x/"),
            ]),
            Some("m".into()),
        )
        .unwrap();
        assert_eq!(
            (c.provider, c.base_url.as_str(), c.model.as_str()),
            (Provider::Anthropic, "http://x", "m")
        );
        let c = LlmConfig::from_lookup(
            env(&[("OPENROUTER_API_KEY", "k"), ("OPENAI_API_KEY", "")]),
            None,
        )
        .unwrap();
        assert_eq!(c.provider, Provider::OpenRouter);
        assert_eq!(c.base_url, "https://openrouter.ai/api/v1");
    }

    #[test]
    fn answers_are_read_or_called_malformed() {
        let ok = json!({"choices": [{"message": {"tool_calls": [{"function": {"name": "chopTree", "arguments": "{\"targetId\":\"res-1\"}"}}]}}], "usage": {"prompt_tokens": 10, "completion_tokens": 2}});
        let (call, usage) = read_openai(&ok).unwrap();
        assert_eq!(call.name, "chopTree");
        assert_eq!(call.arguments, json!({"targetId": "res-1"}));
        assert_eq!(
            usage,
            Usage {
                input: 10,
                output: 2,
                cached: 0
            }
        );
        let text_only = json!({"choices": [{"message": {"content": "I would chop a tree"}}]});
        assert!(matches!(
            read_openai(&text_only),
            Err(LlmFailure::Malformed(_))
        ));
        let bad_args = json!({"choices": [{"message": {"tool_calls": [{"function": {"name": "x", "arguments": "{oops"}}]}}]});
        assert!(matches!(
            read_openai(&bad_args),
            Err(LlmFailure::Malformed(_))
        ));
        let anthropic = json!({"content": [{"type": "text", "text": "ok"}, {"type": "tool_use", "name": "idle", "input": {}}], "usage": {"input_tokens": 5, "output_tokens": 1}});
        assert_eq!(read_anthropic(&anthropic).unwrap().0.name, "idle");
    }

    /// Both providers' cache figures are read: OpenAI's `prompt_tokens_details.cached_tokens`
    /// (part of `prompt_tokens`), Anthropic's `cache_read_input_tokens` (apart from its
    /// `input_tokens`, as are the tokens written to the cache: all three are the input).
    #[test]
    fn cached_tokens_are_read_from_both_providers_usage() {
        let call = |usage: Value| json!({"choices": [{"message": {"tool_calls": [{"function": {"name": "act", "arguments": "{}"}}]}}], "usage": usage});
        let (_, usage) = read_openai(&call(json!({"prompt_tokens": 1200, "completion_tokens": 9, "prompt_tokens_details": {"cached_tokens": 1024}}))).unwrap();
        assert_eq!((usage.input, usage.output, usage.cached), (1200, 9, 1024));
        let anthropic = json!({"content": [{"type": "tool_use", "name": "act", "input": {}}], "usage": {"input_tokens": 180, "output_tokens": 9, "cache_read_input_tokens": 1100, "cache_creation_input_tokens": 0}});
        let (_, usage) = read_anthropic(&anthropic).unwrap();
        assert_eq!((usage.input, usage.output, usage.cached), (1280, 9, 1100));
    }

    /// An Anthropic request marks its stable prefix (the tool and the system text) for the
    /// provider's cache; a chat-completions request needs no mark (OpenAI caches any prefix of
    /// 1,024 tokens or more by itself) and carries none.
    #[test]
    fn an_anthropic_request_marks_the_system_text_for_the_cache() {
        let mut config =
            LlmConfig::from_lookup(|k| (k == "ANTHROPIC_API_KEY").then(|| "k".to_owned()), None)
                .unwrap();
        let prompt = Prompt {
            system: "the rules".into(),
            user: "the state".into(),
            tool: crate::brain::prompt::act_tool(),
        };
        let (_, body, _) = messages_request(&config, &prompt);
        assert_eq!(
            body["system"],
            json!([{"type": "text", "text": "the rules", "cache_control": {"type": "ephemeral"}}])
        );
        assert_eq!(body["messages"][0]["content"], "the state");
        config.provider = Provider::OpenAi;
        let (_, body, _) = chat_completions_request(&config, &prompt);
        assert_eq!(body["messages"][0]["content"], "the rules");
        assert!(!body.to_string().contains("cache_control"));
    }
}
