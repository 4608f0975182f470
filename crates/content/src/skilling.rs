//! The pure formulas of the non-combat skills: the chance a gathering or firemaking attempt
//! succeeds, and the chance cooking burns the food. Kept apart from the world so tests can check the
//! numbers the world's rolls must match, and with the content so the agent plans by the same numbers
//! the sim rolls by without depending on the sim. Sources and reasoning: `docs/mechanics.md`
//! ("Gathering", "Firemaking", "Cooking").

/// Denominator of a skilling roll: a success is a draw in `0..256` below the numerator.
pub const SKILLING_ROLL_RANGE: u32 = 256;

/// Gathering chance numerators (out of 256) of a level-1 node with a tier-1 tool, at level 1
/// (`low`) and level 99 (`high`): the wiki's figures for a regular tree and a bronze axe.
pub const GATHER_LOW: u32 = 64;
/// See [`GATHER_LOW`].
pub const GATHER_HIGH: u32 = 200;
/// Firemaking numerators for level-1 logs: certain from level 43 on, a quarter at level 1.
pub const FIREMAKING_LOW: u32 = 64;
/// See [`FIREMAKING_LOW`].
pub const FIREMAKING_HIGH: u32 = 512;
/// Every this many levels of node (or logs) requirement halves both numerators (oak 15, willow 30,
/// maple 45: the wiki's bronze-axe figures halve at each step).
pub const DIFFICULTY_STEP_LEVELS: u32 = 15;
/// The most halvings applied.
pub const MAX_DIFFICULTY_STEPS: u32 = 6;

/// Burn chance at the recipe's own level on a fire.
pub const BURN_AT_REQUIREMENT_FIRE: f64 = 0.5;
/// Burn chance at the recipe's own level on a range (ranges burn less).
pub const BURN_AT_REQUIREMENT_RANGE: f64 = 0.4;

/// The classic skilling interpolation (OSRS Wiki, *Skilling success rate*): the numerator out of
/// 256 at `level`, `1 + ⌊low·(99−L)/98 + high·(L−1)/98 + ½⌋`, capped at 256. Levels outside
/// 1..=99 count as the nearest end.
pub fn skilling_numerator(low: u32, high: u32, level: u32) -> u32 {
    let level = u64::from(level.clamp(1, 99));
    let (low, high) = (u64::from(low), u64::from(high));
    // ⌊x/98 + ½⌋ = ⌊(2x + 98) / 196⌋, in integers so no float error moves a boundary.
    let weighted = low * (99 - level) + high * (level - 1);
    let numerator = 1 + (2 * weighted + 98) / 196;
    numerator.min(u64::from(SKILLING_ROLL_RANGE)) as u32
}

/// How many times a requirement halves the base numerators.
pub fn difficulty_steps(required_level: u32) -> u32 {
    (required_level / DIFFICULTY_STEP_LEVELS).min(MAX_DIFFICULTY_STEPS)
}

/// The `(low, high)` numerators of a gathering node needing `required_level`, with a tool of tier
/// `tool_tier` (1 = bronze; 0 or none counts as 1). Each tier above bronze adds half of the bronze
/// figures (iron 1.5×, steel 2×, as the wiki's axe table has it).
pub fn gather_bounds(required_level: u32, tool_tier: u32) -> (u32, u32) {
    let tier = tool_tier.clamp(1, 64);
    let steps = difficulty_steps(required_level);
    let scale = |base: u32| (base * (tier + 1) / 2) >> steps;
    (scale(GATHER_LOW), scale(GATHER_HIGH))
}

/// The chance (0..=1) one gathering roll succeeds.
pub fn gather_chance(required_level: u32, tool_tier: u32, level: u32) -> f64 {
    let (low, high) = gather_bounds(required_level, tool_tier);
    f64::from(skilling_numerator(low, high, level)) / f64::from(SKILLING_ROLL_RANGE)
}

/// The numerator out of 256 of one attempt to light logs needing `required_level`.
pub fn firemaking_numerator(required_level: u32, level: u32) -> u32 {
    let steps = difficulty_steps(required_level);
    skilling_numerator(FIREMAKING_LOW >> steps, FIREMAKING_HIGH >> steps, level)
}

/// The chance (0..=1) that cooking burns the food: falls in a straight line from the base chance at
/// the recipe's level to 0 at `stop_burn_level`, and is 0 from there on.
pub fn burn_chance(level: u32, recipe_level: u32, stop_burn_level: u32, on_range: bool) -> f64 {
    if level >= stop_burn_level || stop_burn_level <= recipe_level {
        return 0.0;
    }
    let base = if on_range {
        BURN_AT_REQUIREMENT_RANGE
    } else {
        BURN_AT_REQUIREMENT_FIRE
    };
    let span = f64::from(stop_burn_level - recipe_level);
    let left = f64::from(stop_burn_level - level.max(recipe_level));
    (base * left / span).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolation_matches_the_written_out_arithmetic() {
        // Level 1: 1 + ⌊64 + ½⌋ = 65; level 99: 1 + ⌊200 + ½⌋ = 201.
        assert_eq!(skilling_numerator(64, 200, 1), 65);
        assert_eq!(skilling_numerator(64, 200, 99), 201);
        // Level 50: 64·49/98 + 200·49/98 = 32 + 100 = 132 → 133.
        assert_eq!(skilling_numerator(64, 200, 50), 133);
        assert_eq!(skilling_numerator(64, 512, 43), 256, "capped");
        assert_eq!(skilling_numerator(64, 200, 0), 65, "clamped");
    }

    #[test]
    fn tools_and_requirements_scale_the_bounds() {
        assert_eq!(gather_bounds(1, 1), (64, 200));
        assert_eq!(gather_bounds(1, 2), (96, 300));
        assert_eq!(gather_bounds(1, 3), (128, 400));
        assert_eq!(gather_bounds(15, 1), (32, 100));
        assert_eq!(gather_bounds(30, 1), (16, 50));
        assert_eq!(gather_bounds(1, 0), (64, 200));
    }

    #[test]
    fn burning_stops_at_the_stop_level() {
        assert_eq!(burn_chance(34, 1, 34, false), 0.0);
        assert_eq!(burn_chance(50, 1, 34, false), 0.0);
        assert!((burn_chance(1, 1, 34, false) - 0.5).abs() < 1e-12);
        assert!((burn_chance(33, 1, 34, true) - 0.4 / 33.0).abs() < 1e-12);
        assert_eq!(burn_chance(5, 5, 5, false), 0.0);
    }
}
