//! The catalogue of real places the generator draws from, and the generator of their
//! deterministic weather. Public so that cross-server templates (weather -> calendar, ...)
//! can build a world and read its numbers.

use crate::state::{
    AirQuality, Alert, AlertType, Condition, Current, Day, Hourly, Place, Pollutant, Seed, Severity,
};
use mcpbench_sim::Rng;
use mcpbench_sim::dates::{format_date, parse_date};

/// A real place with its March climate (typical daily high, °C).
#[derive(Clone, Copy, Debug)]
pub struct Known {
    pub id: &'static str,
    pub name: &'static str,
    pub region: &'static str,
    pub country_code: &'static str,
    pub country: &'static str,
    pub latitude: f64,
    pub longitude: f64,
    pub timezone: &'static str,
    pub base_high_c: i32,
}

#[allow(clippy::too_many_arguments)]
const fn k(
    id: &'static str,
    name: &'static str,
    region: &'static str,
    cc: &'static str,
    country: &'static str,
    latitude: f64,
    longitude: f64,
    timezone: &'static str,
    base_high_c: i32,
) -> Known {
    Known {
        id,
        name,
        region,
        country_code: cc,
        country,
        latitude,
        longitude,
        timezone,
        base_high_c,
    }
}

/// Every place a generated world can hold. Several names are shared (Springfield, Paris,
/// London, Portland, Perth, Birmingham, Valencia), for tasks about ambiguous names.
#[rustfmt::skip]
pub const CATALOGUE: &[Known] = &[
    k("lisbon-pt", "Lisbon", "Lisbon", "PT", "Portugal", 38.72, -9.14, "Europe/Lisbon", 18),
    k("porto-pt", "Porto", "Porto", "PT", "Portugal", 41.15, -8.61, "Europe/Lisbon", 16),
    k("madrid-es", "Madrid", "Madrid", "ES", "Spain", 40.42, -3.7, "Europe/Madrid", 16),
    k("valencia-es", "Valencia", "Valencian Community", "ES", "Spain", 39.47, -0.38, "Europe/Madrid", 19),
    k("valencia-ve", "Valencia", "Carabobo", "VE", "Venezuela", 10.16, -68.0, "America/Caracas", 32),
    k("paris-fr", "Paris", "Ile-de-France", "FR", "France", 48.86, 2.35, "Europe/Paris", 12),
    k("paris-tx-us", "Paris", "Texas", "US", "United States", 33.66, -95.56, "America/Chicago", 20),
    k("london-gb", "London", "England", "GB", "United Kingdom", 51.51, -0.13, "Europe/London", 11),
    k("london-on-ca", "London", "Ontario", "CA", "Canada", 42.98, -81.25, "America/Toronto", 4),
    k("springfield-il-us", "Springfield", "Illinois", "US", "United States", 39.8, -89.64, "America/Chicago", 11),
    k("springfield-mo-us", "Springfield", "Missouri", "US", "United States", 37.21, -93.29, "America/Chicago", 14),
    k("springfield-ma-us", "Springfield", "Massachusetts", "US", "United States", 42.1, -72.59, "America/New_York", 7),
    k("portland-or-us", "Portland", "Oregon", "US", "United States", 45.52, -122.68, "America/Los_Angeles", 13),
    k("portland-me-us", "Portland", "Maine", "US", "United States", 43.66, -70.26, "America/New_York", 5),
    k("perth-au", "Perth", "Western Australia", "AU", "Australia", -31.95, 115.86, "Australia/Perth", 29),
    k("perth-gb", "Perth", "Scotland", "GB", "United Kingdom", 56.4, -3.43, "Europe/London", 9),
    k("birmingham-gb", "Birmingham", "England", "GB", "United Kingdom", 52.49, -1.89, "Europe/London", 10),
    k("birmingham-al-us", "Birmingham", "Alabama", "US", "United States", 33.52, -86.8, "America/Chicago", 20),
    k("oslo-no", "Oslo", "Oslo", "NO", "Norway", 59.91, 10.75, "Europe/Oslo", 3),
    k("berlin-de", "Berlin", "Berlin", "DE", "Germany", 52.52, 13.4, "Europe/Berlin", 9),
    k("munich-de", "Munich", "Bavaria", "DE", "Germany", 48.14, 11.58, "Europe/Berlin", 10),
    k("hamburg-de", "Hamburg", "Hamburg", "DE", "Germany", 53.55, 9.99, "Europe/Berlin", 8),
    k("rome-it", "Rome", "Lazio", "IT", "Italy", 41.9, 12.5, "Europe/Rome", 16),
    k("milan-it", "Milan", "Lombardy", "IT", "Italy", 45.46, 9.19, "Europe/Rome", 14),
    k("tokyo-jp", "Tokyo", "Tokyo", "JP", "Japan", 35.68, 139.69, "Asia/Tokyo", 13),
    k("osaka-jp", "Osaka", "Osaka", "JP", "Japan", 34.69, 135.5, "Asia/Tokyo", 14),
    k("delhi-in", "Delhi", "Delhi", "IN", "India", 28.61, 77.21, "Asia/Kolkata", 29),
    k("mumbai-in", "Mumbai", "Maharashtra", "IN", "India", 19.08, 72.88, "Asia/Kolkata", 32),
    k("sydney-au", "Sydney", "New South Wales", "AU", "Australia", -33.87, 151.21, "Australia/Sydney", 25),
    k("toronto-ca", "Toronto", "Ontario", "CA", "Canada", 43.65, -79.38, "America/Toronto", 4),
    k("vancouver-ca", "Vancouver", "British Columbia", "CA", "Canada", 49.28, -123.12, "America/Vancouver", 10),
    k("chicago-us", "Chicago", "Illinois", "US", "United States", 41.88, -87.63, "America/Chicago", 8),
    k("denver-us", "Denver", "Colorado", "US", "United States", 39.74, -104.99, "America/Denver", 12),
    k("cairo-eg", "Cairo", "Cairo", "EG", "Egypt", 30.04, 31.24, "Africa/Cairo", 24),
    k("nairobi-ke", "Nairobi", "Nairobi", "KE", "Kenya", -1.29, 36.82, "Africa/Nairobi", 27),
    k("mexico-city-mx", "Mexico City", "Mexico City", "MX", "Mexico", 19.43, -99.13, "America/Mexico_City", 26),
    k("seoul-kr", "Seoul", "Seoul", "KR", "South Korea", 37.57, 126.98, "Asia/Seoul", 10),
    k("reykjavik-is", "Reykjavik", "Capital Region", "IS", "Iceland", 64.15, -21.94, "Atlantic/Reykjavik", 3),
];

