//! The calendar (`MCPBENCH_CALENDAR`): a deployment that turns its private months by itself.
//!
//! From the hour the schedule names (`monthly:DAY:HOUR`, UTC), the month of that date is due,
//! and a tick brings the sets to it in this order:
//! 1. **draft** the due month (`YYYY-MM`) if it does not exist: rotated from the live month
//!    (the newest active private month before it), a share of its tasks replaced by fresh
//!    ones; generated whole when no month is live;
//! 2. **activate** it: committed to, its checkpoint signed;
//! 3. **retire** the months before it that are still live: each revealed and verified. A month
//!    with submissions still queued or running waits for them: the step fails and is tried
//!    again at the next tick;
//! 4. **release** what retired months withheld that no live set holds any more.
//!
//! The plan is read from the database at every tick, and each step is one of the lifecycle's
//! own operations, which apply whole or not at all. So a tick that stops part way (a failed
//! step, a crash) leaves states the next tick goes on from, and a tick with nothing due does
//! nothing. The first failure ends a tick: no month retires before the next one is live. One
//! process of a deployment acts at a time (an advisory lock); the others find it taken.

use crate::{
    Custody, SetError, activate, generate_draft, release_withheld, retire, rotate::rotate,
};
use mcpbench_attest::bundle::is_month;
use mcpbench_config::{CalendarArgs, Schedule};
use mcpbench_db::exclusive::{Work, try_exclusive};
use mcpbench_db::sets::{self, SetInfo};
use mcpbench_db::{PgPool, SetState};
use std::fmt;
use time::{Month, OffsetDateTime, UtcOffset};

/// The calendar of a deployment: when months turn, and how a new month is made.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Calendar {
    pub schedule: Schedule,
    /// Tasks in a month generated when none is live to rotate from.
    pub tasks: usize,
    /// The share of the live month's tasks a rotation replaces.
    pub replace: f64,
}

impl Calendar {
    /// The calendar the settings name; `None` when it is off.
    pub fn from_args(args: &CalendarArgs) -> Option<Self> {
        args.calendar.map(|schedule| Calendar {
            schedule,
            tasks: args.calendar_tasks,
            replace: args.calendar_replace,
        })
    }

    /// The month due at `now`: this month from its day and hour on, the month before until then.
    pub fn due(&self, now: OffsetDateTime) -> String {
        let now = now.to_offset(UtcOffset::UTC);
        let (mut year, mut month) = (now.year(), now.month());
        if (now.day(), now.hour()) < (self.schedule.day, self.schedule.hour) {
            if month == Month::January {
                year -= 1;
            }
            month = month.previous();
        }
        format!("{year:04}-{:02}", u8::from(month))
    }
}

/// One step of a turn of the months.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Make `month`'s draft: rotated from the live month `from`, or generated when there is
    /// none.
    Draft {
        month: String,
        from: Option<String>,
    },
    Activate {
        month: String,
    },
    Retire {
        month: String,
    },
    /// Reveal what retired months withheld that no live set holds any more.
    Release,
}

impl Step {
    /// The step's kind, as `/metrics` labels it.
    pub fn kind(&self) -> &'static str {
        match self {
            Step::Draft { .. } => "draft",
            Step::Activate { .. } => "activate",
            Step::Retire { .. } => "retire",
            Step::Release => "release",
        }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Draft {
                month,
                from: Some(from),
            } => write!(f, "draft {month} by rotating {from}"),
            Step::Draft { month, from: None } => {
                write!(f, "draft {month} from fresh tasks (no month is live)")
            }
            Step::Activate { month } => write!(f, "activate {month}"),
            Step::Retire { month } => write!(f, "retire and reveal {month}"),
            Step::Release => write!(f, "release what retired months withheld"),
        }
    }
}

/// What is due at a tick: the month, and the steps that bring the sets to it, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub month: String,
    pub steps: Vec<Step>,
}

