//! Information tasks: the agent answers, the predicate checks the answer.

use super::{Kit, day_text, distinct, matches, not, number, params, place, unambiguous, unit_word};
use crate::world::{display_name, set_rain, world_with};
use crate::{Seed, Units, Weather, temperature};
use mcpbench_sim::{Draft, ErrorKind, Fault, Pred, Rng, Step, call, qualified};
use serde_json::json;

fn one_place(rng: &mut Rng, extra: usize) -> (Seed, String, String) {
    let id = *rng.pick(&unambiguous());
    let seed = world_with(rng, &[id], extra);
    let shown = display_name(place(&seed, id));
    (seed, id.to_string(), shown)
}

pub(super) fn air_quality(rng: &mut Rng) -> Draft<Weather> {
    let (seed, id, shown) = one_place(rng, 4);
    let aqi = place(&seed, &id)
        .air_quality
        .as_ref()
        .expect("generated")
        .aqi;
    Draft {
        goal: format!(
            "What is the air quality index (US AQI) in {shown} right now? Reply with just the number."
        ),
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

pub(super) fn driest_city(rng: &mut Rng) -> Draft<Weather> {
    let ids = rng.sample(&unambiguous(), 3);
    let mut seed = world_with(rng, &ids, 3);
    let chances = distinct(rng, 5, 95, 5, 3);
    for (id, chance) in ids.iter().zip(&chances) {
        let p = seed.place_mut(id).expect("in world");
        set_rain(&mut p.daily[1], *chance as u8);
    }
    let best = (0..3).min_by_key(|&i| chances[i]).expect("three");
    let names: Vec<String> = ids.iter().map(|id| place(&seed, id).name.clone()).collect();
    let shown: Vec<String> = ids
        .iter()
        .map(|id| display_name(place(&seed, id)))
        .collect();
    let mut checks = vec![matches(&names[best])];
    checks.extend(
        (0..3)
            .filter(|&i| i != best)
            .map(|i| not(matches(&names[i]))),
    );
    let mut steps: Vec<Step> = shown
        .iter()
        .map(|s| call::<Weather>("get_forecast", json!({ "location": s, "days": 2 })))
        .collect();
    steps.push(Step::Answer {
        answer: names[best].clone(),
    });
    Draft {
        goal: format!(
            "Which of these cities has the lowest chance of rain tomorrow, {}: {}, {} or {}? Reply with just the city's name.",
            day_text(&seed, 1),
            shown[0],
            shown[1],
            shown[2]
        ),
        max_steps: 6,
        tools: Weather::tools(&[
            "get_forecast",
            "get_forecast_by_coordinates",
            "get_hourly_forecast",
            "get_current_weather",
            "geocode",
        ]),
        predicate: Pred::All(checks),
        references: vec![steps],
        faults: vec![],
        params: params(&[("places", json!(ids)), ("chances", json!(chances))]),
        seed,
    }
}

pub(super) fn forecast_outage(rng: &mut Rng) -> Draft<Weather> {
    let (seed, id, shown) = one_place(rng, 4);
    let offset = rng.range(0, 4) as usize;
    let times = rng.range(1, 2) as u32;
    let chance = place(&seed, &id).daily[offset].precipitation_probability;
    let forecast = call::<Weather>(
        "get_forecast",
        json!({ "location": shown, "days": offset + 1 }),
    );
    let mut steps = vec![forecast; times as usize + 1];
    steps.push(Step::Answer {
        answer: chance.to_string(),
    });
    Draft {
        goal: format!(
            "What is the chance of precipitation in {shown} on {}? Reply with just the percentage.",
            day_text(&seed, offset)
        ),
        max_steps: times + 4,
        tools: Weather::tools(&[
            "get_forecast",
            "get_hourly_forecast",
            "get_current_weather",
            "geocode",
        ]),
        predicate: number(i64::from(chance), 0.0),
        references: vec![steps],
        faults: vec![Fault {
            tool: qualified::<Weather>("get_forecast"),
            on_call: 1,
            times,
            error: ErrorKind::Unavailable,
            message: "the forecast service is temporarily unavailable; try again".into(),
        }],
        params: params(&[
            ("place", json!(id)),
            ("day_offset", json!(offset)),
            ("failures", json!(times)),
        ]),
        seed,
    }
}
