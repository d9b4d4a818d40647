//! Composition tasks: several calls, each building on what the last one found.

use super::*;
use crate::world::{
    add_alert, condition_for, display_name, plausible_alerts, set_rain, world_with,
};
use crate::{Atom, Channel, Subscription, Units, Weather, to_mph};
use mcpbench_sim::{Draft, Pred, Rng, Step, call};
use serde_json::json;

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

pub(super) fn save_warmest(rng: &mut Rng) -> Draft<Weather> {
    let ids = rng.sample(&unambiguous(), 5);
    let (cities, others) = ids.split_at(3);
    let labels = rng.sample(LABELS, 3);
    let mut seed = world_with(rng, &ids, 2);
    let offset = rng.range(1, 3) as usize;
    let highs = distinct(rng, 6, 30, 1, 3);
    for (id, high) in cities.iter().zip(&highs) {
        let day = &mut seed.place_mut(id).expect("in world").daily[offset];
        day.high_c = *high as i32;
        day.low_c = day.high_c - rng.range(4, 9) as i32;
        day.condition = condition_for(day.precipitation_probability, day.high_c);
    }
    let kept = rng.range(0, 2) as usize;
    for (id, label) in others.iter().zip(&labels[1..]).take(kept) {
        seed.saved_locations.push(saved(label, id));
    }
    let best = (0..3).max_by_key(|&i| highs[i]).expect("three");
    let shown: Vec<String> = cities
        .iter()
        .map(|id| display_name(place(&seed, id)))
        .collect();
    let label = labels[0];
    let mut steps: Vec<Step> = shown
        .iter()
        .map(|s| call::<Weather>("get_forecast", json!({ "location": s, "days": offset + 1 })))
        .collect();
    steps.push(call::<Weather>(
        "save_location",
        json!({ "location": shown[best], "label": label }),
    ));
    Draft {
        goal: format!(
            "Of {}, {} and {}, which will have the highest daytime temperature on {}? Save that city to my saved locations with the label \"{label}\", and only that one.",
            shown[0],
            shown[1],
            shown[2],
            day_text(&seed, offset)
        ),
        max_steps: 7,
        tools: Weather::tools(&[
            "get_forecast",
            "get_forecast_by_coordinates",
            "get_hourly_forecast",
            "save_location",
            "list_saved_locations",
            "geocode",
        ]),
        predicate: Pred::All(vec![
            saved_as(cities[best], label),
            atom(Atom::SavedCount {
                count: kept as u32 + 1,
            }),
        ]),
        references: vec![steps],
        faults: vec![],
        params: params(&[
            ("places", json!(cities)),
            ("day_offset", json!(offset)),
            ("label", json!(label)),
        ]),
        seed,
    }
}

pub(super) fn subscribe_active_alerts(rng: &mut Rng) -> Draft<Weather> {
    let ids = rng.sample(&unambiguous(), 2);
    let mut seed = world_with(rng, &ids, 3);
    let n = rng.range(1, 2) as usize;
    let types = sorted_types(rng, ids[0], n);
    for t in &types {
        add_alert(&mut seed, rng, ids[0], *t);
    }
    let decoy = *rng.pick(&plausible_alerts(ids[1]));
    add_alert(&mut seed, rng, ids[1], decoy);
    let channel = *rng.pick(&[Channel::Email, Channel::Sms]);
    if rng.chance(1, 2) {
        seed.subscriptions.push(Subscription {
            id: "sub-1".into(),
            place: ids[1].into(),
            alert_types: vec![decoy],
            channel,
        });
    }
    let shown = display_name(place(&seed, ids[0]));
    Draft {
        goal: format!(
            "There are weather alerts in force for {shown}. Subscribe me by {} to alerts for {shown}, covering exactly the types of alert that are active there right now.",
            channel_text(channel)
        ),
        max_steps: 5,
        tools: Weather::tools(&[
            "get_alerts",
            "subscribe_alerts",
            "list_alert_subscriptions",
            "unsubscribe_alerts",
            "get_forecast",
            "geocode",
        ]),
        predicate: atom(Atom::Subscribed {
            place: ids[0].into(),
            alert_types: types.clone(),
            channel: Some(channel),
        }),
        references: vec![vec![
            call::<Weather>("get_alerts", json!({ "location": shown })),
            call::<Weather>(
                "subscribe_alerts",
                json!({ "location": shown, "alert_types": types, "channel": channel }),
            ),
        ]],
        faults: vec![],
        params: params(&[
            ("place", json!(ids[0])),
            ("alert_types", json!(types)),
            ("channel", json!(channel)),
        ]),
        seed,
    }
}

