//! Magic and runecrafting for agents (CONTRACT.md section 11): the `castSpell` and `runecraft`
//! actions' checks and plans, by the server's own rules in the server's order (the spell, the
//! Magic level, the runes less those the wielded staff supplies; the recipe, the level, the
//! essence, the altar), and the planner's steps for a goal of training Magic or Runecrafting.

use serde_json::{json, Value};
use wayfarer_content::{Recipe, RecipeDetail, RecipeKind, Spell};
use wayfarer_protocol::ws::{ActionRequest, ClientMessage, EntityKind, Quantity};
use wayfarer_protocol::Skill;

use crate::actions::{Ctx, Planned, FIGHT_STALL_TICKS, PROCESS_TICKS};
use crate::model::{Model, Seen};
use crate::outcome::Outcome;
use crate::procedure::{Procedure, Until};

/// The runes a cast of `spell` takes from the inventory: its runes less the wielded staff's.
fn runes_needed<'s>(ctx: Ctx<'_>, spell: &'s Spell) -> impl Iterator<Item = (&'s str, i64)> {
    let free: Vec<String> = ctx
        .model
        .me
        .equipment
        .get("weapon")
        .and_then(|w| ctx.knowledge.items.get(&w.item_id))
        .map(|i| i.provides_infinite_runes.clone())
        .unwrap_or_default();
    spell
        .runes
        .iter()
        .filter(move |r| !free.contains(&r.item_id))
        .map(|r| (r.item_id.as_str(), i64::from(r.quantity)))
}

/// Why the agent cannot cast `spell` now: `level_too_low`, then `missing_runes`.
pub fn castable(ctx: Ctx<'_>, spell: &Spell) -> Result<(), Outcome> {
    if ctx.model.level(Skill::Magic) < i64::from(spell.level) {
        return Err(Outcome::refused(
            "level_too_low",
            format!("{} needs Magic {}", spell.name, spell.level),
        ));
    }
    if let Some((rune, n)) = runes_needed(ctx, spell).find(|(r, n)| ctx.model.count_of(r) < *n) {
        return Err(Outcome::refused(
            "missing_runes",
            format!("{} needs {n} {}", spell.name, ctx.knowledge.item_name(rune)),
        ));
    }
    Ok(())
}

/// The highest-level spell the agent can cast now.
pub fn best_spell<'a>(ctx: Ctx<'a>) -> Option<&'a Spell> {
    ctx.knowledge
        .spells
        .values()
        .filter(|s| castable(ctx, s).is_ok())
        .max_by_key(|s| (s.level, s.base_max_hit))
}

/// `castSpell {spellId, targetId}`: one cast, done when a hit lands (or the target is gone).
pub fn plan_cast(ctx: Ctx<'_>, p: &Value, target: &Seen) -> Result<Planned, Outcome> {
    let id = p
        .get("spellId")
        .and_then(Value::as_str)
        .ok_or_else(|| Outcome::refused("invalid_params", "spellId (a string) is required"))?;
    let spell =
        ctx.knowledge.spells.get(id).ok_or_else(|| {
            Outcome::refused("unknown_spell", format!("there is no spell {id:?}"))
        })?;
    castable(ctx, spell)?;
    let watch = target.shared_id().clone();
    let since = ctx.model.tick;
    let until = Until::when(
        move |m: &Model| {
            m.last_hit_tick.is_some_and(|t| t > since)
                || m.entities.get(&watch).is_none_or(|e| e.health() == Some(0))
        },
        FIGHT_STALL_TICKS,
        format!("cast {} at {}", spell.name, target.id()),
    );
    Ok(Planned::Run(Procedure::send(
        ClientMessage::Action(ActionRequest::cast(id, target.id())),
        until,
    )))
}

