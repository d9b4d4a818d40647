//! `compose.rain_check` (calendar + weather): each outdoor plan of the user's next days is
//! checked against the forecast for its own city and day, and the rainy ones are renamed or
//! moved. Indoor plans, plans past the window and the shared calendar's plans stay as they
//! are, and the number of events on each calendar is unchanged: renaming or moving an event
//! creates none.

use super::{composed, fill, retry, transient};
use mcpbench_server_calendar as cal;
use mcpbench_server_weather as weather;
use mcpbench_sim::dates::{format_date, parse_date};
use mcpbench_sim::{Ids, Pred, Rng, call, not, params};
use mcpbench_world::{Atom, Composed, InitialState};
use serde_json::json;

#[rustfmt::skip]
const OUTDOOR: &[&str] = &[
    "Team picnic", "Harbour walk", "Park run", "Garden party", "Bike tour", "Open-air concert",
    "Beach volleyball", "Rooftop drinks", "Hike with Sam", "Farmers' market", "Outdoor yoga",
    "Kayak session", "Barbecue with the neighbours", "Botanical garden tour",
    "Street food festival",
];
#[rustfmt::skip]
const INDOOR: &[&str] = &[
    "Client workshop", "Budget review", "Dentist", "1:1 with Maria", "Museum visit",
    "Cinema night", "Board meeting", "Cooking class", "Quarterly planning",
];
/// What the reference calls, and what an agent may reach for instead.
#[rustfmt::skip]
const RAIN_TOOLS: &[&str] = &[
    "calendar.get_current_time", "calendar.list_events", "calendar.search_events",
    "calendar.get_event", "calendar.list_calendars", "calendar.update_event",
    "calendar.create_event", "calendar.delete_event", "weather.get_forecast", "weather.geocode",
    "weather.get_hourly_forecast", "weather.get_current_weather",
];

type Slot = (&'static str, &'static str);

#[rustfmt::skip]
const OUTDOOR_SLOTS: &[Slot] = &[
    ("07:30", "08:30"), ("10:00", "12:00"), ("12:30", "14:00"), ("15:00", "17:00"),
    ("17:30", "19:30"),
];
const INDOOR_SLOTS: &[Slot] = &[("11:00", "12:00"), ("14:00", "15:30"), ("19:45", "21:00")];
/// Ways to ask, with `{window}` days, the `{limit}` percent and the `{action}` to take.
const RAIN_GOALS: [&str; 5] = [
    "Can you do a rain check on my outdoor plans for the next {window} days, starting tomorrow? \
     Each is in some city; if the forecast there gives a {limit}% or higher chance of rain on \
     its day, {action}. Only my own calendar, and leave everything else as it is.",
    "I have a few things planned outdoors over the coming {window} days (from tomorrow on), \
     each somewhere different. Wherever rain is likely on the day (a chance of {limit}% or more \
     in that city), {action}. Indoor events, other days and the shared calendars stay untouched.",
    "Check the weather for the outdoor events in my own calendar over the next {window} days, \
     tomorrow included. For each one whose city has at least a {limit}% chance of rain that \
     day, {action}. Don't change anything else.",
    "Go through my outdoor plans from tomorrow through the next {window} days; they are in \
     different cities. Any plan whose city is forecast a {limit}% chance of rain or higher on \
     its day: {action}. Leave indoor things, later days and shared calendars alone.",
    "For the next {window} days (starting tomorrow), look at the forecast for each outdoor \
     event in my calendar, in the event's own city. If the chance of rain there that day is \
     {limit}% or more, {action}. Nothing else on any calendar should change.",
];
/// What a user may say first: why they ask, or nothing.
const RAIN_OPENERS: &[&str] = &[
    "",
    "The weather has been all over the place lately. ",
    "I'd rather not get soaked this week. ",
    "Looks like a wet spell is coming. ",
    "Most of my week is outside. ",
    "Before the weekend gets away from me: ",
    "Quick favour. ",
    "The forecast keeps changing. ",
    "I'm planning my week tonight. ",
    "Rain ruined last weekend. ",
    "Spring is unpredictable here. ",
    "Help me stay dry: ",
];
/// What a rainy plan gets at the end of its title.
#[rustfmt::skip]
const MARKS: &[&str] = &[
    "(rain plan)", "(check rain)", "- rain likely", "[umbrella]", "(bring umbrella)", "[rain?]",
    "- maybe indoors", "(weather watch)", "[wet]", "(rain risk)",
];
/// Rain limits, in percent: multiples of 5 from 30 to 80.
const LIMITS: &[u8] = &[30, 35, 40, 45, 50, 55, 60, 65, 70, 75, 80];

