//! A work calendar's months of meetings beside the task's own events: weekly series (1:1s,
//! team rituals) and one-off appointments over the ten weeks before "now" and the eight after,
//! on `primary` and on one or two colleagues' shared calendars, written in the seed as a seed
//! and a count and expanded when the calendar is built.
//!
//! Templates ask about free time, conflicts and what happens on a given day, so the
//! background keeps off every day the seed itself has an event on (and off today) on
//! `primary`: the days a task reasons about hold exactly what the template put there, while a
//! listing of the weeks around them still has to be sifted or filtered by time. It keeps off
//! some other days too, as a real calendar has light days, so that a day without the
//! background's meetings is not thereby a task's. A template
//! that asks about a day of `primary` therefore places an event of its own on that day.
//! Colleagues' calendars are read-only, belong to people no template names and are read by no
//! template, so their events may fall on any working day. Titles, places and people belong to
//! no template, so no search of a template's title finds one; ids have the form of the task's
//! own and sit among them, but a slip of one digit never names a background event.

use crate::state::{Attendee, CalendarInfo, Event, Response, primary};
use mcpbench_sim::Rng;
use mcpbench_sim::background::{fresh_id, person};
use mcpbench_sim::dates::weekday;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The most background events a seed may ask for: three quarters of what a run's calendars
/// hold ([`crate::CALENDAR`]), so that a task's own events and an agent's still fit.
pub const MAX_EVENTS: u32 = 1_500;

/// `initial_state.calendar.background`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Background {
    /// The stream the events are drawn from.
    pub seed: u32,
    /// How many events, at most 1,500, over the ten weeks before "now" and the eight after.
    #[schemars(range(max = 1500))]
    pub events: u32,
}

impl Background {
    /// A calendar of 150 to 400 events.
    pub fn draw(rng: &mut Rng) -> Self {
        Background {
            seed: rng.below(1 << 32) as u32,
            events: rng.range(150, 400) as u32,
        }
    }
}

/// Weeks of history before "now" and of plans after it.
const WEEKS_BEFORE: i64 = 10;
const WEEKS_AFTER: i64 = 8;

const WORKDAYS: [&str; 5] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"];

/// Team series on `primary`, with their length in minutes; no template uses these words.
pub const SERIES: &[(&str, i64)] = &[
    ("Backlog grooming", 60),
    ("Team retrospective", 60),
    ("Ops huddle", 30),
    ("Office hours", 60),
    ("Reading group", 45),
    ("On-call handover", 30),
    ("Release readiness", 45),
    ("Docs triage", 30),
    ("Metrics walkthrough", 45),
    ("Frontend guild", 60),
];

/// One-off appointments on `primary`; `{}` is a colleague's first name.
pub const ONE_OFFS: &[&str] = &[
    "Coffee with {}",
    "Pairing with {}",
    "Onboarding check-in with {}",
    "Interview loop",
    "Expense report cleanup",
    "Car service",
    "Tax advisor appointment",
    "Brown-bag talk: observability",
    "Parent-teacher meeting",
    "Offboarding handoff",
    "Licence renewal",
    "Conference talk rehearsal",
    "Press kit walkthrough",
    "Badge photo",
];

/// What a colleague's shared calendar shows.
pub const COLLEAGUE: &[&str] = &[
    "Deep work",
    "Out of office",
    "Doctor's appointment",
    "Pairing block",
    "Partner escalation",
    "Gym",
    "School pickup",
];

/// Where background events take place; no template names these.
pub const LOCATIONS: &[&str] = &[
    "Room Fjord",
    "Room Kestrel",
    "Google Meet",
    "Kitchen corner",
];

/// A background colleague: first name, full name and address.
#[derive(Clone)]
struct Colleague {
    first: &'static str,
    name: String,
    email: String,
}

/// A weekly series: its title, day, start minute, length, calendar, guests and place.
struct Series {
    title: String,
    day: &'static str,
    start: i64,
    length: i64,
    calendar: String,
    guests: Vec<String>,
    location: Option<&'static str>,
}

