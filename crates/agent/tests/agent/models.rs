//! Each model backend against a mock HTTP server: a valid tool call is played, and a malformed
//! answer, a 500, a timeout and an exhausted budget each fall back to the planner, counted.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use wayfarer_agent::brain::{LlmConfig, Provider};
use wayfarer_agent::Brain;

use crate::{goal, stepped};

/// How the mock answers its n-th call: a valid tool call, a text answer with no tool call, a
/// 500, then nothing until the client gives up. Later calls are answered validly.
#[derive(Clone)]
struct Mock {
    provider: Provider,
    calls: Arc<AtomicUsize>,
    /// Requests whose stable prefix was marked for the provider's cache as its API asks:
    /// Anthropic's system block with `cache_control`; for chat completions (cached by the
    /// provider without a mark), a system message of the same text every call.
    marked: Arc<AtomicUsize>,
}

/// Whether `request` marks its prefix for `provider`'s prompt cache (see [`Mock::marked`]).
fn marks_the_prefix(provider: Provider, request: &Value) -> bool {
    match provider {
        Provider::Anthropic => {
            request["system"][0]["cache_control"] == json!({"type": "ephemeral"})
                && request["system"][0]["text"]
                    .as_str()
                    .is_some_and(|t| !t.is_empty())
        }
        _ => {
            request["messages"][0]["role"] == "system"
                && !request.to_string().contains("cache_control")
        }
    }
}