/// The steps that make `month` the live month, from the sets as they are and the number of
/// withheld tasks ready for release. Public sets and sets not named by a month are never
/// touched; a month that was retired already (by hand) is left as it is, and so are the
/// months before it.
pub fn plan(sets: &[SetInfo], month: &str, releasable: usize) -> Vec<Step> {
    let months = || sets.iter().filter(|s| !s.public && is_month(&s.id));
    let mut live: Vec<&str> = months()
        .filter(|s| s.state == SetState::Active && s.id.as_str() < month)
        .map(|s| s.id.as_str())
        .collect();
    live.sort_unstable();
    let mut steps = Vec::new();
    let due = sets.iter().find(|s| s.id == month);
    let goes_live = match due.map(|s| (s.public, s.state)) {
        None => {
            steps.push(Step::Draft {
                month: month.into(),
                from: live.last().map(|l| l.to_string()),
            });
            steps.push(Step::Activate {
                month: month.into(),
            });
            true
        }
        Some((false, SetState::Draft)) => {
            steps.push(Step::Activate {
                month: month.into(),
            });
            true
        }
        Some((false, SetState::Active)) => true,
        // Retired already, or a public set of that name: nothing to bring live.
        Some(_) => false,
    };
    if goes_live {
        steps.extend(live.iter().map(|l| Step::Retire {
            month: l.to_string(),
        }));
    }
    if releasable > 0 && !steps.iter().any(|s| matches!(s, Step::Retire { .. })) {
        // A retirement releases what it frees itself.
        steps.push(Step::Release);
    }
    steps
}

/// What is due at `now`, as the database stands: what `mcpbench admin calendar --dry-run`
/// prints.
pub async fn plan_at(
    pool: &PgPool,
    calendar: &Calendar,
    now: OffsetDateTime,
) -> Result<Plan, SetError> {
    let month = calendar.due(now);
    let sets = sets::list(pool, 10_000).await?;
    let releasable = sets::releasable(pool).await?.len();
    let steps = plan(&sets, &month, releasable);
    Ok(Plan { month, steps })
}

/// A step carried out, or the reason it failed (the lifecycle's errors name sets, states and
/// counts, never a task's content).
#[derive(Debug)]
pub struct Done {
    pub step: Step,
    pub failed: Option<String>,
}

/// What a tick did.
#[derive(Debug)]
pub enum Tick {
    /// Another process of the deployment holds the calendar; this one did nothing.
    Busy,
    /// The steps tried, in order: all carried out, or the last one failed.
    Ran { month: String, done: Vec<Done> },
}

/// Brings the sets to the month due at `now`, if this process takes the calendar's lock.
/// Only the lock and the plan's reads fail the tick as a whole; a step's failure is in
/// [`Tick::Ran`].
pub async fn tick(
    pool: &PgPool,
    custody: &Custody,
    calendar: &Calendar,
    now: OffsetDateTime,
) -> Result<Tick, SetError> {
    let Some(lock) = try_exclusive(pool, Work::Calendar).await? else {
        return Ok(Tick::Busy);
    };
    // Read under the lock: another process may have turned the months a moment ago.
    let result = run(pool, custody, calendar, now).await;
    lock.release().await?;
    result
}

async fn run(
    pool: &PgPool,
    custody: &Custody,
    calendar: &Calendar,
    now: OffsetDateTime,
) -> Result<Tick, SetError> {
    let Plan { month, steps } = plan_at(pool, calendar, now).await?;
    let mut done = Vec::new();
    for step in steps {
        let result = apply(pool, custody, calendar, &step).await;
        match &result {
            Ok(()) => tracing::info!(month, step = %step, "calendar: done"),
            Err(e) => {
                tracing::warn!(month, step = %step, error = %e, "calendar: failed; tried again at the next tick")
            }
        }
        let failed = result.err().map(|e| e.to_string());
        let stop = failed.is_some();
        done.push(Done { step, failed });
        if stop {
            break;
        }
    }
    Ok(Tick::Ran { month, done })
}