/// A chance of rain at or above `limit`, a multiple of 5.
fn wet(rng: &mut Rng, limit: u8) -> u8 {
    limit + 5 * rng.range(0, i64::from(95 - limit) / 5) as u8
}

/// A chance of rain below `limit`, a multiple of 5.
fn dry(rng: &mut Rng, limit: u8) -> u8 {
    5 * rng.range(0, i64::from(limit) / 5 - 1) as u8
}

/// An outdoor plan of the user's.
struct Outing {
    id: String,
    title: &'static str,
    /// Days after today.
    day: i64,
    slot: Slot,
    /// The place's display name, as the event's location says it.
    city: String,
    rainy: bool,
    /// Days from `day` to the first later day below the limit (the move mode only).
    gap: i64,
}

fn event(id: &str, title: &str, day: &str, slot: Slot, place: Option<&str>) -> cal::SeedEvent {
    let (start, end) = at(day, slot);
    let mut e = cal::SeedEvent::new(id, title, &start, &end);
    e.location = place.map(String::from);
    e
}

/// The start and end of `slot` on `day`.
fn at(day: &str, (from, to): Slot) -> (String, String) {
    (format!("{day}T{from}"), format!("{day}T{to}"))
}

/// An event titled `title` starts at `start` (and ends at `end`, on `calendar`, when given).
fn exists(title: &str, start: &str, end: Option<&str>, calendar: Option<&str>) -> Pred<Atom> {
    Pred::Atom(Atom::calendar(cal::Atom::EventExists {
        title: title.into(),
        start: start.into(),
        end: end.map(String::from),
        calendar: calendar.map(String::from),
        attendees: None,
        location: None,
    }))
}

/// Exactly `count` events, on `calendar` when given.
fn event_count(count: usize, calendar: Option<&str>) -> Pred<Atom> {
    Pred::Atom(Atom::calendar(cal::Atom::EventCount {
        count: count as u32,
        calendar: calendar.map(String::from),
        title_contains: None,
    }))
}

pub(super) fn plain(rng: &mut Rng) -> Composed {
    rain_check(rng, false)
}

pub(super) fn after_fault(rng: &mut Rng) -> Composed {
    rain_check(rng, true)
}