/// What castSpell can do now: the spells castable, and the living NPCs in view.
pub fn cast_available(ctx: Ctx<'_>) -> Option<Value> {
    let spells: Vec<&str> = ctx
        .knowledge
        .spells
        .values()
        .filter(|s| castable(ctx, s).is_ok())
        .map(|s| s.id.as_str())
        .collect();
    let targets: Vec<&str> = ctx
        .model
        .nearest_of(EntityKind::Npc)
        .into_iter()
        .filter(|e| e.health().is_some_and(|h| h > 0))
        .map(|e| e.id())
        .collect();
    (!spells.is_empty() && !targets.is_empty())
        .then(|| json!({"spellIds": spells, "targetIds": targets}))
}

/// The essence kinds a rune recipe takes.
fn essence_of(recipe: &Recipe) -> &[String] {
    match &recipe.detail {
        RecipeDetail::Runecrafting { essence_types, .. } => essence_types,
        _ => &[],
    }
}

/// Essence the agent carries that `recipe` takes.
fn essence_held(model: &Model, recipe: &Recipe) -> i64 {
    essence_of(recipe).iter().map(|e| model.count_of(e)).sum()
}

/// The altar of `recipe` in view, nearest first.
fn altar_in_view<'a>(model: &'a Model, recipe: &Recipe) -> Option<&'a Seen> {
    model
        .nearest_of(EntityKind::Resource)
        .into_iter()
        .find(|e| {
            e.resource_type()
                .is_some_and(|t| recipe.station.as_deref() == Some(t))
        })
}

/// The rune recipe for `rune` (a rune item id or a recipe id).
fn rune_recipe<'a>(ctx: Ctx<'a>, rune: &str) -> Option<&'a Recipe> {
    ctx.knowledge.recipes.iter().find(|r| {
        r.kind == RecipeKind::Runecrafting
            && (r.id == rune || r.output.as_ref().is_some_and(|o| o.item_id == rune))
    })
}

/// Why the agent cannot bind `recipe`'s runes here: `level_too_low`, `missing_items` (no
/// essence), `not_near_station` (no altar in view). `Ok` with the altar.
pub fn runecraftable<'a>(ctx: Ctx<'a>, recipe: &Recipe) -> Result<&'a Seen, Outcome> {
    if ctx.model.level(Skill::Runecrafting) < i64::from(recipe.level) {
        return Err(Outcome::refused(
            "level_too_low",
            format!("{} needs Runecrafting {}", recipe.id, recipe.level),
        ));
    }
    if essence_held(ctx.model, recipe) == 0 {
        return Err(Outcome::refused(
            "missing_items",
            format!("{} needs essence", recipe.id),
        ));
    }
    altar_in_view(ctx.model, recipe).ok_or_else(|| {
        Outcome::refused(
            "not_near_station",
            format!(
                "no {} in view",
                recipe.station.as_deref().unwrap_or("altar")
            ),
        )
    })
}

/// `runecraft {runeItemId}`: every essence carried bound at the rune's altar in view; done when
/// the essence is gone.
pub fn plan_runecraft(ctx: Ctx<'_>, p: &Value) -> Result<Planned, Outcome> {
    let rune = p
        .get("runeItemId")
        .and_then(Value::as_str)
        .ok_or_else(|| Outcome::refused("invalid_params", "runeItemId (a string) is required"))?;
    let recipe = rune_recipe(ctx, rune).ok_or_else(|| {
        Outcome::refused("unknown_recipe", format!("no rune recipe makes {rune}"))
    })?;
    let altar = runecraftable(ctx, recipe)?;
    let owned = recipe.clone();
    let until = Until::when(
        move |m: &Model| essence_held(m, &owned) == 0,
        PROCESS_TICKS,
        format!("bound essence into {rune}"),
    );
    Ok(Planned::Run(Procedure::send(
        ClientMessage::Action(
            ActionRequest::make(recipe.id.clone(), Quantity::Count(1)).with_target(altar.id()),
        ),
        until,
    )))
}

/// What runecraft can do now: the runes whose altar is in view and whose essence is held.
pub fn runecraft_available(ctx: Ctx<'_>) -> Option<Value> {
    let runes: Vec<&str> = ctx
        .knowledge
        .recipes
        .iter()
        .filter(|r| r.kind == RecipeKind::Runecrafting && runecraftable(ctx, r).is_ok())
        .filter_map(|r| r.output.as_ref().map(|o| o.item_id.as_str()))
        .collect();
    (!runes.is_empty()).then(|| json!({"runeItemIds": runes}))
}

