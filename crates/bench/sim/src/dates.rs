//! Local dates and times without a date crate, for every server that speaks of days: a date
//! is a day number (days since 1970-01-01), a date-time is minutes since 1970-01-01T00:00 (no
//! time zones, no leap seconds, no clock), converted with Howard Hinnant's days-from-civil
//! algorithms (public domain). Parsing is strict: only `YYYY-MM-DD`, `HH:MM` and
//! `YYYY-MM-DDTHH:MM`, and only real dates.

/// The JSON Schema patterns of the three forms, for tool arguments:
/// `#[schemars(pattern(DATETIME_PATTERN))]`.
pub const DATE_PATTERN: &str = r"^\d{4}-\d{2}-\d{2}$";
pub const CLOCK_PATTERN: &str = r"^\d{2}:\d{2}$";
pub const DATETIME_PATTERN: &str = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$";

/// Days since 1970-01-01 of the proleptic Gregorian date `y-m-d`.
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date `(y, m, d)` of a day number from [`days_from_civil`].
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn number(s: &str) -> Option<i64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// `YYYY-MM-DD` as a day number.
pub fn parse_date(s: &str) -> Result<i64, String> {
    let bad = || format!("{s:?} is not a date like 2026-03-04");
    let parts: Vec<&str> = s.split('-').collect();
    let [y, m, d] = parts[..] else {
        return Err(bad());
    };
    if y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return Err(bad());
    }
    let (y, m, d) = (
        number(y).ok_or_else(bad)?,
        number(m).ok_or_else(bad)?,
        number(d).ok_or_else(bad)?,
    );
    if !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) {
        return Err(format!("{s:?} is not a real calendar date"));
    }
    Ok(days_from_civil(y, m, d))
}

/// `HH:MM` as minutes after midnight (`24:00` allowed, as the end of a day).
pub fn parse_clock(s: &str) -> Result<i64, String> {
    let bad = || format!("{s:?} is not a time like 13:30");
    let (h, m) = s.split_once(':').ok_or_else(bad)?;
    if h.len() != 2 || m.len() != 2 {
        return Err(bad());
    }
    let (h, m) = (number(h).ok_or_else(bad)?, number(m).ok_or_else(bad)?);
    if h > 24 || m > 59 || (h == 24 && m != 0) {
        return Err(bad());
    }
    Ok(h * 60 + m)
}

/// `YYYY-MM-DDTHH:MM` as minutes since the epoch.
pub fn parse_datetime(s: &str) -> Result<i64, String> {
    let (date, clock) = s
        .split_once('T')
        .ok_or_else(|| format!("{s:?} is not a date-time like 2026-03-04T13:30"))?;
    let minutes = parse_clock(clock)
        .map_err(|_| format!("{s:?} is not a date-time like 2026-03-04T13:30"))?;
    if minutes >= 24 * 60 {
        return Err(format!("{s:?}: the hour must be 00-23"));
    }
    Ok(parse_date(date)? * 1440 + minutes)
}

pub fn format_date(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

pub fn format_clock(minutes_of_day: i64) -> String {
    format!("{:02}:{:02}", minutes_of_day / 60, minutes_of_day % 60)
}

pub fn format_datetime(minutes: i64) -> String {
    format!(
        "{}T{}",
        format_date(minutes.div_euclid(1440)),
        format_clock(minutes.rem_euclid(1440))
    )
}

/// English weekday name of a day number (1970-01-01 was a Thursday).
pub fn weekday(days: i64) -> &'static str {
    const NAMES: [&str; 7] = [
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "Monday",
        "Tuesday",
        "Wednesday",
    ];
    NAMES[days.rem_euclid(7) as usize]
}

/// English name of a month, 1 to 12.
pub fn month_name(month: i64) -> &'static str {
    const NAMES: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    NAMES[(month - 1).clamp(0, 11) as usize]
}

/// `Wednesday 4 March` for a day number.
pub fn spoken_date(days: i64) -> String {
    let (_, m, d) = civil_from_days(days);
    format!("{} {d} {}", weekday(days), month_name(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trips_and_knows_weekdays() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        for z in [-800_000, -1, 0, 59, 11_016, 20_513, 1_000_000] {
            let (y, m, d) = civil_from_days(z);
            assert_eq!(days_from_civil(y, m, d), z);
        }
        assert_eq!(weekday(parse_date("2026-03-02").unwrap()), "Monday");
        assert_eq!(weekday(parse_date("2024-02-29").unwrap()), "Thursday");
    }

    #[test]
    fn parsing_is_strict() {
        assert_eq!(
            format_datetime(parse_datetime("2026-03-04T13:05").unwrap()),
            "2026-03-04T13:05"
        );
        for bad in [
            "2026-3-04T13:05",
            "2026-02-29T10:00",
            "2026-03-04 13:05",
            "2026-03-04T24:00",
            "2026-03-04T9:00",
        ] {
            assert!(parse_datetime(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_clock("24:00"), Ok(1440));
        assert!(parse_clock("12:60").is_err());
    }

    #[test]
    fn dates_are_spoken_and_advance_across_months() {
        assert_eq!(
            format_date(parse_date("2026-03-02").unwrap() + 30),
            "2026-04-01"
        );
        assert_eq!(
            format_date(parse_date("2028-02-28").unwrap() + 1),
            "2028-02-29"
        );
        assert_eq!(
            spoken_date(parse_date("2026-03-04").unwrap()),
            "Wednesday 4 March"
        );
        assert_eq!(month_name(12), "December");
    }
}
