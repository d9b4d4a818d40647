//! Recovery tasks: a tool fails or a name is ambiguous, and the agent must notice and find
//! another way.

use super::*;
use crate::world::{display_name, world_with};
use crate::{Atom, Channel, Weather};
use mcpbench_sim::{Draft, ErrorKind, Fault, Pred, Rng, Step, call, qualified};
use serde_json::json;

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
            landed: false,
        }],
        params: params(&[
            ("place", json!(id)),
            ("day_offset", json!(offset)),
            ("failures", json!(times)),
        ]),
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
    let goal = match rng.below(3) {
        0 => format!(
            "Save {shown} to my saved weather locations with the label \"{label}\", in place of whatever is saved under that label now. My other saved places stay."
        ),
        1 => format!(
            "\"{label}\" in my saved weather locations should be {shown} from now on; the place saved under it today can go. Leave my other saved places alone."
        ),
        _ => format!(
            "Please make \"{label}\" among my saved weather locations point to {shown}, replacing the place it has now, and keep the rest of my saved places."
        ),
    };
    Draft {
        goal,
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
