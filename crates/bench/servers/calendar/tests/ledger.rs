//! The calendar's running total: every write moves it by exactly what it stores (debug builds
//! audit it against a fresh measure after each call through `Server::call`), and the bound
//! holds to the byte.

use mcpbench_server_calendar::{CALENDAR, Calendar, sample_seed};
use mcpbench_sim::{ErrorKind, Server, Simulated, ToolError, Usage, footprint};
use serde_json::{Value, json};

/// Text with every kind of character JSON escapes or encodes in more than one byte.
const TRICKY: &str = "Q3 \"budget\" \\ review\nroom\t\u{1}\u{7f} — café 東京";

fn call(cal: &mut Calendar, tool: &str, args: Value) -> Result<Value, ToolError> {
    Server::call(cal, tool, &args)
}

fn calendar() -> Calendar {
    Calendar::from_seed(&sample_seed()).expect("the sample seed loads")
}

/// What the total moved by since `before`: (records, bytes).
fn moved(cal: &Calendar, before: Usage) -> (isize, isize) {
    let after = cal.held();
    (
        after.records as isize - before.records as isize,
        after.bytes as isize - before.bytes as isize,
    )
}

fn fp(s: &str) -> isize {
    footprint(s) as isize
}

#[test]
fn every_write_moves_the_total_by_what_it_stores() {
    let mut cal = calendar();
    let before = cal.held();
    let r = call(
        &mut cal,
        "create_event",
        json!({
            "summary": TRICKY, "start": "2026-03-05T10:00", "end": "2026-03-05T11:00",
            "location": TRICKY, "description": TRICKY,
            "attendees": [{ "email": "maria.lopez@northwind.io" }],
        }),
    )
    .unwrap();
    let id = r["id"].as_str().unwrap().to_string();
    assert_eq!(id, "evt-9001");
    assert_eq!(moved(&cal, before).0, 1);
    let before = cal.held();
    call(
        &mut cal,
        "quick_add_event",
        json!({ "text": "Coffee \"chat\" on 2026-03-06 at 09:30 for 30 minutes" }),
    )
    .unwrap();
    let coffee = moved(&cal, before);

    // An edit to escaped text moves the total by the escaped lengths, not the raw ones.
    let before = cal.held();
    call(
        &mut cal,
        "update_event",
        json!({ "eventId": "evt-1001", "summary": TRICKY }),
    )
    .unwrap();
    assert_eq!(moved(&cal, before), (0, fp(TRICKY) - fp("Standup")));
    assert!(
        fp(TRICKY) > TRICKY.len() as isize + 2,
        "escapes take more bytes"
    );
    // An edit that shrinks: the description and the location, TRICKY both, become "x" and "".
    let before = cal.held();
    call(
        &mut cal,
        "update_event",
        json!({ "eventId": id, "description": "x", "location": "" }),
    )
    .unwrap();
    assert_eq!(moved(&cal, before), (0, fp("x") + fp("") - 2 * fp(TRICKY)));
    // A guest list replaced: the kept guest keeps her answer.
    let before = cal.held();
    call(
        &mut cal,
        "update_event",
        json!({ "eventId": id, "attendees": [
            { "email": "maria.lopez@northwind.io" }, { "email": "tom.becker@northwind.io" },
        ] }),
    )
    .unwrap();
    let guest = json!({ "email": "tom.becker@northwind.io", "responseStatus": "needsAction" });
    assert_eq!(moved(&cal, before), (0, footprint(&guest) as isize + 1));
    // An answer: `needsAction` to `accepted` is three bytes shorter.
    let before = cal.held();
    call(
        &mut cal,
        "respond_to_event",
        json!({ "eventId": "evt-1004", "response": "accepted" }),
    )
    .unwrap();
    assert_eq!(moved(&cal, before), (0, -3));
    // A delete frees exactly what creating the event took.
    let before = cal.held();
    call(&mut cal, "delete_event", json!({ "eventId": "evt-9002" })).unwrap();
    assert_eq!(moved(&cal, before), (-coffee.0, -coffee.1));

    // Refused for other reasons: nothing moves.
    let before = cal.held();
    for (tool, args) in [
        (
            "update_event",
            json!({ "calendarId": "company-holidays", "eventId": "evt-1005", "summary": "x" }),
        ),
        (
            "respond_to_event",
            json!({ "eventId": "evt-1001", "response": "declined" }),
        ),
        ("delete_event", json!({ "eventId": "evt-9002" })),
        (
            "create_event",
            json!({ "calendarId": "room-atlas", "summary": "x",
                    "start": "2026-03-04T15:30", "end": "2026-03-04T16:30" }),
        ),
    ] {
        assert!(call(&mut cal, tool, args).is_err(), "{tool}");
    }
    assert_eq!(cal.held(), before);
    assert_eq!(Simulated::audit(&cal), Ok(()));
    assert_eq!(
        Simulated::audit(&cal.clone()),
        Ok(()),
        "a copy keeps its total"
    );
}

