//! The calendar's settings: when a deployment turns its months by itself, and how
//! (`mcpbench_sets::calendar` does the turning).

use clap::Args;
use std::fmt;
use std::str::FromStr;

/// When months turn: each month on `day` (1 to 28, so that every month has it) at `hour`:00
/// UTC. Written `monthly:DAY:HOUR` (`monthly` alone is day 1, hour 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    pub day: u8,
    pub hour: u8,
}

const SCHEDULE_FORM: &str = "MCPBENCH_CALENDAR must be off or monthly[:DAY[:HOUR]] \
                             (DAY 1 to 28, HOUR 0 to 23, UTC), such as monthly:1:6";

impl FromStr for Schedule {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let mut parts = text.trim().split(':');
        if parts.next() != Some("monthly") {
            return Err(SCHEDULE_FORM.into());
        }
        let mut number = |max: u8, min: u8, default: u8| match parts.next() {
            None => Ok(default),
            Some(p) => p
                .parse::<u8>()
                .ok()
                .filter(|n| (min..=max).contains(n))
                .ok_or_else(|| SCHEDULE_FORM.to_string()),
        };
        let day = number(28, 1, 1)?;
        let hour = number(23, 0, 0)?;
        if parts.next().is_some() {
            return Err(SCHEDULE_FORM.into());
        }
        Ok(Schedule { day, hour })
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "monthly:{}:{}", self.day, self.hour)
    }
}

/// `MCPBENCH_CALENDAR`'s value: `None` is off. A name of its own because clap reads a field
/// written `Option<..>` as a flag that may be absent, where this one always has a value
/// (`off` by default) that parses to `None` or a schedule.
pub type Turning = Option<Schedule>;

/// `MCPBENCH_CALENDAR`: `off`, or a [`Schedule`].
fn calendar(text: &str) -> Result<Option<Schedule>, String> {
    match text.trim() {
        "" | "off" => Ok(None),
        other => other.parse().map(Some),
    }
}

/// `MCPBENCH_CALENDAR_REPLACE`: a share of a month, above 0 and at most 1.
fn share(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(n) if n > 0.0 && n <= 1.0 => Ok(n),
        _ => Err("MCPBENCH_CALENDAR_REPLACE must be a share above 0 and at most 1".into()),
    }
}

/// How a deployment turns its private months by itself (the API binary and `mcpbench up`;
/// `mcpbench admin calendar` reads the same settings).
#[derive(Args, Clone, Debug)]
pub struct CalendarArgs {
    /// When the months turn, or `off`: `monthly:DAY:HOUR` (UTC; DAY 1 to 28). At that hour the
    /// next month is drafted (rotated from the live one, or generated when none is live),
    /// activated, the last one retired and revealed, and what retired months withheld released.
    #[arg(long, env = "MCPBENCH_CALENDAR", default_value = "off", value_parser = calendar)]
    pub calendar: Turning,
    /// Tasks in a month the calendar generates when no month is live to rotate from.
    #[arg(long, env = "MCPBENCH_CALENDAR_TASKS", default_value_t = 200,
          value_parser = crate::whole::<usize>("MCPBENCH_CALENDAR_TASKS", 1, Some(5_000)))]
    pub calendar_tasks: usize,
    /// The share of the live month's tasks a rotation replaces with fresh ones.
    #[arg(long, env = "MCPBENCH_CALENDAR_REPLACE", default_value_t = 0.25, value_parser = share)]
    pub calendar_replace: f64,
}

impl Default for CalendarArgs {
    fn default() -> Self {
        Self {
            calendar: None,
            calendar_tasks: 200,
            calendar_replace: 0.25,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_schedule_is_off_or_monthly_on_a_day_every_month_has() {
        assert_eq!(calendar("off"), Ok(None));
        assert_eq!(calendar(""), Ok(None));
        assert_eq!(calendar("monthly"), Ok(Some(Schedule { day: 1, hour: 0 })));
        assert_eq!(
            calendar("monthly:15"),
            Ok(Some(Schedule { day: 15, hour: 0 }))
        );
        assert_eq!(
            calendar("monthly:28:23"),
            Ok(Some(Schedule { day: 28, hour: 23 }))
        );
        for bad in [
            "weekly",
            "monthly:0",
            "monthly:29",
            "monthly:1:24",
            "monthly:1:6:0",
            "monthly:x",
            "monthly:-1",
        ] {
            let refusal = calendar(bad).unwrap_err();
            assert!(refusal.contains("DAY 1 to 28"), "{bad}: {refusal}");
        }
        assert_eq!(Schedule { day: 3, hour: 6 }.to_string(), "monthly:3:6");
        assert!(share("0").is_err() && share("1.5").is_err() && share("x").is_err());
        assert_eq!(share("0.25"), Ok(0.25));
    }

    #[derive(clap::Parser)]
    struct Api {
        #[command(flatten)]
        calendar: CalendarArgs,
    }

    #[test]
    fn the_calendar_is_off_unless_set_and_a_bad_one_stops_the_start() {
        use clap::Parser;
        let parse = |args: &[&str]| Api::try_parse_from([&["api"], args].concat());
        let off = parse(&[]).unwrap().calendar;
        assert_eq!((off.calendar, off.calendar_tasks), (None, 200));
        let on = parse(&["--calendar", "monthly:1:6", "--calendar-replace", "0.5"]).unwrap();
        assert_eq!(on.calendar.calendar, Some(Schedule { day: 1, hour: 6 }));
        assert_eq!(on.calendar.calendar_replace, 0.5);
        let refused = parse(&["--calendar", "weekly"]).err().unwrap().to_string();
        assert!(
            refused.contains("MCPBENCH_CALENDAR must be off or monthly"),
            "{refused}"
        );
    }
}