async fn apply(
    pool: &PgPool,
    custody: &Custody,
    calendar: &Calendar,
    step: &Step,
) -> Result<(), SetError> {
    match step {
        Step::Draft {
            month,
            from: Some(from),
        } => rotate(pool, custody, from, month, calendar.replace, None)
            .await
            .map(drop),
        Step::Draft { month, from: None } => {
            generate_draft(pool, custody, month, calendar.tasks, None)
                .await
                .map(drop)
        }
        Step::Activate { month } => activate(pool, custody, month).await.map(drop),
        Step::Retire { month } => retire(pool, custody, month).await,
        Step::Release => release_withheld(pool, custody).await.map(drop),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::{Date, PrimitiveDateTime, Time};

    /// `y-m-d h:min:sec` at `offset` hours east of UTC.
    fn at(y: i32, m: u8, d: u8, h: u8, min: u8, sec: u8, offset: i8) -> OffsetDateTime {
        let date = Date::from_calendar_date(y, Month::try_from(m).unwrap(), d).unwrap();
        PrimitiveDateTime::new(date, Time::from_hms(h, min, sec).unwrap())
            .assume_offset(UtcOffset::from_hms(offset, 0, 0).unwrap())
    }

    fn calendar(day: u8, hour: u8) -> Calendar {
        Calendar {
            schedule: Schedule { day, hour },
            tasks: 10,
            replace: 0.25,
        }
    }

    fn set(id: &str, state: SetState, public: bool) -> SetInfo {
        SetInfo {
            id: id.into(),
            state,
            public,
            tasks: 1,
            created_at: at(2026, 1, 1, 0, 0, 0, 0),
            activated_at: None,
            retired_at: None,
            checkpoint: None,
            signing_key: None,
            tag: None,
            rotated_from: None,
            rotation_replace: None,
            rotation_seed_revealed: None,
            rotation_exposed_revealed: None,
            sealed: 0,
        }
    }

    #[test]
    fn a_month_is_due_from_its_day_and_hour_utc() {
        let c = calendar(3, 6);
        assert_eq!(c.due(at(2026, 12, 3, 6, 0, 0, 0)), "2026-12");
        assert_eq!(c.due(at(2026, 12, 3, 5, 59, 59, 0)), "2026-11");
        assert_eq!(c.due(at(2026, 12, 31, 23, 0, 0, 0)), "2026-12");
        assert_eq!(c.due(at(2027, 1, 2, 12, 0, 0, 0)), "2026-12");
        assert_eq!(c.due(at(2027, 1, 3, 6, 0, 0, 0)), "2027-01");
        // 05:30 UTC written in another offset is still before the hour.
        assert_eq!(c.due(at(2026, 12, 3, 7, 30, 0, 2)), "2026-11");
    }

    #[test]
    fn the_plan_drafts_activates_retires_and_releases_in_that_order() {
        use SetState::*;
        let dev = set("dev-v2", Active, true);
        // Nothing live yet: a fresh month.
        assert_eq!(
            plan(std::slice::from_ref(&dev), "2026-12", 0),
            vec![
                Step::Draft {
                    month: "2026-12".into(),
                    from: None
                },
                Step::Activate {
                    month: "2026-12".into()
                },
            ]
        );
        // A live month: rotated from, then retired; an older one left live is retired too.
        let sets = [
            dev.clone(),
            set("2026-11", Active, false),
            set("2026-10", Active, false),
            set("2026-09", Retired, false),
        ];
        assert_eq!(
            plan(&sets, "2026-12", 3),
            vec![
                Step::Draft {
                    month: "2026-12".into(),
                    from: Some("2026-11".into())
                },
                Step::Activate {
                    month: "2026-12".into()
                },
                Step::Retire {
                    month: "2026-10".into()
                },
                Step::Retire {
                    month: "2026-11".into()
                },
            ]
        );
        // Part way: drafted already, then live already; then nothing left but a release.
        let drafted = [set("2026-12", Draft, false), set("2026-11", Active, false)];
        assert_eq!(
            plan(&drafted, "2026-12", 0)[0],
            Step::Activate {
                month: "2026-12".into()
            }
        );
        let live = [set("2026-12", Active, false), set("2026-11", Active, false)];
        assert_eq!(
            plan(&live, "2026-12", 0),
            vec![Step::Retire {
                month: "2026-11".into()
            }]
        );
        let done = [
            set("2026-12", Active, false),
            set("2026-11", Retired, false),
        ];
        assert_eq!(plan(&done, "2026-12", 0), vec![]);
        assert_eq!(plan(&done, "2026-12", 2), vec![Step::Release]);
        // A month retired by hand, or a public set of the month's name, is left alone.
        let by_hand = [
            set("2026-12", Retired, false),
            set("2026-11", Active, false),
        ];
        assert_eq!(plan(&by_hand, "2026-12", 0), vec![]);
        let public = [set("2026-12", Active, true), set("2026-11", Active, false)];
        assert_eq!(plan(&public, "2026-12", 0), vec![]);
        // A month prepared early for later is not the due month's business.
        let early = [set("2027-01", Draft, false), set("2026-12", Active, false)];
        assert_eq!(plan(&early, "2026-12", 0), vec![]);
    }
}