async fn answer(State(mock): State<Mock>, Json(request): Json<Value>) -> Response {
    let n = mock.calls.fetch_add(1, Ordering::SeqCst);
    if marks_the_prefix(mock.provider, &request) {
        mock.marked.fetch_add(1, Ordering::SeqCst);
    }
    // One tool, act, whatever is available; the state says what is possible now.
    let tools: Vec<String> = request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| {
            t.pointer("/function/name")
                .or_else(|| t.get("name"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .collect();
    assert_eq!(tools, ["act"]);
    match n {
        1 => return Json(text_only(mock.provider)).into_response(),
        2 => return (StatusCode::INTERNAL_SERVER_ERROR, "boom").into_response(),
        3 => {
            tokio::time::sleep(Duration::from_secs(5)).await;
        }
        _ => {}
    }
    Json(tool_call(
        mock.provider,
        "act",
        json!({"action": "chatMessage", "params": {"text": "the model speaks"}}),
    ))
    .into_response()
}

fn tool_call(provider: Provider, name: &str, arguments: Value) -> Value {
    match provider {
        Provider::Anthropic => {
            // Anthropic counts the cached prefix apart from input_tokens.
            json!({"content": [{"type": "tool_use", "id": "t1", "name": name, "input": arguments}], "usage": {"input_tokens": 40, "output_tokens": 10, "cache_read_input_tokens": 60}})
        }
        _ => {
            json!({"choices": [{"message": {"tool_calls": [{"id": "c1", "type": "function", "function": {"name": name, "arguments": arguments.to_string()}}]}}], "usage": {"prompt_tokens": 100, "completion_tokens": 10, "prompt_tokens_details": {"cached_tokens": 60}}})
        }
    }
}

fn text_only(provider: Provider) -> Value {
    match provider {
        Provider::Anthropic => {
            json!({"content": [{"type": "text", "text": "I think I will chop."}], "usage": {"input_tokens": 50, "output_tokens": 5}})
        }
        _ => {
            json!({"choices": [{"message": {"content": "I think I will chop."}}], "usage": {"prompt_tokens": 50, "completion_tokens": 5}})
        }
    }
}

async fn mock_server(provider: Provider) -> (String, Arc<AtomicUsize>) {
    let (base_url, mock) = mock_server_counting(provider).await;
    (base_url, mock.calls)
}

async fn mock_server_counting(provider: Provider) -> (String, Mock) {
    let mock = Mock {
        provider,
        calls: Arc::new(AtomicUsize::new(0)),
        marked: Arc::new(AtomicUsize::new(0)),
    };
    let app = Router::new()
        .route("/chat/completions", post(answer))
        .route("/v1/messages", post(answer))
        .with_state(mock.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let addr = listener.local_addr().expect("an address");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), mock)
}

/// The mock's configuration: live play's (the planner as fallback).
fn mock_config(provider: Provider, base_url: String) -> LlmConfig {
    LlmConfig {
        provider,
        api_key: "test-key".into(),
        base_url,
        model: "mock-model".into(),
        // Wall time (the mock's fourth answer takes 5 s): the step waits for the model, so only
        // the timeout itself depends on the clock, and a second is ample for the other answers.
        timeout: Duration::from_secs(1),
        // Five calls a minute of game time (100 ticks, which the lockstep agent counts): the
        // sixth call finds the budget spent.
        calls_per_minute: 5,
        tokens_per_hour: 1_000_000,
        // High enough that these failures do not open the breaker before the budget runs out.
        breaker_failures: 10,
        breaker_open: Duration::from_secs(60),
        tape: None,
        temperature: None,
        max_tokens: None,
        // Live play: the planner stands in for every step the model does not serve.
        fallback: wayfarer_agent::brain::Fallback::Planner,
    }
}

async fn backend_falls_back_and_counts(provider: Provider, name: &str) {
    let server = stepped().await;
    let (base_url, mock) = mock_server_counting(provider).await;
    let calls = Arc::clone(&mock.calls);
    let config = mock_config(provider, base_url);
    let agent = server.agent(
        name,
        Some(goal(json!({"kind": "idle"}))),
        Brain::Llm(config),
        None,
    );
    agent.entered().await;
    let status = agent
        .wait_for(3000, "every kind of fallback", |s| {
            let f = &s.model.fallbacks;
            ["malformed", "http_error", "timeout", "budget_exhausted"]
                .iter()
                .all(|k| f.contains_key(k))
                && s.model.decisions >= 1
        })
        .await;
    assert!(calls.load(Ordering::SeqCst) >= 5);
    // Each answer's wait is counted, for the latency the owner's routes show.
    assert!(
        status.model.mean_latency_ms().is_some(),
        "{:?}",
        status.model
    );
    // Every request marked its stable prefix for the provider's cache, and the tokens the
    // provider read from it are counted (60 a valid answer, in the mock).
    assert_eq!(
        mock.marked.load(Ordering::SeqCst),
        calls.load(Ordering::SeqCst),
        "a request without its cache mark"
    );
    assert!(
        status.model.cached_tokens >= 60 && status.model.cached_tokens <= status.model.input_tokens,
        "{:?}",
        status.model
    );
    let report = status.model.report().expect("a model report");
    assert_eq!(report.calls, status.model.calls);
    assert!(report.fallbacks.contains_key("timeout"), "{report:?}");
    assert!(
        status.model.input_tokens >= 100,
        "tokens are counted: {:?}",
        status.model
    );
    assert!(
        status
            .recent_decisions
            .iter()
            .any(|d| d.by == "llm" && d.action == "chatMessage"),
        "the model's choice was played: {:#?}",
        status.recent_decisions
    );
    assert!(
        status.recent_decisions.iter().any(|d| d.by == "planner"),
        "the planner stood in"
    );
    agent.handle.shutdown().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_backend_plays_tool_calls_and_falls_back_on_failures() {
    backend_falls_back_and_counts(Provider::OpenAi, "Oracle").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_backend_plays_tool_calls_and_falls_back_on_failures() {
    backend_falls_back_and_counts(Provider::Anthropic, "Sage").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openrouter_backend_plays_tool_calls_and_falls_back_on_failures() {
    backend_falls_back_and_counts(Provider::OpenRouter, "Router").await;
}

/// A scored model (`Fallback::Wait`, the benchmark's rule): the same malformed answer, 500 and
/// timeout are counted by why, but the planner never plays a step for the model; the valid
/// answers after them are played.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scored_model_waits_on_failures_and_the_planner_never_stands_in() {
    let server = stepped().await;
    let (base_url, calls) = mock_server(Provider::OpenAi).await;
    let config = LlmConfig {
        calls_per_minute: 1_000,
        temperature: Some(0.0),
        max_tokens: Some(64),
        fallback: wayfarer_agent::brain::Fallback::Wait,
        ..mock_config(Provider::OpenAi, base_url)
    };
    let agent = server.agent(
        "Scored",
        Some(goal(
            json!({"kind": "skill", "target": {"skill": "woodcutting", "level": 5}}),
        )),
        Brain::Llm(config),
        None,
    );
    agent.entered().await;
    let status = agent
        .wait_for(3000, "the failures counted and a choice played", |s| {
            let f = &s.model.fallbacks;
            ["malformed", "http_error", "timeout"]
                .iter()
                .all(|k| f.contains_key(k))
                && s.model.decisions >= 2
        })
        .await;
    assert!(calls.load(Ordering::SeqCst) >= 5);
    assert_eq!(status.model.invalid(), 1, "{:?}", status.model);
    assert!(
        status.recent_decisions.iter().all(|d| d.by != "planner"),
        "the planner played for the model: {:#?}",
        status.recent_decisions
    );
    assert!(
        status
            .recent_decisions
            .iter()
            .any(|d| d.by == "llm" && d.action == "chatMessage"),
        "{:#?}",
        status.recent_decisions
    );
    agent.handle.shutdown().await;
    server.stop().await;
}
