//! The delays of W3: uniform whole microseconds in `[0, max]`, from a fixed seed, the same
//! sequence in every system. The generator is SplitMix64 (Steele, Lea and Flood, 2014):
//! a few lines, easy to write identically in Python (`bench/python/params.py`), and good
//! enough to spread timers over a heap. `delay % (max + 1)` has a negligible bias for a
//! range this small beside 2^64.

/// SplitMix64: a 64-bit state that advances by a constant and is mixed on the way out.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// W3's `count` delays in microseconds, uniform in `[0, max_ms * 1000]`, from `seed`.
pub fn delays_us(seed: u64, count: u64, max_ms: u64) -> Vec<u64> {
    let mut rng = SplitMix64::new(seed);
    let span = max_ms * 1000 + 1;
    (0..count).map(|_| rng.next_u64() % span).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_matches_its_reference_values() {
        // The first outputs for seed 1234567, from the reference C implementation.
        let mut rng = SplitMix64::new(1234567);
        assert_eq!(rng.next_u64(), 6457827717110365317);
        assert_eq!(rng.next_u64(), 3203168211198807973);
    }

    #[test]
    fn delays_stay_in_range_and_repeat() {
        let a = delays_us(8, 1000, 50);
        assert!(a.iter().all(|&d| d <= 50_000));
        assert_eq!(a, delays_us(8, 1000, 50));
        assert!(a.iter().any(|&d| d > 40_000) && a.iter().any(|&d| d < 10_000));
    }
}
