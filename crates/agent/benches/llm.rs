//! The LLM path's cost beyond the model's own latency, in the planner benchmark's crowded view
//! (`scene/mod.rs`: a woodcutter with 60 trees, 40 NPCs, 40 players and 30 ground items in view).
//!
//! - `llm_prompt_build/crowded_view`: building the prompt alone (`brain::prompt::build`: the
//!   providers' state, the goal, the last five decisions, the tools available now).
//! - `llm_step_crowded_view/{openai,anthropic}_0ms`: one whole model step as the runtime takes it,
//!   against a mock model in this process that answers a valid tool call (`chopTree`) at once:
//!   build the prompt, `llm::ask` (request JSON, a loopback HTTP round trip, the answer's JSON and
//!   its tool call read), then the runtime's check of the answer (offered now, planned by the
//!   action table). This is the overhead the LLM path adds beyond the model's latency.
//! - `llm_step_crowded_view/{openai,anthropic}_20ms`: the same with the mock waiting 20 ms before
//!   it answers, as a check: minus 20 ms it should match the 0 ms case, give or take tokio's
//!   timer (it rounds a sleep up to the next millisecond) and the idle threads' wake-up, which
//!   grows on a busy machine.
//!
//! OpenAI's chat-completions format covers OpenRouter too; Anthropic's is the messages format.
//! The mock reads the request body but does not parse it. The prompt's and the requests' sizes
//! are printed once to stderr: they are part of the cost (and a model's input tokens).
//!
//! Run with `cargo bench -p wayfarer-agent --bench llm -- --quick` for a fast estimate.

mod scene;

use std::collections::VecDeque;
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::Path;
use axum::http::header;
use axum::routing::post;
use axum::Router;
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use serde_json::json;
use wayfarer_agent::actions::{self, Ctx, Planned};
use wayfarer_agent::brain::llm::{self, LlmConfig};
use wayfarer_agent::brain::prompt;
use wayfarer_agent::goals::Goal;
use wayfarer_agent::outcome::Outcome;
use wayfarer_agent::runtime::{DecisionRecord, RECENT_DECISIONS};

/// A chat-completions answer with one tool call, as OpenAI sends it (arguments as JSON text).
const OPENAI_ANSWER: &str = r#"{"id":"chatcmpl-bench","object":"chat.completion","model":"mock","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"act","arguments":"{\"action\":\"chopTree\",\"params\":{\"targetId\":\"res-0\"}}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3000,"completion_tokens":20,"total_tokens":3020}}"#;

/// A messages answer with one tool use, as Anthropic sends it.
const ANTHROPIC_ANSWER: &str = r#"{"id":"msg_bench","type":"message","role":"assistant","model":"mock","content":[{"type":"tool_use","id":"toolu_1","name":"act","input":{"action":"chopTree","params":{"targetId":"res-0"}}}],"stop_reason":"tool_use","usage":{"input_tokens":3000,"output_tokens":20}}"#;

/// The last request body each mock route read, in bytes.
static OPENAI_REQUEST_BYTES: AtomicUsize = AtomicUsize::new(0);
static ANTHROPIC_REQUEST_BYTES: AtomicUsize = AtomicUsize::new(0);

async fn answer(
    delay_ms: u64,
    body: Bytes,
    seen: &AtomicUsize,
    answer: &'static str,
) -> ([(header::HeaderName, &'static str); 1], &'static str) {
    seen.store(body.len(), Ordering::Relaxed);
    if delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(delay_ms)).await;
    }
    ([(header::CONTENT_TYPE, "application/json")], answer)
}

