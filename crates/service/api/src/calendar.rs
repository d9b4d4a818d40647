//! The calendar running in the API process (`MCPBENCH_CALENDAR`): a tick at start and then
//! every [`CALENDAR_EVERY`], each one [`mcpbench_sets::calendar::tick`]. Every API replica runs
//! the loop; the calendar's lock lets one act at a time. Each step carried out or failed is
//! counted in `/metrics` (`mcpbench_calendar_steps_total`) and logged by the tick itself; a
//! failed step is tried again at the next tick.

use crate::AppState;
use mcpbench_sets::calendar::{Calendar, Tick, tick};
use std::sync::Arc;
use std::time::Duration;
use time::OffsetDateTime;

/// How often the calendar looks at the sets: a month turns within a minute of its hour.
pub const CALENDAR_EVERY: Duration = Duration::from_secs(60);

/// What tells the calendar the time: the system's clock, or a test's.
pub type Clock = Arc<dyn Fn() -> OffsetDateTime + Send + Sync>;

/// The calendar an API process runs, how often it looks, and its clock.
#[derive(Clone)]
pub struct CalendarRun {
    pub calendar: Calendar,
    pub every: Duration,
    pub clock: Clock,
}

impl CalendarRun {
    /// `calendar` on the system's clock, every [`CALENDAR_EVERY`].
    pub fn new(calendar: Calendar) -> Self {
        Self {
            calendar,
            every: CALENDAR_EVERY,
            clock: Arc::new(OffsetDateTime::now_utc),
        }
    }
}

/// Ticks for as long as the process serves.
pub(crate) async fn run(state: AppState, run: CalendarRun) {
    tracing::info!(schedule = %run.calendar.schedule, "calendar on");
    loop {
        let now = (run.clock)();
        let custody = &state.config().custody;
        match tick(state.pool(), custody, &run.calendar, now).await {
            Ok(Tick::Ran { done, .. }) => {
                for d in &done {
                    state
                        .metrics()
                        .count_calendar_step(d.step.kind(), d.failed.is_none());
                }
            }
            Ok(Tick::Busy) => tracing::debug!("calendar: another process holds it"),
            Err(e) => {
                tracing::warn!(error = %e, "calendar: the tick could not start; tried again at the next");
                state.metrics().count_calendar_step("tick", false);
            }
        }
        tokio::time::sleep(run.every).await;
    }
}
