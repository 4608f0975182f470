//! Goals, in the kinds and shapes of CONTRACT.md section 7, and how far along one is.

use serde::Serialize;
use serde_json::{json, Value};
use wayfarer_protocol::Skill;

use crate::model::Model;

/// Every goal kind CONTRACT.md section 7 names.
pub const GOAL_KINDS: &[&str] = &wayfarer_protocol::agent::GOAL_KINDS;

/// What a goal aims at.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", content = "target", rename_all = "camelCase")]
pub enum GoalKind {
    Skill {
        skill: Skill,
        level: i64,
    },
    #[serde(rename_all = "camelCase")]
    Combat {
        npc_id: Option<String>,
        area_id: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    Gather {
        item_id: String,
        quantity: i64,
    },
    #[serde(rename_all = "camelCase")]
    Cook {
        item_id: Option<String>,
    },
    Bank,
    Earn {
        coins: i64,
    },
    #[serde(rename_all = "camelCase")]
    Follow {
        player_name: String,
    },
    #[serde(rename_all = "camelCase")]
    Explore {
        area_id: Option<String>,
    },
    Idle,
    /// Win a duel against the player of that name (CONTRACT.md section 11).
    #[serde(rename_all = "camelCase")]
    Duel {
        player_name: String,
    },
}

/// A goal as the status and `GET …/goal` show it.
#[derive(Debug, Clone, PartialEq)]
pub struct Goal {
    pub kind: GoalKind,
    pub description: String,
    /// Whether the agent chose it itself (no goal was given).
    pub chosen_by_agent: bool,
}

impl Goal {
    /// Reads `{"kind", "target"?, "description"?}`; an unknown kind or a bad target is an error.
    pub fn from_request(request: &Value) -> Result<Goal, String> {
        let kind = request
            .get("kind")
            .and_then(Value::as_str)
            .ok_or("kind is required")?;
        let empty = json!({});
        let target = request.get("target").unwrap_or(&empty);
        let text = |k: &str| target.get(k).and_then(Value::as_str).map(str::to_owned);
        let number = |k: &str| target.get(k).and_then(Value::as_i64);
        let goal = match kind {
            "skill" => {
                let skill: Skill = text("skill")
                    .and_then(|s| serde_json::from_value(json!(s)).ok())
                    .ok_or("skill goals need target.skill, a skill name")?;
                let level = number("level").ok_or("skill goals need target.level")?;
                if !(2..=99).contains(&level) {
                    return Err("target.level must be 2–99".into());
                }
                GoalKind::Skill { skill, level }
            }
            "combat" => GoalKind::Combat {
                npc_id: text("npcId"),
                area_id: text("areaId"),
            },
            "gather" => GoalKind::Gather {
                item_id: text("itemId").ok_or("gather goals need target.itemId")?,
                quantity: number("quantity")
                    .filter(|q| *q > 0)
                    .ok_or("gather goals need target.quantity > 0")?,
            },
            "cook" => GoalKind::Cook {
                item_id: text("itemId"),
            },
            "bank" => GoalKind::Bank,
            "earn" => GoalKind::Earn {
                coins: number("coins")
                    .filter(|c| *c > 0)
                    .ok_or("earn goals need target.coins > 0")?,
            },
            "follow" => GoalKind::Follow {
                player_name: text("playerName").ok_or("follow goals need target.playerName")?,
            },
            "explore" => GoalKind::Explore {
                area_id: text("areaId"),
            },
            "idle" => GoalKind::Idle,
            "duel" => GoalKind::Duel {
                player_name: text("playerName").ok_or("duel goals need target.playerName")?,
            },
            other => return Err(format!("unknown goal kind {other}")),
        };
        let description = request
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| describe(&goal));
        Ok(Goal {
            kind: goal,
            description,
            chosen_by_agent: false,
        })
    }

    /// The goal an agent picks for itself: the gathering skill it is lowest in (a new player's
    /// first afternoon), or woodcutting when they are level.
    pub fn choose(model: &Model) -> Goal {
        let skill = [Skill::Woodcutting, Skill::Fishing, Skill::Mining]
            .into_iter()
            .min_by_key(|s| model.level(*s))
            .unwrap_or(Skill::Woodcutting);
        let level = (model.level(skill) + 5).min(99);
        let kind = GoalKind::Skill { skill, level };
        Goal {
            description: describe(&kind),
            kind,
            chosen_by_agent: true,
        }
    }

    /// Progress from 0 to 1, where the model can tell: XP towards the target level's XP (level 1
    /// of 10 is 0%, not 10%), items towards their count, coins towards the sum.
    pub fn progress(&self, model: &Model) -> Option<f64> {
        match &self.kind {
            GoalKind::Skill { skill, level } => {
                if model.level(*skill) >= *level {
                    return Some(1.0);
                }
                let needed =
                    wayfarer_content::levels::xp_for_level(u8::try_from(*level).unwrap_or(99));
                let xp = model.me.skills.get(skill).map_or(0, |s| s.xp.max(0));
                Some((xp as f64 / f64::from(needed.max(1))).min(1.0))
            }
            GoalKind::Gather { item_id, quantity } => {
                Some((model.count_of(item_id) as f64 / *quantity as f64).min(1.0))
            }
            GoalKind::Earn { coins } => Some((model.me.coins as f64 / *coins as f64).min(1.0)),
            GoalKind::Duel { player_name } => Some(if model.won_duel_against(player_name) {
                1.0
            } else {
                0.0
            }),
            _ => None,
        }
    }

