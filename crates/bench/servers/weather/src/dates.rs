//! Civil dates as day numbers (days since 1970-01-01), after Howard Hinnant's algorithms:
//! enough calendar for consecutive forecast days, with no clock and no time zone database.

/// Day number of a proleptic Gregorian date.
pub(crate) fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// (year, month, day) of a day number.
pub(crate) fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// `YYYY-MM-DD` to a day number; `None` unless the text is exactly a real date.
pub(crate) fn parse_date(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let y: i64 = s[..4].parse().ok()?;
    let m: u32 = s[5..7].parse().ok()?;
    let d: u32 = s[8..10].parse().ok()?;
    let days = days_from_civil(y, m, d);
    (civil_from_days(days) == (y, m, d) && s[..4].bytes().all(|c| c.is_ascii_digit()))
        .then_some(days)
}

/// `YYYY-MM-DDTHH:MM` to (day number, hour).
pub(crate) fn parse_datetime(s: &str) -> Option<(i64, u32)> {
    let b = s.as_bytes();
    if b.len() != 16 || b[10] != b'T' || b[13] != b':' {
        return None;
    }
    let day = parse_date(&s[..10])?;
    let h: u32 = s[11..13].parse().ok()?;
    let m: u32 = s[14..16].parse().ok()?;
    (h < 24
        && m < 60
        && s[11..16]
            .bytes()
            .filter(|c| *c != b':')
            .all(|c| c.is_ascii_digit()))
    .then_some((day, h))
}

pub(crate) fn format_date(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

const WEEKDAYS: [&str; 7] = [
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
];
const MONTHS: [&str; 12] = [
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

/// `Wednesday 4 March` for a day number.
pub(crate) fn spoken_date(days: i64) -> String {
    let (_, m, d) = civil_from_days(days);
    format!(
        "{} {d} {}",
        WEEKDAYS[days.rem_euclid(7) as usize],
        MONTHS[m as usize - 1]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_round_trip_and_reject_nonsense() {
        assert_eq!(parse_date("1970-01-01"), Some(0));
        assert_eq!(
            format_date(parse_date("2026-03-02").unwrap() + 30),
            "2026-04-01"
        );
        assert_eq!(
            format_date(parse_date("2028-02-28").unwrap() + 1),
            "2028-02-29"
        );
        assert_eq!(parse_date("2026-02-30"), None);
        assert_eq!(parse_date("2026-3-02"), None);
        assert_eq!(
            parse_datetime("2026-03-02T09:00"),
            Some((parse_date("2026-03-02").unwrap(), 9))
        );
        assert_eq!(parse_datetime("2026-03-02T24:00"), None);
        assert_eq!(
            spoken_date(parse_date("2026-03-04").unwrap()),
            "Wednesday 4 March"
        );
    }
}
