//! Single-tool templates: one call of the right tool with the right arguments.

use super::{
    Day, GUESTS, Ids, Kit, PLACES, TITLES, USER, atom, clock, event, guest, h, next_day_events,
    other_titles, packed_afternoon, params, shared_calendar,
};
use crate::{Atom, Calendar, Response, Seed};
use mcpbench_sim::{AnswerCheck, Draft, Pred, Rng, Step, call};
use serde_json::json;

pub(crate) fn create_event(rng: &mut Rng) -> Draft<Calendar> {
    let day = Day::pick(rng);
    let title = *rng.pick(TITLES);
    let start = h(rng.range(9, 15), 30 * rng.range(0, 1));
    let length = *rng.pick(&[30, 45, 60, 90]);
    let mut ids = Ids::new(rng, "evt");
    let others = other_titles(rng, &[title], 2);
    let mut events = vec![
        event(&mut ids, others[0], day, h(8, 30), h(9, 0)),
        event(&mut ids, others[1], day, h(16, 0), h(17, 0)),
    ];
    events.extend(next_day_events(rng, &mut ids, day, &[title]));
    let (s, e) = (day.at(start), day.at(start + length));
    Draft {
        goal: format!(
            "Put \"{title}\" on my calendar on {} from {} to {}.",
            day.long(),
            clock(start),
            clock(start + length)
        ),
        max_steps: 3,
        seed: Seed {
            events,
            ..Seed::default()
        },
        tools: Calendar::tools(&[
            "create_event",
            "quick_add_event",
            "list_events",
            "list_calendars",
            "get_current_time",
        ]),
        predicate: atom(Atom::EventExists {
            title: title.into(),
            start: s.clone(),
            end: Some(e.clone()),
            calendar: Some("primary".into()),
            attendees: None,
            location: None,
        }),
        references: vec![
            vec![call::<Calendar>(
                "create_event",
                json!({ "summary": title, "start": s, "end": e }),
            )],
            vec![call::<Calendar>(
                "quick_add_event",
                json!({ "text": format!("{title} on {} at {} for {length} minutes", day.date(), clock(start)) }),
            )],
        ],
        faults: vec![],
        params: params(&[
            ("title", json!(title)),
            ("start", json!(s)),
            ("minutes", json!(length)),
        ]),
    }
}

pub(crate) fn answer_invitation(rng: &mut Rng) -> Draft<Calendar> {
    let day = Day::pick(rng);
    let mut ids = Ids::new(rng, "evt");
    let titles = other_titles(rng, &[], 2);
    let organizers = rng.sample(GUESTS, 2);
    let start = h(rng.range(9, 15), 0);
    let mut invite = event(&mut ids, titles[0], day, start, start + 60);
    invite.attendees = vec![
        guest(organizers[0], Response::Accepted),
        guest(USER, Response::NeedsAction),
    ];
    let id = invite.id.clone();
    let mut other = event(&mut ids, titles[1], day, start + 120, start + 150);
    other.attendees = vec![
        guest(organizers[1], Response::Accepted),
        guest(USER, Response::NeedsAction),
    ];
    let (verb, response, value) = *rng.pick(&[
        ("Accept", Response::Accepted, "accepted"),
        ("Decline", Response::Declined, "declined"),
        (
            "Answer \"maybe\" (tentatively accept)",
            Response::Tentative,
            "tentative",
        ),
    ]);
    let mut events = vec![invite, other];
    events.extend(next_day_events(rng, &mut ids, day, &titles));
    Draft {
        goal: format!(
            "{verb} the invitation to \"{}\" on {} at {}.",
            titles[0],
            day.long(),
            clock(start)
        ),
        max_steps: 4,
        seed: Seed {
            events,
            ..Seed::default()
        },
        tools: Calendar::tools(&[
            "respond_to_event",
            "update_event",
            "get_event",
            "list_events",
            "search_events",
            "delete_event",
        ]),
        predicate: atom(Atom::AttendeeResponse {
            event_id: id.clone(),
            email: USER.into(),
            response,
        }),
        references: vec![vec![
            call::<Calendar>("search_events", json!({ "query": titles[0] })),
            call::<Calendar>(
                "respond_to_event",
                json!({ "eventId": id, "response": value }),
            ),
        ]],
        faults: vec![],
        params: params(&[("title", json!(titles[0])), ("response", json!(value))]),
    }
}

const TEAMS: &[(&str, &str)] = &[
    ("team-northwind", "Team Northwind"),
    ("project-apollo", "Project Apollo"),
    ("marketing", "Marketing"),
];

