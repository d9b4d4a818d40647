//! The seed (a small world of places with their weather, plus the user's settings) and the
//! server state built from it, with the rules for naming a place.

use crate::measure::distance_km;
use mcpbench_sim::dates::{format_date, parse_date, parse_datetime};
use mcpbench_sim::{SeedError, ToolError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// The simulated "now" when a seed does not give one.
pub const DEFAULT_NOW: &str = "2026-03-02T09:00";

fn default_now() -> String {
    DEFAULT_NOW.to_string()
}

/// The units numbers are reported in: Celsius and km/h, or Fahrenheit and mph.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Units {
    #[default]
    Metric,
    Imperial,
}

impl Units {
    pub fn as_str(self) -> &'static str {
        match self {
            Units::Metric => "metric",
            Units::Imperial => "imperial",
        }
    }
}

/// The sky and precipitation, in the coarse codes weather APIs report.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Condition {
    Clear,
    PartlyCloudy,
    Cloudy,
    Fog,
    Drizzle,
    Rain,
    Thunderstorm,
    Snow,
}

/// The kinds of weather alert a place can have and a user can subscribe to.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum AlertType {
    Thunderstorm,
    Flood,
    Heat,
    Frost,
    Wind,
    Snow,
}

impl AlertType {
    pub const ALL: [AlertType; 6] = [
        Self::Thunderstorm,
        Self::Flood,
        Self::Heat,
        Self::Frost,
        Self::Wind,
        Self::Snow,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Thunderstorm => "thunderstorm",
            Self::Flood => "flood",
            Self::Heat => "heat",
            Self::Frost => "frost",
            Self::Wind => "wind",
            Self::Snow => "snow",
        }
    }
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Minor,
    Moderate,
    Severe,
    Extreme,
}

/// How alert notifications reach the user.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    Email,
    Sms,
}

impl Channel {
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Email => "email",
            Channel::Sms => "sms",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Pollutant {
    #[serde(rename = "pm2_5")]
    Pm25,
    #[serde(rename = "pm10")]
    Pm10,
    #[serde(rename = "o3")]
    O3,
    #[serde(rename = "no2")]
    No2,
}

/// Conditions observed at the seed's `now`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Current {
    pub temperature_c: i32,
    /// Relative humidity, percent.
    pub humidity: u8,
    pub wind_kph: u32,
    pub condition: Condition,
}

/// One day of the daily forecast.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Day {
    /// YYYY-MM-DD.
    pub date: String,
    pub high_c: i32,
    pub low_c: i32,
    /// Chance of precipitation, percent.
    pub precipitation_probability: u8,
    pub condition: Condition,
}

/// Hourly values in columns (as Open-Meteo returns them), one entry per hour from 00:00 of
/// the seed's day; all columns have the same length, at most 24.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Hourly {
    pub temperature_c: Vec<i32>,
    pub precipitation_probability: Vec<u8>,
    pub wind_kph: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AirQuality {
    /// US AQI, 0-500.
    pub aqi: u32,
    pub dominant_pollutant: Pollutant,
}

/// An alert in force at the seed's `now`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Alert {
    pub id: String,
    pub event: AlertType,
    pub severity: Severity,
    pub headline: String,
    /// YYYY-MM-DDTHH:MM, local time.
    pub onset: String,
    /// YYYY-MM-DDTHH:MM, local time.
    pub expires: String,
}

/// A place of the world with its weather.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Place {
    /// Stable slug, like `lisbon-pt` or `springfield-mo-us`.
    pub id: String,
    pub name: String,
    /// State, province or region.
    pub region: String,
    /// ISO 3166-1 alpha-2, upper case.
    pub country_code: String,
    pub country: String,
    pub latitude: f64,
    pub longitude: f64,
    /// IANA time zone name; all times of the place are local.
    pub timezone: String,
    pub current: Current,
    /// Consecutive days from the seed's day.
    pub daily: Vec<Day>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hourly: Option<Hourly>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub air_quality: Option<AirQuality>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alerts: Vec<Alert>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SavedLocation {
    /// The user's name for it ("Home"); unique, case-insensitively.
    pub label: String,
    /// A place id.
    pub place: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Subscription {
    pub id: String,
    /// A place id.
    pub place: String,
    pub alert_types: Vec<AlertType>,
    pub channel: Channel,
}

/// `initial_state.weather`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Seed {
    /// The simulated local date and hour, YYYY-MM-DDTHH:00; the same wall clock everywhere.
    #[serde(default = "default_now")]
    pub now: String,
    /// The user's preferred units.
    #[serde(default)]
    pub units: Units,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub places: Vec<Place>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub saved_locations: Vec<SavedLocation>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subscriptions: Vec<Subscription>,
}

impl Default for Seed {
    fn default() -> Self {
        Seed {
            now: default_now(),
            units: Units::Metric,
            places: vec![],
            saved_locations: vec![],
            subscriptions: vec![],
        }
    }
}

