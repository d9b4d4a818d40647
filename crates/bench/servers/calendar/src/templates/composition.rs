//! Composition templates: find the right event (or free time) first, then act or answer.

use super::{
    Day, GUESTS, Ids, Kit, TITLES, USER, atom, clock, event, guest, h, next_day_events, not,
    other_titles, packed_afternoon, params, shared_calendar,
};
use crate::{Atom, Calendar, Response, Seed};
use mcpbench_sim::{AnswerCheck, Draft, Pred, Rng, Step, call};
use serde_json::json;

pub(crate) fn count_pending(rng: &mut Rng) -> Draft<Calendar> {
    let day = Day::pick(rng);
    let title = *rng.pick(TITLES);
    let mut ids = Ids::new(rng, "evt");
    let count = rng.range(3, 5) as usize;
    let guests = rng.sample(GUESTS, count);
    let answers = [
        Response::NeedsAction,
        Response::Accepted,
        Response::Declined,
        Response::Tentative,
    ];
    let mut attendees = vec![guest(guests[0], Response::NeedsAction)];
    attendees.extend(guests[1..].iter().map(|g| guest(g, *rng.pick(&answers))));
    let pending = attendees
        .iter()
        .filter(|a| a.response == Response::NeedsAction)
        .count();
    attendees.push(guest(USER, Response::Accepted));
    rng.shuffle(&mut attendees);
    let start = h(rng.range(9, 15), 0);
    let mut target = event(&mut ids, title, day, start, start + 60);
    target.attendees = attendees;
    let mut events = vec![target];
    let mut decoy = event(&mut ids, title, day.next(), start, start + 60);
    decoy.attendees = vec![guest(guests[0], Response::Accepted)];
    events.push(decoy);
    events.extend(next_day_events(rng, &mut ids, day, &[title]));
    Draft {
        goal: format!(
            "How many guests of \"{title}\" on {} at {} have not answered the invitation yet? Reply with just the number.",
            day.long(),
            clock(start)
        ),
        max_steps: 4,
        seed: Seed {
            events,
            ..Seed::default()
        },
        tools: Calendar::tools(&[
            "search_events",
            "list_events",
            "get_event",
            "respond_to_event",
        ]),
        predicate: Pred::Answer(AnswerCheck::OnlyNumber {
            value: pending as f64,
            tolerance: 0.0,
        }),
        references: vec![vec![
            call::<Calendar>("search_events", json!({ "query": title })),
            Step::Answer {
                answer: pending.to_string(),
            },
        ]],
        faults: vec![],
        params: params(&[("title", json!(title)), ("guests", json!(guests.len()))]),
    }
}

pub(crate) fn reschedule(rng: &mut Rng) -> Draft<Calendar> {
    let day = Day::pick(rng);
    let title = *rng.pick(TITLES);
    let mut ids = Ids::new(rng, "evt");
    let old = h(rng.range(9, 11), 30 * rng.range(0, 1));
    let length = *rng.pick(&[30, 45, 60]);
    let new = h(rng.range(14, 16), 30 * rng.range(0, 1));
    let target = event(&mut ids, title, day, old, old + length);
    let id = target.id.clone();
    let lunch = other_titles(rng, &[title], 1)[0];
    let mut events = vec![target, event(&mut ids, lunch, day, h(12, 0), h(12, 30))];
    events.push(event(&mut ids, title, day.next(), old, old + length));
    events.extend(next_day_events(rng, &mut ids, day, &[title, lunch]));
    let (s, e) = (day.at(new), day.at(new + length));
    let search = call::<Calendar>("search_events", json!({ "query": title }));
    Draft {
        goal: format!(
            "Move my \"{title}\" meeting on {} from {} to {}, keeping its length (so it runs {} to {}).",
            day.long(),
            clock(old),
            clock(new),
            clock(new),
            clock(new + length)
        ),
        max_steps: 6,
        seed: Seed {
            events,
            ..Seed::default()
        },
        tools: Calendar::tools(&[
            "search_events",
            "list_events",
            "get_event",
            "update_event",
            "delete_event",
            "create_event",
            "quick_add_event",
        ]),
        predicate: Pred::All(vec![
            atom(Atom::EventExists {
                title: title.into(),
                start: s.clone(),
                end: Some(e.clone()),
                calendar: Some("primary".into()),
                attendees: None,
                location: None,
            }),
            atom(Atom::NoEventAt {
                time: day.at(old),
                calendar: Some("primary".into()),
            }),
        ]),
        references: vec![
            vec![
                search.clone(),
                call::<Calendar>(
                    "update_event",
                    json!({ "eventId": id, "start": s, "end": e }),
                ),
            ],
            vec![
                search,
                call::<Calendar>("delete_event", json!({ "eventId": id })),
                call::<Calendar>(
                    "create_event",
                    json!({ "summary": title, "start": s, "end": e }),
                ),
            ],
        ],
        faults: vec![],
        params: params(&[
            ("title", json!(title)),
            ("from", json!(day.at(old))),
            ("to", json!(s)),
        ]),
    }
}

