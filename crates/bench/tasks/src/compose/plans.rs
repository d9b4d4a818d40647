//! Templates where a reading decides when something happens: the forecast picks the day an
//! event goes into the calendar.

use mcpbench_server_calendar as cal;
use mcpbench_server_weather as weather;
use mcpbench_sim::{Call, Category, Difficulty, Pred, Rng, Step};
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

const OUTINGS: &[&str] = &[
    "Team picnic",
    "Harbour walk",
    "Rooftop lunch",
    "Park run",
    "Garden party",
];
const SLOTS: &[(&str, &str)] = &[("10:00", "12:00"), ("12:00", "14:00"), ("15:30", "17:00")];

fn call(tool: &str, arguments: serde_json::Value) -> Step {
    Step::Call(Call {
        tool: tool.into(),
        arguments,
    })
}

fn event_at(title: &str, start: String, end: Option<String>) -> Pred<Atom> {
    Pred::Atom(Atom::calendar(cal::Atom::EventExists {
        title: title.into(),
        start,
        end,
        calendar: None,
        attendees: None,
        location: None,
    }))
}

fn outing_on_driest_day(rng: &mut Rng) -> Composed {
    let unique: Vec<&weather::Known> = weather::unambiguous_places().collect();
    let known = *rng.pick(&unique);
    let mut forecast = weather::world_with(rng, &[known.id], 2);
    // Three candidate days after today, with distinct chances of rain; one is the driest.
    let mut chances = rng.sample(&[5u8, 10, 20, 35, 50, 65, 80, 90], 3);
    rng.shuffle(&mut chances);
    let place = forecast.place_mut(known.id).expect("the chosen place");
    for (offset, chance) in (1..=3).zip(&chances) {
        weather::set_rain(&mut place.daily[offset], *chance);
    }
    let place = place.clone();
    let days: Vec<String> = (1..=3).map(|o| place.daily[o].date.clone()).collect();
    let driest = (0..3).min_by_key(|&i| chances[i]).expect("three days");
    let title = *rng.pick(OUTINGS);
    let (from, to) = *rng.pick(SLOTS);
    let shown = weather::display_name(&place);
    let today = forecast.today().to_string();

    let mut calendar = cal::Seed {
        now: format!("{today}T08:00"),
        ..cal::Seed::default()
    };
    for (i, day) in days.iter().enumerate() {
        calendar.events.push(cal::SeedEvent::new(
            &format!("evt-{}", 1000 + 11 * i),
            "Weekly sync",
            &format!("{day}T09:00"),
            &format!("{day}T09:30"),
        ));
    }
    calendar.events.push(cal::SeedEvent::new(
        "evt-1044",
        &format!("{title} planning"),
        &format!("{today}T16:00"),
        &format!("{today}T16:30"),
    ));

    let start = format!("{}T{from}", days[driest]);
    let end = format!("{}T{to}", days[driest]);
    let mut checks = vec![event_at(title, start.clone(), Some(end.clone()))];
    for (_, day) in days.iter().enumerate().filter(|(i, _)| *i != driest) {
        checks.push(Pred::Not(Box::new(event_at(
            title,
            format!("{day}T{from}"),
            None,
        ))));
    }
    let goal = format!(
        "Put a \"{title}\" in my calendar from {from} to {to} in {shown}, on whichever of {}, {} and {} has the lowest chance of rain there.",
        days[0], days[1], days[2]
    );
    Composed {
        max_steps: 6,
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
            "calendar.list_events",
            "calendar.create_event",
            "calendar.quick_add_event",
            "calendar.find_free_slots",
        ]
        .map(String::from)
        .to_vec(),
        success_predicate: Pred::All(checks),
        faults: vec![],
        reference_solutions: vec![vec![
            call(
                "weather.get_forecast",
                json!({ "location": shown, "days": 4 }),
            ),
            call(
                "calendar.create_event",
                json!({ "summary": title, "start": start, "end": end }),
            ),
        ]],
        params: BTreeMap::from([
            ("place".to_string(), json!(known.id)),
            ("title".to_string(), json!(title)),
            ("chances".to_string(), json!(chances)),
        ]),
    }
}
