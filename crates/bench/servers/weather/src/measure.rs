//! Measures: unit conversions with fixed rounding, AQI categories, and the distance used to
//! snap coordinates to a place. Plain arithmetic only, so every platform gives the same bits.

use crate::state::Units;

/// Cosine by its Taylor series: plain arithmetic, so the same bits on every platform.
fn cos(x: f64) -> f64 {
    let (mut term, mut sum) = (1.0f64, 1.0f64);
    for k in 1..20 {
        let k = f64::from(k);
        term *= -x * x / ((2.0 * k - 1.0) * (2.0 * k));
        sum += term;
    }
    sum
}

/// Equirectangular distance in km on a 6371 km sphere; fine at the few tens of km it is used for.
pub fn distance_km(lat1: f64, lon1: f64, lat2: f64, lon2: f64) -> f64 {
    let rad = std::f64::consts::PI / 180.0;
    let mut dlon = lon2 - lon1;
    if dlon > 180.0 {
        dlon -= 360.0;
    } else if dlon < -180.0 {
        dlon += 360.0;
    }
    let x = dlon * rad * cos((lat1 + lat2) / 2.0 * rad);
    let y = (lat2 - lat1) * rad;
    6371.0 * (x * x + y * y).sqrt()
}

/// Whole degrees Fahrenheit, rounded half away from zero.
pub fn to_fahrenheit(celsius: i32) -> i32 {
    (f64::from(celsius) * 1.8 + 32.0).round() as i32
}

/// Whole miles per hour, rounded half away from zero.
pub fn to_mph(kph: u32) -> u32 {
    (f64::from(kph) / 1.609_344).round() as u32
}

/// A temperature in the given units.
pub fn temperature(celsius: i32, units: Units) -> i32 {
    match units {
        Units::Metric => celsius,
        Units::Imperial => to_fahrenheit(celsius),
    }
}

/// A wind speed in the given units.
pub fn wind(kph: u32, units: Units) -> u32 {
    match units {
        Units::Metric => kph,
        Units::Imperial => to_mph(kph),
    }
}

/// The US EPA category of an AQI value.
pub fn aqi_category(aqi: u32) -> &'static str {
    match aqi {
        0..=50 => "Good",
        51..=100 => "Moderate",
        101..=150 => "Unhealthy for Sensitive Groups",
        151..=200 => "Unhealthy",
        201..=300 => "Very Unhealthy",
        _ => "Hazardous",
    }
}
