//! Clocks: the system clock, or a manual one that tests and replays drive.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

/// A shared manual clock in milliseconds.
#[derive(Clone, Debug, Default)]
pub struct ManualClock(Arc<AtomicI64>);

impl ManualClock {
    pub fn new(now_ms: i64) -> Self {
        ManualClock(Arc::new(AtomicI64::new(now_ms)))
    }
    pub fn now_ms(&self) -> i64 {
        self.0.load(Ordering::Acquire)
    }
    pub fn set(&self, now_ms: i64) {
        self.0.store(now_ms, Ordering::Release);
    }
    /// Moves the clock by `delta_ms`; `None` (and no change) if that would overflow.
    pub fn advance(&self, delta_ms: i64) -> Option<i64> {
        let mut cur = self.0.load(Ordering::Acquire);
        loop {
            let next = cur.checked_add(delta_ms)?;
            match self
                .0
                .compare_exchange_weak(cur, next, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return Some(next),
                Err(c) => cur = c,
            }
        }
    }
}

/// Where time comes from: `System.currentTimeMillis()`, a [`ManualClock`], or a monotonic clock (milliseconds
/// since an arbitrary start, for durations only: Python's `time.monotonic`).
#[derive(Clone, Debug, Default)]
pub enum Clock {
    #[default]
    System,
    Manual(ManualClock),
    Monotonic,
}

/// Milliseconds of a monotonic clock since its first reading in this process.
pub fn monotonic_ms() -> i64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    let start = START.get_or_init(std::time::Instant::now);
    i64::try_from(start.elapsed().as_millis()).unwrap_or(i64::MAX)
}

impl Clock {
    pub fn now_ms(&self) -> i64 {
        match self {
            Clock::System => std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis() as i64)
                .unwrap_or(0),
            Clock::Manual(m) => m.now_ms(),
            Clock::Monotonic => monotonic_ms(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_clock_moves_only_when_told() {
        let m = ManualClock::new(1000);
        let c = Clock::Manual(m.clone());
        assert_eq!(c.now_ms(), 1000);
        assert_eq!(m.advance(500), Some(1500));
        assert_eq!(c.now_ms(), 1500);
        assert_eq!(m.advance(i64::MAX), None);
        m.set(7);
        assert_eq!(c.now_ms(), 7);
        assert!(Clock::System.now_ms() > 1_600_000_000_000);
        let a = Clock::Monotonic.now_ms();
        assert!(a >= 0);
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert!(Clock::Monotonic.now_ms() >= a + 5);
    }
}