/// The background's calendars (colleagues' shared ones) and events, to add to the seed's.
#[derive(Default)]
pub(crate) struct Expanded {
    pub calendars: Vec<CalendarInfo>,
    pub events: Vec<Event>,
}

/// Expands `background` beside the seed's `user`, `now`, `calendars` and `events`.
pub(crate) fn expand(
    background: &Background,
    user: &str,
    now: i64,
    calendars: &BTreeMap<String, CalendarInfo>,
    events: &BTreeMap<String, Event>,
) -> Expanded {
    let mut rng = Rng::new(u64::from(background.seed), 0x6361_6c65);
    let mut out = Expanded::default();
    let count = background.events.min(MAX_EVENTS) as usize;
    if count == 0 {
        return out;
    }
    let domain = user.rsplit_once('@').map_or("northwind.io", |(_, d)| d);
    let mut people: Vec<Colleague> = Vec::new();
    for _ in 0..16 {
        let (first, last) = person(&mut rng);
        if people.iter().any(|p| p.first == first) {
            continue;
        }
        let email = format!("{}.{}@{domain}", first.to_lowercase(), last.to_lowercase());
        if email.eq_ignore_ascii_case(user) {
            continue;
        }
        people.push(Colleague {
            first,
            name: format!("{first} {last}"),
            email,
        });
        if people.len() == 8 {
            break;
        }
    }
    for p in people.iter().take(rng.range(1, 2) as usize) {
        if !calendars.contains_key(&p.email) {
            out.calendars.push(CalendarInfo {
                id: p.email.clone(),
                name: p.name.clone(),
                owner: p.email.clone(),
                read_only: true,
                no_double_booking: false,
            });
        }
    }
    let today = now.div_euclid(1440);
    // The days of `primary` a task may reason about: today and every day a seed event touches.
    let mut blocked: BTreeSet<i64> = events
        .values()
        .flat_map(|e| e.start.div_euclid(1440)..=(e.end - 1).div_euclid(1440))
        .collect();
    blocked.insert(today);
    let workdays: Vec<i64> = (today - 7 * WEEKS_BEFORE..today + 7 * WEEKS_AFTER)
        .filter(|&d| WORKDAYS.contains(&weekday(d)))
        .collect();
    // Light days, as a real week has: about one working day in six on `primary` with none
    // of the background, so that a quiet day is not a task's day for being quiet.
    let own_days: Vec<i64> = workdays
        .iter()
        .copied()
        .filter(|d| !rng.chance(1, 6) && !blocked.contains(d))
        .collect();
    let series = draw_series(&mut rng, &people, &out.calendars);
    let days_of = |calendar: &str| {
        if calendar == "primary" {
            &own_days
        } else {
            &workdays
        }
    };

    let mut drawn: Vec<Event> = Vec::new();
    // Whole series first, up to two thirds of the count; one-offs fill the rest.
    'series: for s in &series {
        for &day in days_of(&s.calendar)
            .iter()
            .filter(|&&d| weekday(d) == s.day)
        {
            if drawn.len() >= count * 2 / 3 {
                break 'series;
            }
            let start = day * 1440 + s.start;
            drawn.push(Event {
                id: String::new(),
                calendar: s.calendar.clone(),
                title: s.title.clone(),
                start,
                end: start + s.length,
                location: s.location.map(String::from),
                description: None,
                attendees: guests(&mut rng, user, &s.guests, start < now),
            });
        }
    }
    while drawn.len() < count {
        let shared = !out.calendars.is_empty() && rng.chance(1, 5);
        let (calendar, title, guest_list) = if shared {
            let c = &rng.pick(&out.calendars).id;
            (c.clone(), rng.pick(COLLEAGUE).to_string(), vec![])
        } else {
            let who = rng.pick(&people);
            let title = rng.pick(ONE_OFFS).replace("{}", who.first);
            let mut list = vec![who.email.clone()];
            if !title.contains(who.first) && rng.chance(1, 2) {
                let n = rng.range(1, 3) as usize;
                list = rng
                    .sample(&people, n)
                    .iter()
                    .map(|p| p.email.clone())
                    .collect();
            }
            (primary(), title, list)
        };
        let days = days_of(&calendar);
        if days.is_empty() {
            break;
        }
        let day = *rng.pick(days);
        let start = day * 1440 + 15 * rng.range(4 * 8, 4 * 17 - 2);
        let length = *rng.pick(&[30, 45, 60, 90]);
        drawn.push(Event {
            id: String::new(),
            calendar,
            title,
            start,
            end: start + length,
            location: rng.chance(1, 3).then(|| rng.pick(LOCATIONS).to_string()),
            description: None,
            attendees: if guest_list.is_empty() {
                vec![]
            } else {
                guests(&mut rng, user, &guest_list, start < now)
            },
        });
    }
    // Ids of the task's own form and among them (a run's new events take 9000 on), never one
    // slip away from one of the task's; handed out in creation order, as a server does.
    drawn.sort_by(|a, b| (a.start, &a.calendar, &a.title).cmp(&(b.start, &b.calendar, &b.title)));
    let own: Vec<&String> = events.keys().collect();
    let mut taken: BTreeSet<String> = events.keys().cloned().collect();
    let mut ids: Vec<String> = (0..drawn.len())
        .map(|_| {
            fresh_id(&mut rng, &mut taken, &own, (1000, 8999), |n| {
                format!("evt-{n}")
            })
        })
        .collect();
    ids.sort();
    for (mut e, id) in drawn.into_iter().zip(ids) {
        e.id = id;
        out.events.push(e);
    }
    out
}

