//! Making (CONTRACT §9): which recipes the agent can make here and now, the best of them for a
//! purpose, and the `make` it sends. The processing actions (lightFire, cookFood, smeltOre,
//! smithBar, useItem on a recipe's pair), makeItem and the planner all choose through here, by the
//! server's own checks in the server's order (level, tool, items, station), so what the agent
//! offers a model or picks itself is what the server would make.

use wayfarer_content::{Recipe, RecipeKind};
use wayfarer_protocol::ws::{ActionRequest, ClientMessage, EntityKind, Quantity, TilePos};
use wayfarer_protocol::Skill;

use crate::actions::{Ctx, LIGHT_FIRE_TICKS, PROCESS_TICKS};
use crate::model::{Model, Seen};
use crate::outcome::Outcome;
use crate::procedure::{Procedure, Until};

/// Recipes offered to a model at once (makeItem's list): the best first, so a long list of
/// possible makes (a stack of bars at an anvil) does not crowd the prompt.
pub const MAX_MAKE_OPTIONS: usize = 10;

/// Whether the agent makes this kind of recipe with makeItem: tanning is bought from a tanner and
/// runecrafting has its own action (`runecraft`, `magic`).
pub fn made_by_agent(recipe: &Recipe) -> bool {
    !matches!(recipe.kind, RecipeKind::Tanning | RecipeKind::Runecrafting)
}

/// The station types a recipe can be made at: its own, and a player's fire for cooking that
/// allows one.
fn station_types(recipe: &Recipe) -> Vec<&str> {
    let mut types: Vec<&str> = recipe.station.iter().map(String::as_str).collect();
    if let wayfarer_content::RecipeDetail::Cooking {
        allow_fire: true, ..
    } = recipe.detail
    {
        types.push("fire");
    }
    types
}

/// Whether `e` is a station `recipe` can be made at.
pub fn is_station_for(recipe: &Recipe, e: &Seen) -> bool {
    e.kind() == EntityKind::Resource
        && e.depleted != Some(true)
        && e.resource_type()
            .is_some_and(|t| station_types(recipe).contains(&t))
}

/// Whether a fire burns on the agent's own tile.
pub fn fire_underfoot(model: &Model) -> bool {
    let here: TilePos = model.me.tile.into();
    model.entities.values().any(|e| {
        e.kind() == EntityKind::Resource
            && (e.x, e.z) == (here.x, here.z)
            && e.resource_type() == Some("fire")
            && e.depleted != Some(true)
    })
}

/// The nearest station in view `recipe` can be made at.
pub fn station_in_view<'a>(model: &'a Model, recipe: &Recipe) -> Option<&'a Seen> {
    model
        .nearest_of(EntityKind::Resource)
        .into_iter()
        .find(|e| is_station_for(recipe, e))
}

/// Whether the inventory has everything one make of `recipe` uses up.
pub fn has_inputs(model: &Model, recipe: &Recipe) -> bool {
    recipe
        .inputs
        .iter()
        .all(|i| model.count_of(&i.item_id) >= i64::from(i.quantity))
        && model.count_of("coins") >= i64::try_from(recipe.coin_cost).unwrap_or(i64::MAX)
}

/// Why the agent cannot make `recipe` with what it holds, by the server's codes in the server's
/// order: `level_too_low`, `missing_tool`, `missing_items`.
pub fn check_holdings(ctx: Ctx<'_>, recipe: &Recipe) -> Result<(), Outcome> {
    let model = ctx.model;
    if let Some(skill) = recipe.skill {
        if model.level(skill) < i64::from(recipe.level) {
            return Err(Outcome::refused(
                "level_too_low",
                format!("{} needs {skill} {}", recipe.id, recipe.level),
            ));
        }
    }
    // In the inventory: the server does not count what is worn.
    if let Some(tool) = recipe.held_items().find(|t| model.slot_of(t).is_none()) {
        return Err(Outcome::refused(
            "missing_tool",
            format!("{} needs a {}", recipe.id, ctx.knowledge.item_name(tool)),
        ));
    }
    if !has_inputs(model, recipe) {
        return Err(Outcome::refused(
            "missing_items",
            format!("not enough held for {}", recipe.id),
        ));
    }
    Ok(())
}

