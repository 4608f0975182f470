//! Compass directions on the map (docs/content.md, "Directions"). The convention is the one the
//! browser client draws (+x right, +z down the screen): north is −z, south +z, east +x, west −x.
//! Names and descriptions that use a compass word are checked against it, and the world generator
//! gives compass-named towns sites that lie that way.

/// One of the four compass points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compass {
    /// −z, up the client's screen.
    North,
    /// +z.
    South,
    /// +x.
    East,
    /// −x.
    West,
}

impl Compass {
    /// One tile this way, as `(dx, dz)`.
    pub fn step(self) -> (i32, i32) {
        match self {
            Self::North => (0, -1),
            Self::South => (0, 1),
            Self::East => (1, 0),
            Self::West => (-1, 0),
        }
    }

    /// How far `(dx, dz)` goes this way (negative: the other way).
    pub fn along(self, dx: i32, dz: i32) -> i64 {
        let (sx, sz) = self.step();
        i64::from(sx) * i64::from(dx) + i64::from(sz) * i64::from(dz)
    }
}

/// The compass points a name or text names, each once, in the order first named: every word (split
/// at anything not a letter) that begins with north, south, east or west, so "Northern Village",
/// "Eastwick" and "north-west of town" all count.
pub fn words(text: &str) -> Vec<Compass> {
    let mut out = Vec::new();
    for word in text.split(|c: char| !c.is_alphabetic()) {
        let word = word.to_lowercase();
        let point = [
            ("north", Compass::North),
            ("south", Compass::South),
            ("east", Compass::East),
            ("west", Compass::West),
        ]
        .into_iter()
        .find(|(root, _)| word.starts_with(root))
        .map(|(_, p)| p);
        if let Some(p) = point {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// Whether an offset `(dx, dz)` from a reference point lies the way `points` say. One point: that
/// way, and at least as far that way as across it (within 45°), so "Eastern" is not mostly north.
/// Several ("north-west"): some way along each. No points: always.
pub fn lies(points: &[Compass], dx: i32, dz: i32) -> bool {
    match points {
        [] => true,
        [p] => {
            let (sx, sz) = p.step();
            let across = i64::from(sz) * i64::from(dx) - i64::from(sx) * i64::from(dz);
            p.along(dx, dz) > 0 && p.along(dx, dz) >= across.abs()
        }
        _ => points.iter().all(|p| p.along(dx, dz) > 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_found_by_their_root_and_named_once() {
        assert_eq!(words("Northern Village"), [Compass::North]);
        assert_eq!(words("Eastwick"), [Compass::East]);
        assert_eq!(
            words("the rocks north-west of town, north of the river"),
            [Compass::North, Compass::West]
        );
        assert!(words("Central Haven").is_empty());
    }

    #[test]
    fn north_is_up_the_screen_and_one_word_means_within_45_degrees() {
        assert!(lies(&[Compass::North], 0, -10));
        assert!(!lies(&[Compass::North], 0, 10));
        assert!(
            lies(&[Compass::East], 10, 10),
            "the diagonal is the last allowed"
        );
        assert!(!lies(&[Compass::East], 10, 11), "the first refused");
        assert!(lies(&[Compass::West], -237, 0));
        assert!(lies(&[Compass::South, Compass::West], -1, 30));
        assert!(!lies(&[Compass::South, Compass::West], 0, 30));
        assert!(
            !lies(&[Compass::South], 0, 0),
            "no direction from the point itself"
        );
    }
}