fn rain_check(rng: &mut Rng, fault: bool) -> Composed {
    let limit = *rng.pick(LIMITS);
    let window = rng.range(2, 5);
    let n = rng.range(4, 5) as usize;
    let rainy = rng.range(2, n as i64 - 1) as usize;
    let moving = rng.chance(1, 2);
    let mark = *rng.pick(MARKS);
    // The outings' cities, then the cities of two decoys: one after the window, one on the
    // shared team calendar. Names shared by several places get their region in the location.
    let places = rng.sample(weather::CATALOGUE, n + 2);
    let ids: Vec<&str> = places.iter().map(|k| k.id).collect();
    let mut forecast = weather::world_with(rng, &ids, 2);
    let today = parse_date(forecast.today()).expect("a seed date");
    let date = |d: i64| format_date(today + d);
    let titles = rng.sample(OUTDOOR, n + 2);
    let mut evt = Ids::new(rng, "evt");
    let mut outings = Vec::new();
    for i in 0..n {
        let day = rng.range(1, window);
        let wet_day = i < rainy;
        // One rainy plan sits exactly on the limit half the time, one dry one just under it.
        let chance = match (wet_day, i) {
            (true, 0) if rng.chance(1, 2) => limit,
            (true, _) => wet(rng, limit),
            (false, i) if i == rainy => limit - 5,
            (false, _) => dry(rng, limit),
        };
        let gap = 1 + i64::from(moving && wet_day && day < 5 && rng.chance(1, 2));
        let place = forecast.place_mut(ids[i]).expect("a chosen place");
        weather::set_rain(&mut place.daily[day as usize], chance);
        if moving && wet_day {
            for k in 1..gap {
                let c = wet(rng, limit);
                weather::set_rain(&mut place.daily[(day + k) as usize], c);
            }
            let c = dry(rng, limit);
            weather::set_rain(&mut place.daily[(day + gap) as usize], c);
        }
        outings.push(Outing {
            id: evt.take(),
            title: titles[i],
            day,
            slot: *rng.pick(OUTDOOR_SLOTS),
            city: weather::display_name(place),
            rainy: wet_day,
            gap,
        });
    }
    outings.sort_by_key(|o| (o.day, o.slot.0));

    let mut seed = cal::Seed {
        now: forecast.now.clone(),
        calendars: cal::sample_seed().calendars,
        ..cal::Seed::default()
    };
    // Decoys, each of which must stay as it is: indoor plans on rainy days in rainy cities,
    // an outdoor plan in the rain the day after the window, one on the team's calendar.
    let mut keep: Vec<(cal::SeedEvent, Option<&str>)> = Vec::new();
    let indoor = rng.sample(INDOOR, 2);
    for (o, title) in outings.iter().filter(|o| o.rainy).zip(indoor) {
        let slot = *rng.pick(INDOOR_SLOTS);
        keep.push((
            event(&evt.take(), title, &date(o.day), slot, Some(&o.city)),
            None,
        ));
    }
    let shared = (rng.range(1, window), Some("team-northwind"));
    for (k, (day, calendar)) in [(window + 1, None), shared].into_iter().enumerate() {
        let place = forecast.place_mut(ids[n + k]).expect("a chosen place");
        let chance = wet(rng, limit);
        weather::set_rain(&mut place.daily[day as usize], chance);
        let (slot, city) = (*rng.pick(OUTDOOR_SLOTS), weather::display_name(place));
        let mut e = event(&evt.take(), titles[n + k], &date(day), slot, Some(&city));
        e.calendar = calendar.unwrap_or("primary").into();
        keep.push((e, calendar));
    }
    for day in 0..=window + 1 {
        let e = event(&evt.take(), "Standup", &date(day), ("09:00", "09:15"), None);
        seed.events.push(e);
    }
    seed.events.extend(keep.iter().map(|(e, _)| e.clone()));

    let mut checks = Vec::new();
    let mut updates = Vec::new();
    for o in &outings {
        let (from, to) = at(&date(o.day), o.slot);
        seed.events
            .push(event(&o.id, o.title, &date(o.day), o.slot, Some(&o.city)));
        if !o.rainy {
            checks.push(exists(o.title, &from, Some(&to), None));
        } else if moving {
            let (start, end) = at(&date(o.day + o.gap), o.slot);
            checks.push(not(exists(o.title, &from, None, None)));
            checks.push(exists(o.title, &start, Some(&end), None));
            updates.push(json!({ "eventId": o.id, "start": start, "end": end }));
        } else {
            let title = format!("{} {mark}", o.title);
            checks.push(not(exists(o.title, &from, None, None)));
            checks.push(exists(&title, &from, Some(&to), None));
            updates.push(json!({ "eventId": o.id, "summary": title }));
        }
    }
    for (e, calendar) in &keep {
        checks.push(exists(&e.title, &e.start, Some(&e.end), *calendar));
    }
    // Nothing new, nothing gone, nothing moved between calendars: the reference renames or
    // moves, and an agent that also books a stand-in or an unrelated event fails.
    let own = seed.events.iter().filter(|e| e.calendar == "primary");
    checks.push(event_count(own.count(), Some("primary")));
    checks.push(event_count(seed.events.len(), None));
    seed.events.sort_by(|a, b| a.id.cmp(&b.id));

    // The reference: today's date, the plans of the window, each city's forecast, the changes.
    let days = if moving { 7 } else { window + 1 };
    let (min, max) = (date(1) + "T00:00", date(window + 1) + "T00:00");
    let mut steps = vec![
        call::<cal::Calendar>("get_current_time", json!({})),
        call::<cal::Calendar>("list_events", json!({ "timeMin": min, "timeMax": max })),
    ];
    for o in &outings {
        let args = json!({ "location": o.city, "days": days });
        steps.push(call::<weather::Weather>("get_forecast", args));
    }
    let first_update = steps.len();
    let update = |u| call::<cal::Calendar>("update_event", u);
    steps.extend(updates.into_iter().map(update));
    let mut faults = vec![];
    if fault {
        retry(&mut steps, first_update + 1);
        let what = "the event was not changed";
        faults.push(transient(rng, "calendar.update_event", 2, what));
    }

    let action = if moving {
        format!(
            "move it to the same time on the first later day when that chance is below {limit}%"
        )
    } else {
        format!("add \"{mark}\" at the end of its title, after a space")
    };
    let (window_text, limit_text) = (window.to_string(), limit.to_string());
    let slots = [
        ("window", &*window_text),
        ("limit", &*limit_text),
        ("action", &*action),
    ];
    let template = *rng.pick(&RAIN_GOALS);
    let goal = format!("{}{}", rng.pick(RAIN_OPENERS), fill(template, &slots));
    let state = InitialState {
        calendar: Some(seed),
        weather: Some(forecast),
        ..Default::default()
    };
    let params = params(&[
        ("limit", json!(limit)),
        ("window", json!(window)),
        ("mode", json!(if moving { "move" } else { "mark" })),
        ("outings", json!(n)),
        ("rainy", json!(rainy)),
        ("cities", json!(ids[..n])),
    ]);
    composed(goal, state, RAIN_TOOLS, checks, faults, steps, params)
}