/// [`check_holdings`], then `not_near_station` when `recipe` needs a station and none is in view.
/// `Ok` with the station to make it at, if it needs one.
pub fn check<'a>(ctx: Ctx<'a>, recipe: &Recipe) -> Result<Option<&'a Seen>, Outcome> {
    check_holdings(ctx, recipe)?;
    if recipe.kind == RecipeKind::Firemaking && fire_underfoot(ctx.model) {
        // The server lights no second fire on a tile ("You can't light a fire here."): offered
        // here, a model's makeItem of logs would be refused every step it stands on one.
        return Err(Outcome::refused(
            "cannot_do",
            "a fire already burns on this tile",
        ));
    }
    if recipe.station.is_none() {
        return Ok(None);
    }
    station_in_view(ctx.model, recipe).map(Some).ok_or_else(|| {
        Outcome::refused(
            "not_near_station",
            format!("no {} in view", station_types(recipe).join(" or ")),
        )
    })
}

/// The best recipe `keep` accepts and where to make it, at `at` when given (refused with
/// `invalid_target` when no such recipe is made there): the highest level the agent can make now;
/// when it can make none, why not for the lowest-level one (the first it could work towards), and
/// `cannot_do` when `keep` accepts no recipe at all.
pub fn choose<'a>(
    ctx: Ctx<'a>,
    keep: impl Fn(&Recipe) -> bool,
    at: Option<&'a Seen>,
    what: &str,
) -> Result<(&'a Recipe, Option<&'a Seen>), Outcome> {
    let mut candidates: Vec<&Recipe> = ctx
        .knowledge
        .recipes
        .iter()
        .filter(|r| made_by_agent(r) && keep(r))
        .collect();
    if candidates.is_empty() {
        return Err(Outcome::refused(
            "cannot_do",
            format!("no recipe makes anything of {what}"),
        ));
    }
    if let Some(station) = at {
        candidates.retain(|r| r.station.is_none() || is_station_for(r, station));
        if candidates.is_empty() {
            return Err(Outcome::refused(
                "invalid_target",
                format!("nothing is made of {what} at {}", station.id()),
            ));
        }
    }
    let place = |r: &Recipe| match at {
        Some(station) if r.station.is_some() => check_holdings(ctx, r).map(|()| Some(station)),
        _ => check(ctx, r),
    };
    // Highest level first; equal levels keep content order (the sort is stable).
    candidates.sort_by_key(|r| std::cmp::Reverse(r.level));
    if let Some((recipe, station)) = candidates
        .iter()
        .find_map(|r| place(r).ok().map(|s| (*r, s)))
    {
        return Ok((recipe, station));
    }
    let lowest = candidates.last().expect("not empty");
    Err(place(lowest).expect_err("none can be made"))
}

/// The recipes the agent can make now (made with `make`), the highest level first, then in
/// content order.
pub fn makeable<'a>(ctx: Ctx<'a>) -> Vec<&'a Recipe> {
    let mut found: Vec<&Recipe> = ctx
        .knowledge
        .recipes
        .iter()
        .filter(|r| made_by_agent(r) && check(ctx, r).is_ok())
        .collect();
    // Stable: equal levels keep content order.
    found.sort_by_key(|r| std::cmp::Reverse(r.level));
    found
}

/// Whether `recipe` uses up `item`.
pub fn takes(recipe: &Recipe, item: &str) -> bool {
    recipe.inputs.iter().any(|i| i.item_id == item)
}

/// The recipe named `id`, made by the agent.
pub fn find<'a>(ctx: Ctx<'a>, id: &str) -> Result<&'a Recipe, Outcome> {
    ctx.knowledge
        .recipes
        .iter()
        .find(|r| r.id == id)
        .filter(|r| made_by_agent(r))
        .ok_or_else(|| Outcome::refused("unknown_recipe", format!("no recipe {id} to make")))
}