/// The catalogue entry with this id. Panics on an unknown id (a template bug).
pub(crate) fn known(id: &str) -> &'static Known {
    CATALOGUE
        .iter()
        .find(|k| k.id == id)
        .unwrap_or_else(|| panic!("no catalogue place {id}"))
}

/// Whether another catalogue place has the same name.
pub(crate) fn shared_name(name: &str) -> bool {
    CATALOGUE.iter().filter(|k| k.name == name).count() > 1
}

/// The catalogue's places whose name no other place shares, in catalogue order: a goal can
/// name them by name alone.
pub fn unambiguous_places() -> impl Iterator<Item = &'static Known> {
    CATALOGUE.iter().filter(|k| !shared_name(k.name))
}

/// How a person names the place so that it is unambiguous: `Lisbon, Portugal`, or with the
/// region when the name is shared: `Springfield, Missouri, United States`.
pub fn display_name(place: &Place) -> String {
    if shared_name(&place.name) {
        format!("{}, {}, {}", place.name, place.region, place.country)
    } else {
        format!("{}, {}", place.name, place.country)
    }
}

/// The sky that goes with a chance of precipitation and a day's high.
pub fn condition_for(precipitation_probability: u8, high_c: i32) -> Condition {
    match precipitation_probability {
        0..=14 => Condition::Clear,
        15..=29 => Condition::PartlyCloudy,
        30..=44 => Condition::Cloudy,
        45..=59 => Condition::Drizzle,
        _ if high_c <= 1 => Condition::Snow,
        60..=84 => Condition::Rain,
        _ if high_c >= 15 => Condition::Thunderstorm,
        _ => Condition::Rain,
    }
}

/// Sets a day's chance of precipitation and the condition that goes with it.
pub fn set_rain(day: &mut Day, precipitation_probability: u8) {
    day.precipitation_probability = precipitation_probability;
    day.condition = condition_for(precipitation_probability, day.high_c);
}

/// Share (percent) of the way from the day's low to its high, hour by hour.
const SHAPE: [i32; 24] = [
    20, 15, 10, 6, 3, 0, 2, 10, 25, 40, 55, 70, 82, 92, 98, 100, 96, 88, 75, 62, 50, 40, 32, 26,
];

const POLLUTANTS: [Pollutant; 4] = [
    Pollutant::Pm25,
    Pollutant::Pm10,
    Pollutant::O3,
    Pollutant::No2,
];

