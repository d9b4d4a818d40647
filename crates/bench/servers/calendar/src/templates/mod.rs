//! Template grammars for tasks on the calendar alone. Every parameter comes from a bounded pool
//! or range; every goal states the dates, times, titles, addresses and ids the task needs.
//! Days are working days of March 2026, after the seed's "now" (Monday 2026-03-02 08:00).

mod composition;
mod recovery;
mod single;

use crate::{Calendar, Response, SeedAttendee, SeedCalendar, SeedEvent};
use mcpbench_sim::dates::{days_from_civil, format_clock, format_date, format_datetime, weekday};
use mcpbench_sim::{Category, Difficulty, Rng, Template};

pub(crate) const USER: &str = "alex@northwind.io";

pub(crate) const TITLES: &[&str] = &[
    "Design review",
    "Sprint planning",
    "Customer call",
    "Budget sync",
    "Hiring committee",
    "Vendor demo",
    "Quarterly review",
    "Roadmap workshop",
    "Security briefing",
    "Product sync",
    "Marketing standup",
    "Architecture forum",
];

pub(crate) const GUESTS: &[&str] = &[
    "maria.lopez@northwind.io",
    "tom.becker@northwind.io",
    "priya.shah@northwind.io",
    "kenji.sato@northwind.io",
    "lena.fischer@northwind.io",
    "sam.okafor@contoso.com",
    "julia.berg@fabrikam.net",
    "diego.ramos@globex.org",
];

pub(crate) const PLACES: &[&str] = &[
    "Room Atlas",
    "Room Borealis",
    "Cafe Lumen",
    "Video call",
    "Board room",
];

pub(crate) fn all() -> Vec<Template<Calendar>> {
    use Category::*;
    use Difficulty::*;
    vec![
        Template {
            id: "calendar.create_event",
            category: SingleTool,
            difficulty: Easy,
            build: single::create_event,
        },
        Template {
            id: "calendar.answer_invitation",
            category: SingleTool,
            difficulty: Easy,
            build: single::answer_invitation,
        },
        Template {
            id: "calendar.invite_guests",
            category: SingleTool,
            difficulty: Medium,
            build: single::invite_guests,
        },
        Template {
            id: "calendar.first_free_slot",
            category: SingleTool,
            difficulty: Medium,
            build: single::first_free_slot,
        },
        Template {
            id: "calendar.count_pending",
            category: Composition,
            difficulty: Easy,
            build: composition::count_pending,
        },
        Template {
            id: "calendar.reschedule",
            category: Composition,
            difficulty: Medium,
            build: composition::reschedule,
        },
        Template {
            id: "calendar.add_guest",
            category: Composition,
            difficulty: Medium,
            build: composition::add_guest,
        },
        Template {
            id: "calendar.book_free_slot",
            category: Composition,
            difficulty: Hard,
            build: composition::book_free_slot,
        },
        Template {
            id: "calendar.clear_afternoon",
            category: Composition,
            difficulty: Hard,
            build: composition::clear_afternoon,
        },
        Template {
            id: "calendar.create_after_outage",
            category: Recovery,
            difficulty: Easy,
            build: recovery::create_after_outage,
        },
        Template {
            id: "calendar.read_only_fallback",
            category: Recovery,
            difficulty: Medium,
            build: recovery::read_only_fallback,
        },
        Template {
            id: "calendar.room_conflict",
            category: Recovery,
            difficulty: Hard,
            build: recovery::room_conflict,
        },
    ]
}

pub(crate) use mcpbench_sim::Ids;
pub(crate) use mcpbench_sim::params;
pub(crate) use mcpbench_sim::{Kit, atom, not};

/// A working day of March 2026 after "now".
#[derive(Clone, Copy)]
pub(crate) struct Day {
    pub n: i64,
}

impl Day {
    pub(crate) fn pick(rng: &mut Rng) -> Day {
        let days: Vec<i64> = (3..=27)
            .map(|d| days_from_civil(2026, 3, d))
            .filter(|&n| !matches!(weekday(n), "Saturday" | "Sunday"))
            .collect();
        Day {
            n: *rng.pick(&days),
        }
    }
    pub(crate) fn date(self) -> String {
        format_date(self.n)
    }
    /// `Wednesday 2026-03-04`.
    pub(crate) fn long(self) -> String {
        format!("{} {}", weekday(self.n), self.date())
    }
    /// The local date-time at `minutes` after midnight.
    pub(crate) fn at(self, minutes: i64) -> String {
        format_datetime(self.n * 1440 + minutes)
    }
    pub(crate) fn next(self) -> Day {
        let mut n = self.n + 1;
        while matches!(weekday(n), "Saturday" | "Sunday") {
            n += 1;
        }
        Day { n }
    }
}

