//! Tasks that change the user's state: units, saved locations, alert subscriptions.

use super::{
    Kit, LABELS, ambiguous_groups, and_list, atom, channel_text, day_text, distinct, matches, not,
    now_hour, number, params, place, unambiguous,
};
use crate::world::{add_alert, condition_for, display_name, plausible_alerts, world_with};
use crate::{AlertType, Atom, Channel, SavedLocation, Subscription, Units, Weather, to_mph};
use mcpbench_sim::{Draft, Pred, Rng, Step, call};
use serde_json::json;

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

pub(super) fn switch_units(rng: &mut Rng) -> Draft<Weather> {
    let mut seed = world_with(rng, &[], 4);
    let to = *rng.pick(&[Units::Imperial, Units::Metric]);
    seed.units = if to == Units::Metric {
        Units::Imperial
    } else {
        Units::Metric
    };
    let goal = match (to, rng.below(2)) {
        (Units::Imperial, 0) => {
            "Please switch my weather units to imperial, so temperatures show in Fahrenheit and wind in mph."
        }
        (Units::Imperial, _) => {
            "I'd rather see Fahrenheit and miles per hour from now on. Change my preferred units accordingly."
        }
        (Units::Metric, 0) => {
            "Please switch my weather units to metric, so temperatures show in Celsius and wind in km/h."
        }
        (Units::Metric, _) => {
            "I'd rather see Celsius and kilometres per hour from now on. Change my preferred units accordingly."
        }
    };
    Draft {
        goal: goal.into(),
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

pub(super) fn ambiguous_subscribe(rng: &mut Rng) -> Draft<Weather> {
    let groups = ambiguous_groups();
    let group = rng.pick(&groups).clone();
    let target = *rng.pick(&group);
    let seed = world_with(rng, &group, 3);
    let n = rng.range(1, 2) as usize;
    let types = sorted_types(rng, target, n);
    let channel = *rng.pick(&[Channel::Email, Channel::Sms]);
    let p = place(&seed, target);
    let goal = format!(
        "Sign me up for {} alerts by {} for {}. I mean the {} in {}, {}.",
        types_words(&types),
        channel_text(channel),
        p.name,
        p.name,
        p.region,
        p.country
    );
    let mut checks = vec![atom(Atom::Subscribed {
        place: target.into(),
        alert_types: types.clone(),
        channel: Some(channel),
    })];
    checks.extend(group.iter().filter(|id| **id != target).map(|id| {
        atom(Atom::NotSubscribed {
            place: id.to_string(),
        })
    }));
    Draft {
        goal,
        max_steps: 5,
        tools: Weather::tools(&[
            "subscribe_alerts",
            "geocode",
            "list_alert_subscriptions",
            "unsubscribe_alerts",
            "get_alerts",
        ]),
        predicate: Pred::All(checks),
        references: vec![vec![
            call::<Weather>(
                "subscribe_alerts",
                json!({ "location": p.name, "alert_types": types, "channel": channel }),
            ),
            call::<Weather>(
                "subscribe_alerts",
                json!({ "location": target, "alert_types": types, "channel": channel }),
            ),
        ]],
        faults: vec![],
        params: params(&[
            ("place", json!(target)),
            ("alert_types", json!(types)),
            ("channel", json!(channel)),
        ]),
        seed,
    }
}

pub(super) fn replace_saved_label(rng: &mut Rng) -> Draft<Weather> {
    let ids = rng.sample(&unambiguous(), 3);
    let (new, old, other) = (ids[0], ids[1], ids[2]);
    let labels = rng.sample(LABELS, 2);
    let (label, other_label) = (labels[0], labels[1]);
    let mut seed = world_with(rng, &ids, 2);
    seed.saved_locations = vec![saved(label, old), saved(other_label, other)];
    seed.saved_locations.sort_by(|a, b| a.label.cmp(&b.label));
    let p = place(&seed, new);
    let shown = display_name(p);
    let save = call::<Weather>(
        "save_location",
        json!({ "location": shown, "label": label }),
    );
    Draft {
        goal: format!(
            "Save {shown} to my saved weather locations with the label \"{label}\". If that label is already taken, delete the location currently saved under it first, then save {} with that label.",
            p.name
        ),
        max_steps: 6,
        tools: Weather::tools(&[
            "save_location",
            "remove_saved_location",
            "list_saved_locations",
            "geocode",
        ]),
        predicate: Pred::All(vec![
            saved_as(new, label),
            atom(Atom::NotSaved { place: old.into() }),
            saved_as(other, other_label),
        ]),
        references: vec![vec![
            save.clone(),
            call::<Weather>("remove_saved_location", json!({ "label": label })),
            save,
        ]],
        faults: vec![],
        params: params(&[
            ("place", json!(new)),
            ("replaced", json!(old)),
            ("label", json!(label)),
        ]),
        seed,
    }
}
