//! Recovery templates: a transient fault to retry through, or a refusal (read-only calendar,
//! double booking) for the agent to notice; the goal states the user's first choice and what
//! else they will accept, never how to get there.

use super::{
    Day, GUESTS, Ids, Kit, PLACES, TITLES, atom, clock, event, h, next_day_events, not,
    other_titles, params, shared_calendar,
};
use crate::{Atom, Calendar, Seed};
use mcpbench_sim::{Draft, ErrorKind, Fault, Pred, Rng, call, qualified};
use serde_json::json;

pub(crate) fn create_after_outage(rng: &mut Rng) -> Draft<Calendar> {
    let day = Day::pick(rng);
    let title = *rng.pick(TITLES);
    let place = *rng.pick(PLACES);
    let who = *rng.pick(GUESTS);
    let start = h(rng.range(9, 15), 30 * rng.range(0, 1));
    let end = start + *rng.pick(&[30, 60]);
    let mut ids = Ids::new(rng, "evt");
    let events = next_day_events(rng, &mut ids, day, &[title]);
    let kind = *rng.pick(&[
        ErrorKind::Unavailable,
        ErrorKind::RateLimited,
        ErrorKind::Timeout,
    ]);
    let (s, e) = (day.at(start), day.at(end));
    let create = call::<Calendar>(
        "create_event",
        json!({ "summary": title, "start": s, "end": e, "location": place, "attendees": [{ "email": who }] }),
    );
    Draft {
        goal: format!(
            "Schedule \"{title}\" on my calendar on {} from {} to {} at {place}, with {who} as a guest.",
            day.long(),
            clock(start),
            clock(end)
        ),
        max_steps: 4,
        seed: Seed {
            events,
            ..Seed::default()
        },
        tools: Calendar::tools(&["create_event", "list_events", "get_event", "update_event"]),
        predicate: atom(Atom::EventExists {
            title: title.into(),
            start: s.clone(),
            end: Some(e.clone()),
            calendar: Some("primary".into()),
            attendees: Some(vec![who.into()]),
            location: Some(place.into()),
        }),
        references: vec![vec![create.clone(), create]],
        faults: vec![Fault {
            tool: qualified::<Calendar>("create_event"),
            on_call: 1,
            times: 1,
            error: kind,
            message: "the calendar service did not respond; no event was created, try again".into(),
            landed: false,
        }],
        params: params(&[
            ("title", json!(title)),
            ("start", json!(s)),
            ("error", json!(kind.as_str())),
        ]),
    }
}

pub(crate) fn read_only_fallback(rng: &mut Rng) -> Draft<Calendar> {
    let day = Day::pick(rng);
    let title = *rng.pick(&[
        "Team offsite",
        "Town hall",
        "Spring party",
        "Training day",
        "Charity run",
    ]);
    let start = h(rng.range(9, 14), 0);
    let end = start + 60 * rng.range(1, 3);
    let mut ids = Ids::new(rng, "evt");
    let mut events = next_day_events(rng, &mut ids, day, &[]);
    let mut holiday = event(
        &mut ids,
        "Public holiday",
        Day { n: day.n + 7 },
        h(0, 0),
        h(23, 59),
    );
    holiday.calendar = "company-events".into();
    events.push(holiday);
    let (s, e) = (day.at(start), day.at(end));
    let wanted = |calendar: &str| {
        atom(Atom::EventExists {
            title: title.into(),
            start: s.clone(),
            end: Some(e.clone()),
            calendar: Some(calendar.into()),
            attendees: None,
            location: None,
        })
    };
    let (when, from, to) = (day.long(), clock(start), clock(end));
    let goal = match rng.below(3) {
        0 => format!(
            "Add \"{title}\" on {when} from {from} to {to} to the Company events calendar; my own calendar will do if it can't go there."
        ),
        1 => format!(
            "Please put \"{title}\" on the Company events calendar for {when}, {from} to {to}. If that calendar won't take it, put it on mine instead."
        ),
        _ => format!(
            "\"{title}\" is on {when} from {from} to {to}. I'd like it on the Company events calendar, and failing that on my own calendar."
        ),
    };
    Draft {
        goal,
        max_steps: 5,
        seed: Seed {
            calendars: vec![shared_calendar(
                "company-events",
                "Company events",
                Some("hr@northwind.io"),
                true,
                false,
            )],
            events,
            ..Seed::default()
        },
        tools: Calendar::tools(&[
            "create_event",
            "quick_add_event",
            "list_calendars",
            "list_events",
        ]),
        predicate: wanted("primary"),
        references: vec![vec![
            call::<Calendar>("list_calendars", json!({})),
            call::<Calendar>(
                "create_event",
                json!({ "calendarId": "company-events", "summary": title, "start": s, "end": e }),
            ),
            call::<Calendar>(
                "create_event",
                json!({ "summary": title, "start": s, "end": e }),
            ),
        ]],
        faults: vec![],
        params: params(&[("title", json!(title)), ("start", json!(s))]),
    }
}