pub(crate) fn add_guest(rng: &mut Rng) -> Draft<Calendar> {
    let day = Day::pick(rng);
    let title = *rng.pick(TITLES);
    let mut ids = Ids::new(rng, "evt");
    let people = rng.sample(GUESTS, 3);
    let start = h(rng.range(9, 15), 0);
    let mut target = event(&mut ids, title, day, start, start + 60);
    target.attendees = vec![
        guest(people[0], Response::Accepted),
        guest(
            people[1],
            *rng.pick(&[Response::NeedsAction, Response::Tentative]),
        ),
    ];
    let id = target.id.clone();
    let mut events = vec![target];
    events.extend(next_day_events(rng, &mut ids, day, &[title]));
    let all: Vec<String> = people.iter().map(|p| p.to_string()).collect();
    Draft {
        goal: format!(
            "Add {} as a guest of \"{title}\" on {} at {}, keeping everyone already invited.",
            people[2],
            day.long(),
            clock(start)
        ),
        max_steps: 5,
        seed: Seed {
            events,
            ..Seed::default()
        },
        tools: Calendar::tools(&[
            "search_events",
            "get_event",
            "update_event",
            "create_event",
            "list_events",
            "delete_event",
        ]),
        predicate: atom(Atom::EventAttendees {
            event_id: id.clone(),
            attendees: all.clone(),
        }),
        references: vec![vec![
            call::<Calendar>("search_events", json!({ "query": title })),
            call::<Calendar>(
                "update_event",
                json!({ "eventId": id, "attendees": all.iter().map(|p| json!({ "email": p })).collect::<Vec<_>>() }),
            ),
        ]],
        faults: vec![],
        params: params(&[("title", json!(title)), ("guest", json!(people[2]))]),
    }
}

pub(crate) fn book_free_slot(rng: &mut Rng) -> Draft<Calendar> {
    let day = Day::pick(rng);
    let title = *rng.pick(TITLES);
    let need = *rng.pick(&[30, 45, 60]);
    let who = *rng.pick(GUESTS);
    let mut ids = Ids::new(rng, "evt");
    let (mut events, answer) = packed_afternoon(rng, &mut ids, day, h(9, 0), need, &[title]);
    events.extend(next_day_events(rng, &mut ids, day, &[title]));
    let (s, e) = (day.at(answer), day.at(answer + need));
    Draft {
        goal: format!(
            "Find the first free {need}-minute slot on my calendar on {} between 09:00 and 17:00, and book \"{title}\" there with {who} as a guest.",
            day.long()
        ),
        max_steps: 5,
        seed: Seed {
            events,
            ..Seed::default()
        },
        tools: Calendar::tools(&[
            "find_free_slots",
            "get_freebusy",
            "list_events",
            "create_event",
            "quick_add_event",
            "update_event",
        ]),
        predicate: atom(Atom::EventExists {
            title: title.into(),
            start: s.clone(),
            end: Some(e.clone()),
            calendar: Some("primary".into()),
            attendees: Some(vec![who.into()]),
            location: None,
        }),
        references: vec![vec![
            call::<Calendar>(
                "find_free_slots",
                json!({ "date": day.date(), "durationMinutes": need }),
            ),
            call::<Calendar>(
                "create_event",
                json!({ "summary": title, "start": s, "end": e, "attendees": [{ "email": who }] }),
            ),
        ]],
        faults: vec![],
        params: params(&[
            ("date", json!(day.date())),
            ("minutes", json!(need)),
            ("title", json!(title)),
        ]),
    }
}

pub(crate) fn clear_afternoon(rng: &mut Rng) -> Draft<Calendar> {
    let day = Day::pick(rng);
    let mut ids = Ids::new(rng, "evt");
    let n = rng.range(2, 3) as usize;
    let titles = other_titles(rng, &[], n + 4);
    let mut events = Vec::new();
    let mut targets = Vec::new();
    let mut at = h(13, 0) + 30 * rng.range(0, 1);
    for title in &titles[..n] {
        let e = event(&mut ids, title, day, at, at + 45);
        targets.push(e.id.clone());
        events.push(e);
        at += 60 + 30 * rng.range(0, 1);
    }
    let mut keep = vec![
        event(&mut ids, titles[n], day, h(9, 0), h(10, 0)),
        event(&mut ids, titles[n + 1], day, h(12, 30), h(13, 30)),
        event(&mut ids, titles[n + 2], day.next(), h(14, 0), h(15, 0)),
    ];
    let mut shared = event(&mut ids, titles[n + 3], day, h(15, 0), h(16, 0));
    shared.calendar = "team-northwind".into();
    keep.push(shared);
    let kept: Vec<String> = keep.iter().map(|e| e.id.clone()).collect();
    events.extend(keep);
    rng.shuffle(&mut events);
    let mut checks: Vec<Pred<Atom>> = targets
        .iter()
        .map(|id| atom(Atom::EventAbsent { id: id.clone() }))
        .collect();
    checks.extend(
        kept.iter()
            .map(|id| not(atom(Atom::EventAbsent { id: id.clone() }))),
    );
    let mut steps = vec![call::<Calendar>(
        "list_events",
        json!({ "timeMin": day.at(h(13, 0)), "timeMax": day.at(h(24, 0) - 1) }),
    )];
    steps.extend(
        targets
            .iter()
            .map(|id| call::<Calendar>("delete_event", json!({ "eventId": id }))),
    );
    Draft {
        goal: format!(
            "I'm taking the afternoon of {} off. Delete every event on my own calendar that day that starts at 13:00 or later. Leave everything else as it is, including events that started before 13:00 and events on other calendars.",
            day.long()
        ),
        max_steps: (n + 4) as u32,
        seed: Seed {
            calendars: vec![shared_calendar(
                "team-northwind",
                "Team Northwind",
                None,
                false,
                false,
            )],
            events,
            ..Seed::default()
        },
        tools: Calendar::tools(&[
            "list_events",
            "search_events",
            "get_event",
            "delete_event",
            "update_event",
            "list_calendars",
        ]),
        predicate: Pred::All(checks),
        references: vec![steps],
        faults: vec![],
        params: params(&[("date", json!(day.date())), ("count", json!(n))]),
    }
}