/// Sends `make` of `recipe` `quantity` times at `station` (when it needs one). Firemaking is done
/// when the fire's XP arrives (the server retries a light until it takes); one make is done when
/// the inventory changes; more are done when an input runs out, failing after a stall.
pub fn make(
    model: &Model,
    recipe: &Recipe,
    quantity: Quantity,
    station: Option<&Seen>,
) -> Procedure {
    let mut request = ActionRequest::make(recipe.id.clone(), quantity);
    if let Some(station) = station {
        request = request.with_target(station.id());
    }
    let until = if recipe.kind == RecipeKind::Firemaking {
        let before = xp_events(model, Skill::Firemaking);
        Until::when(
            move |m: &Model| xp_events(m, Skill::Firemaking) > before,
            LIGHT_FIRE_TICKS,
            format!("made {}", recipe.id),
        )
    } else {
        // Done when the count's inputs are used up (a burnt or failed make uses them too) or the
        // inputs run out; the wait counts from the last change, as makes take the recipe's ticks.
        let owned = recipe.clone();
        let first = recipe
            .inputs
            .first()
            .map(|i| (i.item_id.clone(), i64::from(i.quantity)));
        let held = first.as_ref().map_or(0, |(item, _)| model.count_of(item));
        let to_use = match quantity {
            Quantity::All => i64::MAX,
            Quantity::Count(n) => first.as_ref().map_or(0, |(_, q)| n.saturating_mul(*q)),
        };
        let version = model.inventory_version;
        Until::when(
            move |m: &Model| {
                let used = first
                    .as_ref()
                    .map_or(0, |(item, _)| held - m.count_of(item));
                m.inventory_version > version && (used >= to_use || !has_inputs(m, &owned))
            },
            PROCESS_TICKS,
            format!("made {}", recipe.id),
        )
        .with_progress(|m| m.inventory_version)
    };
    Procedure::send(ClientMessage::Action(request), until)
}

fn xp_events(model: &Model, skill: Skill) -> u64 {
    model.xp_events.get(&skill).copied().unwrap_or(0)
}

#[cfg(test)]
pub(crate) mod tests {
    use serde_json::{json, Value};
    use wayfarer_protocol::ws::{
        Entity, InventorySlot, Player, ServerMessage, SkillState, TilePos, WorldPos, WorldUpdate,
    };

    use super::*;
    use crate::actions::{self, Planned, ACTIONS};
    use crate::knowledge::Knowledge;

    /// The bundled content's items and recipes.
    pub(crate) fn knowledge() -> Knowledge {
        Knowledge::from_content(&wayfarer_content::load_bundled())
    }

    /// A player at (0, 0) holding `items` (one slot each), with `levels`, who sees `in_view`.
    pub(crate) fn model(
        items: &[(&str, i64)],
        levels: &[(Skill, i64)],
        in_view: Vec<Entity>,
    ) -> Model {
        model_at((0, 0), items, levels, in_view)
    }

    /// The agents' tests' one scene: a new player ("me", 10 hitpoints) on tile `at` holding
    /// `items` (one slot each), with `levels`, who sees `in_view` at tick 1.
    pub(crate) fn model_at(
        at: (i32, i32),
        items: &[(&str, i64)],
        levels: &[(Skill, i64)],
        in_view: Vec<Entity>,
    ) -> Model {
        let mut model = Model::default();
        model.apply(&ServerMessage::PlayerSync(Box::new(Player {
            id: "me".into(),
            account_id: "a".into(),
            name: "Me".into(),
            combat_level: 3,
            health: 10,
            max_health: 10,
            coins: 0,
            position: WorldPos {
                x: f64::from(at.0) + 0.5,
                y: 0.0,
                z: f64::from(at.1) + 0.5,
            },
            skills: levels
                .iter()
                .map(|(s, level)| {
                    (
                        *s,
                        SkillState {
                            level: *level,
                            xp: 0,
                        },
                    )
                })
                .collect(),
            inventory: items
                .iter()
                .enumerate()
                .map(|(slot, (item, quantity))| InventorySlot {
                    slot: slot as u8,
                    item_id: (*item).into(),
                    name: (*item).into(),
                    quantity: *quantity,
                })
                .collect(),
            equipment: Default::default(),
            online: true,
            tile: Some(TilePos { x: at.0, z: at.1 }),
            stamina: Some(100),
            auto_retaliate: Some(true),
            home_teleport_cooldown: None,
        })));
        model.apply(&ServerMessage::WorldUpdate(WorldUpdate {
            tick: 1,
            added: in_view.into_iter().map(Into::into).collect(),
            ..Default::default()
        }));
        model
    }

