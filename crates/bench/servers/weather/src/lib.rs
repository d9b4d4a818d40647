//! `weather`: a small simulated world of places with deterministic weather, behind the tool
//! surface of the popular weather MCP servers (NWS, OpenWeather, Open-Meteo style): `geocode`,
//! `get_current_weather`, `get_forecast`, `get_hourly_forecast`, `get_alerts`,
//! `get_air_quality`, ... plus the user's state that tools change: saved locations, alert
//! subscriptions and preferred units.
//!
//! Rules:
//! - The weather itself is read-only seed data: each place has current conditions at the
//!   seed's `now`, a daily forecast of consecutive days from that day, hourly columns from
//!   00:00 of that day, an air quality reading and the alerts in force. The wall clock is the
//!   seed's; every place shares it (a simplification: there is no time zone arithmetic).
//! - A location is named by place id (`springfield-mo-us`), by name (`Lisbon`), or by name
//!   with region and/or country (`Paris, Texas`, `Perth, AU`). A bare name shared by several
//!   places is refused as ambiguous, listing the candidates and their ids.
//! - Temperatures are stored in whole degrees Celsius and wind in km/h. In imperial units they
//!   are converted and rounded to the nearest whole number (halves away from zero): °F =
//!   °C × 1.8 + 32, mph = km/h ÷ 1.609344. Chances of precipitation are percentages in both.
//! - Saved-location labels are unique (case-insensitively) and a place is saved at most once;
//!   there is at most one alert subscription per place and channel. Lists are sorted (saved
//!   locations by label, subscriptions by creation, geocoding results exact-name first).
//! - So a run's state cannot outgrow its seed: at most one saved location per place and one
//!   subscription per place and channel, whatever an agent sends (no bound of its own needed,
//!   unlike the servers that store what they are given).

mod measure;
mod predicates;
mod state;
mod templates;
mod tools;
mod world;

pub use measure::{aqi_category, distance_km, temperature, to_fahrenheit, to_mph, wind};
pub use predicates::Atom;
pub use state::{
    AirQuality, Alert, AlertType, Channel, Condition, Current, DEFAULT_NOW, Day, Hourly, Place,
    Pollutant, SavedLocation, Seed, Severity, Subscription, Units, Weather,
};
pub use world::{
    CATALOGUE, Known, add_alert, condition_for, display_name, plausible_alerts, sample_world,
    set_rain, unambiguous_places, world_with,
};

use mcpbench_sim::{SeedError, Simulated, Template, ToolBox};
use serde_json::Value;

impl Simulated for Weather {
    const NAME: &'static str = "weather";
    type Seed = Seed;
    type Atom = Atom;

    fn from_seed(seed: &Seed) -> Result<Self, SeedError> {
        Weather::from_seed(seed)
    }
    fn copy(&self) -> Result<Self, SeedError> {
        Ok(self.clone())
    }
    fn toolbox() -> &'static ToolBox<Self> {
        &tools::TOOLS
    }
    fn holds(&self, atom: &Atom) -> bool {
        atom.holds(self)
    }
    fn snapshot(&self) -> Value {
        Weather::snapshot(self)
    }
    fn templates() -> Vec<Template<Self>> {
        templates::all()
    }
}
