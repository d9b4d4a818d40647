//! Template grammars for tasks on the weather server alone. Worlds come from
//! [`world_with`](crate::world_with) with a seeded [`Rng`]; the few numbers a task hinges on
//! (tomorrow's chances of rain, a day's highs, wind speeds) are then set so that its answer is
//! unique. Goals name places as a person would (`Lisbon, Portugal`) and state every value.

mod composition;
mod recovery;
mod single;

use crate::world::{CATALOGUE, display_name, plausible_alerts, shared_name, world_with};
use crate::{AlertType, Atom, Channel, Place, SavedLocation, Seed, Units, Weather};
use mcpbench_sim::dates::{parse_date, spoken_date};
use mcpbench_sim::{AnswerCheck, Category, Difficulty, Pred, Rng, Template};

pub(crate) fn all() -> Vec<Template<Weather>> {
    use Category::*;
    use Difficulty::*;
    vec![
        Template {
            id: "weather.switch_units",
            category: SingleTool,
            difficulty: Easy,
            build: single::switch_units,
        },
        Template {
            id: "weather.save_place",
            category: SingleTool,
            difficulty: Easy,
            build: single::save_place,
        },
        Template {
            id: "weather.air_quality",
            category: SingleTool,
            difficulty: Easy,
            build: single::air_quality,
        },
        Template {
            id: "weather.high_in_units",
            category: SingleTool,
            difficulty: Medium,
            build: single::high_in_units,
        },
        Template {
            id: "weather.forecast_at_coordinates",
            category: SingleTool,
            difficulty: Medium,
            build: single::forecast_at_coordinates,
        },
        Template {
            id: "weather.driest_city",
            category: Composition,
            difficulty: Medium,
            build: composition::driest_city,
        },
        Template {
            id: "weather.subscribe_active_alerts",
            category: Composition,
            difficulty: Medium,
            build: composition::subscribe_active_alerts,
        },
        Template {
            id: "weather.prune_saved",
            category: Composition,
            difficulty: Medium,
            build: composition::prune_saved,
        },
        Template {
            id: "weather.save_warmest",
            category: Composition,
            difficulty: Hard,
            build: composition::save_warmest,
        },
        Template {
            id: "weather.windiest_saved",
            category: Composition,
            difficulty: Hard,
            build: composition::windiest_saved,
        },
        Template {
            id: "weather.forecast_outage",
            category: Recovery,
            difficulty: Easy,
            build: recovery::forecast_outage,
        },
        Template {
            id: "weather.ambiguous_subscribe",
            category: Recovery,
            difficulty: Medium,
            build: recovery::ambiguous_subscribe,
        },
        Template {
            id: "weather.replace_saved_label",
            category: Recovery,
            difficulty: Hard,
            build: recovery::replace_saved_label,
        },
    ]
}

/// Labels people give saved locations.
const LABELS: &[&str] = &[
    "Home",
    "Work",
    "Mum and Dad",
    "Cabin",
    "Office",
    "Beach house",
    "Gym",
    "Grandma",
    "Ski trip",
    "Lake house",
    "Studio",
    "Weekend",
    "Conference",
    "Sister",
];

pub(crate) use mcpbench_sim::params;
pub(crate) use mcpbench_sim::{Kit, atom, not};

fn number(value: i64, tolerance: f64) -> Pred<Atom> {
    Pred::Answer(AnswerCheck::OnlyNumber {
        value: value as f64,
        tolerance,
    })
}

fn matches(value: &str) -> Pred<Atom> {
    Pred::Answer(AnswerCheck::Matches {
        value: value.into(),
    })
}

/// Catalogue ids whose place name no other catalogue place shares.
fn unambiguous() -> Vec<&'static str> {
    crate::unambiguous_places().map(|k| k.id).collect()
}

/// Catalogue ids whose place name is shared, grouped by name, in catalogue order.
fn ambiguous_groups() -> Vec<Vec<&'static str>> {
    let mut groups: Vec<(&str, Vec<&'static str>)> = Vec::new();
    for k in CATALOGUE.iter().filter(|k| shared_name(k.name)) {
        match groups.iter_mut().find(|(n, _)| *n == k.name) {
            Some((_, ids)) => ids.push(k.id),
            None => groups.push((k.name, vec![k.id])),
        }
    }
    groups.into_iter().map(|(_, ids)| ids).collect()
}

fn place<'a>(seed: &'a Seed, id: &str) -> &'a Place {
    seed.place(id)
        .unwrap_or_else(|| panic!("template world lacks {id}"))
}

/// Day number of the seed's day.
fn today(seed: &Seed) -> i64 {
    parse_date(seed.today()).expect("generated seeds have a valid date")
}

/// The hour of the seed's `now`.
fn now_hour(seed: &Seed) -> usize {
    seed.now
        .get(11..13)
        .and_then(|h| h.parse().ok())
        .expect("generated seeds have an hour")
}

/// `Wednesday 4 March (2026-03-04)` for the seed's day plus `offset`.
fn day_text(seed: &Seed, offset: usize) -> String {
    let day = today(seed) + offset as i64;
    format!(
        "{} ({})",
        spoken_date(day),
        mcpbench_sim::dates::format_date(day)
    )
}

fn unit_word(units: Units) -> &'static str {
    match units {
        Units::Metric => "Celsius",
        Units::Imperial => "Fahrenheit",
    }
}

fn channel_text(channel: Channel) -> &'static str {
    match channel {
        Channel::Email => "email",
        Channel::Sms => "text message (SMS)",
    }
}

/// `flood`, `flood and wind`, `flood, heat and wind`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// `count` distinct values from `lo..=hi` in steps of `step`, in random order.
fn distinct(rng: &mut Rng, lo: i64, hi: i64, step: i64, count: usize) -> Vec<i64> {
    let pool: Vec<i64> = (0..=(hi - lo) / step).map(|i| lo + i * step).collect();
    rng.sample(&pool, count)
}

fn one_place(rng: &mut Rng, extra: usize) -> (Seed, String, String) {
    let id = *rng.pick(&unambiguous());
    let seed = world_with(rng, &[id], extra);
    let shown = display_name(place(&seed, id));
    (seed, id.to_string(), shown)
}

/// `38.75` from hundredths, as a JSON number and as text.
fn degrees(hundredths: i64) -> (f64, String) {
    let sign = if hundredths < 0 { "-" } else { "" };
    let text = format!(
        "{sign}{}.{:02}",
        hundredths.abs() / 100,
        hundredths.abs() % 100
    );
    (text.parse().expect("a decimal"), text)
}

fn saved(label: &str, place: &str) -> SavedLocation {
    SavedLocation {
        label: label.into(),
        place: place.into(),
    }
}

fn saved_as(place: &str, label: &str) -> Pred<Atom> {
    atom(Atom::LocationSaved {
        place: place.into(),
        label: Some(label.into()),
    })
}

/// `n` distinct alert types that fit the climate of the place, in enum order.
fn sorted_types(rng: &mut Rng, place: &str, n: usize) -> Vec<AlertType> {
    let mut types = rng.sample(&plausible_alerts(place), n);
    types.sort();
    types
}

fn types_words(types: &[AlertType]) -> String {
    and_list(
        &types
            .iter()
            .map(|t| t.as_str().to_string())
            .collect::<Vec<_>>(),
    )
}