    /// A station (`anvil`, `furnace`, `range`, `fire`) at (x, 1).
    pub(crate) fn station(id: &str, kind: &str, x: i32) -> Entity {
        Entity {
            z: 1,
            depleted: Some(false),
            ..entity(id, EntityKind::Resource, kind, x)
        }
    }

    /// An entity of content type `type_id` at (x, 0): a resource of that type, or a creature
    /// (an NPC or a player) with 3 hitpoints.
    pub(crate) fn entity(id: &str, kind: EntityKind, type_id: &str, x: i32) -> Entity {
        let resource = kind == EntityKind::Resource;
        Entity {
            id: id.into(),
            kind,
            x,
            z: 0,
            name: Some(type_id.into()),
            health: (!resource).then_some(3),
            max_health: (!resource).then_some(3),
            item_id: None,
            quantity: None,
            resource_type: resource.then(|| type_id.into()),
            depleted: None,
            type_id: Some(type_id.into()),
            worn: None,
            open: None,
            side: None,
            quest: None,
        }
    }

    /// The `player:action` a planned action sends first, as JSON.
    fn sent(planned: Result<Planned, Outcome>) -> Value {
        let Ok(Planned::Run(Procedure::Send { frames, .. })) = planned else {
            panic!("not a send");
        };
        let Some(ClientMessage::Action(request)) = frames.first() else {
            panic!("not an action: {frames:?}");
        };
        serde_json::to_value(request).expect("serialises")
    }

    fn refused(planned: Result<Planned, Outcome>) -> String {
        match planned {
            Err(Outcome::Rejected { code, .. }) => code,
            Err(other) => panic!("not a refusal: {other:?}"),
            Ok(_) => panic!("accepted"),
        }
    }

    #[test]
    fn smith_bar_makes_all_of_the_highest_recipe_the_level_and_bars_allow() {
        let knowledge = knowledge();
        let anvil = || vec![station("anvil-1", "anvil", 2)];
        // Smithing 4: the sword (4) over the dagger, hatchet and pickaxe (1) and the helmet (3);
        // arrowtips need 5 and a platebody 5 bars at 18.
        let model = model(
            &[("hammer", 1), ("bronze_bar", 3)],
            &[(Skill::Smithing, 4)],
            anvil(),
        );
        let ctx = Ctx {
            model: &model,
            knowledge: &knowledge,
        };
        assert_eq!(
            sent(actions::plan(ctx, "smithBar", &json!({}))),
            json!({"action": "make", "recipeId": "smithing:bronze_sword", "quantity": "all", "targetId": "anvil-1"})
        );
        // Level 1 with the same bars: the first level-1 recipe in content order, the dagger.
        let model = super::tests::model(
            &[("hammer", 1), ("bronze_bar", 3)],
            &[(Skill::Smithing, 1)],
            anvil(),
        );
        let ctx = Ctx {
            model: &model,
            knowledge: &knowledge,
        };
        assert_eq!(
            sent(actions::plan(ctx, "smithBar", &json!({})))["recipeId"],
            "smithing:bronze_dagger"
        );
        // Without a hammer, or with no anvil in view: the server's codes, before sending.
        let no_hammer = super::tests::model(&[("bronze_bar", 3)], &[], anvil());
        let ctx = Ctx {
            model: &no_hammer,
            knowledge: &knowledge,
        };
        assert_eq!(
            refused(actions::plan(ctx, "smithBar", &json!({}))),
            "missing_tool"
        );
        let no_anvil = super::tests::model(&[("hammer", 1), ("bronze_bar", 3)], &[], vec![]);
        let ctx = Ctx {
            model: &no_anvil,
            knowledge: &knowledge,
        };
        assert_eq!(
            refused(actions::plan(ctx, "smithBar", &json!({}))),
            "not_near_station"
        );
    }

