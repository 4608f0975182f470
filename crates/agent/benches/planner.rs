//! The built-in planner's time per decision: a woodcutter in a crowded view (60 trees, 40 NPCs,
//! 40 players, 30 ground items) with the bundled content's knowledge, choosing its next action.
//! The scene is `scene/mod.rs`, shared with the LLM path's benchmark (`llm.rs`).
//!
//! Run with `cargo bench -p wayfarer-agent --bench planner -- --quick` for a fast estimate.

mod scene;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use wayfarer_agent::actions::Ctx;
use wayfarer_agent::planner::Planner;

fn planner(c: &mut Criterion) {
    let (model, knowledge) = scene::scene();
    let goal = scene::woodcutting_goal();
    let mut planner = Planner::new();
    let mut now = 0;
    c.bench_function("planner_decision_woodcutting_crowded_view", |b| {
        b.iter(|| {
            now += 1;
            let ctx = Ctx {
                model: &model,
                knowledge: &knowledge,
            };
            let reflex = planner.reflex(ctx, now);
            black_box(reflex);
            black_box(planner.decide(ctx, &goal, now))
        })
    });
}

criterion_group!(benches, planner);
criterion_main!(benches);