fn gen_place(rng: &mut Rng, k: &Known, today: i64, hour: u32) -> Place {
    let daily: Vec<Day> = (0..7)
        .map(|i| {
            let high = k.base_high_c + rng.range(-4, 4) as i32;
            let low = high - rng.range(4, 10) as i32;
            let prob = 5 * rng.range(0, 19) as u8;
            Day {
                date: format_date(today + i),
                high_c: high,
                low_c: low,
                precipitation_probability: prob,
                condition: condition_for(prob, high),
            }
        })
        .collect();
    let today_d = &daily[0];
    let base_wind = rng.range(5, 35);
    let mut hourly = Hourly {
        temperature_c: vec![],
        precipitation_probability: vec![],
        wind_kph: vec![],
    };
    for (h, share) in SHAPE.iter().enumerate() {
        let span = today_d.high_c - today_d.low_c;
        hourly
            .temperature_c
            .push(today_d.low_c + (span * share + 50) / 100);
        let p = i64::from(today_d.precipitation_probability) + 5 * rng.range(-2, 2);
        hourly.precipitation_probability.push(p.clamp(0, 100) as u8);
        let gust = if (11..=17).contains(&h) { 4 } else { 0 };
        hourly
            .wind_kph
            .push((base_wind + gust + rng.range(-3, 3)).max(0) as u32);
    }
    let current = Current {
        temperature_c: hourly.temperature_c[hour as usize],
        humidity: rng.range(35, 95) as u8,
        wind_kph: hourly.wind_kph[hour as usize],
        condition: today_d.condition,
    };
    Place {
        id: k.id.into(),
        name: k.name.into(),
        region: k.region.into(),
        country_code: k.country_code.into(),
        country: k.country.into(),
        latitude: k.latitude,
        longitude: k.longitude,
        timezone: k.timezone.into(),
        current,
        daily,
        hourly: Some(hourly),
        air_quality: Some(AirQuality {
            aqi: rng.range(8, 160) as u32,
            dominant_pollutant: *rng.pick(&POLLUTANTS),
        }),
        alerts: vec![],
    }
}

fn event_title(event: AlertType) -> &'static str {
    match event {
        AlertType::Thunderstorm => "Severe Thunderstorm Warning",
        AlertType::Flood => "Flood Watch",
        AlertType::Heat => "Heat Advisory",
        AlertType::Frost => "Frost Advisory",
        AlertType::Wind => "Wind Advisory",
        AlertType::Snow => "Winter Storm Warning",
    }
}

/// The alert types that fit a place's climate: heat only where March is warm, frost and snow
/// only where it is cool; every type for a place that is not in [`CATALOGUE`].
pub fn plausible_alerts(place_id: &str) -> Vec<AlertType> {
    let Some(k) = CATALOGUE.iter().find(|k| k.id == place_id) else {
        return AlertType::ALL.to_vec();
    };
    AlertType::ALL
        .into_iter()
        .filter(|t| match t {
            AlertType::Heat => k.base_high_c >= 20,
            AlertType::Frost | AlertType::Snow => k.base_high_c <= 12,
            _ => true,
        })
        .collect()
}

/// Puts an alert of `event` in force at the place of `id`, from this morning until
/// tomorrow evening. Panics if the place is not in the seed.
pub fn add_alert(seed: &mut Seed, rng: &mut Rng, id: &str, event: AlertType) {
    let today = parse_date(seed.today()).expect("valid seed date");
    let n = seed.places.iter().map(|p| p.alerts.len()).sum::<usize>() + 1;
    let severity = *rng.pick(&[Severity::Minor, Severity::Moderate, Severity::Severe]);
    let place = seed
        .place_mut(id)
        .unwrap_or_else(|| panic!("no place {id} in the seed"));
    let code = place.country_code.clone();
    place.alerts.push(Alert {
        id: format!("{code}-{:04}", 1000 + 37 * n),
        event,
        severity,
        headline: format!(
            "{} for {} until {} 18:00",
            event_title(event),
            place.name,
            format_date(today + 1)
        ),
        onset: format!("{}T{:02}:00", format_date(today), rng.range(0, 6)),
        expires: format!("{}T18:00", format_date(today + 1)),
    });
}

/// A world of the catalogue places `ids` plus `extra` others drawn at random, with weather
/// generated from `rng`; `now` is a morning in March 2026. Places are sorted by id. Panics on
/// an id that is not in [`CATALOGUE`].
pub fn world_with(rng: &mut Rng, ids: &[&str], extra: usize) -> Seed {
    let today = parse_date("2026-03-02").expect("date") + rng.range(0, 25);
    let hour = rng.range(7, 10) as u32;
    let others: Vec<&Known> = CATALOGUE.iter().filter(|k| !ids.contains(&k.id)).collect();
    let mut chosen: Vec<&Known> = ids.iter().map(|id| known(id)).collect();
    chosen.extend(rng.sample(&others, extra.min(others.len())));
    chosen.sort_by_key(|k| k.id);
    let places = chosen
        .into_iter()
        .map(|k| gen_place(rng, k, today, hour))
        .collect();
    Seed {
        now: format!("{}T{hour:02}:00", format_date(today)),
        places,
        ..Seed::default()
    }
}

/// A small sample world: six random places, one of them with an alert in force, metric
/// units, nothing saved.
pub fn sample_world(rng: &mut Rng) -> Seed {
    let mut seed = world_with(rng, &[], 6);
    let id = rng.pick(&seed.places).id.clone();
    let event = *rng.pick(&plausible_alerts(&id));
    add_alert(&mut seed, rng, &id, event);
    seed
}