pub(crate) fn invite_guests(rng: &mut Rng) -> Draft<Calendar> {
    let day = Day::pick(rng);
    let (cal_id, cal_name) = *rng.pick(TEAMS);
    let title = *rng.pick(TITLES);
    let guests = rng.sample(GUESTS, 2);
    let place = *rng.pick(PLACES);
    let start = h(rng.range(9, 15), 30 * rng.range(0, 1));
    let end = start + *rng.pick(&[30, 60]);
    let mut ids = Ids::new(rng, "evt");
    let mut events = next_day_events(rng, &mut ids, day, &[title]);
    let mut team_event = event(
        &mut ids,
        other_titles(rng, &[title], 1)[0],
        day,
        h(11, 0),
        h(12, 0),
    );
    team_event.calendar = cal_id.into();
    events.push(team_event);
    let (s, e) = (day.at(start), day.at(end));
    Draft {
        goal: format!(
            "Create \"{title}\" on the {cal_name} calendar on {} from {} to {} at {place}, inviting {} and {}.",
            day.long(),
            clock(start),
            clock(end),
            guests[0],
            guests[1]
        ),
        max_steps: 4,
        seed: Seed {
            calendars: vec![
                shared_calendar(cal_id, cal_name, None, false, false),
                shared_calendar("holidays", "Holidays", Some("hr@northwind.io"), true, false),
            ],
            events,
            ..Seed::default()
        },
        tools: Calendar::tools(&[
            "create_event",
            "quick_add_event",
            "update_event",
            "list_calendars",
            "list_events",
        ]),
        predicate: atom(Atom::EventExists {
            title: title.into(),
            start: s.clone(),
            end: Some(e.clone()),
            calendar: Some(cal_id.into()),
            attendees: Some(guests.iter().map(|g| g.to_string()).collect()),
            location: Some(place.into()),
        }),
        references: vec![vec![
            call::<Calendar>("list_calendars", json!({})),
            call::<Calendar>(
                "create_event",
                json!({
                    "calendarId": cal_id, "summary": title, "start": s, "end": e, "location": place,
                    "attendees": guests.iter().map(|g| json!({ "email": g })).collect::<Vec<_>>(),
                }),
            ),
        ]],
        faults: vec![],
        params: params(&[
            ("calendar", json!(cal_id)),
            ("title", json!(title)),
            ("guests", json!(guests)),
        ]),
    }
}

/// Ways to ask for the first free slot, with `{day}`, `{need}` minutes and `{from}`.
const SLOT_ASKS: &[&str] = &[
    "On {day}, when does the first free {need}-minute slot on my calendar start, at or after {from}? My working day ends at 17:00. Answer with just the start time as HH:MM (24-hour).",
    "I need {need} minutes to myself on {day}, no earlier than {from} and done by 17:00. When is the earliest I can start? Reply with the time only, HH:MM, 24-hour clock.",
    "A colleague wants {need} minutes with me on {day} from {from} on; I stop at 17:00. What's the first start time that fits my calendar? Just HH:MM (24h).",
    "Looking at {day}: from {from}, what's the earliest time a {need}-minute block fits into my calendar before my day ends at 17:00? Give only the start, as HH:MM in 24-hour time.",
    "When is my first open {need}-minute window on {day}, starting {from} or later (I finish at 17:00)? Answer with the start time alone, HH:MM, 24-hour.",
    "Find me the earliest {need} free minutes on {day} at or after {from}; nothing may run past 17:00. Tell me only when it starts (HH:MM, 24-hour).",
];

pub(crate) fn first_free_slot(rng: &mut Rng) -> Draft<Calendar> {
    let day = Day::pick(rng);
    let need = *rng.pick(&[30, 45, 60]);
    let from = *rng.pick(&[h(12, 0), h(13, 0)]);
    let mut ids = Ids::new(rng, "evt");
    let morning = other_titles(rng, &[], 1)[0];
    let mut events = vec![event(&mut ids, morning, day, h(9, 30), h(10, 30))];
    let (afternoon, answer) = packed_afternoon(rng, &mut ids, day, from, need, &[morning]);
    events.extend(afternoon);
    events.extend(next_day_events(rng, &mut ids, day, &[]));
    let answer = clock(answer);
    // The times the calendar shows that day: a careless answer lists them.
    let shown: Vec<String> = events
        .iter()
        .filter(|e| e.start.starts_with(&day.date()))
        .flat_map(|e| [e.start[11..].to_string(), e.end[11..].to_string()])
        .collect();
    Draft {
        goal: rng
            .pick(SLOT_ASKS)
            .replace("{day}", &day.long())
            .replace("{need}", &need.to_string())
            .replace("{from}", &clock(from)),
        max_steps: 4,
        seed: Seed {
            events,
            ..Seed::default()
        },
        tools: Calendar::tools(&[
            "find_free_slots",
            "get_freebusy",
            "list_events",
            "create_event",
            "get_current_time",
        ]),
        predicate: Pred::Answer(AnswerCheck::names(
            &answer,
            shown.iter().map(String::as_str),
        )),
        references: vec![vec![
            call::<Calendar>(
                "find_free_slots",
                json!({ "date": day.date(), "durationMinutes": need, "workdayStart": clock(from) }),
            ),
            Step::Answer {
                answer: answer.clone(),
            },
        ]],
        faults: vec![],
        params: params(&[
            ("date", json!(day.date())),
            ("minutes", json!(need)),
            ("from", json!(clock(from))),
        ]),
    }
}
