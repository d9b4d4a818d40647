//! Behaviour a user of the weather server would notice.

use mcpbench_server_weather::{
    AlertType, Atom, Channel, SavedLocation, Seed, Units, Weather, sample_world, to_fahrenheit,
    to_mph, world_with,
};
use mcpbench_sim::{ErrorKind, Rng, Server, Simulated};
use serde_json::{Value, json};

fn world() -> Seed {
    world_with(
        &mut Rng::new(11, 0),
        &[
            "springfield-il-us",
            "springfield-mo-us",
            "lisbon-pt",
            "oslo-no",
        ],
        0,
    )
}

fn server(seed: &Seed) -> Weather {
    Weather::from_seed(seed).expect("valid seed")
}

fn call(w: &mut Weather, tool: &str, args: Value) -> Result<Value, mcpbench_sim::ToolError> {
    Server::call(w, tool, &args)
}

#[test]
fn ambiguous_names_are_refused_with_candidates_and_qualified_names_resolve() {
    let mut w = server(&world());
    let err = call(
        &mut w,
        "get_current_weather",
        json!({ "location": "Springfield" }),
    )
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidArguments);
    assert!(err.message.contains("ambiguous"), "{err}");
    assert!(
        err.message.contains("springfield-il-us") && err.message.contains("springfield-mo-us"),
        "{err}"
    );
    for location in [
        "Springfield, Missouri",
        "springfield, missouri, united states",
        "springfield-mo-us",
    ] {
        let out = call(
            &mut w,
            "get_current_weather",
            json!({ "location": location }),
        )
        .unwrap();
        assert_eq!(out["location"]["id"], "springfield-mo-us", "{location}");
    }
    let err = call(
        &mut w,
        "get_forecast",
        json!({ "location": "Springfield, Texas" }),
    )
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::NotFound);
    let found = call(&mut w, "geocode", json!({ "name": "spring" })).unwrap();
    assert_eq!(found["total"], 2);
    let err = call(&mut w, "get_forecast", json!({ "location": "Atlantis" })).unwrap_err();
    assert_eq!(err.kind, ErrorKind::NotFound);
}

#[test]
fn imperial_units_convert_with_fixed_rounding() {
    assert_eq!(
        (
            to_fahrenheit(17),
            to_fahrenheit(-3),
            to_fahrenheit(0),
            to_fahrenheit(-40)
        ),
        (63, 27, 32, -40)
    );
    assert_eq!((to_mph(19), to_mph(0), to_mph(100)), (12, 0, 62));
    let seed = world();
    let lisbon = seed.place("lisbon-pt").unwrap().clone();
    let mut w = server(&seed);
    let metric = call(
        &mut w,
        "get_forecast",
        json!({ "location": "Lisbon", "days": 2 }),
    )
    .unwrap();
    assert_eq!(metric["daily"][1]["high"], lisbon.daily[1].high_c);
    assert_eq!(metric["daily"].as_array().unwrap().len(), 2);
    call(&mut w, "set_units", json!({ "units": "imperial" })).unwrap();
    assert!(w.holds(&Atom::UnitsAre {
        units: Units::Imperial
    }));
    let imperial = call(
        &mut w,
        "get_forecast",
        json!({ "location": "Lisbon", "days": 2 }),
    )
    .unwrap();
    assert_eq!(
        imperial["daily"][1]["high"],
        to_fahrenheit(lisbon.daily[1].high_c)
    );
    assert_eq!(imperial["units"]["temperature"], "°F");
    let now = call(
        &mut w,
        "get_current_weather",
        json!({ "location": "Lisbon", "units": "metric" }),
    )
    .unwrap();
    assert_eq!(
        now["wind_speed"], lisbon.current.wind_kph,
        "a call's units override the preference"
    );
}

#[test]
fn the_schema_rejects_bad_arguments_before_anything_runs() {
    let mut w = server(&world());
    let before = Simulated::snapshot(&w);
    let bad = [
        ("get_forecast", json!({ "location": "Lisbon", "days": 8 })),
        ("get_forecast", json!({ "city": "Lisbon" })),
        (
            "subscribe_alerts",
            json!({ "location": "Lisbon", "alert_types": ["tornado"], "channel": "email" }),
        ),
        (
            "subscribe_alerts",
            json!({ "location": "Lisbon", "alert_types": [], "channel": "email" }),
        ),
        (
            "subscribe_alerts",
            json!({ "location": "Lisbon", "alert_types": ["flood"], "channel": "pager" }),
        ),
        ("set_units", json!({ "units": "kelvin" })),
        (
            "reverse_geocode",
            json!({ "latitude": 95.0, "longitude": 0.0 }),
        ),
        (
            "save_location",
            json!({ "location": "Lisbon", "label": "" }),
        ),
    ];
    for (tool, args) in bad {
        let err = call(&mut w, tool, args.clone()).unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidArguments, "{tool} {args}");
    }
    assert_eq!(Simulated::snapshot(&w), before);
}

