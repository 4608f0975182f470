//! Skill levels and the classic XP table: the XP at which each level is reached, and the level
//! reached with an amount of XP. Pure rules, used by the sim (`wayfarer_sim::skills`) and by the
//! agent's planning alike. Formulas and sources: `docs/mechanics.md`.

/// The highest level a skill reaches.
pub const MAX_LEVEL: u8 = 99;

/// XP needed for each level: `XP_TABLE[level - 1]` is the XP at which `level` is reached.
///
/// The classic table (Old School RuneScape Wiki, "Experience"): `xp(L) = floor(¼ · Σ_{n=1}^{L-1}
/// floor(n + 300 · 2^(n/7)))`. Written out rather than computed so it is a `const` and reads like
/// the wiki's table; `xp_table_matches_the_formula` recomputes it from the formula.
pub const XP_TABLE: [u32; MAX_LEVEL as usize] = [
    0, 83, 174, 276, 388, 512, //
    650, 801, 969, 1_154, 1_358, 1_584, //
    1_833, 2_107, 2_411, 2_746, 3_115, 3_523, //
    3_973, 4_470, 5_018, 5_624, 6_291, 7_028, //
    7_842, 8_740, 9_730, 10_824, 12_031, 13_363, //
    14_833, 16_456, 18_247, 20_224, 22_406, 24_815, //
    27_473, 30_408, 33_648, 37_224, 41_171, 45_529, //
    50_339, 55_649, 61_512, 67_983, 75_127, 83_014, //
    91_721, 101_333, 111_945, 123_660, 136_594, 150_872, //
    166_636, 184_040, 203_254, 224_466, 247_886, 273_742, //
    302_288, 333_804, 368_599, 407_015, 449_428, 496_254, //
    547_953, 605_032, 668_051, 737_627, 814_445, 899_257, //
    992_895, 1_096_278, 1_210_421, 1_336_443, 1_475_581, 1_629_200, //
    1_798_808, 1_986_068, 2_192_818, 2_421_087, 2_673_114, 2_951_373, //
    3_258_594, 3_597_792, 3_972_294, 4_385_776, 4_842_295, 5_346_332, //
    5_902_831, 6_517_253, 7_195_629, 7_944_614, 8_771_558, 9_684_577, //
    10_692_629, 11_805_606, 13_034_431,
];

/// The level reached with `xp` whole points (1 ..= [`MAX_LEVEL`]).
pub fn level_for_xp(xp: u32) -> u8 {
    // XP_TABLE[0] is 0, so at least one entry is <= xp and the count is 1..=99.
    let reached = XP_TABLE.partition_point(|&needed| needed <= xp);
    reached as u8
}

/// The whole XP at which `level` is reached; levels below 1 read as 1 and above
/// [`MAX_LEVEL`] as [`MAX_LEVEL`].
pub fn xp_for_level(level: u8) -> u32 {
    let level = level.clamp(1, MAX_LEVEL);
    XP_TABLE[usize::from(level) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xp_table_matches_the_formula() {
        let mut points = 0u64;
        for level in 2..=u32::from(MAX_LEVEL) {
            let n = f64::from(level - 1);
            points += (n + 300.0 * 2f64.powf(n / 7.0)).floor() as u64;
            assert_eq!(
                u64::from(XP_TABLE[level as usize - 1]),
                points / 4,
                "level {level}"
            );
        }
    }

    #[test]
    fn levels_and_xp_read_each_other() {
        assert_eq!(xp_for_level(0), 0, "below 1 reads as 1");
        assert_eq!(xp_for_level(2), 83);
        assert_eq!(xp_for_level(120), 13_034_431, "above 99 reads as 99");
        assert_eq!(level_for_xp(0), 1);
        assert_eq!(level_for_xp(82), 1);
        assert_eq!(level_for_xp(83), 2);
        assert_eq!(level_for_xp(u32::MAX), MAX_LEVEL);
    }
}