    #[test]
    fn processing_actions_send_make_with_the_recipe_of_the_item_held() {
        let knowledge = knowledge();
        let model = model(
            &[
                ("tinderbox", 1),
                ("logs", 2),
                ("raw_shrimp", 4),
                ("copper_ore", 1),
                ("tin_ore", 1),
                ("bread", 1),
            ],
            &[],
            vec![
                station("range-1", "range", 3),
                station("furnace-1", "furnace", -3),
            ],
        );
        let ctx = Ctx {
            model: &model,
            knowledge: &knowledge,
        };
        assert_eq!(
            sent(actions::plan(ctx, "lightFire", &json!({}))),
            json!({"action": "make", "recipeId": "firemaking:logs", "quantity": 1})
        );
        assert_eq!(
            sent(actions::plan(ctx, "cookFood", &json!({}))),
            json!({"action": "make", "recipeId": "cooking:shrimp", "quantity": "all", "targetId": "range-1"})
        );
        assert_eq!(
            sent(actions::plan(
                ctx,
                "smeltOre",
                &json!({"itemId": "tin_ore"})
            )),
            json!({"action": "make", "recipeId": "smithing:bronze_bar", "quantity": "all", "targetId": "furnace-1"})
        );
        // A tinderbox used on logs lights them: one make of their recipe.
        assert_eq!(
            sent(actions::plan(
                ctx,
                "useItem",
                &json!({"slot": 0, "targetSlot": 1})
            )),
            json!({"action": "make", "recipeId": "firemaking:logs", "quantity": 1})
        );
        // Raw food used on a range cooks one.
        assert_eq!(
            sent(actions::plan(
                ctx,
                "useItem",
                &json!({"slot": 2, "targetId": "range-1"})
            )),
            json!({"action": "make", "recipeId": "cooking:shrimp", "quantity": 1, "targetId": "range-1"})
        );
        // Two items no recipe joins: the use goes to the server as it is.
        let Ok(Planned::Run(Procedure::Send { frames, .. })) =
            actions::plan(ctx, "useItem", &json!({"slot": 5, "targetSlot": 3}))
        else {
            panic!("a use is sent");
        };
        assert!(
            matches!(frames.first(), Some(ClientMessage::Use(_))),
            "{frames:?}"
        );
        // Bread does not burn, nor cooks at a furnace: refused before sending.
        assert_eq!(
            refused(actions::plan(ctx, "lightFire", &json!({"slot": 5}))),
            "cannot_do"
        );
        assert_eq!(
            refused(actions::plan(
                ctx,
                "cookFood",
                &json!({"targetId": "furnace-1"})
            )),
            "invalid_target"
        );
    }

