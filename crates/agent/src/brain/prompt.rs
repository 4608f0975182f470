//! The prompt a language model gets each step: a system text naming the character, the user
//! message as JSON (the goal, every provider's state, the last five decisions, the owner's
//! messages) and as tools the actions available now, plus `setGoal` and `idle`.
//!
//! A function of its own so the runtime and the benchmark (`benches/llm.rs`) build the same one.

use std::collections::VecDeque;

use serde_json::json;

use crate::actions::{self, ActionDef, Ctx};
use crate::brain::llm::Prompt;
use crate::goals::Goal;
use crate::providers;
use crate::runtime::DecisionRecord;

/// Decisions of `recent` the prompt shows, the latest first.
pub const RECENT_IN_PROMPT: usize = 5;

/// The prompt for this step: `ctx`'s character and state, towards `goal`, with the last
/// [`RECENT_IN_PROMPT`] of `recent` (oldest first there, latest first in the prompt) and the
/// owner's messages not yet shown. The caller clears `owner_notes` once the prompt is sent.
pub fn build(
    ctx: Ctx<'_>,
    goal: &Goal,
    recent: &VecDeque<DecisionRecord>,
    owner_notes: &VecDeque<String>,
) -> Prompt {
    let mut names = providers::available_names(ctx);
    for always in ["setGoal", "idle"] {
        if !names.contains(&always) {
            names.push(always);
        }
    }
    let tools: Vec<&'static ActionDef> = names.iter().filter_map(|n| actions::find(n)).collect();
    Prompt {
        system: format!(
            "You play {} in Wayfarer, a multiplayer RPG, as an autonomous player. Each turn, call exactly one tool: \
             the tools offered are the only actions possible right now (others exist but are not available here). \
             Pursue the goal; keep yourself alive.",
            ctx.model.me.name
        ),
        user: serde_json::to_string(&json!({
            "goal": goal.to_json(ctx.model),
            "state": providers::all(ctx),
            "recentDecisions": recent.iter().rev().take(RECENT_IN_PROMPT).map(|d| json!({"action": d.action, "params": d.params, "outcome": d.outcome})).collect::<Vec<_>>(),
            "ownerMessages": owner_notes.iter().collect::<Vec<_>>(),
        }))
        .unwrap_or_default(),
        tools,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::knowledge::Knowledge;
    use crate::model::Model;
    use crate::outcome::Outcome;

    #[test]
    fn the_prompt_has_the_last_five_decisions_latest_first_the_notes_and_idle_and_set_goal() {
        let mut model = Model::default();
        model.me.name = "Ada".into();
        let knowledge = Knowledge::default();
        let ctx = Ctx {
            model: &model,
            knowledge: &knowledge,
        };
        let goal = Goal::from_request(&json!({"kind": "idle"})).unwrap();
        const ACTIONS: [&str; 7] = ["a0", "a1", "a2", "a3", "a4", "a5", "a6"];
        let recent: VecDeque<DecisionRecord> = (0..7)
            .map(|i| DecisionRecord {
                number: i,
                tick: i,
                goal: None,
                action: ACTIONS[i as usize],
                params: serde_json::value::to_raw_value(&json!({"targetId": "res-1"})).unwrap(),
                reason: String::new(),
                by: "planner",
                outcome: Some(Outcome::Unknown),
            })
            .collect();
        let notes = VecDeque::from(["go north".to_owned()]);
        let prompt = build(ctx, &goal, &recent, &notes);
        assert!(prompt.system.contains("You play Ada in Wayfarer"));
        let names: Vec<&str> = prompt.tools.iter().map(|a| a.name).collect();
        assert!(
            names.contains(&"setGoal") && names.contains(&"idle"),
            "{names:?}"
        );
        let user: Value = serde_json::from_str(&prompt.user).unwrap();
        let actions: Vec<&str> = user["recentDecisions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["action"].as_str().unwrap())
            .collect();
        assert_eq!(actions, ["a6", "a5", "a4", "a3", "a2"]);
        assert_eq!(
            user["recentDecisions"][0]["params"],
            json!({"targetId": "res-1"})
        );
        assert_eq!(user["ownerMessages"], json!(["go north"]));
        assert_eq!(user["goal"]["kind"], "idle");
        assert!(user["state"].is_object());
    }

    #[test]
    fn make_item_is_offered_at_an_anvil_in_the_tables_place_with_the_recipes_made_here() {
        use crate::making::tests::{knowledge, model, station};
        use wayfarer_protocol::Skill;
        let knowledge = knowledge();
        let goal = Goal::from_request(&json!({"kind": "idle"})).unwrap();
        let (recent, notes) = (VecDeque::new(), VecDeque::new());
        let names = |items: &[(&str, i64)]| {
            let model = model(
                items,
                &[(Skill::Smithing, 4)],
                vec![station("anvil-1", "anvil", 2)],
            );
            let ctx = Ctx {
                model: &model,
                knowledge: &knowledge,
            };
            let prompt = build(ctx, &goal, &recent, &notes);
            let user: Value = serde_json::from_str(&prompt.user).unwrap();
            let offered = user["state"]["availableActions"]["actions"]
                .as_array()
                .unwrap()
                .iter()
                .find(|a| a["name"] == "makeItem")
                .map(|a| a["with"]["recipes"].clone());
            (
                prompt.tools.iter().map(|a| a.name).collect::<Vec<_>>(),
                offered,
            )
        };
        // A hammer alone makes nothing: no makeItem.
        let (tools, offered) = names(&[("hammer", 1)]);
        assert!(!tools.contains(&"makeItem"), "{tools:?}");
        assert_eq!(offered, None);
        // With a bar it is offered right after smithBar, as in the table, whatever else changes.
        let (tools, offered) = names(&[("hammer", 1), ("bronze_bar", 1)]);
        let at = |name: &str| tools.iter().position(|t| *t == name);
        assert_eq!(at("makeItem"), at("smithBar").map(|i| i + 1), "{tools:?}");
        let table: Vec<&str> = actions::ACTIONS.iter().map(|a| a.name).collect();
        let mut in_table_order = tools.clone();
        in_table_order.sort_by_key(|t| table.iter().position(|n| n == t));
        assert_eq!(tools, in_table_order);
        let ids: Vec<&str> = offered
            .as_ref()
            .and_then(Value::as_array)
            .unwrap()
            .iter()
            .filter_map(|r| r["recipeId"].as_str())
            .collect();
        assert_eq!(
            ids,
            [
                "smithing:bronze_sword",
                "smithing:bronze_helmet",
                "smithing:bronze_dagger",
                "smithing:bronze_hatchet",
                "smithing:bronze_pickaxe"
            ]
        );
    }
}
