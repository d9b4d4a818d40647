//! The tools, modelled on the popular weather MCP servers (NWS, OpenWeather, Open-Meteo):
//! geocoding, current conditions, daily and hourly forecasts, alerts and air quality, plus the
//! user's saved locations, alert subscriptions and preferred units.
//!
//! `get_forecast_by_coordinates` is the near-duplicate of `get_forecast` (it snaps a point to
//! the nearest known place), and `get_hourly_forecast` competes with both for questions about
//! a day. Forecast tools report in the user's preferred units unless a call passes `units`.

use crate::measure::{aqi_category, temperature, wind};
use crate::state::{
    AlertType, Channel, Place, SavedLocation, Subscription, Units, Weather, normalize_types,
};
use mcpbench_sim::dates::format_date;
use mcpbench_sim::{Tool, ToolBox, ToolError};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::LazyLock;

type Out = Result<Value, ToolError>;

/// How far a coordinate may be from a known place and still resolve to it.
const SNAP_KM: f64 = 50.0;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Geocode {
    /// Place name or its beginning ("Spring"), optionally followed by region or country ("Paris, Texas", "Perth, AU").
    #[schemars(length(min = 1, max = 100))]
    name: String,
    /// Maximum number of results (default 5).
    #[schemars(range(min = 1, max = 10))]
    count: Option<u32>,
    /// Only places in this country (ISO 3166-1 alpha-2 code, like "US").
    #[schemars(regex(pattern = r"^[A-Za-z]{2}$"))]
    country_code: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Point {
    /// Latitude in decimal degrees.
    #[schemars(range(min = -90.0, max = 90.0))]
    latitude: f64,
    /// Longitude in decimal degrees.
    #[schemars(range(min = -180.0, max = 180.0))]
    longitude: f64,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CurrentArgs {
    /// A place id from geocode ("lisbon-pt"), a city name ("Lisbon"), or a name with region or country ("Portland, Maine").
    #[schemars(length(min = 1, max = 100))]
    location: String,
    /// Units for this answer; defaults to the user's preferred units.
    units: Option<Units>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ForecastArgs {
    /// A place id from geocode ("lisbon-pt"), a city name ("Lisbon"), or a name with region or country ("Portland, Maine").
    #[schemars(length(min = 1, max = 100))]
    location: String,
    /// Number of days starting today (default 3).
    #[schemars(range(min = 1, max = 7))]
    days: Option<u32>,
    /// Units for this answer; defaults to the user's preferred units.
    units: Option<Units>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ForecastAtPoint {
    /// Latitude in decimal degrees.
    #[schemars(range(min = -90.0, max = 90.0))]
    latitude: f64,
    /// Longitude in decimal degrees.
    #[schemars(range(min = -180.0, max = 180.0))]
    longitude: f64,
    /// Number of days starting today (default 3).
    #[schemars(range(min = 1, max = 7))]
    days: Option<u32>,
    /// Units for this answer; defaults to the user's preferred units.
    units: Option<Units>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct HourlyArgs {
    /// A place id, a city name, or a name with region or country.
    #[schemars(length(min = 1, max = 100))]
    location: String,
    /// Number of hours from the current hour (default 12); the data runs to midnight.
    #[schemars(range(min = 1, max = 24))]
    hours: Option<u32>,
    /// Units for this answer; defaults to the user's preferred units.
    units: Option<Units>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct LocationArg {
    /// A place id, a city name, or a name with region or country.
    #[schemars(length(min = 1, max = 100))]
    location: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SaveArgs {
    /// The place to save: a place id, a city name, or a name with region or country.
    #[schemars(length(min = 1, max = 100))]
    location: String,
    /// Your name for it, like "Home" or "Mum's"; must not be in use.
    #[schemars(length(min = 1, max = 40))]
    label: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct LabelArg {
    /// The label of the saved location, as listed.
    #[schemars(length(min = 1, max = 40))]
    label: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SubscribeArgs {
    /// The place to watch: a place id, a city name, or a name with region or country.
    #[schemars(length(min = 1, max = 100))]
    location: String,
    /// Which kinds of alert to be notified about.
    #[schemars(length(min = 1, max = 6))]
    alert_types: Vec<AlertType>,
    /// Where notifications go.
    channel: Channel,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ListSubscriptions {
    /// Only subscriptions for this place.
    #[schemars(length(min = 1, max = 100))]
    location: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Unsubscribe {
    /// The subscription id, like "sub-2".
    #[schemars(length(min = 1, max = 40))]
    subscription_id: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SetUnits {
    /// metric: Celsius and km/h; imperial: Fahrenheit and mph.
    units: Units,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

fn unit_labels(units: Units) -> Value {
    match units {
        Units::Metric => json!({ "temperature": "°C", "wind_speed": "km/h" }),
        Units::Imperial => json!({ "temperature": "°F", "wind_speed": "mph" }),
    }
}

fn geocode(w: &Weather, a: Geocode) -> Out {
    let mut parts = a.name.split(',').map(str::trim);
    let name = parts.next().unwrap_or_default().to_ascii_lowercase();
    let quals: Vec<String> = parts
        .filter(|s| !s.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let fits = |p: &Place| {
        let keys = [
            p.region.to_ascii_lowercase(),
            p.country.to_ascii_lowercase(),
            p.country_code.to_ascii_lowercase(),
        ];
        p.name.to_ascii_lowercase().starts_with(&name)
            && quals.iter().all(|q| keys.contains(q))
            && a.country_code
                .as_ref()
                .is_none_or(|c| p.country_code.eq_ignore_ascii_case(c))
    };
    let mut hits: Vec<&Place> = w.places.iter().filter(|p| fits(p)).collect();
    hits.sort_by_key(|p| {
        (
            !p.name.eq_ignore_ascii_case(&name),
            p.name.clone(),
            p.country.clone(),
            p.region.clone(),
        )
    });
    let total = hits.len();
    let results: Vec<Value> = hits
        .iter()
        .take(a.count.unwrap_or(5) as usize)
        .map(|p| p.card())
        .collect();
    Ok(json!({ "results": results, "total": total }))
}

fn reverse_geocode(w: &Weather, a: Point) -> Out {
    let (p, d) = w.nearest(a.latitude, a.longitude, SNAP_KM)?;
    let mut card = p.card();
    card["distance_km"] = json!(d);
    Ok(card)
}

fn get_current_weather(w: &Weather, a: CurrentArgs) -> Out {
    let units = a.units.unwrap_or(w.units);
    let p = w.resolve(&a.location)?;
    let c = &p.current;
    Ok(json!({
        "location": p.brief(),
        "observed_at": w.now,
        "units": unit_labels(units),
        "temperature": temperature(c.temperature_c, units),
        "humidity": c.humidity,
        "wind_speed": wind(c.wind_kph, units),
        "condition": c.condition,
    }))
}

fn forecast(p: &Place, days: Option<u32>, units: Units) -> Value {
    let want = days.unwrap_or(3) as usize;
    let daily: Vec<Value> = p
        .daily
        .iter()
        .take(want)
        .map(|d| {
            json!({
                "date": d.date,
                "high": temperature(d.high_c, units),
                "low": temperature(d.low_c, units),
                "precipitation_probability": d.precipitation_probability,
                "condition": d.condition,
            })
        })
        .collect();
    let mut out = json!({ "location": p.brief(), "units": unit_labels(units), "daily": daily });
    if p.daily.len() < want {
        out["note"] = json!(format!(
            "only {} day(s) of forecast are available for {}",
            p.daily.len(),
            p.name
        ));
    }
    out
}

fn get_forecast(w: &Weather, a: ForecastArgs) -> Out {
    let p = w.resolve(&a.location)?;
    Ok(forecast(p, a.days, a.units.unwrap_or(w.units)))
}

fn get_forecast_by_coordinates(w: &Weather, a: ForecastAtPoint) -> Out {
    let (p, d) = w.nearest(a.latitude, a.longitude, SNAP_KM)?;
    let mut out = forecast(p, a.days, a.units.unwrap_or(w.units));
    out["grid_point"] =
        json!({ "latitude": p.latitude, "longitude": p.longitude, "distance_km": d });
    Ok(out)
}

fn get_hourly_forecast(w: &Weather, a: HourlyArgs) -> Out {
    let units = a.units.unwrap_or(w.units);
    let p = w.resolve(&a.location)?;
    let Some(h) = &p.hourly else {
        return Err(ToolError::not_found(format!(
            "no hourly forecast is available for {}",
            p.full_name()
        )));
    };
    let want = a.hours.unwrap_or(12) as usize;
    let start = w.hour as usize;
    let rows: Vec<Value> = (start..h.temperature_c.len())
        .take(want)
        .map(|i| {
            json!({
                "time": format!("{}T{:02}:00", format_date(w.today + (i / 24) as i64), i % 24),
                "temperature": temperature(h.temperature_c[i], units),
                "precipitation_probability": h.precipitation_probability[i],
                "wind_speed": wind(h.wind_kph[i], units),
            })
        })
        .collect();
    let mut out = json!({ "location": p.brief(), "units": unit_labels(units), "hourly": rows });
    if rows.len() < want {
        out["note"] = json!(format!(
            "hourly data for {} ends after {} hour(s)",
            p.name,
            rows.len()
        ));
    }
    Ok(out)
}

fn get_alerts(w: &Weather, a: LocationArg) -> Out {
    let p = w.resolve(&a.location)?;
    let mut alerts: Vec<_> = p.alerts.iter().collect();
    alerts.sort_by(|x, y| x.onset.cmp(&y.onset).then_with(|| x.id.cmp(&y.id)));
    Ok(json!({ "location": p.brief(), "alerts": alerts, "count": alerts.len() }))
}

fn get_air_quality(w: &Weather, a: LocationArg) -> Out {
    let p = w.resolve(&a.location)?;
    let Some(q) = &p.air_quality else {
        return Err(ToolError::not_found(format!(
            "no air quality station reports for {}",
            p.full_name()
        )));
    };
    Ok(json!({
        "location": p.brief(),
        "observed_at": w.now,
        "us_aqi": q.aqi,
        "category": aqi_category(q.aqi),
        "dominant_pollutant": q.dominant_pollutant,
    }))
}

fn saved_row(w: &Weather, s: &SavedLocation) -> Value {
    let mut row = w
        .place(&s.place)
        .map(Place::card)
        .unwrap_or_else(|| json!({}));
    row["label"] = json!(s.label);
    row
}

fn save_location(w: &mut Weather, a: SaveArgs) -> Out {
    let label = a.label.trim().to_string();
    if label.is_empty() {
        return Err(ToolError::invalid("label must not be blank"));
    }
    let p = w.resolve(&a.location)?;
    if let Some(s) = w
        .saved
        .iter()
        .find(|s| s.label.eq_ignore_ascii_case(&label))
    {
        return Err(ToolError::conflict(format!(
            "the label {:?} is already used for {}; remove it first or choose another label",
            s.label, s.place
        )));
    }
    if let Some(s) = w.saved.iter().find(|s| s.place == p.id) {
        return Err(ToolError::conflict(format!(
            "{} is already saved as {:?}",
            p.full_name(),
            s.label
        )));
    }
    let entry = SavedLocation {
        label,
        place: p.id.clone(),
    };
    let row = saved_row(w, &entry);
    w.saved.push(entry);
    w.saved.sort_by(|a, b| a.label.cmp(&b.label));
    Ok(json!({ "saved": row }))
}

fn list_saved_locations(w: &Weather, _: NoArgs) -> Out {
    let rows: Vec<Value> = w.saved.iter().map(|s| saved_row(w, s)).collect();
    Ok(json!({ "saved_locations": rows, "count": rows.len() }))
}

fn remove_saved_location(w: &mut Weather, a: LabelArg) -> Out {
    let at = w
        .saved
        .iter()
        .position(|s| s.label.eq_ignore_ascii_case(a.label.trim()))
        .ok_or_else(|| {
            let labels: Vec<&str> = w.saved.iter().map(|s| s.label.as_str()).collect();
            ToolError::not_found(format!(
                "no saved location is labelled {:?}; labels in use: {labels:?}",
                a.label
            ))
        })?;
    let gone = w.saved.remove(at);
    Ok(json!({ "removed": { "label": gone.label, "place": gone.place } }))
}

fn subscribe_alerts(w: &mut Weather, a: SubscribeArgs) -> Out {
    let p = w.resolve(&a.location)?;
    let place = p.id.clone();
    if let Some(s) = w
        .subscriptions
        .iter()
        .find(|s| s.place == place && s.channel == a.channel)
    {
        return Err(ToolError::conflict(format!(
            "{} already has a {} subscription for {} ({}); unsubscribe it first to change it",
            place,
            a.channel.as_str(),
            types_text(&s.alert_types),
            s.id
        )));
    }
    let id = (1..)
        .map(|n| format!("sub-{n}"))
        .find(|id| w.subscriptions.iter().all(|s| &s.id != id))
        .expect("free id");
    let sub = Subscription {
        id,
        place,
        alert_types: normalize_types(&a.alert_types),
        channel: a.channel,
    };
    w.subscriptions.push(sub.clone());
    Ok(json!({ "subscription": sub }))
}

fn types_text(types: &[AlertType]) -> String {
    types
        .iter()
        .map(|t| t.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn list_alert_subscriptions(w: &Weather, a: ListSubscriptions) -> Out {
    let only = match &a.location {
        Some(l) => Some(w.resolve(l)?.id.clone()),
        None => None,
    };
    let subs: Vec<Value> = w
        .subscriptions
        .iter()
        .filter(|s| only.as_ref().is_none_or(|id| &s.place == id))
        .map(|s| {
            let name = w.place(&s.place).map(Place::full_name).unwrap_or_default();
            json!({ "id": s.id, "place": s.place, "place_name": name, "alert_types": s.alert_types, "channel": s.channel })
        })
        .collect();
    Ok(json!({ "subscriptions": subs, "count": subs.len() }))
}

fn unsubscribe_alerts(w: &mut Weather, a: Unsubscribe) -> Out {
    let at = w
        .subscriptions
        .iter()
        .position(|s| s.id == a.subscription_id.trim())
        .ok_or_else(|| {
            ToolError::not_found(format!(
                "no alert subscription with id {:?}",
                a.subscription_id
            ))
        })?;
    let gone = w.subscriptions.remove(at);
    Ok(json!({ "unsubscribed": gone.id, "place": gone.place }))
}

fn set_units(w: &mut Weather, a: SetUnits) -> Out {
    let before = w.units;
    w.units = a.units;
    let text = if before == a.units {
        "unchanged"
    } else {
        "updated"
    };
    Ok(json!({ "units": a.units, "status": text, "labels": unit_labels(a.units) }))
}

pub(crate) static TOOLS: LazyLock<ToolBox<Weather>> = LazyLock::new(|| {
    ToolBox::new(vec![
        Tool::read(
            "geocode",
            "Search places by name (or the beginning of a name), optionally narrowed by region or country. Returns candidates with their place id, region, country, coordinates and time zone; several places can share a name.",
            geocode,
        ),
        Tool::read(
            "reverse_geocode",
            "Find the known place nearest to a latitude/longitude (within 50 km), with its place id and the distance.",
            reverse_geocode,
        ),
        Tool::read(
            "get_current_weather",
            "Current conditions at a place: temperature, humidity, wind speed and sky condition, in the user's preferred units unless units is given.",
            get_current_weather,
        ),
        Tool::read(
            "get_forecast",
            "Daily forecast for a place, from today for 1-7 days: high and low temperature, chance of precipitation (percent) and condition for each date. Uses the user's preferred units unless units is given.",
            get_forecast,
        ),
        Tool::read(
            "get_forecast_by_coordinates",
            "Daily forecast for the grid point nearest to a latitude/longitude (the nearest known place within 50 km), 1-7 days from today.",
            get_forecast_by_coordinates,
        ),
        Tool::read(
            "get_hourly_forecast",
            "Hour-by-hour forecast for a place from the current hour: temperature, chance of precipitation and wind speed for each hour (until midnight tonight).",
            get_hourly_forecast,
        ),
        Tool::read(
            "get_alerts",
            "Active weather alerts for a place (event type, severity, headline, onset and expiry).",
            get_alerts,
        ),
        Tool::read(
            "get_air_quality",
            "Current air quality at a place: US AQI value, its category and the dominant pollutant.",
            get_air_quality,
        ),
        Tool::write(
            "save_location",
            "Add a place to the user's saved locations under a label. Labels are unique, and a place can be saved only once.",
            save_location,
        ),
        Tool::read(
            "list_saved_locations",
            "List the user's saved locations with their labels, place ids, countries and coordinates, sorted by label.",
            list_saved_locations,
        ),
        Tool::write(
            "remove_saved_location",
            "Remove one of the user's saved locations, by its label.",
            remove_saved_location,
        ),
        Tool::write(
            "subscribe_alerts",
            "Subscribe the user to weather alerts of the given types for a place, delivered by email or sms. One subscription per place and channel.",
            subscribe_alerts,
        ),
        Tool::read(
            "list_alert_subscriptions",
            "List the user's alert subscriptions (id, place, alert types, channel), optionally for one place.",
            list_alert_subscriptions,
        ),
        Tool::write(
            "unsubscribe_alerts",
            "Cancel an alert subscription by its id.",
            unsubscribe_alerts,
        ),
        Tool::write(
            "set_units",
            "Set the user's preferred units: metric (Celsius, km/h) or imperial (Fahrenheit, mph). All later answers use them unless a call overrides.",
            set_units,
        ),
    ])
});
