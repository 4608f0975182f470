//! Where a gatherer works: its home, one area's nodes of its skill. The agents of one host spread
//! over the areas in proportion to the nodes there (ten woodcutters on three trees in one place
//! and one in another settle eight and two), each staying at its home: working a node there,
//! joining one another works when none is free (the logs of a tree's life are the same however
//! many chop it, and it respawns the sooner), and waiting there for a respawn rather than walking
//! to a far place that may be stumps too (issue 32: shared-trees walked a tree 45 tiles away and
//! back 55 times a run).

use wayfarer_protocol::ws::TilePos;
use wayfarer_protocol::Skill;

use super::claims::{self, home_key};
use super::Planner;
use crate::actions::Ctx;
use crate::knowledge::Place;
use crate::model::chebyshev;

/// Ticks a home is expected to be worked: what the walk to it is weighed against.
pub const HOME_HORIZON_TICKS: f64 = 300.0;
/// How much better another area must look to move home (so two agents do not swap each tick).
pub const HOME_STICKINESS: f64 = 1.25;

/// The known places of `skill` the level allows.
pub fn usable_places<'a>(ctx: Ctx<'a>, skill: Skill) -> impl Iterator<Item = &'a Place> + 'a {
    let level = ctx.model.level(skill);
    ctx.knowledge.places.iter().filter(move |p| {
        ctx.knowledge
            .nodes
            .get(&p.id)
            .is_some_and(|n| n.skill == skill && i64::from(n.level) <= level)
    })
}

impl Planner {
    /// Chooses (and renews) this agent's home for `skill`: the area whose nodes give the most XP
    /// a tick for its share of them (its nodes over the agents living there with it, at most all
    /// of one), weighed against the walk; `None` when no place of the skill is known.
    pub(super) fn home(&mut self, ctx: Ctx<'_>, skill: Skill) -> Option<String> {
        let level = ctx.model.level(skill);
        let tick = ctx.model.tick;
        let here: TilePos = ctx.model.me.tile.into();
        // Area → (nodes, best XP a tick, nearest distance).
        let mut areas: Vec<(&str, usize, f64, u32)> = Vec::new();
        for p in usable_places(ctx, skill) {
            let rate = claims::xp_per_tick(ctx, &p.id, level);
            let distance = chebyshev(here.x, here.z, p.tile.x, p.tile.z);
            match areas.iter_mut().find(|a| a.0 == p.area) {
                Some(a) => {
                    a.1 += 1;
                    a.2 = a.2.max(rate);
                    a.3 = a.3.min(distance);
                }
                None => areas.push((&p.area, 1, rate, distance)),
            }
        }
        let current = self
            .home
            .as_ref()
            .filter(|(s, _)| *s == skill)
            .map(|(_, a)| a.clone());
        let score = |(area, nodes, rate, distance): &(&str, usize, f64, u32)| {
            let others = self
                .claims
                .residents(&home_key(skill, area), self.claimant, tick);
            let share = (*nodes as f64 / (others + 1) as f64).min(1.0);
            let stay = if current.as_deref() == Some(*area) {
                HOME_STICKINESS
            } else {
                1.0
            };
            rate * share * stay * HOME_HORIZON_TICKS / (HOME_HORIZON_TICKS + f64::from(*distance))
        };
        let best = areas
            .iter()
            .map(|a| (score(a), a))
            .max_by(|(sa, a), (sb, b)| sa.total_cmp(sb).then(b.3.cmp(&a.3)).then(b.0.cmp(a.0)))
            .map(|(_, a)| a.0.to_owned())?;
        self.claims
            .settle(&home_key(skill, &best), self.claimant, tick);
        self.home = Some((skill, best.clone()));
        Some(best)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use wayfarer_protocol::ws::Entity;

    use super::super::tests::{resource, scene_in};
    use super::super::{claims::Claims, Planner, RESPAWN_WAIT_TICKS};
    use crate::actions::Ctx;
    use crate::goals::Goal;

    const TOWN: &[(i32, i32)] = &[(10, 0), (12, 0), (14, 0)];
    const FAR: &[(i32, i32)] = &[(60, 0)];

    fn woodcutting() -> Goal {
        Goal::from_request(
            &json!({"kind": "skill", "target": {"skill": "woodcutting", "level": 5}}),
        )
        .expect("a valid goal")
    }

    fn stump(id: &str, x: i32, z: i32) -> Entity {
        resource(id, "tree", "tree_normal", x, z, true)
    }

    #[test]
    fn ten_agents_settle_over_the_areas_in_proportion_to_their_trees() {
        let (model, knowledge) = scene_in(
            (0, 0),
            &["bronze_hatchet"],
            vec![],
            &[("town", TOWN), ("far", FAR)],
        );
        let ctx = Ctx {
            model: &model,
            knowledge: &knowledge,
        };
        let shared = Claims::default();
        let mut planners: Vec<Planner> =
            (0..10).map(|_| Planner::sharing(shared.clone())).collect();
        let far = |planners: &mut Vec<Planner>, now| {
            planners
                .iter_mut()
                .map(|p| p.decide(ctx, &woodcutting(), now))
                .map(|d| {
                    assert_eq!(d.action, "navigateTo", "{d:?}");
                    d.params["x"] == 60
                })
                .collect::<Vec<_>>()
        };
        // Three trees here and one there: eight and two (the fourth and the eighth, for whom
        // a tree of their own there is worth the longer walk).
        let first = far(&mut planners, 1);
        assert_eq!(first.iter().filter(|f| **f).count(), 2, "{first:?}");
        assert!(first[3] && first[7], "{first:?}");
        // Asked again, each keeps its home.
        assert_eq!(far(&mut planners, 2), first);
        // A planner of its own goes to the nearest trees.
        let d = Planner::new().decide(ctx, &woodcutting(), 1);
        assert_eq!(d.params["x"], 10, "{d:?}");
    }

    #[test]
    fn at_home_with_every_tree_a_stump_it_waits_rather_than_walk_to_a_far_area() {
        let stumps = TOWN
            .iter()
            .enumerate()
            .map(|(n, (x, z))| stump(&format!("res-{n}"), *x, *z))
            .collect();
        let (model, knowledge) = scene_in(
            (12, 1),
            &["bronze_hatchet"],
            stumps,
            &[("town", TOWN), ("far", FAR)],
        );
        let ctx = Ctx {
            model: &model,
            knowledge: &knowledge,
        };
        let d = Planner::new().decide(ctx, &woodcutting(), 1);
        assert_eq!(
            (d.action, d.params.clone()),
            ("idle", json!({"ticks": RESPAWN_WAIT_TICKS})),
            "{d:?}"
        );
        assert!(d.reason.contains("waiting for a respawn"), "{}", d.reason);
    }
}
