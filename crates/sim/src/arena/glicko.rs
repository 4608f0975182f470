//! Glicko-2 (Mark Glickman, "Example of the Glicko-2 system", 2013): a rating, its deviation (how
//! unsure it is) and its volatility (how erratic the player is), updated after a rating period of
//! games by [`update`], a pure function. The ladder makes each fight its own rating period.

/// Glicko-2's scale: ratings and deviations are divided by this on the internal scale.
const SCALE: f64 = 173.7178;
/// The system constant τ: how much the volatility may change (Glickman suggests 0.3–1.2).
pub const TAU: f64 = 0.5;
/// Convergence tolerance of the volatility's iteration.
const EPSILON: f64 = 0.000_001;

/// A player's Glicko-2 rating on the familiar scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rating {
    /// The rating (1500 for a newcomer).
    pub rating: f64,
    /// The rating deviation (350 for a newcomer).
    pub deviation: f64,
    /// The volatility (0.06 for a newcomer).
    pub volatility: f64,
}

// Ratings are never NaN (every update keeps them finite), so equality is total: commands and
// commits that carry one stay `Eq`.
impl Eq for Rating {}

impl Default for Rating {
    /// A newcomer: 1500, deviation 350, volatility 0.06 (CONTRACT §15).
    fn default() -> Self {
        Rating {
            rating: 1500.0,
            deviation: 350.0,
            volatility: 0.06,
        }
    }
}

fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

fn expected(mu: f64, mu_j: f64, phi_j: f64) -> f64 {
    1.0 / (1.0 + (-g(phi_j) * (mu - mu_j)).exp())
}

/// The rating after a period of `games`: each an opponent's rating (as it was before the period)
/// and the score (1 a win, 0.5 a draw, 0 a loss). No games: only the deviation grows.
pub fn update(player: Rating, games: &[(Rating, f64)]) -> Rating {
    let mu = (player.rating - 1500.0) / SCALE;
    let phi = player.deviation / SCALE;
    let sigma = player.volatility;
    if games.is_empty() {
        let phi_star = (phi * phi + sigma * sigma).sqrt();
        return Rating {
            deviation: phi_star * SCALE,
            ..player
        };
    }
    let mut v_inverse = 0.0;
    let mut sum = 0.0;
    for (opponent, score) in games {
        let mu_j = (opponent.rating - 1500.0) / SCALE;
        let phi_j = opponent.deviation / SCALE;
        let e = expected(mu, mu_j, phi_j);
        let g_j = g(phi_j);
        v_inverse += g_j * g_j * e * (1.0 - e);
        sum += g_j * (score - e);
    }
    let v = 1.0 / v_inverse;
    let delta = v * sum;
    // The new volatility: the root of f by the Illinois algorithm (step 5 of the paper).
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        let d = phi * phi + v + ex;
        ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (TAU * TAU)
    };
    let mut big_a = a;
    let mut big_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * TAU) < 0.0 && k < 1_000.0 {
            k += 1.0;
        }
        a - k * TAU
    };
    let (mut f_a, mut f_b) = (f(big_a), f(big_b));
    let mut rounds = 0;
    while (big_b - big_a).abs() > EPSILON && rounds < 1_000 {
        let c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(c);
        if f_c * f_b <= 0.0 {
            big_a = big_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        big_b = c;
        f_b = f_c;
        rounds += 1;
    }
    let sigma_new = (big_a / 2.0).exp();
    let phi_star = (phi * phi + sigma_new * sigma_new).sqrt();
    let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let mu_new = mu + phi_new * phi_new * sum;
    Rating {
        rating: SCALE * mu_new + 1500.0,
        deviation: SCALE * phi_new,
        volatility: sigma_new,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(rating: f64, deviation: f64) -> Rating {
        Rating {
            rating,
            deviation,
            volatility: 0.06,
        }
    }

    #[test]
    fn glickmans_worked_example() {
        // The paper's example: 1500/200/0.06 against 1400/30 (won), 1550/100 (lost), 1700/300
        // (lost) becomes ≈1464.06, RD ≈151.52, σ ≈0.05999.
        let after = update(
            r(1500.0, 200.0),
            &[
                (r(1400.0, 30.0), 1.0),
                (r(1550.0, 100.0), 0.0),
                (r(1700.0, 300.0), 0.0),
            ],
        );
        assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
        assert!((after.deviation - 151.52).abs() < 0.01, "{after:?}");
        assert!((after.volatility - 0.05999).abs() < 0.00001, "{after:?}");
    }

    #[test]
    fn two_newcomers_move_symmetrically_and_no_games_only_widens() {
        let (a, b) = (Rating::default(), Rating::default());
        let winner = update(a, &[(b, 1.0)]);
        let loser = update(b, &[(a, 0.0)]);
        assert!(winner.rating > 1500.0 && loser.rating < 1500.0);
        assert!(((winner.rating - 1500.0) - (1500.0 - loser.rating)).abs() < 1e-9);
        assert!(winner.deviation < 350.0);
        assert!((winner.deviation - loser.deviation).abs() < 1e-9);
        let idle = update(r(1600.0, 50.0), &[]);
        assert_eq!(idle.rating, 1600.0);
        assert!(idle.deviation > 50.0);
    }
}
