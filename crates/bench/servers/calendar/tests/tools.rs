//! Behaviour a user of the calendar would notice.

use mcpbench_server_calendar::{Atom, Calendar, Response, Seed, SeedEvent, sample_seed};
use mcpbench_sim::{ErrorKind, Server, Simulated, ToolError};
use serde_json::{Value, json};

fn calendar() -> Calendar {
    Calendar::from_seed(&sample_seed()).expect("a valid seed")
}

fn call(cal: &mut Calendar, tool: &str, args: Value) -> Result<Value, ToolError> {
    Server::call(cal, tool, &args)
}

#[test]
fn free_slots_respect_events_and_working_hours() {
    let mut cal = calendar();
    let r = call(
        &mut cal,
        "find_free_slots",
        json!({ "date": "2026-03-04", "durationMinutes": 30 }),
    )
    .unwrap();
    let slots: Vec<(&str, &str)> = r["freeSlots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["start"].as_str().unwrap(), s["end"].as_str().unwrap()))
        .collect();
    assert_eq!(
        slots,
        [
            ("09:15", "10:00"),
            ("11:00", "12:30"),
            ("13:30", "14:00"),
            ("14:30", "17:00")
        ]
    );
    assert_eq!(r["weekday"], "Wednesday");
    let r = call(
        &mut cal,
        "find_free_slots",
        json!({ "date": "2026-03-04", "durationMinutes": 60, "workdayStart": "13:00" }),
    )
    .unwrap();
    assert_eq!(r["freeSlots"][0]["start"], "14:30");
}

#[test]
fn declined_events_do_not_block_time() {
    let mut cal = calendar();
    call(
        &mut cal,
        "respond_to_event",
        json!({ "eventId": "evt-1004", "response": "declined" }),
    )
    .unwrap();
    assert!(cal.holds(&Atom::AttendeeResponse {
        event_id: "evt-1004".into(),
        email: "alex@northwind.io".into(),
        response: Response::Declined
    }));
    let r = call(
        &mut cal,
        "find_free_slots",
        json!({ "date": "2026-03-04", "durationMinutes": 60, "workdayStart": "13:00" }),
    )
    .unwrap();
    assert_eq!(r["freeSlots"][0]["start"], "13:30");
    let e = call(
        &mut cal,
        "respond_to_event",
        json!({ "eventId": "evt-1002", "response": "accepted" }),
    )
    .unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::FailedPrecondition,
        "not a guest of that one"
    );
}

#[test]
fn rooms_refuse_double_booking_but_primary_allows_it() {
    let mut cal = calendar();
    let overlap = json!({ "calendarId": "room-atlas", "summary": "Retro", "start": "2026-03-04T15:30", "end": "2026-03-04T16:30" });
    let before = Simulated::snapshot(&cal);
    let e = call(&mut cal, "create_event", overlap).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Conflict);
    assert!(e.message.contains("evt-1006"), "{e}");
    assert_eq!(Simulated::snapshot(&cal), before);
    let adjacent = json!({ "calendarId": "room-atlas", "summary": "Retro", "start": "2026-03-04T16:00", "end": "2026-03-04T17:00" });
    let r = call(&mut cal, "create_event", adjacent).unwrap();
    assert_eq!(r["id"], "evt-9001", "touching events do not overlap");
    let r = call(
        &mut cal,
        "create_event",
        json!({ "summary": "Retro", "start": "2026-03-04T10:00", "end": "2026-03-04T10:30" }),
    );
    assert!(r.is_ok(), "primary allows double booking");
}

#[test]
fn read_only_and_unknown_calendars_are_refused() {
    let mut cal = calendar();
    let e = call(
        &mut cal,
        "delete_event",
        json!({ "calendarId": "company-holidays", "eventId": "evt-1005" }),
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::PermissionDenied);
    let e = call(&mut cal, "list_events", json!({ "calendarId": "team" })).unwrap_err();
    assert_eq!(e.kind, ErrorKind::NotFound);
    assert!(
        e.message.contains("team-northwind"),
        "the error lists the calendars: {e}"
    );
    let e = call(&mut cal, "get_event", json!({ "eventId": "evt-1005" })).unwrap_err();
    assert!(
        e.message.contains("company-holidays"),
        "says where the event is: {e}"
    );
}