#[test]
fn saved_locations_refuse_clashes_and_predicates_follow_them() {
    let mut seed = world();
    seed.saved_locations.push(SavedLocation {
        label: "Home".into(),
        place: "oslo-no".into(),
    });
    let mut w = server(&seed);
    let err = call(
        &mut w,
        "save_location",
        json!({ "location": "Lisbon", "label": "home" }),
    )
    .unwrap_err();
    assert_eq!(
        err.kind,
        ErrorKind::Conflict,
        "labels clash case-insensitively"
    );
    let err = call(
        &mut w,
        "save_location",
        json!({ "location": "Oslo", "label": "Cabin" }),
    )
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Conflict, "a place is saved once");
    call(
        &mut w,
        "save_location",
        json!({ "location": "Lisbon, Portugal", "label": "Work" }),
    )
    .unwrap();
    let saved_work = |label: &str| Atom::LocationSaved {
        place: "lisbon-pt".into(),
        label: Some(label.into()),
    };
    assert!(w.holds(&saved_work("Work")));
    assert!(!w.holds(&saved_work("Worl")));
    assert!(w.holds(&Atom::SavedCount { count: 2 }));
    let list = call(&mut w, "list_saved_locations", json!({})).unwrap();
    let labels: Vec<&str> = list["saved_locations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["Home", "Work"]);
    assert_eq!(
        call(&mut w, "remove_saved_location", json!({ "label": "Gym" }))
            .unwrap_err()
            .kind,
        ErrorKind::NotFound
    );
    call(&mut w, "remove_saved_location", json!({ "label": "Home" })).unwrap();
    assert!(w.holds(&Atom::NotSaved {
        place: "oslo-no".into()
    }));
}

#[test]
fn subscriptions_match_the_exact_set_of_types() {
    let mut w = server(&world());
    let args = json!({ "location": "oslo-no", "alert_types": ["wind", "frost", "wind"], "channel": "sms" });
    let out = call(&mut w, "subscribe_alerts", args.clone()).unwrap();
    assert_eq!(out["subscription"]["id"], "sub-1");
    assert_eq!(out["subscription"]["alert_types"], json!(["frost", "wind"]));
    assert_eq!(
        call(&mut w, "subscribe_alerts", args).unwrap_err().kind,
        ErrorKind::Conflict
    );
    let sub = |types: Vec<AlertType>| Atom::Subscribed {
        place: "oslo-no".into(),
        alert_types: types,
        channel: Some(Channel::Sms),
    };
    assert!(w.holds(&sub(vec![AlertType::Wind, AlertType::Frost])));
    assert!(!w.holds(&sub(vec![AlertType::Wind])));
    assert!(!w.holds(&Atom::NotSubscribed {
        place: "oslo-no".into()
    }));
    call(
        &mut w,
        "unsubscribe_alerts",
        json!({ "subscription_id": "sub-1" }),
    )
    .unwrap();
    assert!(w.holds(&Atom::NotSubscribed {
        place: "oslo-no".into()
    }));
}

#[test]
fn coordinates_snap_to_the_nearest_place_or_fail() {
    let mut w = server(&world());
    let out = call(
        &mut w,
        "reverse_geocode",
        json!({ "latitude": 38.75, "longitude": -9.1 }),
    )
    .unwrap();
    assert_eq!(out["id"], "lisbon-pt");
    assert!(out["distance_km"].as_f64().unwrap() < 10.0);
    let fc = call(
        &mut w,
        "get_forecast_by_coordinates",
        json!({ "latitude": 59.9, "longitude": 10.7, "days": 1 }),
    )
    .unwrap();
    assert_eq!(fc["location"]["id"], "oslo-no");
    let err = call(
        &mut w,
        "reverse_geocode",
        json!({ "latitude": 0.0, "longitude": 0.0 }),
    )
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::NotFound);
}

#[test]
fn worlds_and_answers_are_deterministic() {
    let a = sample_world(&mut Rng::new(5, 1));
    assert_eq!(a, sample_world(&mut Rng::new(5, 1)));
    assert_ne!(a, sample_world(&mut Rng::new(6, 1)));
    let id = a.places[0].id.clone();
    let run = || {
        let mut w = server(&a);
        let out: Vec<String> = [
            "get_forecast",
            "get_hourly_forecast",
            "get_alerts",
            "get_air_quality",
            "get_current_weather",
        ]
        .iter()
        .map(|t| {
            call(&mut w, t, json!({ "location": id }))
                .unwrap()
                .to_string()
        })
        .collect();
        (out, Simulated::snapshot(&w).to_string())
    };
    assert_eq!(run(), run());
}

#[test]
fn seeds_with_dangling_or_broken_data_are_refused() {
    let mut dangling = world();
    dangling.saved_locations.push(SavedLocation {
        label: "Home".into(),
        place: "atlantis-xx".into(),
    });
    assert!(Weather::from_seed(&dangling).is_err());
    let mut gap = world();
    gap.places[0].daily.remove(1);
    assert!(Weather::from_seed(&gap).is_err());
    let mut duplicate = world();
    let copy = duplicate.places[0].clone();
    duplicate.places.push(copy);
    assert!(Weather::from_seed(&duplicate).is_err());
    let mut clock = world();
    clock.now = "2026-03-02T09:30".into();
    assert!(Weather::from_seed(&clock).is_err());
    assert!(Weather::from_seed(&Seed::default()).is_ok());
}