/// Weekly series: 1:1s with three to five colleagues and three or four team rituals on
/// `primary`, two rhythms on each colleague's calendar.
fn draw_series(rng: &mut Rng, people: &[Colleague], shared: &[CalendarInfo]) -> Vec<Series> {
    let mut series = Vec::new();
    let slot = |rng: &mut Rng| (*rng.pick(&WORKDAYS), 30 * rng.range(19, 32));
    let ones = rng.range(3, 5).min(people.len() as i64) as usize;
    for p in &people[..ones] {
        let (day, start) = slot(rng);
        series.push(Series {
            title: format!("1:1 with {}", p.first),
            day,
            start,
            length: 30,
            calendar: primary(),
            guests: vec![p.email.clone()],
            location: rng.chance(1, 2).then_some("Google Meet"),
        });
    }
    let rituals = rng.range(3, 4) as usize;
    for &(title, length) in &rng.sample(SERIES, rituals) {
        let (day, start) = slot(rng);
        let n = rng.range(2, 4) as usize;
        series.push(Series {
            title: title.into(),
            day,
            start,
            length,
            calendar: primary(),
            guests: rng
                .sample(people, n)
                .iter()
                .map(|p| p.email.clone())
                .collect(),
            location: Some(*rng.pick(LOCATIONS)),
        });
    }
    for c in shared {
        for title in rng.sample(COLLEAGUE, 2) {
            let (day, start) = slot(rng);
            series.push(Series {
                title: title.into(),
                day,
                start,
                length: 60 * rng.range(1, 2),
                calendar: c.id.clone(),
                guests: vec![],
                location: None,
            });
        }
    }
    rng.shuffle(&mut series);
    series
}

/// The user and `others` as guests: past meetings answered, later ones sometimes still open.
fn guests(rng: &mut Rng, user: &str, others: &[String], past: bool) -> Vec<Attendee> {
    let answer = |rng: &mut Rng| match rng.below(10) {
        0 if past => Response::Declined,
        0 => Response::NeedsAction,
        1 => Response::Tentative,
        _ => Response::Accepted,
    };
    let mut list = vec![Attendee {
        email: user.into(),
        response: answer(rng),
    }];
    for o in others {
        if !list.iter().any(|a| a.email.eq_ignore_ascii_case(o)) {
            list.push(Attendee {
                email: o.clone(),
                response: answer(rng),
            });
        }
    }
    list
}
