//! The world state and its tick.

/// The whole game state of one world.
#[derive(Debug, Default)]
pub struct World {
    tick: u64,
}

impl World {
    /// An empty world at tick 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// The number of ticks completed so far.
    pub fn tick_number(&self) -> u64 {
        self.tick
    }

    /// Advances the world by one tick.
    pub fn tick(&mut self) {
        self.tick += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_count_up_from_zero() {
        let mut world = World::new();
        assert_eq!(world.tick_number(), 0);
        world.tick();
        world.tick();
        assert_eq!(world.tick_number(), 2);
    }
}