impl Seed {
    pub fn place(&self, id: &str) -> Option<&Place> {
        self.places.iter().find(|p| p.id == id)
    }
    pub fn place_mut(&mut self, id: &str) -> Option<&mut Place> {
        self.places.iter_mut().find(|p| p.id == id)
    }
    /// The seed's day, YYYY-MM-DD.
    pub fn today(&self) -> &str {
        self.now.get(..10).unwrap_or(&self.now)
    }
}

/// The simulated server.
#[derive(Clone, Debug)]
pub struct Weather {
    pub(crate) now: String,
    pub(crate) today: i64,
    pub(crate) hour: u32,
    pub(crate) units: Units,
    pub(crate) places: Vec<Place>,
    /// Kept sorted by label.
    pub(crate) saved: Vec<SavedLocation>,
    /// In creation order.
    pub(crate) subscriptions: Vec<Subscription>,
}

fn normalized(types: &[AlertType]) -> Vec<AlertType> {
    let set: BTreeSet<AlertType> = types.iter().copied().collect();
    set.into_iter().collect()
}

impl Place {
    /// `Name, Region, Country`.
    pub fn full_name(&self) -> String {
        format!("{}, {}, {}", self.name, self.region, self.country)
    }

    fn matches_qualifier(&self, q: &str) -> bool {
        [&self.region, &self.country, &self.country_code]
            .iter()
            .any(|s| s.eq_ignore_ascii_case(q))
    }

    pub(crate) fn brief(&self) -> Value {
        json!({ "id": self.id, "name": self.name, "region": self.region, "country": self.country })
    }

    pub(crate) fn card(&self) -> Value {
        json!({
            "id": self.id, "name": self.name, "region": self.region, "country": self.country,
            "country_code": self.country_code, "latitude": self.latitude, "longitude": self.longitude,
            "timezone": self.timezone,
        })
    }
}

impl Weather {
    pub(crate) fn from_seed(seed: &Seed) -> Result<Self, SeedError> {
        let bad = |m: String| SeedError::new("weather", m);
        let (today, hour) = parse_datetime(&seed.now)
            .ok()
            .filter(|_| seed.now.ends_with(":00"))
            .map(|m| (m.div_euclid(1440), (m.rem_euclid(1440) / 60) as u32))
            .ok_or_else(|| bad(format!("now {:?} is not YYYY-MM-DDTHH:00", seed.now)))?;
        let mut ids = BTreeSet::new();
        let mut alert_ids = BTreeSet::new();
        for p in &seed.places {
            let slug = !p.id.is_empty()
                && p.id
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
            if !slug {
                return Err(bad(format!("place id {:?} is not a lower-case slug", p.id)));
            }
            if !ids.insert(p.id.as_str()) {
                return Err(bad(format!("place id {} appears twice", p.id)));
            }
            if p.name.trim().is_empty() || p.name.contains(',') {
                return Err(bad(format!(
                    "place {} has an empty name or one with a comma",
                    p.id
                )));
            }
            if p.country_code.len() != 2 || !p.country_code.chars().all(|c| c.is_ascii_uppercase())
            {
                return Err(bad(format!(
                    "place {}: country_code {:?} is not two upper-case letters",
                    p.id, p.country_code
                )));
            }
            if !(-90.0..=90.0).contains(&p.latitude) || !(-180.0..=180.0).contains(&p.longitude) {
                return Err(bad(format!("place {}: coordinates out of range", p.id)));
            }
            if p.current.humidity > 100 {
                return Err(bad(format!("place {}: humidity above 100", p.id)));
            }
            for (i, d) in p.daily.iter().enumerate() {
                if parse_date(&d.date).ok() != Some(today + i as i64) {
                    return Err(bad(format!(
                        "place {}: daily[{i}] is dated {}, expected {} (days run on from the seed's day)",
                        p.id,
                        d.date,
                        format_date(today + i as i64)
                    )));
                }
                if d.low_c > d.high_c || d.precipitation_probability > 100 {
                    return Err(bad(format!(
                        "place {}: day {} has low above high or a chance above 100",
                        p.id, d.date
                    )));
                }
            }
            if let Some(h) = &p.hourly {
                let n = h.temperature_c.len();
                if n > 24 || h.precipitation_probability.len() != n || h.wind_kph.len() != n {
                    return Err(bad(format!(
                        "place {}: hourly columns differ in length or exceed 24",
                        p.id
                    )));
                }
                if h.precipitation_probability.iter().any(|&x| x > 100) {
                    return Err(bad(format!("place {}: hourly chance above 100", p.id)));
                }
            }
            if p.air_quality.as_ref().is_some_and(|a| a.aqi > 500) {
                return Err(bad(format!("place {}: AQI above 500", p.id)));
            }
            for a in &p.alerts {
                if !alert_ids.insert(a.id.as_str()) {
                    return Err(bad(format!("alert id {} appears twice", a.id)));
                }
                if parse_datetime(&a.onset).is_err() || parse_datetime(&a.expires).is_err() {
                    return Err(bad(format!(
                        "alert {}: onset/expires are not YYYY-MM-DDTHH:MM",
                        a.id
                    )));
                }
            }
        }
        let mut saved: Vec<SavedLocation> = Vec::new();
        for s in &seed.saved_locations {
            if !ids.contains(s.place.as_str()) {
                return Err(bad(format!(
                    "saved location {:?} names unknown place {}",
                    s.label, s.place
                )));
            }
            if s.label.trim().is_empty() {
                return Err(bad("a saved location has an empty label".into()));
            }
            if let Some(o) = saved
                .iter()
                .find(|o| o.label.eq_ignore_ascii_case(&s.label) || o.place == s.place)
            {
                return Err(bad(format!(
                    "saved locations {:?} and {:?} clash (same label or place)",
                    o.label, s.label
                )));
            }
            saved.push(s.clone());
        }
        saved.sort_by(|a, b| a.label.cmp(&b.label));
        let mut subscriptions: Vec<Subscription> = Vec::new();
        for s in &seed.subscriptions {
            if !ids.contains(s.place.as_str()) {
                return Err(bad(format!(
                    "subscription {} names unknown place {}",
                    s.id, s.place
                )));
            }
            if s.alert_types.is_empty() {
                return Err(bad(format!("subscription {} has no alert types", s.id)));
            }
            if subscriptions
                .iter()
                .any(|o| o.id == s.id || (o.place == s.place && o.channel == s.channel))
            {
                return Err(bad(format!(
                    "subscription {} repeats an id, or a place and channel",
                    s.id
                )));
            }
            subscriptions.push(Subscription {
                alert_types: normalized(&s.alert_types),
                ..s.clone()
            });
        }
        Ok(Weather {
            now: seed.now.clone(),
            today,
            hour,
            units: seed.units,
            places: seed.places.clone(),
            saved,
            subscriptions,
        })
    }

