//! Where the towns go: the biggest first, each on dry land in a biome the config prefers (never one
//! it avoids while another spot exists), at least `minTownSpacing` from the others and clear of
//! the hand-placed areas; the spacing relaxes step by step when the island has no room.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use wayfarer_content::generated::Ground;
use wayfarer_content::{Bounds, TownsConfig};

use super::params::Params;
use super::terrain::Grid;

/// Candidate centres tried per town and spacing step.
pub const TOWN_CANDIDATES: u32 = 300;
/// Most towns generated, whatever the config says.
pub const MAX_TOWNS: usize = 64;

/// The order sizes are placed in (largest first); other size names follow alphabetically.
const SIZE_ORDER: [&str; 3] = ["town", "village", "hamlet"];

/// A placed town before it is furnished.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TownPlan {
    pub size: String,
    pub centre: (i32, i32),
    pub safe_radius: i32,
    pub buildings: (u32, u32),
}

/// The towns' sizes in placement order, one entry per town.
fn wanted(config: &TownsConfig) -> Vec<(String, i32, (u32, u32))> {
    let mut names: Vec<&String> = config.sizes.keys().collect();
    names.sort_by_key(|n| {
        (
            SIZE_ORDER
                .iter()
                .position(|s| s == n)
                .unwrap_or(SIZE_ORDER.len()),
            (*n).clone(),
        )
    });
    let mut out = Vec::new();
    for name in names {
        let size = &config.sizes[name];
        let radius = size.safe_zone_radius.clamp(4.0, 512.0).round() as i32;
        let buildings = size.building_count.unwrap_or((2, 4));
        for _ in 0..size.count {
            out.push((name.clone(), radius, buildings));
        }
    }
    let cap = if config.count > 0 {
        config.count as usize
    } else {
        out.len()
    };
    out.truncate(cap.min(MAX_TOWNS));
    out
}

/// Places the towns.
pub(crate) fn place(
    p: &Params,
    grid: &Grid,
    biome_ids: &[String],
    config: &TownsConfig,
    keep_out: &[Bounds],
) -> Vec<TownPlan> {
    if !config.enabled {
        return Vec::new();
    }
    let mut rng = ChaCha8Rng::seed_from_u64(p.town_seed);
    let half = f64::from(grid.side) / 2.0;
    let biome_at = |x: i32, z: i32| {
        grid.index(x, z)
            .and_then(|i| biome_ids.get(usize::from(grid.biome[i])))
    };
    let mut towns: Vec<TownPlan> = Vec::new();
    for (size, radius, buildings) in wanted(config) {
        let plaza = (radius / 3).clamp(4, 24);
        let mut spacing = p.town_spacing;
        let mut chosen = None;
        for attempt in 0..8 {
            let mut best: Option<(f64, (i32, i32))> = None;
            for _ in 0..TOWN_CANDIDATES {
                let angle = rng.random_range(0.0..std::f64::consts::TAU);
                let dist = rng.random_range(0.0f64..0.8).sqrt() * half * 0.85;
                let (x, z) = (
                    (angle.cos() * dist).round() as i32,
                    (angle.sin() * dist).round() as i32,
                );
                let dry = |x: i32, z: i32| matches!(grid.ground_at(x, z), Ground::Land);
                let ring = (0..12).all(|k| {
                    let a = f64::from(k) * std::f64::consts::TAU / 12.0;
                    dry(
                        x + (a.cos() * f64::from(plaza)).round() as i32,
                        z + (a.sin() * f64::from(plaza)).round() as i32,
                    )
                });
                if !dry(x, z) || !ring {
                    continue;
                }
                let spaced = towns.iter().all(|t| {
                    let d = f64::from(t.centre.0 - x).hypot(f64::from(t.centre.1 - z));
                    d >= spacing
                });
                let r = f64::from(radius);
                let clear = keep_out.iter().all(|b| {
                    f64::from(x) + r < b.min_x
                        || f64::from(x) - r > b.max_x
                        || f64::from(z) + r < b.min_z
                        || f64::from(z) - r > b.max_z
                });
                if !spaced || !clear {
                    continue;
                }
                let biome = biome_at(x, z).map(String::as_str).unwrap_or("");
                let avoided = config.avoid_biomes.iter().any(|b| b == biome);
                // After four tries an avoided biome is allowed rather than a missing town.
                if avoided && attempt < 4 {
                    continue;
                }
                let mut score = rng.random_range(0.0..1.0);
                if config.preferred_biomes.iter().any(|b| b == biome) {
                    score += 2.0;
                }
                if avoided {
                    score -= 2.0;
                }
                if best.is_none_or(|(s, _)| score > s) {
                    best = Some((score, (x, z)));
                }
            }
            if let Some((_, centre)) = best {
                chosen = Some(centre);
                break;
            }
            spacing *= 0.75;
        }
        // With no room even at a small fraction of the spacing the town is left out (the
        // generated world's town list, served in the areas, shows what was placed).
        if let Some(centre) = chosen {
            towns.push(TownPlan {
                size,
                centre,
                safe_radius: radius,
                buildings,
            });
        }
    }
    towns
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfarer_content::TownSize;

    fn config(count: u32, per_size: u32) -> TownsConfig {
        let size = |r: f64| TownSize {
            count: per_size,
            safe_zone_radius: r,
            building_count: Some((2, 3)),
        };
        TownsConfig {
            seed: 1,
            enabled: true,
            count,
            world_size: 1000.0,
            sizes: [
                ("hamlet".to_owned(), size(40.0)),
                ("town".to_owned(), size(80.0)),
                ("village".to_owned(), size(60.0)),
            ]
            .into(),
            preferred_biomes: Vec::new(),
            avoid_biomes: Vec::new(),
        }
    }

    #[test]
    fn towns_are_placed_largest_first_up_to_the_count_and_the_cap() {
        let sizes = |c: &TownsConfig| wanted(c).into_iter().map(|t| t.0).collect::<Vec<_>>();
        assert_eq!(
            sizes(&config(0, 1)),
            ["town", "village", "hamlet"],
            "count 0: every size's count"
        );
        assert_eq!(sizes(&config(2, 1)), ["town", "village"], "`count` caps");
        assert_eq!(wanted(&config(0, 21)).len(), 63);
        assert_eq!(
            wanted(&config(0, 22)).len(),
            MAX_TOWNS,
            "66 asked, 64 placed"
        );
        assert_eq!(wanted(&config(1000, 22)).len(), MAX_TOWNS);
    }
}
