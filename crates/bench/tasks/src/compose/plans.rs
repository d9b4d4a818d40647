//! Templates where a reading decides when something happens: the forecast picks which of the
//! user's pencilled-in days an outing keeps.

use mcpbench_server_calendar as cal;
use mcpbench_server_weather as weather;
use mcpbench_sim::dates::{format_date, parse_date};
use mcpbench_sim::{Call, Category, Difficulty, Pred, Rng, Step, not};
use mcpbench_world::{AnyTemplate, Atom, Composed, InitialState};
use serde_json::json;
use std::collections::BTreeMap;

pub(crate) fn templates() -> Vec<AnyTemplate> {
    vec![AnyTemplate::new(
        "compose.outing_on_driest_day",
        vec!["weather", "calendar"],
        Category::Composition,
        Difficulty::Hard,
        outing_on_driest_day,
    )]
}

#[rustfmt::skip]
const OUTINGS: &[&str] = &[
    "Team picnic", "Harbour walk", "Rooftop lunch", "Park run", "Garden party", "Bike tour",
    "Beach volleyball", "Hike with Sam", "Outdoor yoga", "Kayak session", "Botanical garden tour",
    "Barbecue with the neighbours", "Open-air concert", "Farmers' market", "Sailing lesson",
    "Street food festival",
];
const SLOTS: &[(&str, &str)] = &[("10:00", "12:00"), ("12:00", "14:00"), ("15:30", "17:00")];
/// How a pencilled-in event is marked at the end of its title.
const MARKERS: &[&str] = &["(hold)", "(tentative)", "(pencilled in)", "(maybe)"];

/// Ways to ask, with the `{title}`, the `{marker}` and the `{place}`.
const GOALS: [&str; 4] = [
    "I've pencilled in \"{title}\" in {place} on a few of the coming days; each one is in my calendar with \"{marker}\" after the title. Keep only the one on the day with the lowest chance of rain in {place}, dropping \"{marker}\" from its title, and delete the other holds. Leave everything else alone.",
    "Decide the day for our \"{title}\" in {place}: of the days I've put it in my calendar as \"{title} {marker}\", pick the one where rain is least likely there, turn that entry into plain \"{title}\", and remove the others.",
    "Several \"{title} {marker}\" entries are in my calendar, for an outing in {place}. Please check the forecast there, keep the entry on the driest of those days renamed to just \"{title}\", and delete the remaining ones. Nothing else should change.",
    "Can you settle the \"{title}\"? It's tentatively in my calendar on a few upcoming days (titled \"{title} {marker}\"), in {place}. The one on the day with the smallest chance of rain there stays, as \"{title}\" without the mark; the other tentative ones go.",
];

fn call(tool: &str, arguments: serde_json::Value) -> Step {
    Step::Call(Call {
        tool: tool.into(),
        arguments,
    })
}

fn calendar_atom(a: cal::Atom) -> Pred<Atom> {
    Pred::Atom(Atom::calendar(a))
}

fn event_at(title: &str, start: String, end: Option<String>) -> Pred<Atom> {
    calendar_atom(cal::Atom::EventExists {
        title: title.into(),
        start,
        end,
        calendar: None,
        attendees: None,
        location: None,
    })
}

fn event_count(count: usize, title_contains: Option<&str>) -> Pred<Atom> {
    calendar_atom(cal::Atom::EventCount {
        count: count as u32,
        calendar: None,
        title_contains: title_contains.map(String::from),
    })
}