#[test]
fn updating_guests_keeps_their_answers() {
    let mut cal = calendar();
    let guests = json!([{ "email": "maria.lopez@northwind.io" }, { "email": "tom.becker@northwind.io" }, { "email": "li@northwind.io" }]);
    call(
        &mut cal,
        "update_event",
        json!({ "eventId": "evt-1002", "attendees": guests }),
    )
    .unwrap();
    assert!(cal.holds(&Atom::AttendeeResponse {
        event_id: "evt-1002".into(),
        email: "maria.lopez@northwind.io".into(),
        response: Response::Accepted
    }));
    assert!(cal.holds(&Atom::EventAttendees {
        event_id: "evt-1002".into(),
        attendees: vec![
            "LI@northwind.io".into(),
            "tom.becker@northwind.io".into(),
            "maria.lopez@northwind.io".into()
        ],
    }));
    let e = call(
        &mut cal,
        "update_event",
        json!({ "eventId": "evt-1002", "end": "2026-03-04T09:00" }),
    )
    .unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::InvalidArguments,
        "would end before it starts"
    );
}

#[test]
fn quick_add_reads_one_line() {
    let mut cal = calendar();
    let r = call(
        &mut cal,
        "quick_add_event",
        json!({ "text": "Catch up on hiring on 2026-03-05 at 16:15 for 45 minutes" }),
    )
    .unwrap();
    assert_eq!(
        (r["summary"].as_str(), r["end"].as_str()),
        (Some("Catch up on hiring"), Some("2026-03-05T17:00"))
    );
    assert!(cal.holds(&Atom::EventExists {
        title: "Catch up on hiring".into(),
        start: "2026-03-05T16:15".into(),
        end: None,
        calendar: None,
        attendees: None,
        location: None,
    }));
    let e = call(
        &mut cal,
        "quick_add_event",
        json!({ "text": "Lunch tomorrow at noon" }),
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArguments);
}

#[test]
fn moving_an_event_frees_its_old_time() {
    let mut cal = calendar();
    let at_ten = Atom::NoEventAt {
        time: "2026-03-04T10:30".into(),
        calendar: Some("primary".into()),
    };
    assert!(!cal.holds(&at_ten));
    call(
        &mut cal,
        "update_event",
        json!({ "eventId": "evt-1002", "start": "2026-03-04T16:00", "end": "2026-03-04T17:00" }),
    )
    .unwrap();
    assert!(cal.holds(&at_ten));
    call(&mut cal, "delete_event", json!({ "eventId": "evt-1002" })).unwrap();
    assert!(cal.holds(&Atom::EventAbsent {
        id: "evt-1002".into()
    }));
}

#[test]
fn schemas_reject_bad_arguments() {
    let mut cal = calendar();
    for (tool, args) in [
        (
            "create_event",
            json!({ "summary": "x", "start": "2026-03-04 10:00", "end": "2026-03-04T11:00" }),
        ),
        (
            "create_event",
            json!({ "summary": "x", "start": "2026-03-04T10:00", "end": "2026-03-04T11:00", "colorId": 3 }),
        ),
        (
            "respond_to_event",
            json!({ "eventId": "evt-1004", "response": "maybe" }),
        ),
        (
            "find_free_slots",
            json!({ "date": "2026-03-04", "durationMinutes": 0 }),
        ),
        (
            "create_event",
            json!({ "summary": "x", "start": "2026-02-30T10:00", "end": "2026-03-04T11:00" }),
        ),
    ] {
        let e = call(&mut cal, tool, args.clone()).unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidArguments, "{tool} {args}");
    }
}

#[test]
fn same_calls_give_the_same_bytes() {
    let run = || {
        let mut cal = calendar();
        let a = call(
            &mut cal,
            "create_event",
            json!({ "summary": "A", "start": "2026-03-06T10:00", "end": "2026-03-06T11:00" }),
        );
        let b = call(
            &mut cal,
            "get_freebusy",
            json!({ "calendarIds": ["primary", "room-atlas"], "timeMin": "2026-03-04T00:00", "timeMax": "2026-03-07T00:00" }),
        );
        (format!("{a:?}{b:?}"), Simulated::snapshot(&cal).to_string())
    };
    assert_eq!(run(), run());
}

#[test]
fn bad_seeds_are_refused() {
    let mut seed = sample_seed();
    seed.events.push(SeedEvent::new(
        "evt-1001",
        "Twice",
        "2026-03-05T10:00",
        "2026-03-05T11:00",
    ));
    assert!(Calendar::from_seed(&seed).is_err(), "duplicate id");
    let mut seed = sample_seed();
    seed.events[0].calendar = "nowhere".into();
    assert!(Calendar::from_seed(&seed).is_err(), "dangling calendar");
    let seed = Seed {
        events: vec![SeedEvent::new(
            "e",
            "Backwards",
            "2026-03-05T11:00",
            "2026-03-05T10:00",
        )],
        ..Seed::default()
    };
    assert!(Calendar::from_seed(&seed).is_err(), "ends before it starts");
}
