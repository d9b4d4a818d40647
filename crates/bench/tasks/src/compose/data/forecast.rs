//! `compose.forecast_to_channel` (weather + slack): a three-stop trip, each stop a place on its
//! own day within the week, gets one message per stop in a channel with that day's forecast
//! high in the units asked. The forecast lists every day, so a careless agent posts today's
//! high or the wrong day's, or keeps the user's default units when the goal asks for the
//! others; an extra message for another place or day fails too.

use super::{bot_messages, call, workspace};
use super::{list_channels, post, posted, spoken_date, with_slack};
use mcpbench_server_weather as weather;
use mcpbench_sim::{Pred, Rng, params};
use mcpbench_world::{Composed, InitialState};
use serde_json::json;

const TRIP_CHANNELS: &[&str] = &[
    "travel",
    "team-offsite",
    "office-news",
    "weekend-plans",
    "roadshow",
    "field-trip",
    "sales-tour",
];

pub(super) fn forecast_to_channel(rng: &mut Rng) -> Composed {
    let unique: Vec<&weather::Known> = weather::unambiguous_places().collect();
    let stops = rng.sample(&unique, 3);
    let ids: Vec<&str> = stops.iter().map(|k| k.id).collect();
    let mut seed = weather::world_with(rng, &ids, 3);
    seed.units = *rng.pick(&[weather::Units::Metric, weather::Units::Imperial]);
    let asked = *rng.pick(&[weather::Units::Metric, weather::Units::Imperial]);
    let (unit_word, sign) = match asked {
        weather::Units::Metric => ("Celsius", "°C"),
        weather::Units::Imperial => ("Fahrenheit", "°F"),
    };
    let mut offsets: Vec<usize> = rng.sample(&[1, 2, 3, 4, 5, 6], 3);
    offsets.sort_unstable();
    let channel = *rng.pick(TRIP_CHANNELS);
    let (w, channel_id) = workspace(rng, channel);

    let mut reads = Vec::new();
    let mut itinerary = Vec::new();
    let mut texts = Vec::new();
    for (id, &offset) in ids.iter().zip(&offsets) {
        let place = seed.place(id).expect("a place of the world");
        let day = &place.daily[offset];
        let when = spoken_date(&day.date);
        let high = weather::temperature(day.high_c, asked);
        itinerary.push(format!("{} on {when}", weather::display_name(place)));
        texts.push(format!("{} on {when}: {high}{sign}", place.name));
        reads.push(call(
            "weather.get_forecast",
            json!({ "location": weather::display_name(place), "days": offset + 1, "units": asked }),
        ));
    }
    let mut steps = reads;
    steps.push(list_channels());
    steps.extend(texts.iter().map(|t| post(&channel_id, t)));
    let mut checks: Vec<Pred<_>> = texts.iter().map(|t| posted(channel, t)).collect();
    checks.push(bot_messages(channel, texts.len()));

    let trip = format!(
        "{}, then {} and finally {}",
        itinerary[0], itinerary[1], itinerary[2]
    );
    let example = texts[0]
        .rsplit_once(": ")
        .map(|(head, _)| head)
        .unwrap_or("");
    let goal = match rng.below(3) {
        0 => format!(
            "Our trip goes to {trip}. For each stop, post that day's forecast high in degrees {unit_word} in the #{channel} channel, one message per stop, worded exactly `<city> on <date>: <n>{sign}` with the city's name alone, the date as I wrote it and the whole number of degrees, e.g. `{example}: <n>{sign}`."
        ),
        1 => format!(
            "The team will be in {trip}. Please look up the forecast high for each place on the day we're there and share it in #{channel}: a separate message per stop, exactly `<city> on <date>: <n>{sign}` (city name only, date as written here, whole degrees {unit_word}), like `{example}: <n>{sign}`."
        ),
        _ => format!(
            "Help the #{channel} folks pack: we visit {trip}. Post the expected high for each stop on its day, in {unit_word}, as its own message worded exactly `<city> on <date>: <n>{sign}` (e.g. `{example}: <n>{sign}`, with the whole number of degrees). Nothing else needs posting."
        ),
    };
    Composed {
        max_steps: steps.len() as u32 + 5,
        goal,
        initial_state: InitialState {
            weather: Some(seed),
            slack: Some(w.seed),
            ..Default::default()
        },
        available_tools: with_slack(&[
            "weather.geocode",
            "weather.get_forecast",
            "weather.get_current_weather",
            "weather.get_hourly_forecast",
        ]),
        success_predicate: Pred::All(checks),
        faults: vec![],
        reference_solutions: vec![steps],
        params: params(&[
            ("places", json!(ids)),
            ("offsets", json!(offsets)),
            ("units", json!(asked)),
            ("channel", json!(channel)),
        ]),
    }
}