    /// Whether it is reached.
    pub fn is_reached(&self, model: &Model) -> bool {
        match &self.kind {
            GoalKind::Bank => model.me.inventory.len() <= 3,
            _ => self.progress(model).is_some_and(|p| p >= 1.0),
        }
    }

    /// The goal in CONTRACT.md section 7's shape (`{"kind","description","target"?,"progress"?}`).
    pub fn to_json(&self, model: &Model) -> Value {
        let tagged = serde_json::to_value(&self.kind).unwrap_or_default();
        let mut out = json!({
            "kind": tagged.get("kind").cloned().unwrap_or_default(),
            "description": self.description,
            "chosenByAgent": self.chosen_by_agent,
        });
        if let Some(target) = tagged.get("target") {
            out["target"] = target.clone();
        }
        if let Some(p) = self.progress(model) {
            out["progress"] = json!(p);
        }
        out
    }
}

fn describe(kind: &GoalKind) -> String {
    match kind {
        GoalKind::Skill { skill, level } => format!("Train {skill} to level {level}"),
        GoalKind::Combat { npc_id, area_id } => format!(
            "Fight {} in {}",
            npc_id.as_deref().unwrap_or("whatever is near"),
            area_id.as_deref().unwrap_or("this area")
        ),
        GoalKind::Gather { item_id, quantity } => format!("Gather {quantity} {item_id}"),
        GoalKind::Cook { item_id } => {
            format!("Cook {}", item_id.as_deref().unwrap_or("what was caught"))
        }
        GoalKind::Bank => "Bank the inventory".into(),
        GoalKind::Earn { coins } => format!("Earn {coins} coins"),
        GoalKind::Follow { player_name } => format!("Follow {player_name}"),
        GoalKind::Explore { area_id } => {
            format!("Explore {}", area_id.as_deref().unwrap_or("the world"))
        }
        GoalKind::Idle => "Stay idle".into(),
        GoalKind::Duel { player_name } => format!("Win a duel against {player_name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goals_read_the_contract_shapes_and_refuse_bad_targets() {
        let goal = Goal::from_request(
            &json!({"kind": "skill", "target": {"skill": "woodcutting", "level": 5}}),
        )
        .unwrap();
        assert_eq!(
            goal.kind,
            GoalKind::Skill {
                skill: Skill::Woodcutting,
                level: 5
            }
        );
        assert!(Goal::from_request(&json!({"kind": "fly"})).is_err());
        assert!(Goal::from_request(&json!({"kind": "skill", "target": {"skill": "x"}})).is_err());
        assert!(Goal::from_request(&json!({"kind": "earn", "target": {"coins": -1}})).is_err());
        assert_eq!(
            Goal::from_request(&json!({"kind": "bank"})).unwrap().kind,
            GoalKind::Bank
        );
    }

    #[test]
    fn skill_progress_is_xp_towards_the_target_level() {
        let goal = Goal::from_request(
            &json!({"kind": "skill", "target": {"skill": "woodcutting", "level": 10}}),
        )
        .unwrap();
        let mut model = Model::default();
        let mut at = |level: i64, xp: i64| {
            model.me.skills.insert(
                Skill::Woodcutting,
                wayfarer_protocol::ws::SkillState { level, xp },
            );
            goal.progress(&model).unwrap()
        };
        // Level 1 of 10 is no progress at all (a level ratio said 10%).
        assert_eq!(at(1, 0), 0.0);
        // Level 10 is reached at 1,154 XP: half of it is half way.
        assert!((at(7, 577) - 0.5).abs() < 1e-9);
        assert!(at(9, 1_153) < 1.0);
        assert_eq!(at(10, 1_154), 1.0);
        let gather = Goal::from_request(
            &json!({"kind": "gather", "target": {"itemId": "logs", "quantity": 4}}),
        )
        .unwrap();
        assert_eq!(gather.progress(&Model::default()), Some(0.0));
    }

    #[test]
    fn targets_serialize_in_the_contract_s_camel_case() {
        let goal = Goal::from_request(
            &json!({"kind": "gather", "target": {"itemId": "logs", "quantity": 50}}),
        )
        .unwrap();
        let value = serde_json::to_value(&goal.kind).unwrap();
        assert_eq!(value["target"], json!({"itemId": "logs", "quantity": 50}));
        let follow =
            Goal::from_request(&json!({"kind": "follow", "target": {"playerName": "Ada"}}))
                .unwrap();
        assert_eq!(
            serde_json::to_value(&follow.kind).unwrap()["target"],
            json!({"playerName": "Ada"})
        );
    }
}