pub(crate) fn clock(minutes: i64) -> String {
    format_clock(minutes)
}

pub(crate) fn h(hours: i64, minutes: i64) -> i64 {
    hours * 60 + minutes
}

/// An event on `primary` from `start` to `end` minutes of `day`.
pub(crate) fn event(ids: &mut Ids, title: &str, day: Day, start: i64, end: i64) -> SeedEvent {
    SeedEvent::new(&ids.take(), title, &day.at(start), &day.at(end))
}

pub(crate) fn guest(email: &str, response: Response) -> SeedAttendee {
    SeedAttendee {
        email: email.into(),
        response,
    }
}

pub(crate) fn shared_calendar(
    id: &str,
    name: &str,
    owner: Option<&str>,
    read_only: bool,
    no_double_booking: bool,
) -> SeedCalendar {
    SeedCalendar {
        id: id.into(),
        name: name.into(),
        owner: owner.map(String::from),
        read_only,
        no_double_booking,
    }
}

/// Titles other than `used`, for background events.
pub(crate) fn other_titles(rng: &mut Rng, used: &[&str], n: usize) -> Vec<&'static str> {
    let pool: Vec<&'static str> = TITLES
        .iter()
        .copied()
        .filter(|t| !used.contains(t))
        .collect();
    rng.sample(&pool, n)
}

/// A couple of events on the next working day, so listings are not trivially short.
pub(crate) fn next_day_events(
    rng: &mut Rng,
    ids: &mut Ids,
    day: Day,
    used: &[&str],
) -> Vec<SeedEvent> {
    let titles = other_titles(rng, used, 2);
    let first = h(rng.range(9, 11), 0);
    let second = h(rng.range(13, 15), 30);
    vec![
        event(ids, titles[0], day.next(), first, first + 60),
        event(ids, titles[1], day.next(), second, second + 30),
    ]
}

/// Events from just around `from` on, leaving gaps shorter than `need` minutes, then a long
/// enough gap, then one more event. Returns the events and the first free slot start.
pub(crate) fn packed_afternoon(
    rng: &mut Rng,
    ids: &mut Ids,
    day: Day,
    from: i64,
    need: i64,
    used: &[&str],
) -> (Vec<SeedEvent>, i64) {
    let titles = other_titles(rng, used, 4);
    let mut events = Vec::new();
    let mut cursor = from;
    if rng.chance(1, 2) {
        let end = from + 15 * rng.range(1, 3);
        events.push(event(ids, titles[0], day, from - 30, end));
        cursor = end;
    }
    for title in titles.iter().skip(1).take(rng.range(1, 2) as usize) {
        let start = cursor + 15 * rng.range(0, 1);
        let end = start + 15 * rng.range(2, 3);
        events.push(event(ids, title, day, start, end));
        cursor = end;
    }
    let later = cursor + need + 15 * rng.range(0, 2);
    if later + 30 <= h(17, 0) {
        events.push(event(ids, titles[3], day, later, later + 30));
    }
    let answer =
        first_free(&events, day, from, h(17, 0), need).expect("the construction leaves a slot");
    (events, answer)
}

/// The first minute `t >= from` with `t..t+need` free of all `events` and ending by `until`,
/// by a plain scan (independent of the server's own free-slot code).
pub(crate) fn first_free(
    events: &[SeedEvent],
    day: Day,
    from: i64,
    until: i64,
    need: i64,
) -> Option<i64> {
    let spans: Vec<(i64, i64)> = events
        .iter()
        .map(|e| {
            let m = |s: &str| {
                mcpbench_sim::dates::parse_datetime(s).expect("a valid time") - day.n * 1440
            };
            (m(&e.start), m(&e.end))
        })
        .collect();
    (from..=until - need).find(|&t| spans.iter().all(|&(s, e)| e <= t || t + need <= s))
}
