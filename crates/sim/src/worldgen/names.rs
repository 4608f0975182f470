//! Names for the generated towns: the legacy `zones.json` town names no area uses yet, then our
//! list, given to the sites so that a compass word in a name ("Eastern Outpost") agrees with where
//! the town lies (docs/content.md, "Directions").
//!
//! Directions are reckoned from the spawn, not the island's middle: the content's own compass words
//! ("east of Millbrook") are relative to the spawn town, and it is where every player starts reading
//! the map from.

use wayfarer_content::compass::{self, Compass};
use wayfarer_content::Content;

/// Names for generated towns once the legacy `zones.json` town names run out.
const TOWN_NAMES: [&str; 16] = [
    "Ashford",
    "Brindlemere",
    "Cobble Cross",
    "Dunmarrow",
    "Elmstead",
    "Fernhollow",
    "Greywater",
    "Hollin Ford",
    "Ivybridge",
    "Juniper Rest",
    "Kestrel Down",
    "Larkspur",
    "Mossgate",
    "Northwick",
    "Oakhaven",
    "Pebblebrook",
];

/// Names for towns at `centres` (in that order), directions taken from `from`. Compass-named
/// candidates are matched to the sites that lie their way, the squarest match first; one with no
/// such site left is passed over for the next name without a compass word. The rest go to the
/// remaining sites in order. A pure function of its inputs, so the world stays deterministic.
pub(super) fn for_sites(
    content: &Content,
    centres: &[(i32, i32)],
    from: (i32, i32),
) -> Vec<String> {
    // Enough names that passing over compass names never runs the pool dry.
    let pool = town_names(content, 2 * centres.len() + TOWN_NAMES.len());
    let offsets: Vec<(i32, i32)> = centres
        .iter()
        .map(|c| (c.0 - from.0, c.1 - from.1))
        .collect();
    assign(&pool, &offsets)
}

/// [`for_sites`] on a name pool (in preference order) and the sites' offsets from the reference.
fn assign(pool: &[String], offsets: &[(i32, i32)]) -> Vec<String> {
    let n = offsets.len();
    let candidates = &pool[..n.min(pool.len())];
    // Every admissible (name, site) pair, best aligned first; ties by name then site order.
    let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
    for (i, name) in candidates.iter().enumerate() {
        let points = compass::words(name);
        if points.is_empty() {
            continue;
        }
        for (j, &(dx, dz)) in offsets.iter().enumerate() {
            if compass::lies(&points, dx, dz) {
                pairs.push((alignment(&points, dx, dz), i, j));
            }
        }
    }
    pairs.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut names: Vec<Option<String>> = vec![None; n];
    let mut named = vec![false; candidates.len()];
    for (_, i, j) in pairs {
        if !named[i] && names[j].is_none() {
            named[i] = true;
            names[j] = Some(candidates[i].clone());
        }
    }
    let mut plain = pool
        .iter()
        .enumerate()
        .filter(|(i, name)| {
            compass::words(name).is_empty() && !(*i < candidates.len() && named[*i])
        })
        .map(|(_, name)| name.clone());
    names
        .into_iter()
        .map(|name| name.or_else(|| plain.next()).unwrap_or_default())
        .collect()
}

/// The cosine between `(dx, dz)` and the direction `points` name together.
fn alignment(points: &[Compass], dx: i32, dz: i32) -> f64 {
    let (mut sx, mut sz) = (0.0, 0.0);
    for p in points {
        let (x, z) = p.step();
        sx += f64::from(x);
        sz += f64::from(z);
    }
    let (dx, dz) = (f64::from(dx), f64::from(dz));
    (sx * dx + sz * dz) / (sx.hypot(sz) * dx.hypot(dz)).max(f64::MIN_POSITIVE)
}

/// Names for `n` towns: the legacy `zones.json` town names no area uses yet, then our list.
fn town_names(content: &Content, n: usize) -> Vec<String> {
    let used: Vec<&str> = content.areas.values().map(|a| a.name.as_str()).collect();
    let mut names: Vec<String> = content
        .legacy
        .zones
        .iter()
        .filter(|z| z.is_town && !used.contains(&z.name.as_str()))
        .map(|z| z.name.clone())
        .collect();
    names.extend(TOWN_NAMES.iter().map(|s| (*s).to_owned()));
    let mut k = 2;
    while names.len() < n {
        names.extend(TOWN_NAMES.iter().map(|s| format!("{s} {k}")));
        k += 1;
    }
    names.dedup();
    names.truncate(n);
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn compass_names_go_to_the_sites_that_lie_their_way() {
        // Sites north (−z), east, south, west of the reference, the names in another order.
        let sites = [(0, -300), (250, 20), (-10, 280), (-260, -40)];
        let names = assign(
            &pool(&[
                "Eastern Outpost",
                "Western Settlement",
                "Northern Village",
                "Southern Camp",
            ]),
            &sites,
        );
        assert_eq!(
            names,
            [
                "Northern Village",
                "Eastern Outpost",
                "Southern Camp",
                "Western Settlement"
            ]
        );
    }

    #[test]
    fn a_compass_name_with_no_site_its_way_is_passed_over() {
        // Two sites, both east: "Western" and "Northwick" have nowhere to go.
        let sites = [(200, 0), (300, 100)];
        let names = assign(
            &pool(&[
                "Western Settlement",
                "Eastern Outpost",
                "Northwick",
                "Ashford",
                "Elmstead",
            ]),
            &sites,
        );
        assert_eq!(names, ["Eastern Outpost", "Ashford"]);
    }

    #[test]
    fn plain_names_fill_the_sites_in_order() {
        let sites = [(0, -300), (0, 300), (300, 0)];
        let names = assign(
            &pool(&["Ashford", "Southern Camp", "Brindlemere", "Cobble Cross"]),
            &sites,
        );
        assert_eq!(names, ["Ashford", "Southern Camp", "Brindlemere"]);
    }
}
