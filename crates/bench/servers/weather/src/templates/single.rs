//! Single-tool tasks: one question answered or one change made with one tool.

use super::*;
use crate::world::{display_name, world_with};
use crate::{Atom, Units, Weather, temperature};
use mcpbench_sim::{Draft, Rng, Step, call};
use serde_json::json;

/// Ways to ask for the air quality index, with `{place}`.
const AQI_ASKS: &[&str] = &[
    "What is the air quality index (US AQI) in {place} right now? Reply with just the number.",
    "I'm thinking of a run in {place}. What's the US AQI there at the moment? Only the number, please.",
    "How clean is the air in {place} right now? Give me the current US air quality index as a number.",
    "Current US AQI for {place}? Just the number.",
    "My asthma is acting up. What is the air quality index in {place} now (US AQI)? Reply with the number only.",
    "Should I keep the windows shut today? Tell me the current US AQI in {place}, just the figure.",
    "We're cycling to work in {place} tomorrow if the air is fine. What's the US air quality index there now? Number only.",
    "Grandma in {place} wants to sit outside. What is the US AQI there right now? Just the number.",
    "Is the smoke still bad in {place}? Give me the present US air quality index, nothing else.",
    "Reading for {place}: the US AQI at this moment, as a bare number.",
    "Before I book an outdoor table in {place}, what is the US air quality index there now? Reply with the number.",
];

pub(super) fn air_quality(rng: &mut Rng) -> Draft<Weather> {
    let (seed, id, shown) = one_place(rng, 4);
    let aqi = place(&seed, &id)
        .air_quality
        .as_ref()
        .expect("generated")
        .aqi;
    Draft {
        goal: rng.pick(AQI_ASKS).replace("{place}", &shown),
        max_steps: 3,
        tools: Weather::tools(&[
            "get_air_quality",
            "get_current_weather",
            "get_alerts",
            "geocode",
        ]),
        predicate: number(i64::from(aqi), 0.0),
        references: vec![vec![
            call::<Weather>("get_air_quality", json!({ "location": shown })),
            Step::Answer {
                answer: aqi.to_string(),
            },
        ]],
        faults: vec![],
        params: params(&[("place", json!(id))]),
        seed,
    }
}

pub(super) fn high_in_units(rng: &mut Rng) -> Draft<Weather> {
    let (mut seed, id, shown) = one_place(rng, 4);
    let preferred = *rng.pick(&[Units::Metric, Units::Imperial]);
    seed.units = preferred;
    let asked = if preferred == Units::Metric {
        Units::Imperial
    } else {
        Units::Metric
    };
    let offset = rng.range(1, 5) as usize;
    let high = temperature(place(&seed, &id).daily[offset].high_c, asked);
    let when = day_text(&seed, offset);
    Draft {
        goal: format!(
            "What will the high be in {shown} on {when}, in {}? Reply with just the number of degrees.",
            unit_word(asked)
        ),
        max_steps: 4,
        tools: Weather::tools(&[
            "get_forecast",
            "get_forecast_by_coordinates",
            "get_hourly_forecast",
            "get_current_weather",
            "geocode",
        ]),
        predicate: number(i64::from(high), 0.5),
        references: vec![vec![
            call::<Weather>(
                "get_forecast",
                json!({ "location": shown, "days": offset + 1, "units": asked }),
            ),
            Step::Answer {
                answer: high.to_string(),
            },
        ]],
        faults: vec![],
        params: params(&[
            ("place", json!(id)),
            ("day_offset", json!(offset)),
            ("units", json!(asked)),
        ]),
        seed,
    }
}

