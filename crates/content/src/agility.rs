//! Agility courses: `agility.json` (a Wayfarer manifest in the style of the reference files; the
//! reference content has none, so a world from it has no obstacles).
//!
//! ```json
//! {"courses": [{"id", "name", "lapXp"?, "obstacles": [{"id", "name", "kind", "level"?,
//!   "xp", "successChance", "failDamage"?: {"min", "max"}, "position": {x,y,z},
//!   "destination": {x,y,z}}]}]}
//! ```
//!
//! An obstacle stands at `position`; a player next to it who crosses it lands on `destination`.
//! The obstacles of a course are listed in the order of a lap.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::common::{Ctx, Position};

/// One agility course: obstacles in lap order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgilityCourse {
    /// Unique id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// XP for crossing every obstacle in order, paid at the last one.
    pub lap_xp: f64,
    /// The obstacles, in the order of a lap.
    pub obstacles: Vec<Obstacle>,
}

/// One obstacle of a course.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Obstacle {
    /// Unique id (across courses).
    pub id: String,
    /// Display name ("Log balance").
    pub name: String,
    /// What it looks like, for clients (`log_balance`, `net`, `pipe`, `ledge`, …).
    pub kind: String,
    /// Agility level needed to try it.
    pub level: u32,
    /// XP for a successful crossing.
    pub xp: f64,
    /// Chance to cross at the required level (0..=1).
    pub success_chance: f64,
    /// Damage taken on a failure, inclusive.
    pub fail_damage: (u32, u32),
    /// Where it stands (the tile a player must be next to).
    pub position: Position,
    /// Where a successful crossing lands the player.
    pub destination: Position,
}

/// `agility.json` as written.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RawAgilityFile {
    #[serde(default)]
    pub courses: Vec<RawCourse>,
}

/// A course as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawCourse {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub lap_xp: f64,
    #[serde(default)]
    pub obstacles: Vec<RawObstacle>,
}

/// An obstacle as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawObstacle {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub level: Option<i64>,
    #[serde(default)]
    pub xp: f64,
    #[serde(default = "crate::common::one_f")]
    pub success_chance: f64,
    #[serde(default)]
    pub fail_damage: Option<RawDamage>,
    pub position: Position,
    pub destination: Position,
}

/// `failDamage` as written.
#[derive(Debug, Clone, Copy, Deserialize)]
pub(crate) struct RawDamage {
    #[serde(default)]
    pub min: i64,
    #[serde(default)]
    pub max: i64,
}

/// Normalises the courses; an obstacle id used twice is an error and the second is dropped.
pub(crate) fn normalise(raw: &RawAgilityFile, ctx: &mut Ctx<'_>) -> Vec<AgilityCourse> {
    let mut seen = BTreeSet::new();
    let mut courses = Vec::new();
    for (c, course) in raw.courses.iter().enumerate() {
        let at = format!("courses[{c}]");
        if !ctx.check_id(&course.id, &format!("{at}.id")) {
            continue;
        }
        let mut obstacles = Vec::new();
        for (o, raw) in course.obstacles.iter().enumerate() {
            let field = |f: &str| format!("{at}.obstacles[{o}].{f}");
            if !ctx.check_id(&raw.id, &field("id")) {
                continue;
            }
            if !seen.insert(raw.id.clone()) {
                ctx.duplicate(
                    &raw.id,
                    &field("id"),
                    format!("obstacle `{}` is defined twice", raw.id),
                );
                continue;
            }
            let damage = raw.fail_damage.unwrap_or(RawDamage { min: 0, max: 0 });
            let min = ctx.count(&raw.id, &field("failDamage.min"), damage.min);
            let max = ctx.count(&raw.id, &field("failDamage.max"), damage.max);
            if min > max {
                ctx.invalid(&raw.id, &field("failDamage"), "min is greater than max");
            }
            obstacles.push(Obstacle {
                id: raw.id.clone(),
                name: raw.name.clone(),
                kind: raw.kind.clone().unwrap_or_else(|| "obstacle".into()),
                level: ctx.level(&raw.id, &field("level"), raw.level.unwrap_or(1)),
                xp: ctx.non_negative(&raw.id, &field("xp"), raw.xp),
                success_chance: ctx.chance(&raw.id, &field("successChance"), raw.success_chance),
                fail_damage: (min.min(max), max),
                position: raw.position,
                destination: raw.destination,
            });
        }
        courses.push(AgilityCourse {
            id: course.id.clone(),
            name: course.name.clone(),
            lap_xp: ctx.non_negative(&course.id, &format!("{at}.lapXp"), course.lap_xp),
            obstacles,
        });
    }
    courses
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_bundled_course_is_a_loop_of_at_least_four() {
        let content = crate::load_bundled();
        let course = &content.agility_courses[0];
        assert!(course.obstacles.len() >= 4);
        // Each obstacle's landing tile is next to the next obstacle, the last one's next to the
        // first: a lap ends where it began.
        let n = course.obstacles.len();
        for (i, o) in course.obstacles.iter().enumerate() {
            let next = &course.obstacles[(i + 1) % n];
            let dx = (o.destination.x.floor() - next.position.x.floor()).abs();
            let dz = (o.destination.z.floor() - next.position.z.floor()).abs();
            assert!(dx.max(dz) <= 1.0, "{} does not lead to {}", o.id, next.id);
        }
    }
}