/// The mock model on a free loopback port; the delay is the base URL's first segment
/// (`http://127.0.0.1:PORT/20` answers after 20 ms), so one server serves every case.
async fn mock_model() -> String {
    let app = Router::new()
        .route(
            "/{delay}/chat/completions",
            post(|Path(delay): Path<u64>, body: Bytes| {
                answer(delay, body, &OPENAI_REQUEST_BYTES, OPENAI_ANSWER)
            }),
        )
        .route(
            "/{delay}/v1/messages",
            post(|Path(delay): Path<u64>, body: Bytes| {
                answer(delay, body, &ANTHROPIC_REQUEST_BYTES, ANTHROPIC_ANSWER)
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let address = listener.local_addr().expect("its address");
    tokio::spawn(async move { axum::serve(listener, app).await.expect("the mock model") });
    format!("http://{address}")
}

/// The configuration the runtime would build from `key_var` and `url_var` set to the mock.
fn config(key_var: &str, url_var: &str, base_url: String) -> LlmConfig {
    LlmConfig::from_lookup(
        |k| {
            if k == key_var {
                Some("bench".to_owned())
            } else if k == url_var {
                Some(base_url.clone())
            } else {
                None
            }
        },
        Some("mock".into()),
    )
    .expect("a model configuration")
}

/// A full history, as a running agent has: the prompt shows the last five.
fn recent() -> VecDeque<DecisionRecord> {
    (0..RECENT_DECISIONS as u64)
        .map(|i| DecisionRecord {
            number: i + 1,
            tick: 10 * i,
            goal: Some("Train woodcutting to level 5".into()),
            action: "chopTree",
            params: serde_json::value::to_raw_value(&json!({"targetId": format!("res-{i}")}))
                .expect("JSON"),
            reason: "the model's choice".into(),
            by: "llm",
            outcome: Some(Outcome::Accepted {
                detail: "the tree fell".into(),
            }),
        })
        .collect()
}

/// One model step: the prompt, the call, and the runtime's check of the answer (`on_answer`).
async fn step(
    http: &wayfarer_agent::Http,
    config: &LlmConfig,
    ctx: Ctx<'_>,
    goal: &Goal,
    recent: &VecDeque<DecisionRecord>,
    notes: &VecDeque<String>,
) -> Planned {
    let prompt = prompt::build(ctx, goal, recent, notes, &mut prompt::Aliases::default());
    let (call, _usage) = llm::ask(http, config, &prompt)
        .await
        .result
        .expect("the mock's tool call");
    let offered = actions::find(&call.name)
        .is_some_and(|a| a.name == "setGoal" || a.name == "idle" || (a.available)(ctx).is_some());
    assert!(offered, "{} is offered in the scene", call.name);
    match actions::plan(ctx, &call.name, &call.arguments) {
        Ok(planned) => planned,
        Err(refusal) => panic!("the table refused {}: {refusal:?}", call.name),
    }
}

fn llm(c: &mut Criterion) {
    let (model, knowledge) = scene::scene();
    let goal = scene::woodcutting_goal();
    let recent = recent();
    let notes = VecDeque::new();
    let ctx = Ctx {
        model: &model,
        knowledge: &knowledge,
    };

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let base = rt.block_on(mock_model());
    let http = wayfarer_agent_http::client();
    let openai = |ms: u64| config("OPENAI_API_KEY", "OPENAI_BASE_URL", format!("{base}/{ms}"));
    let anthropic = |ms: u64| {
        config(
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_BASE_URL",
            format!("{base}/{ms}"),
        )
    };
    let cases = [
        ("openai_0ms", openai(0)),
        ("anthropic_0ms", anthropic(0)),
        ("openai_20ms", openai(20)),
        ("anthropic_20ms", anthropic(20)),
    ];

    // One step of each format first: it checks the mock's answers are taken, and gives the sizes.
    let sample = prompt::build(ctx, &goal, &recent, &notes, &mut prompt::Aliases::default());
    for (_, config) in &cases[..2] {
        rt.block_on(step(&http, config, ctx, &goal, &recent, &notes));
    }
    eprintln!(
        "prompt in the crowded view: system {} bytes, user {} bytes, {} tools; request body {} bytes (openai), {} bytes (anthropic)",
        sample.system.len(),
        sample.user.len(),
        1,
        OPENAI_REQUEST_BYTES.load(Ordering::Relaxed),
        ANTHROPIC_REQUEST_BYTES.load(Ordering::Relaxed),
    );

    let mut group = c.benchmark_group("llm_prompt_build");
    group
        .sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    group.bench_function("crowded_view", |b| {
        b.iter(|| {
            black_box(prompt::build(
                ctx,
                &goal,
                &recent,
                &notes,
                &mut prompt::Aliases::default(),
            ))
        })
    });
    group.finish();

    let mut group = c.benchmark_group("llm_step_crowded_view");
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for (name, config) in &cases {
        group.bench_function(*name, |b| {
            b.iter(|| black_box(rt.block_on(step(&http, config, ctx, &goal, &recent, &notes))))
        });
    }
    group.finish();
}

criterion_group!(benches, llm);
criterion_main!(benches);
