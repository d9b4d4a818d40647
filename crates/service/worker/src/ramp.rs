//! How fast a worker fills its slots when it starts, or finds work after being idle.
//!
//! A worker with 1,000 slots and a backlog would otherwise claim 1,000 jobs in a second or two:
//! every run then opens its agent session and its servers at once, its world and task caches
//! are cold, and the allocator grows the heap page by page, so the gateway's latency for every
//! agent on this worker spikes for as long as the wave lasts (the month bench measured the p99
//! of the first sixth of a month ten times that of the rest). The ramp lets [`FIRST`] jobs start
//! at once and then more, linearly, until every slot may be full at the end of
//! [`crate::Config::ramp`]. Jobs that replace finished ones are never held back once the ramp
//! is over: it only bounds how fast the number of running jobs grows from rest, as TCP's slow
//! start does after an idle connection. Rest is fewer than [`FIRST`] jobs running and nothing
//! claimed; a worker that stays above that (a few hundred of its slots busy for hours) fills
//! the rest at once when a backlog comes, as its caches are warm by then.

use std::time::{Duration, Instant};

/// Jobs a worker starts at once from rest; a worker with no more slots than this never waits.
pub(crate) const FIRST: usize = 16;

/// The number of jobs a worker may run at a given moment of its ramp.
#[derive(Debug)]
pub(crate) struct Ramp {
    slots: usize,
    length: Duration,
    /// When the current ramp began; `None` while the worker is at rest (the next claim
    /// begins one).
    began: Option<Instant>,
}

impl Ramp {
    pub(crate) fn new(slots: usize, length: Duration) -> Self {
        Self {
            slots,
            length,
            began: None,
        }
    }

    /// How long to wait before starting one more job while `running` run, at `now`; `None`:
    /// start it now. The first call after rest begins the ramp.
    pub(crate) fn wait(&mut self, running: usize, now: Instant) -> Option<Duration> {
        let began = *self.began.get_or_insert(now);
        let first = FIRST.min(self.slots);
        if running < first || self.length.is_zero() {
            return None;
        }
        // Linear from `first` at `began` to every slot at `began + length`: one more job may
        // start once `first + (slots - first) * elapsed / length` exceeds `running`.
        let (needed, growth) = ((running + 1 - first) as u128, (self.slots - first) as u128);
        if needed > growth {
            return None; // beyond the ramp's end: only the slots bound it
        }
        let into = self.length.as_nanos() * needed / growth;
        let at = began + Duration::from_nanos(into as u64);
        at.checked_duration_since(now).filter(|d| !d.is_zero())
    }

    /// The worker is at rest (fewer than [`FIRST`] jobs running, nothing to claim): the next
    /// claim begins a new ramp.
    pub(crate) fn rest(&mut self) {
        self.began = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    #[test]
    fn the_first_jobs_start_at_once_and_the_rest_grow_linearly() {
        let t0 = Instant::now();
        let mut ramp = Ramp::new(1016, 10 * SECOND);
        for running in 0..FIRST {
            assert_eq!(ramp.wait(running, t0), None, "job {running} waited");
        }
        // The 17th job may start once a hundredth of a second has gone (1,000 more over 10 s).
        assert_eq!(ramp.wait(FIRST, t0), Some(10 * SECOND / 1000));
        // Halfway, 516 may run: the 517th waits a hundredth of a second, the 516th does not.
        let half = t0 + 5 * SECOND;
        assert_eq!(ramp.wait(515, half), None);
        assert_eq!(ramp.wait(516, half), Some(10 * SECOND / 1000));
        // At the end, every slot may be full.
        assert_eq!(ramp.wait(1015, t0 + 10 * SECOND), None);
        assert_eq!(ramp.wait(1015, t0 + 60 * SECOND), None);
    }

    #[test]
    fn a_small_worker_and_a_ramp_of_zero_never_wait() {
        let t0 = Instant::now();
        let mut small = Ramp::new(FIRST, 10 * SECOND);
        assert!((0..FIRST).all(|r| small.wait(r, t0).is_none()));
        let mut off = Ramp::new(1000, Duration::ZERO);
        assert!((0..1000).all(|r| off.wait(r, t0).is_none()));
    }

    #[test]
    fn rest_begins_a_new_ramp_at_the_next_claim_not_at_the_rest() {
        let t0 = Instant::now();
        let mut ramp = Ramp::new(1016, 10 * SECOND);
        assert_eq!(ramp.wait(0, t0), None);
        assert_eq!(ramp.wait(1015, t0 + 20 * SECOND), None);
        ramp.rest();
        // An hour of rest does not count towards the next ramp.
        let later = t0 + 3600 * SECOND;
        assert_eq!(ramp.wait(0, later), None);
        assert_eq!(ramp.wait(516, later), Some(5 * SECOND + 10 * SECOND / 1000));
    }
}