    #[test]
    fn make_item_checks_the_recipe_the_quantity_and_the_station() {
        let knowledge = knowledge();
        let model = model(
            &[("hammer", 1), ("bronze_bar", 2)],
            &[(Skill::Smithing, 3)],
            vec![
                station("anvil-1", "anvil", 2),
                station("range-1", "range", 3),
            ],
        );
        let ctx = Ctx {
            model: &model,
            knowledge: &knowledge,
        };
        let make = |p: Value| actions::plan(ctx, "makeItem", &p);
        assert_eq!(
            sent(make(
                json!({"recipeId": "smithing:bronze_helmet", "quantity": 2})
            )),
            json!({"action": "make", "recipeId": "smithing:bronze_helmet", "quantity": 2, "targetId": "anvil-1"})
        );
        // Default 1; the bounds: 10,000 is the last allowed, 0 and 10,001 are refused; "all".
        assert_eq!(
            sent(make(json!({"recipeId": "smithing:bronze_dagger"})))["quantity"],
            1
        );
        assert_eq!(
            sent(make(
                json!({"recipeId": "smithing:bronze_dagger", "quantity": 10_000})
            ))["quantity"],
            10_000
        );
        assert_eq!(
            sent(make(
                json!({"recipeId": "smithing:bronze_dagger", "quantity": "all"})
            ))["quantity"],
            "all"
        );
        for quantity in [
            json!(0),
            json!(10_001),
            json!(-1),
            json!(1.5),
            json!("many"),
        ] {
            assert_eq!(
                refused(make(
                    json!({"recipeId": "smithing:bronze_dagger", "quantity": quantity})
                )),
                "invalid_params",
                "{quantity}"
            );
        }
        // The server's codes, checked in its order, before sending.
        let cases = [
            (
                json!({"recipeId": "smithing:mithril_dagger_x"}),
                "unknown_recipe",
            ),
            (
                json!({"recipeId": "smithing:bronze_sword"}),
                "level_too_low",
            ),
            (json!({"recipeId": "cooking:shrimp"}), "missing_items"),
            (json!({"recipeId": "firemaking:logs"}), "missing_tool"),
            (
                json!({"recipeId": "smithing:bronze_dagger", "targetId": "range-1"}),
                "invalid_target",
            ),
            (json!({}), "invalid_params"),
        ];
        for (params, code) in cases {
            assert_eq!(refused(make(params.clone())), code, "{params}");
        }
        let far = super::tests::model(&[("hammer", 1), ("bronze_bar", 2)], &[], vec![]);
        let ctx = Ctx {
            model: &far,
            knowledge: &knowledge,
        };
        assert_eq!(
            refused(actions::plan(
                ctx,
                "makeItem",
                &json!({"recipeId": "smithing:bronze_dagger"})
            )),
            "not_near_station"
        );
    }

    #[test]
    fn make_item_offers_the_recipes_made_here_best_first_and_at_most_ten() {
        let knowledge = knowledge();
        let def = ACTIONS
            .iter()
            .find(|a| a.name == "makeItem")
            .expect("makeItem");
        // Nothing to make: not offered.
        let empty = model(&[("hammer", 1)], &[], vec![station("anvil-1", "anvil", 2)]);
        let ctx = Ctx {
            model: &empty,
            knowledge: &knowledge,
        };
        assert_eq!((def.available)(ctx), None);
        // Five bronze bars at Smithing 99: all seven bronze recipes, the platebody (18) first.
        let model = model(
            &[("hammer", 1), ("bronze_bar", 5)],
            &[(Skill::Smithing, 99)],
            vec![station("anvil-1", "anvil", 2)],
        );
        let ctx = Ctx {
            model: &model,
            knowledge: &knowledge,
        };
        let offered = (def.available)(ctx).expect("offered");
        let ids: Vec<&str> = offered["recipes"]
            .as_array()
            .expect("a list")
            .iter()
            .filter_map(|r| r["recipeId"].as_str())
            .collect();
        assert_eq!(ids.first(), Some(&"smithing:bronze_platebody"), "{ids:?}");
        assert_eq!(ids.len(), 7, "{ids:?}");
        assert!(
            ids.iter().all(|id| id.starts_with("smithing:bronze_")),
            "{ids:?}"
        );
        // Many inputs at once: the list stops at the bound.
        let mut held: Vec<(&str, i64)> = vec![("hammer", 1), ("tinderbox", 1), ("bronze_bar", 5)];
        held.extend([
            ("raw_shrimp", 1),
            ("raw_anchovies", 1),
            ("raw_chicken", 1),
            ("raw_beef", 1),
            ("logs", 1),
            ("copper_ore", 1),
            ("tin_ore", 1),
        ]);
        let many = super::tests::model(
            &held,
            &[(Skill::Smithing, 99), (Skill::Cooking, 99)],
            vec![
                station("anvil-1", "anvil", 2),
                station("range-1", "range", 3),
                station("furnace-1", "furnace", 4),
            ],
        );
        let ctx = Ctx {
            model: &many,
            knowledge: &knowledge,
        };
        assert!(
            makeable(ctx).len() > MAX_MAKE_OPTIONS,
            "the case exceeds the bound"
        );
        let offered = (def.available)(ctx).expect("offered");
        assert_eq!(
            offered["recipes"].as_array().map(Vec::len),
            Some(MAX_MAKE_OPTIONS)
        );
    }

