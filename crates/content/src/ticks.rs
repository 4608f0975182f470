//! Game-tick arithmetic: every duration in the clean model is a whole number of 600 ms ticks.

/// Length of one game tick in milliseconds (the OSRS convention the reference content assumes).
pub const TICK_MS: u64 = 600;

/// Converts milliseconds to ticks, rounding to the nearest tick (half up).
pub fn ms_to_ticks(ms: f64) -> u32 {
    if !ms.is_finite() || ms <= 0.0 {
        return 0;
    }
    let ticks = (ms / TICK_MS as f64 + 0.5).floor();
    if ticks >= u32::MAX as f64 {
        u32::MAX
    } else {
        ticks as u32
    }
}

/// Converts seconds to ticks, rounding to the nearest tick (half up).
pub fn secs_to_ticks(secs: f64) -> u32 {
    ms_to_ticks(secs * 1000.0)
}

/// Converts ticks to milliseconds.
pub fn ticks_to_ms(ticks: u32) -> u64 {
    u64::from(ticks) * TICK_MS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_round_to_the_nearest_tick() {
        assert_eq!(ms_to_ticks(2400.0), 4);
        assert_eq!(ms_to_ticks(15000.0), 25);
        assert_eq!(ms_to_ticks(900_000.0), 1500);
        assert_eq!(ms_to_ticks(0.0), 0);
        assert_eq!(ms_to_ticks(-5.0), 0);
        assert_eq!(ms_to_ticks(300.0), 1);
        assert_eq!(secs_to_ticks(1.8), 3);
        assert_eq!(ticks_to_ms(4), 2400);
    }
}