/// `compose.outing_on_driest_day` (weather + calendar): an outing is pencilled in on three of
/// the next five days; the hold on the day with the lowest chance of rain in its city becomes
/// the event, the other two holds are deleted. A day without a hold is drier still, a hold of
/// another outing and the outing's planning meeting must stay. A careless agent books the
/// driest day of the week, creates a new event beside the holds, or deletes too much.
fn outing_on_driest_day(rng: &mut Rng) -> Composed {
    let unique: Vec<&weather::Known> = weather::unambiguous_places().collect();
    let known = *rng.pick(&unique);
    let mut forecast = weather::world_with(rng, &[known.id], 2);
    let mut offsets = rng.sample(&[1i64, 2, 3, 4, 5], 4);
    let free_day = offsets.pop().expect("four days");
    offsets.sort();
    // Distinct chances on the hold days, and a drier one on a day without a hold.
    let chances = rng.sample(&[20u8, 30, 35, 50, 65, 80, 90], 3);
    let place = forecast.place_mut(known.id).expect("the chosen place");
    for (&offset, &chance) in offsets.iter().zip(&chances) {
        weather::set_rain(&mut place.daily[offset as usize], chance);
    }
    weather::set_rain(
        &mut place.daily[free_day as usize],
        *rng.pick(&[0u8, 5, 10]),
    );
    let shown = weather::display_name(place);
    let today = parse_date(forecast.today()).expect("a seed date");
    let date = |d: i64| format_date(today + d);
    let driest = (0..3).min_by_key(|&i| chances[i]).expect("three days");
    let titles = rng.sample(OUTINGS, 2);
    let (title, other) = (titles[0], titles[1]);
    let marker = *rng.pick(MARKERS);
    let hold = format!("{title} {marker}");
    let (from, to) = *rng.pick(SLOTS);

    let mut calendar = cal::Seed {
        now: format!("{}T08:00", date(0)),
        ..cal::Seed::default()
    };
    let mut add = |id: String, t: &str, day: i64, slot: (&str, &str), place: Option<&str>| {
        let mut e = cal::SeedEvent::new(
            &id,
            t,
            &format!("{}T{}", date(day), slot.0),
            &format!("{}T{}", date(day), slot.1),
        );
        e.location = place.map(String::from);
        calendar.events.push(e);
    };
    for day in 0..=6 {
        add(
            format!("evt-{}", 1000 + day),
            "Standup",
            day,
            ("09:00", "09:15"),
            None,
        );
    }
    let mut holds = Vec::new();
    for (k, &day) in offsets.iter().enumerate() {
        let id = format!("evt-{}", 1020 + 7 * k);
        add(id.clone(), &hold, day, (from, to), Some(&shown));
        holds.push((id, day));
    }
    let planning = format!("{title} planning");
    add("evt-1050".into(), &planning, 0, ("16:00", "16:30"), None);
    let other_hold = format!("{other} {marker}");
    add(
        "evt-1057".into(),
        &other_hold,
        free_day,
        (from, to),
        Some(&shown),
    );
    let total = calendar.events.len();

    let start = format!("{}T{from}", date(holds[driest].1));
    let end = format!("{}T{to}", date(holds[driest].1));
    let mut checks = vec![
        event_at(title, start, Some(end)),
        event_count(0, Some(&hold)),
        event_count(total - 2, None),
        event_at(&planning, format!("{}T16:00", date(0)), None),
        event_at(&other_hold, format!("{}T{from}", date(free_day)), None),
    ];
    let mut steps = vec![
        call(
            "calendar.list_events",
            json!({ "timeMin": format!("{}T00:00", date(1)), "timeMax": format!("{}T00:00", date(6)) }),
        ),
        call(
            "weather.get_forecast",
            json!({ "location": shown, "days": 7 }),
        ),
        call(
            "calendar.update_event",
            json!({ "eventId": holds[driest].0, "summary": title }),
        ),
    ];
    for (_, (id, day)) in holds.iter().enumerate().filter(|(k, _)| *k != driest) {
        checks.push(not(event_at(title, format!("{}T{from}", date(*day)), None)));
        steps.push(call("calendar.delete_event", json!({ "eventId": id })));
    }
    let goal = GOALS[rng.below(GOALS.len() as u64) as usize]
        .replace("{title}", title)
        .replace("{marker}", marker)
        .replace("{place}", &shown);
    Composed {
        max_steps: steps.len() as u32 + 5,
        goal,
        initial_state: InitialState {
            weather: Some(forecast),
            calendar: Some(calendar),
            ..Default::default()
        },
        available_tools: [
            "weather.geocode",
            "weather.get_forecast",
            "weather.get_hourly_forecast",
            "weather.get_current_weather",
            "calendar.get_current_time",
            "calendar.list_events",
            "calendar.search_events",
            "calendar.update_event",
            "calendar.delete_event",
            "calendar.create_event",
            "calendar.quick_add_event",
            "calendar.find_free_slots",
        ]
        .map(String::from)
        .to_vec(),
        success_predicate: Pred::All(checks),
        faults: vec![],
        reference_solutions: vec![steps],
        params: BTreeMap::from([
            ("place".to_string(), json!(known.id)),
            ("title".to_string(), json!(title)),
            ("chances".to_string(), json!(chances)),
            ("free_day".to_string(), json!(free_day)),
        ]),
    }
}