    pub(crate) fn place(&self, id: &str) -> Option<&Place> {
        self.places.iter().find(|p| p.id == id)
    }

    /// A place from what a user would type: its id (`paris-fr`), its name (`Lisbon`), or its
    /// name with region and/or country (`Paris, Texas`, `Perth, AU`). A bare name shared by
    /// several places is refused with the candidates listed.
    pub(crate) fn resolve(&self, location: &str) -> Result<&Place, ToolError> {
        let q = location.trim();
        if let Some(p) = self.places.iter().find(|p| p.id.eq_ignore_ascii_case(q)) {
            return Ok(p);
        }
        let mut parts = q.split(',').map(str::trim);
        let name = parts.next().unwrap_or_default();
        let quals: Vec<&str> = parts.filter(|s| !s.is_empty()).collect();
        let named: Vec<&Place> = self
            .places
            .iter()
            .filter(|p| p.name.eq_ignore_ascii_case(name))
            .collect();
        let hits: Vec<&Place> = named
            .iter()
            .copied()
            .filter(|p| quals.iter().all(|q| p.matches_qualifier(q)))
            .collect();
        match hits.as_slice() {
            [one] => Ok(one),
            [] if named.is_empty() => Err(ToolError::not_found(format!(
                "no place matches {q:?}; search by name with geocode to find place ids"
            ))),
            [] => Err(ToolError::not_found(format!(
                "no place named {name} matches {q:?}; places named {name}: {}",
                candidates(&named)
            ))),
            many => Err(ToolError::invalid(format!(
                "location {q:?} is ambiguous: it matches {}. Pass the place id, or add the region or country (\"{name}, <region or country>\")",
                candidates(many)
            ))),
        }
    }

    /// The nearest place within `max_km` of a point, with its distance.
    pub(crate) fn nearest(
        &self,
        lat: f64,
        lon: f64,
        max_km: f64,
    ) -> Result<(&Place, f64), ToolError> {
        let best = self
            .places
            .iter()
            .map(|p| (p, distance_km(lat, lon, p.latitude, p.longitude)))
            .min_by(|a, b| a.1.total_cmp(&b.1).then_with(|| a.0.id.cmp(&b.0.id)));
        match best {
            Some((p, d)) if d <= max_km => Ok((p, (d * 10.0).round() / 10.0)),
            _ => Err(ToolError::not_found(format!(
                "no known place within {max_km} km of latitude {lat}, longitude {lon}"
            ))),
        }
    }

    pub(crate) fn snapshot(&self) -> Value {
        json!({
            "now": self.now,
            "units": self.units,
            "places": self.places,
            "saved_locations": self.saved,
            "subscriptions": self.subscriptions,
        })
    }
}

pub(crate) fn normalize_types(types: &[AlertType]) -> Vec<AlertType> {
    normalized(types)
}

fn candidates(places: &[&Place]) -> String {
    places
        .iter()
        .map(|p| format!("{} (id {})", p.full_name(), p.id))
        .collect::<Vec<_>>()
        .join("; ")
}