    /// What `makeItem` offers in a scene: the recipe ids (empty: not offered), each checked to be
    /// one the agent's plan accepts, so the state shows no make the server would refuse.
    fn offered_here(
        items: &[(&str, i64)],
        levels: &[(Skill, i64)],
        in_view: Vec<Entity>,
    ) -> Vec<String> {
        let knowledge = knowledge();
        let model = model(items, levels, in_view);
        let ctx = Ctx {
            model: &model,
            knowledge: &knowledge,
        };
        let def = ACTIONS
            .iter()
            .find(|a| a.name == "makeItem")
            .expect("makeItem");
        let Some(offered) = (def.available)(ctx) else {
            return Vec::new();
        };
        let ids: Vec<String> = offered["recipes"]
            .as_array()
            .expect("a list")
            .iter()
            .filter_map(|r| r["recipeId"].as_str().map(str::to_owned))
            .collect();
        for id in &ids {
            let planned = actions::plan(ctx, "makeItem", &serde_json::json!({"recipeId": id}));
            assert!(
                planned.is_ok(),
                "{id} offered but refused: {:?}",
                planned.err()
            );
        }
        ids
    }

    #[test]
    fn make_item_is_offered_only_where_the_server_would_make_it() {
        let anvil = || vec![station("anvil-1", "anvil", 2)];
        let mut fire_here = station("fire-1", "fire", 0);
        fire_here.z = 0;
        // Cannot: no materials, no station in view, the level too low, a fire underfoot.
        assert!(offered_here(&[("hammer", 1)], &[], anvil()).is_empty());
        assert!(offered_here(&[("hammer", 1), ("bronze_bar", 5)], &[], vec![]).is_empty());
        assert!(
            offered_here(&[("bronze_bar", 5)], &[], anvil()).is_empty(),
            "no hammer"
        );
        let low = offered_here(&[("hammer", 1), ("bronze_bar", 5)], &[], anvil());
        assert!(
            !low.iter().any(|id| id == "smithing:bronze_platebody"),
            "{low:?}"
        );
        assert!(
            offered_here(&[("tinderbox", 1), ("oak_logs", 1)], &[], vec![]).is_empty(),
            "oak logs need Firemaking 15"
        );
        assert!(
            offered_here(
                &[("tinderbox", 1), ("logs", 1)],
                &[],
                vec![fire_here.clone()]
            )
            .is_empty(),
            "a fire burns on this tile"
        );
        // Nor lightFire, the same make by another name.
        let knowledge = knowledge();
        let on_fire = model(&[("tinderbox", 1), ("logs", 1)], &[], vec![fire_here]);
        let light = ACTIONS
            .iter()
            .find(|a| a.name == "lightFire")
            .expect("lightFire");
        let ctx = Ctx {
            model: &on_fire,
            knowledge: &knowledge,
        };
        assert_eq!((light.available)(ctx), None);
        assert!(actions::plan(ctx, "lightFire", &serde_json::json!({})).is_err());
        // Can: logs and a tinderbox off any fire (one a tile away does not matter), bars and a
        // hammer at an anvil at the level.
        assert_eq!(
            offered_here(
                &[("tinderbox", 1), ("logs", 1)],
                &[],
                vec![station("fire-2", "fire", 1)]
            ),
            ["firemaking:logs"]
        );
        assert_eq!(
            offered_here(&[("hammer", 1), ("bronze_bar", 1)], &[], anvil()),
            [
                "smithing:bronze_dagger",
                "smithing:bronze_hatchet",
                "smithing:bronze_pickaxe"
            ]
        );
    }
}