/// A description whose JSON string content takes exactly `bytes` bytes (`\u0001` takes six).
fn text(bytes: usize) -> String {
    "\u{1}".repeat(bytes / 6) + &"x".repeat(bytes % 6)
}

fn create(cal: &mut Calendar, summary: &str, bytes: usize) -> Result<Value, ToolError> {
    let args = json!({
        "summary": summary, "start": "2026-04-01T09:00", "end": "2026-04-01T10:00",
        "description": text(bytes),
    });
    call(cal, "create_event", args)
}

fn room(cal: &Calendar) -> usize {
    CALENDAR.bytes - cal.held().bytes
}

/// Creates events until exactly `left` bytes of the calendar are free.
fn fill(cal: &mut Calendar, left: usize) {
    let mut probe = cal.clone();
    create(&mut probe, "filler", 0).unwrap();
    let empty = probe.held().bytes - cal.held().bytes;
    while room(cal) > left {
        let gap = room(cal) - left;
        assert!(gap >= empty, "{gap} bytes are too few for an event");
        // The last event closes the gap; those before it leave room for one more.
        let bytes = if gap - empty <= 29_000 {
            gap - empty
        } else {
            (gap - 2 * empty).min(29_000)
        };
        create(cal, "filler", bytes).unwrap();
    }
    assert_eq!(room(cal), left);
}

fn full(e: ToolError) {
    assert_eq!(e.kind, ErrorKind::FailedPrecondition);
    assert_eq!(
        e.message,
        "the calendar is full: a run's calendar holds at most 2 MiB in all; nothing was changed"
    );
}

#[test]
fn an_event_that_fits_exactly_is_admitted_and_one_a_few_bytes_larger_is_not() {
    let mut cal = calendar();
    fill(&mut cal, 50_000);
    // Its exact footprint (the event and its id), measured on a copy.
    let mut probe = cal.clone();
    create(&mut probe, TRICKY, 100).unwrap();
    let exact = probe.held().bytes - cal.held().bytes;
    fill(&mut cal, exact);

    let (before, snapshot) = (cal.held(), Simulated::snapshot(&cal));
    full(create(&mut cal, TRICKY, 103).unwrap_err());
    assert_eq!(cal.held(), before, "a refusal moves nothing");
    assert_eq!(
        Simulated::snapshot(&cal),
        snapshot,
        "a refusal changes nothing"
    );
    // The old count, with its guessed id, refused this one.
    create(&mut cal, TRICKY, 100).unwrap();
    assert_eq!(cal.held().bytes, CALENDAR.bytes, "exactly full");

    // Full to the byte: an edit that grows is refused, one that shrinks passes.
    let grow = json!({ "eventId": "evt-1001", "summary": "Standup!" });
    let regrow = json!({ "eventId": "evt-1001", "summary": "Stand!!" });
    let snapshot = Simulated::snapshot(&cal);
    full(call(&mut cal, "update_event", grow.clone()).unwrap_err());
    assert_eq!(Simulated::snapshot(&cal), snapshot);
    full(
        call(
            &mut cal,
            "quick_add_event",
            json!({ "text": "x on 2026-03-09 at 10:00" }),
        )
        .unwrap_err(),
    );
    call(
        &mut cal,
        "update_event",
        json!({ "eventId": "evt-1001", "summary": "Stand" }),
    )
    .unwrap();
    assert_eq!(room(&cal), 2);
    full(call(&mut cal, "update_event", grow).unwrap_err());
    call(&mut cal, "update_event", regrow).unwrap();
    assert_eq!(room(&cal), 0);
    // An answer that shrinks passes however full; a delete frees room.
    call(
        &mut cal,
        "respond_to_event",
        json!({ "eventId": "evt-1004", "response": "declined" }),
    )
    .unwrap();
    call(&mut cal, "delete_event", json!({ "eventId": "evt-9001" })).unwrap();
    call(
        &mut cal,
        "quick_add_event",
        json!({ "text": "x on 2026-03-09 at 10:00" }),
    )
    .unwrap();
    assert_eq!(Simulated::audit(&cal), Ok(()));
}

#[test]
fn an_edit_that_fits_exactly_is_admitted() {
    let mut cal = calendar();
    // Standup to TRICKY grows evt-1001 by the escaped difference.
    let exact = (fp(TRICKY) - fp("Standup")) as usize;
    fill(&mut cal, exact - 1);
    let args = json!({ "eventId": "evt-1001", "summary": TRICKY });
    let snapshot = Simulated::snapshot(&cal);
    full(call(&mut cal, "update_event", args.clone()).unwrap_err());
    assert_eq!(Simulated::snapshot(&cal), snapshot);
    // Accepting evt-1004 frees three bytes: room enough.
    call(
        &mut cal,
        "respond_to_event",
        json!({ "eventId": "evt-1004", "response": "accepted" }),
    )
    .unwrap();
    call(&mut cal, "update_event", args).unwrap();
    assert_eq!(room(&cal), 2);
    assert_eq!(Simulated::audit(&cal), Ok(()));
}
