//! A `duel` goal: win a duel against a named player (CONTRACT.md section 11). Wear the best gear
//! first (nothing can be equipped once the duel is agreed), walk up to the player, challenge,
//! accept the default rules with no stake on both screens, then fight until the result. A
//! decline (or a challenge left unanswered) is waited out before the next challenge; a challenge
//! from anyone else, or a duel opened with them, is refused.

use serde_json::json;
use wayfarer_protocol::ws::EntityKind;

use super::{gear, idle, Decision, Planner, AVOID_TICKS};
use crate::actions::{Ctx, SERVICE_REACH_TILES};

/// Ticks the server leaves a challenge open (`sim::duel::CHALLENGE_TIMEOUT_TICKS`): no new
/// challenge before it has been answered or has lapsed.
pub const CHALLENGE_WAIT_TICKS: u64 = 50;

/// The duel planner's memory: the challenge sent and when, and when to challenge again.
#[derive(Debug, Default)]
pub struct Dueling {
    /// The tick (the model's) the last challenge was sent.
    challenged_at: Option<u64>,
    /// After a decline: no challenge before this tick (the model's).
    not_before: u64,
    /// Challenges of ours that ended without a duel (declined, lapsed).
    pub declines: u32,
    /// How the last one ended (`declined`, `timeout`, …).
    last_refusal: String,
}

