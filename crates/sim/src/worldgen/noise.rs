//! Value noise: a hashed lattice, smoothly interpolated, summed in octaves. Integer hashing only, so
//! the same seed gives the same numbers on every platform.

/// SplitMix64: a fixed, portable 64-bit mixer.
pub(crate) fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A hash of a lattice point, in [0, 1).
pub(crate) fn hash01(seed: u64, x: i64, z: i64) -> f64 {
    // One mix of the seed and both coordinates, each spread by a large odd constant first.
    let h = mix64(
        seed ^ (x as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
            ^ (z as u64).wrapping_mul(0xc2b2_ae3d_27d4_eb4f),
    );
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// Smooth value noise at a point, in [0, 1).
fn value(seed: u64, x: f64, z: f64) -> f64 {
    let (x0, z0) = (x.floor(), z.floor());
    let (fx, fz) = (x - x0, z - z0);
    let (ix, iz) = (x0 as i64, z0 as i64);
    let s = |t: f64| t * t * (3.0 - 2.0 * t);
    let (sx, sz) = (s(fx), s(fz));
    let a = hash01(seed, ix, iz);
    let b = hash01(seed, ix + 1, iz);
    let c = hash01(seed, ix, iz + 1);
    let d = hash01(seed, ix + 1, iz + 1);
    let top = a + (b - a) * sx;
    let bottom = c + (d - c) * sx;
    top + (bottom - top) * sz
}

/// Octaves of noise at one scale.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fbm {
    pub seed: u64,
    pub scale: f64,
    pub octaves: u32,
    pub persistence: f64,
    pub lacunarity: f64,
}

impl Fbm {
    /// The noise at a tile, normalised to [0, 1).
    pub fn at(&self, x: f64, z: f64) -> f64 {
        let (mut amplitude, mut frequency, mut sum, mut total) = (1.0, self.scale, 0.0, 0.0);
        for octave in 0..self.octaves.clamp(1, 8) {
            let seed = self
                .seed
                .wrapping_add(u64::from(octave).wrapping_mul(0x5851_f42d));
            sum += amplitude * value(seed, x * frequency, z * frequency);
            total += amplitude;
            amplitude *= self.persistence;
            frequency *= self.lacunarity;
        }
        if total > 0.0 {
            sum / total
        } else {
            0.5
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_is_fixed_and_in_range() {
        let f = Fbm {
            seed: 7,
            scale: 0.01,
            octaves: 4,
            persistence: 0.5,
            lacunarity: 2.0,
        };
        for (x, z) in [(0.0, 0.0), (123.0, -77.0), (1e4, 3.5)] {
            let v = f.at(x, z);
            assert!((0.0..1.0).contains(&v));
            assert_eq!(v, f.at(x, z));
        }
        assert_eq!(mix64(0), 0xe220_a839_7b1d_cdaf);
    }
}