pub(super) fn forecast_at_coordinates(rng: &mut Rng) -> Draft<Weather> {
    let (mut seed, id, _) = one_place(rng, 4);
    seed.units = *rng.pick(&[Units::Metric, Units::Imperial]);
    let p = place(&seed, &id);
    let (lat, lat_text) = degrees((p.latitude * 100.0).round() as i64 + rng.range(-5, 5));
    let (lon, lon_text) = degrees((p.longitude * 100.0).round() as i64 + rng.range(-5, 5));
    let low = temperature(p.daily[1].low_c, seed.units);
    let when = day_text(&seed, 1);
    let answer = Step::Answer {
        answer: low.to_string(),
    };
    Draft {
        goal: format!(
            "What is the forecast low for tomorrow, {when}, at latitude {lat_text}, longitude {lon_text}? Give it in degrees {} and reply with just the number.",
            unit_word(seed.units)
        ),
        max_steps: 5,
        tools: Weather::tools(&[
            "get_forecast_by_coordinates",
            "reverse_geocode",
            "get_forecast",
            "get_current_weather",
            "geocode",
        ]),
        predicate: number(i64::from(low), 0.5),
        references: vec![
            vec![
                call::<Weather>(
                    "get_forecast_by_coordinates",
                    json!({ "latitude": lat, "longitude": lon, "days": 2 }),
                ),
                answer.clone(),
            ],
            vec![
                call::<Weather>(
                    "reverse_geocode",
                    json!({ "latitude": lat, "longitude": lon }),
                ),
                call::<Weather>("get_forecast", json!({ "location": id, "days": 2 })),
                answer,
            ],
        ],
        faults: vec![],
        params: params(&[
            ("place", json!(id)),
            ("latitude", json!(lat)),
            ("longitude", json!(lon)),
        ]),
        seed,
    }
}

/// Why a user changes units (some naming a `{place}`), or nothing.
const UNIT_REASONS: &[&str] = &[
    "",
    "I'm spending the next months abroad. ",
    "My new colleagues all think in other units. ",
    "I keep converting in my head. ",
    "We're back home now. ",
    "My kids are learning the other system at school. ",
    "For my sailing trip: ",
    "I just moved. ",
    "I'm spending the next months in {place}. ",
    "We just moved to {place}. ",
    "Off to {place} for a semester. ",
    "My partner in {place} keeps asking what I mean by the numbers. ",
    "Planning a month of hiking around {place}: ",
    "I'm back from {place}. ",
];
/// Ways to ask, with `{system}`, `{degrees}` and `{wind}` of the wanted units.
const UNIT_ASKS: &[&str] = &[
    "Please switch my weather units to {system}, so temperatures show in {degrees} and wind in {wind}.",
    "I'd rather see {degrees} and {wind} from now on. Change my preferred units accordingly.",
    "Could you set my weather to {system} units?",
    "From now on, show me temperatures in {degrees} and wind speeds in {wind}.",
    "Change my weather settings to {system}.",
];

pub(super) fn switch_units(rng: &mut Rng) -> Draft<Weather> {
    let mut seed = world_with(rng, &[], 4);
    let to = *rng.pick(&[Units::Imperial, Units::Metric]);
    seed.units = if to == Units::Metric {
        Units::Imperial
    } else {
        Units::Metric
    };
    let (system, degrees, wind) = match to {
        Units::Imperial => ("imperial", "Fahrenheit", "mph"),
        Units::Metric => ("metric", "Celsius", "km/h"),
    };
    let places: Vec<&str> = crate::unambiguous_places().map(|k| k.name).collect();
    let ask = format!("{}{}", rng.pick(UNIT_REASONS), rng.pick(UNIT_ASKS));
    let place = *rng.pick(&places);
    let goal = ask
        .replace("{place}", place)
        .replace("{system}", system)
        .replace("{degrees}", degrees)
        .replace("{wind}", wind);
    Draft {
        goal,
        max_steps: 3,
        tools: Weather::tools(&[
            "set_units",
            "get_current_weather",
            "get_forecast",
            "list_saved_locations",
        ]),
        predicate: atom(Atom::UnitsAre { units: to }),
        references: vec![vec![call::<Weather>("set_units", json!({ "units": to }))]],
        faults: vec![],
        params: params(&[("units", json!(to))]),
        seed,
    }
}

pub(super) fn save_place(rng: &mut Rng) -> Draft<Weather> {
    let ids = rng.sample(&unambiguous(), 2);
    let labels = rng.sample(LABELS, 2);
    let mut seed = world_with(rng, &ids, 4);
    if rng.chance(1, 2) {
        seed.saved_locations.push(saved(labels[1], ids[1]));
    }
    let shown = display_name(place(&seed, ids[0]));
    let label = labels[0];
    Draft {
        goal: format!("Add {shown} to my saved weather locations with the label \"{label}\"."),
        max_steps: 4,
        tools: Weather::tools(&[
            "save_location",
            "list_saved_locations",
            "remove_saved_location",
            "geocode",
            "get_current_weather",
        ]),
        predicate: saved_as(ids[0], label),
        references: vec![vec![call::<Weather>(
            "save_location",
            json!({ "location": shown, "label": label }),
        )]],
        faults: vec![],
        params: params(&[("place", json!(ids[0])), ("label", json!(label))]),
        seed,
    }
}