impl Planner {
    pub(super) fn duel(&mut self, ctx: Ctx<'_>, name: &str, now: u64) -> Decision {
        let tick = ctx.model.tick;
        if let Some(d) = &ctx.model.duel {
            let theirs = d.opponent_name.eq_ignore_ascii_case(name);
            let step = |params: serde_json::Value, why: String| Decision::new("duel", params, why);
            return match (d.stage, theirs) {
                ("challenged", _) => step(
                    json!({"step": "respond", "accept": theirs}),
                    if theirs {
                        format!("{name} challenged: accepting")
                    } else {
                        format!("{} is not {name}: declining", d.opponent_name)
                    },
                ),
                ("rules" | "confirm", false) => step(
                    json!({"step": "cancel"}),
                    format!("a duel with {}, not {name}", d.opponent_name),
                ),
                ("rules" | "confirm", true) if d.accepted => idle(&format!(
                    "waiting for {name} to accept the {} screen",
                    d.stage
                )),
                ("rules" | "confirm", true) => step(
                    json!({"step": "accept"}),
                    format!(
                        "the default rules, nothing staked: accepting the {} screen",
                        d.stage
                    ),
                ),
                // The fight: the opponent is the one target (the running attack ends with the duel).
                _ => match ctx.model.entities.get(&d.opponent_id) {
                    Some(_) => Decision::new(
                        "attackEntity",
                        json!({"targetId": d.opponent_id}),
                        format!("the duel with {}: fighting", d.opponent_name),
                    ),
                    None => idle("the duel's opponent is not in view yet"),
                },
            };
        }
        // No duel open. A challenge of ours that ended without one (declined, lapsed) is waited
        // out before the next.
        if let (Some(sent), Some(end)) = (self.dueling.challenged_at, &ctx.model.duel_end) {
            if end.tick >= sent {
                self.dueling.challenged_at = None;
                self.dueling.declines += 1;
                self.dueling.not_before = end.tick + AVOID_TICKS;
                self.dueling.last_refusal = end.how.clone();
            }
        }
        if let Some(equip) = gear::upgrade(ctx) {
            let item = equip.params["itemId"].as_str().unwrap_or_default();
            if !self.avoided(&format!("equip:{item}"), now) {
                return equip;
            }
        }
        let Some(player) = ctx
            .model
            .nearest_of(EntityKind::Player)
            .into_iter()
            .find(|p| p.name().is_some_and(|n| n.eq_ignore_ascii_case(name)))
        else {
            return idle(&format!("{name} is not in view"));
        };
        if ctx.model.distance_to(player.x, player.z) > SERVICE_REACH_TILES {
            return Decision::new(
                "approachEntity",
                json!({"targetId": player.id()}),
                format!("walking up to {name} to challenge them"),
            );
        }
        if tick < self.dueling.not_before {
            return idle(&format!(
                "challenges of {name} ended without a duel {} time(s) (last: {}): asking again at tick {}",
                self.dueling.declines, self.dueling.last_refusal, self.dueling.not_before
            ));
        }
        if self
            .dueling
            .challenged_at
            .is_some_and(|sent| tick < sent + CHALLENGE_WAIT_TICKS)
        {
            return idle(&format!("waiting for {name} to answer the challenge"));
        }
        self.dueling.challenged_at = Some(tick);
        Decision::new(
            "duel",
            json!({"step": "challenge", "targetId": player.id()}),
            format!("challenging {name}"),
        )
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use wayfarer_protocol::duel::{DuelCancelled, DuelIncoming, DuelRules, DuelStake, DuelStart};
    use wayfarer_protocol::ws::{Entity, EntityKind, ServerMessage, TilePos, WorldUpdate};

    use super::super::tests::scene;
    use super::*;
    use crate::goals::Goal;
    use crate::making::tests::entity;
    use crate::model::Model;

    fn player(id: &str, name: &str, x: i32, z: i32) -> Entity {
        Entity {
            z,
            name: Some(name.into()),
            health: Some(10),
            max_health: Some(10),
            type_id: None,
            ..entity(id, EntityKind::Player, name, x)
        }
    }

    fn at_tick(model: &mut Model, tick: u64) {
        model.apply(&ServerMessage::WorldUpdate(WorldUpdate {
            tick,
            ..Default::default()
        }));
    }

    fn rules(screen: u8, accepted: bool) -> ServerMessage {
        ServerMessage::DuelRules(DuelRules {
            duel_id: "duel-1".into(),
            opponent_id: "p2".into(),
            opponent_name: "Sparrer".into(),
            screen,
            rules: Vec::new(),
            my_stake: DuelStake {
                accepted,
                ..DuelStake::default()
            },
            their_stake: DuelStake::default(),
        })
    }

    fn duel_goal() -> Goal {
        Goal::from_request(&json!({"kind": "duel", "target": {"playerName": "sparrer"}}))
            .expect("a duel goal")
    }

    fn decide(
        planner: &mut Planner,
        model: &Model,
        knowledge: &crate::knowledge::Knowledge,
    ) -> Decision {
        let ctx = Ctx { model, knowledge };
        planner.decide(ctx, &duel_goal(), model.tick)
    }

    #[test]
    fn a_dueller_walks_up_challenges_accepts_both_screens_and_fights_the_one_it_named() {
        let goal_player = || player("p2", "Sparrer", 5, 0);
        let (mut model, knowledge) = scene((0, 0), &[], vec![goal_player()]);
        let mut planner = Planner::new();
        // Out of reach: walk up to them.
        let d = decide(&mut planner, &model, &knowledge);
        assert_eq!(
            (d.action, &d.params),
            ("approachEntity", &json!({"targetId": "p2"}))
        );
        // Within 2 tiles: challenge, then wait for the answer rather than challenge again.
        let (mut model_near, _) = scene((4, 0), &[], vec![goal_player()]);
        let d = decide(&mut planner, &model_near, &knowledge);
        assert_eq!(
            d.params,
            json!({"step": "challenge", "targetId": "p2"}),
            "{d:?}"
        );
        at_tick(&mut model_near, 2);
        let d = decide(&mut planner, &model_near, &knowledge);
        assert_eq!(d.action, "idle", "{d:?}");
        assert!(d.reason.contains("answer the challenge"), "{}", d.reason);
        // The screens: accept each once, with no stake and the default rules.
        for (screen, stage) in [(1, "rules"), (2, "confirm")] {
            model_near.apply(&rules(screen, false));
            let d = decide(&mut planner, &model_near, &knowledge);
            assert_eq!(d.params, json!({"step": "accept"}), "{stage}: {d:?}");
            model_near.apply(&rules(screen, true));
            let d = decide(&mut planner, &model_near, &knowledge);
            assert_eq!(d.action, "idle", "{stage}: {d:?}");
        }
        // The fight: the opponent is the target; there is no fleeing a duel.
        model_near.apply(&ServerMessage::DuelStart(DuelStart {
            duel_id: "duel-1".into(),
            opponent_id: "p2".into(),
            rules: Vec::new(),
            arena_id: None,
            tile: TilePos { x: 4, z: 0 },
        }));
        let d = decide(&mut planner, &model_near, &knowledge);
        assert_eq!(
            (d.action, &d.params),
            ("attackEntity", &json!({"targetId": "p2"}))
        );
        model_near.me.health = 2;
        model_near.last_hit_tick = Some(model_near.tick);
        let ctx = Ctx {
            model: &model_near,
            knowledge: &knowledge,
        };
        assert_eq!(planner.reflex(ctx, 3), None, "no flee in a duel");
        // Someone else's challenge is declined.
        model.apply(&ServerMessage::DuelIncoming(DuelIncoming {
            duel_id: "duel-9".into(),
            from_player_id: "p3".into(),
            from_player_name: "Other".into(),
        }));
        let d = decide(&mut Planner::new(), &model, &knowledge);
        assert_eq!(
            d.params,
            json!({"step": "respond", "accept": false}),
            "{d:?}"
        );
    }

    #[test]
    fn a_declined_challenge_is_waited_out_before_the_next() {
        let (mut model, knowledge) = scene((0, 0), &[], vec![player("p2", "Sparrer", 1, 0)]);
        let mut planner = Planner::new();
        at_tick(&mut model, 10);
        let d = decide(&mut planner, &model, &knowledge);
        assert_eq!(d.params["step"], "challenge", "{d:?}");
        at_tick(&mut model, 12);
        model.apply(&ServerMessage::DuelCancelled(DuelCancelled {
            duel_id: "duel-1".into(),
            reason: "declined".into(),
            by_player_id: None,
        }));
        let d = decide(&mut planner, &model, &knowledge);
        assert_eq!(d.action, "idle", "{d:?}");
        assert!(d.reason.contains("declined"), "{}", d.reason);
        // The last tick of the wait, then the next challenge.
        at_tick(&mut model, 12 + AVOID_TICKS - 1);
        assert_eq!(decide(&mut planner, &model, &knowledge).action, "idle");
        at_tick(&mut model, 12 + AVOID_TICKS);
        let d = decide(&mut planner, &model, &knowledge);
        assert_eq!(d.params["step"], "challenge", "{d:?}");
        // Nobody of that name in view: it says so and waits.
        let (alone, _) = scene((0, 0), &[], vec![]);
        let d = decide(&mut Planner::new(), &alone, &knowledge);
        assert_eq!(d.action, "idle");
        assert!(d.reason.contains("not in view"), "{}", d.reason);
    }
}