pub(super) fn prune_saved(rng: &mut Rng) -> Draft<Weather> {
    let countries = ["PT", "ES", "US", "GB", "DE", "IT", "JP", "IN", "AU", "CA"];
    let code = *rng.pick(&countries);
    let inside: Vec<&str> = crate::CATALOGUE
        .iter()
        .filter(|k| k.country_code == code)
        .map(|k| k.id)
        .collect();
    let outside: Vec<&str> = crate::CATALOGUE
        .iter()
        .filter(|k| k.country_code != code)
        .map(|k| k.id)
        .collect();
    let n_in = rng.range(2, inside.len().min(3) as i64) as usize;
    let drop = rng.sample(&inside, n_in);
    let n_keep = rng.range(2, 3) as usize;
    let keep = rng.sample(&outside, n_keep);
    let all_ids: Vec<&str> = drop.iter().chain(&keep).copied().collect();
    let labels = rng.sample(LABELS, all_ids.len());
    let mut seed = world_with(rng, &all_ids, 1);
    for (id, label) in all_ids.iter().zip(&labels) {
        seed.saved_locations.push(saved(label, id));
    }
    seed.saved_locations.sort_by(|a, b| a.label.cmp(&b.label));
    let country = place(&seed, drop[0]).country.clone();
    let mut checks: Vec<Pred<Atom>> = drop
        .iter()
        .map(|id| {
            atom(Atom::NotSaved {
                place: id.to_string(),
            })
        })
        .collect();
    checks.extend(
        keep.iter()
            .zip(&labels[n_in..])
            .map(|(id, label)| saved_as(id, label)),
    );
    let mut steps = vec![call::<Weather>("list_saved_locations", json!({}))];
    steps.extend(
        labels[..n_in]
            .iter()
            .map(|l| call::<Weather>("remove_saved_location", json!({ "label": l }))),
    );
    Draft {
        goal: format!(
            "Remove all of my saved weather locations that are in {country}, and keep the others."
        ),
        max_steps: (n_in + 4) as u32,
        tools: Weather::tools(&[
            "list_saved_locations",
            "remove_saved_location",
            "save_location",
            "geocode",
            "reverse_geocode",
        ]),
        predicate: Pred::All(checks),
        references: vec![steps],
        faults: vec![],
        params: params(&[
            ("country_code", json!(code)),
            ("removed", json!(drop)),
            ("kept", json!(keep)),
        ]),
        seed,
    }
}

pub(super) fn windiest_saved(rng: &mut Rng) -> Draft<Weather> {
    let ids = rng.sample(&unambiguous(), 3);
    let labels = rng.sample(LABELS, 3);
    let mut seed = world_with(rng, &ids, 2);
    let winds = distinct(rng, 6, 60, 4, 3);
    let hour = now_hour(&seed);
    for (id, kph) in ids.iter().zip(&winds) {
        let p = seed.place_mut(id).expect("in world");
        let delta = *kph - i64::from(p.current.wind_kph);
        p.current.wind_kph = *kph as u32;
        if let Some(h) = &mut p.hourly {
            for w in h.wind_kph.iter_mut() {
                *w = (i64::from(*w) + delta).max(0) as u32;
            }
            h.wind_kph[hour] = *kph as u32;
        }
    }
    for (id, label) in ids.iter().zip(&labels) {
        seed.saved_locations.push(saved(label, id));
    }
    seed.saved_locations.sort_by(|a, b| a.label.cmp(&b.label));
    let best = (0..3).max_by_key(|&i| winds[i]).expect("three");
    let mph = to_mph(winds[best] as u32);
    let names: Vec<String> = ids.iter().map(|id| place(&seed, id).name.clone()).collect();
    let mut checks = vec![
        atom(Atom::UnitsAre {
            units: Units::Imperial,
        }),
        matches(&names[best]),
        number(i64::from(mph), 0.5),
    ];
    checks.extend(
        (0..3)
            .filter(|&i| i != best)
            .map(|i| not(matches(&names[i]))),
    );
    let mut steps = vec![
        call::<Weather>("set_units", json!({ "units": "imperial" })),
        call::<Weather>("list_saved_locations", json!({})),
    ];
    steps.extend(
        ids.iter()
            .map(|id| call::<Weather>("get_current_weather", json!({ "location": id }))),
    );
    steps.push(Step::Answer {
        answer: format!("{}, {mph}", names[best]),
    });
    Draft {
        goal: "Switch my preferred weather units to imperial. Then, of my saved locations, which one is the windiest right now? Reply with the city's name and its current wind speed in mph.".into(),
        max_steps: 8,
        tools: Weather::tools(&["set_units", "list_saved_locations", "get_current_weather", "get_forecast", "get_hourly_forecast", "geocode"]),
        predicate: Pred::All(checks),
        references: vec![steps],
        faults: vec![],
        params: params(&[("places", json!(ids)), ("wind_kph", json!(winds))]),
        seed,
    }
}