const ROOMS: &[(&str, &str)] = &[
    ("room-atlas", "Atlas"),
    ("room-borealis", "Borealis"),
    ("room-cirrus", "Cirrus"),
];

pub(crate) fn room_conflict(rng: &mut Rng) -> Draft<Calendar> {
    let day = Day::pick(rng);
    let (room_id, room) = *rng.pick(ROOMS);
    let title = *rng.pick(TITLES);
    let mut ids = Ids::new(rng, "evt");
    let start = h(rng.range(9, 13), 0);
    let length = *rng.pick(&[30, 60]);
    let taken_from = start - 30 + 15 * rng.range(0, 3);
    let mut booking = event(
        &mut ids,
        other_titles(rng, &[title], 1)[0],
        day,
        taken_from,
        taken_from + 60,
    );
    booking.calendar = room_id.into();
    let booked = booking.id.clone();
    let alt = taken_from + 60 + 30 * rng.range(0, 2);
    let mut later = event(
        &mut ids,
        other_titles(rng, &[title], 1)[0],
        day,
        alt + length + 30,
        alt + length + 90,
    );
    later.calendar = room_id.into();
    let mut events = vec![booking, later];
    events.extend(next_day_events(rng, &mut ids, day, &[title]));
    let (s, e) = (day.at(start), day.at(start + length));
    let (alt_s, alt_e) = (day.at(alt), day.at(alt + length));
    let first = call::<Calendar>(
        "create_event",
        json!({ "calendarId": room_id, "summary": title, "start": s, "end": e }),
    );
    let (when, from, to) = (day.long(), clock(start), clock(start + length));
    let (alt_from, alt_to) = (clock(alt), clock(alt + length));
    let goal = match rng.below(3) {
        0 => format!(
            "Book the {room} room for \"{title}\" on {when} from {from} to {to}, or from {alt_from} to {alt_to} if the room is busy then. Don't change anyone else's booking."
        ),
        1 => format!(
            "I need the {room} room for \"{title}\" on {when}. {from} to {to} would be ideal; {alt_from} to {alt_to} is my second choice. Leave other people's bookings alone."
        ),
        _ => format!(
            "Please reserve the {room} room for \"{title}\" on {when}, {from}-{to} if it's free, otherwise {alt_from}-{alt_to}. Nobody else's booking should change."
        ),
    };
    Draft {
        goal,
        max_steps: 7,
        seed: Seed {
            calendars: vec![shared_calendar(
                room_id,
                &format!("Room {room}"),
                Some("facilities@northwind.io"),
                false,
                true,
            )],
            events,
            ..Seed::default()
        },
        tools: Calendar::tools(&[
            "create_event",
            "list_events",
            "get_freebusy",
            "delete_event",
            "update_event",
            "list_calendars",
        ]),
        predicate: Pred::All(vec![
            atom(Atom::EventExists {
                title: title.into(),
                start: alt_s.clone(),
                end: Some(alt_e.clone()),
                calendar: Some(room_id.into()),
                attendees: None,
                location: None,
            }),
            not(atom(Atom::EventAbsent { id: booked })),
        ]),
        references: vec![vec![
            call::<Calendar>("list_calendars", json!({})),
            first.clone(),
            first,
            call::<Calendar>(
                "create_event",
                json!({ "calendarId": room_id, "summary": title, "start": alt_s, "end": alt_e }),
            ),
        ]],
        faults: vec![Fault {
            tool: qualified::<Calendar>("create_event"),
            on_call: 1,
            times: 1,
            error: ErrorKind::RateLimited,
            message: "too many requests to the room booking service; retry in a moment".into(),
            landed: false,
        }],
        params: params(&[
            ("room", json!(room_id)),
            ("start", json!(s)),
            ("alternative", json!(alt_s)),
        ]),
    }
}