/// The planner's step for a Magic goal: the best castable spell at the nearest living NPC in
/// view, as (action, params, reason); `None` when there is no spell or no target.
pub fn magic_step(ctx: Ctx<'_>) -> Option<(&'static str, Value, String)> {
    let spell = best_spell(ctx)?;
    let target = ctx
        .model
        .nearest_of(EntityKind::Npc)
        .into_iter()
        .find(|e| e.health().is_some_and(|h| h > 0))?;
    Some((
        "castSpell",
        json!({"spellId": spell.id, "targetId": target.id()}),
        format!(
            "the best spell castable: {} (level {})",
            spell.name, spell.level
        ),
    ))
}

/// The planner's step for a Runecrafting goal: bind the highest-level rune whose altar is in
/// view and essence held; `None` when none can be made here.
pub fn runecraft_step(ctx: Ctx<'_>) -> Option<(&'static str, Value, String)> {
    let recipe = ctx
        .knowledge
        .recipes
        .iter()
        .filter(|r| r.kind == RecipeKind::Runecrafting && runecraftable(ctx, r).is_ok())
        .max_by_key(|r| r.level)?;
    let rune = recipe.output.as_ref()?.item_id.clone();
    Some((
        "runecraft",
        json!({"runeItemId": rune}),
        format!(
            "essence held at the {} altar",
            recipe.station.as_deref().unwrap_or("")
        ),
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use wayfarer_protocol::ws::{Entity, EntityKind};

    use crate::actions::Ctx;
    use crate::goals::Goal;
    use crate::knowledge::Knowledge;
    use crate::making::tests::{entity, knowledge, model};
    use crate::model::Model;
    use crate::planner::Planner;

    /// A new character at (0, 0) with the bundled content's knowledge, holding `items`, with
    /// `in_view` around (the making tests' scene).
    fn scene(items: &[(&str, i64)], in_view: Vec<Entity>) -> (Model, Knowledge) {
        (model(items, &[], in_view), knowledge())
    }

    fn decide(skill: &str, model: &Model, knowledge: &Knowledge) -> crate::planner::Decision {
        let goal =
            Goal::from_request(&json!({"kind": "skill", "target": {"skill": skill, "level": 5}}))
                .expect("a valid goal");
        let ctx = Ctx { model, knowledge };
        Planner::new().decide(ctx, &goal, 1)
    }

    #[test]
    fn a_magic_goal_casts_the_best_spell_its_runes_allow_and_fights_without_runes() {
        let chicken = entity("npc-1", EntityKind::Npc, "chicken", 3);
        let (model, knowledge) = scene(&[("air_rune", 5), ("mind_rune", 5)], vec![chicken.clone()]);
        let d = decide("magic", &model, &knowledge);
        assert_eq!(d.action, "castSpell");
        assert_eq!(
            d.params,
            json!({"spellId": "wind_strike", "targetId": "npc-1"})
        );
        // No runes: it fights as it can (with food held, or the planner fetches some first).
        let (model, knowledge) = scene(&[("shrimp", 3)], vec![chicken]);
        let d = decide("magic", &model, &knowledge);
        assert_eq!(d.action, "attackEntity");
    }

    #[test]
    fn a_runecrafting_goal_binds_essence_at_an_altar_in_view_and_mines_without_essence() {
        let altar = entity("res-1", EntityKind::Resource, "air_altar", 2);
        let (model, knowledge) = scene(&[("rune_essence", 1)], vec![altar.clone()]);
        let d = decide("runecrafting", &model, &knowledge);
        assert_eq!(d.action, "runecraft");
        assert_eq!(d.params, json!({"runeItemId": "air_rune"}));
        let (model, knowledge) = scene(&[], vec![altar]);
        let d = decide("runecrafting", &model, &knowledge);
        assert_ne!(d.action, "runecraft", "no essence: {d:?}");
    }
}
