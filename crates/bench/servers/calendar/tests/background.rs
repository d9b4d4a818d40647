//! A calendar at a real scale: months of meetings a generated task gives it, walked page by
//! page, and never in the way of what a template asks.

use mcpbench_server_calendar::{Background, Calendar, Seed, sample_seed};
use mcpbench_sim::{Rng, Server, Simulated, Step};
use serde_json::{Value, json};
use std::collections::BTreeSet;

fn seed(events: u32) -> Seed {
    Seed {
        background: Some(Background { seed: 7, events }),
        ..sample_seed()
    }
}

fn call(c: &mut Calendar, tool: &str, args: Value) -> Value {
    Server::call(c, tool, &args).expect("the call succeeds")
}

/// Every event of `calendar` that `list_events` shows with `args`, page by page.
fn walk(c: &mut Calendar, mut args: Value) -> Vec<Value> {
    let mut seen = Vec::new();
    loop {
        let page = call(c, "list_events", args.clone());
        seen.extend(page["events"].as_array().unwrap().iter().cloned());
        match page["nextPageToken"].as_str() {
            Some(t) => args["pageToken"] = json!(t),
            None => return seen,
        }
    }
}

fn calendar_ids(c: &mut Calendar) -> Vec<String> {
    call(c, "list_calendars", json!({}))
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_background_holds_as_many_events_as_asked_the_same_each_time() {
    let own = sample_seed();
    let mut c = Calendar::from_seed(&seed(300)).unwrap();
    let ids = calendar_ids(&mut c);
    // Colleagues' calendars beside the seed's, read-only.
    assert!(ids.len() > own.calendars.len() + 1, "{ids:?}");
    let mut all = Vec::new();
    for id in &ids {
        all.extend(walk(&mut c, json!({ "calendarId": id, "maxResults": 100 })));
    }
    let distinct: BTreeSet<&str> = all.iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(distinct.len(), own.events.len() + 300);
    assert_eq!(all.len(), distinct.len());
    for e in &own.events {
        let got = call(
            &mut c,
            "get_event",
            json!({ "calendarId": e.calendar, "eventId": e.id }),
        );
        assert_eq!(got["summary"], e.title.as_str(), "{}", e.id);
    }
    let again = Calendar::from_seed(&seed(300)).unwrap();
    assert_eq!(Simulated::snapshot(&again), Simulated::snapshot(&c));
    let other = Calendar::from_seed(&Seed {
        background: Some(Background {
            seed: 8,
            events: 300,
        }),
        ..sample_seed()
    })
    .unwrap();
    assert_ne!(Simulated::snapshot(&other), Simulated::snapshot(&c));
}

#[test]
fn background_ids_look_like_the_tasks_own_and_sit_among_them() {
    // The task's own ids spread as a generated task's are (3000, 3037, ...).
    let mut own = sample_seed();
    for (n, e) in own.events.iter_mut().enumerate() {
        e.id = format!("evt-{}", 3000 + 37 * n);
    }
    let mut c = Calendar::from_seed(&Seed {
        background: Some(Background {
            seed: 7,
            events: 1_500,
        }),
        ..own.clone()
    })
    .unwrap();
    let own_ids: Vec<&str> = own.events.iter().map(|e| e.id.as_str()).collect();
    let mut theirs = Vec::new();
    for id in calendar_ids(&mut c) {
        for e in walk(&mut c, json!({ "calendarId": id, "maxResults": 250 })) {
            let id = e["id"].as_str().unwrap().to_string();
            if !own_ids.contains(&id.as_str()) {
                theirs.push(id);
            }
        }
    }
    assert_eq!(theirs.len(), 1_500);
    let number = |id: &str| -> u32 { id.strip_prefix("evt-").unwrap().parse().unwrap() };
    for id in &theirs {
        // The form of the task's own: `evt-` and four digits, below what a run creates.
        assert_eq!(id.len(), own_ids[0].len(), "{id}");
        assert!((1000..9000).contains(&number(id)), "{id}");
        for o in &own_ids {
            let apart = id.bytes().zip(o.bytes()).filter(|(a, b)| a != b).count();
            assert!(apart > 1, "{id} is one slip from the task's {o}");
        }
    }
    let lowest = own_ids.iter().map(|i| number(i)).min().unwrap();
    let highest = own_ids.iter().map(|i| number(i)).max().unwrap();
    assert!(theirs.iter().any(|i| number(i) < lowest));
    assert!(
        theirs
            .iter()
            .any(|i| (lowest..highest).contains(&number(i)))
    );
    assert!(theirs.iter().any(|i| number(i) > highest));
}

#[test]
fn the_weeks_before_now_come_first_and_paging_reaches_the_tasks_own_events() {
    let mut c = Calendar::from_seed(&seed(300)).unwrap();
    let first = call(&mut c, "list_events", json!({}));
    assert_eq!(first["events"].as_array().unwrap().len(), 50);
    assert!(first["total"].as_u64().unwrap() > 200, "{}", first["total"]);
    assert!(first["events"][0]["start"].as_str().unwrap() < "2026-02-01");
    assert!(first.to_string().find("evt-1002").is_none());
    let events = walk(&mut c, json!({}));
    let at = events.iter().position(|e| e["id"] == "evt-1002").unwrap();
    assert!(at >= 50, "Design review is the {at}th event");
    // A token is for the listing that made it.
    let token = first["nextPageToken"].as_str().unwrap();
    let err = Server::call(
        &mut c,
        "list_events",
        &json!({ "timeMin": "2026-03-01T00:00", "pageToken": token }),
    )
    .unwrap_err();
    assert!(err.to_string().contains("other filters"), "{err}");
}

#[test]
fn the_days_of_the_seeds_own_events_hold_only_those() {
    let mut plain = Calendar::from_seed(&sample_seed()).unwrap();
    let mut busy = Calendar::from_seed(&seed(1_500)).unwrap();
    for day in ["2026-03-02", "2026-03-04", "2026-03-13"] {
        let args = json!({ "timeMin": format!("{day}T00:00"), "timeMax": format!("{day}T23:59") });
        assert_eq!(
            call(&mut busy, "list_events", args.clone()),
            call(&mut plain, "list_events", args),
            "{day}"
        );
        let free = json!({ "date": day, "durationMinutes": 30 });
        assert_eq!(
            call(&mut busy, "find_free_slots", free.clone()),
            call(&mut plain, "find_free_slots", free)
        );
    }
    // The other days of that week are not empty.
    let week = json!({ "timeMin": "2026-03-02T00:00", "timeMax": "2026-03-07T00:00" });
    let total = call(&mut busy, "list_events", week)["total"]
        .as_u64()
        .unwrap();
    assert!(total > 5, "{total} events that week");
    // Some days no seed event touches are light too, so a quiet day is not a task's: of the
    // 90 working days the background spans, even 1,500 events leave several untouched.
    let seed = sample_seed();
    let own: BTreeSet<&str> = seed.events.iter().map(|e| &e.start[..10]).collect();
    let days: BTreeSet<String> = walk(&mut busy, json!({ "maxResults": 250 }))
        .iter()
        .map(|e| e["start"].as_str().unwrap()[..10].to_string())
        .filter(|d| !own.contains(d.as_str()))
        .collect();
    assert!(days.len() + own.len() + 5 < 90, "{} busy days", days.len());
}

#[test]
fn a_background_larger_than_a_calendar_is_refused() {
    let err = Calendar::from_seed(&seed(1_501)).unwrap_err();
    assert!(err.to_string().contains("1500"), "{err}");
    assert!(Calendar::from_seed(&seed(1_500)).is_ok());
}

#[test]
fn a_calendar_without_background_lists_as_before() {
    let mut c = Calendar::from_seed(&sample_seed()).unwrap();
    let page = call(&mut c, "list_events", json!({}));
    let ids: Vec<&str> = page["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["evt-1001", "evt-1002", "evt-1003", "evt-1004"]);
    assert_eq!(page["total"], 4);
    assert!(page.get("nextPageToken").is_none());
    assert_eq!(calendar_ids(&mut c).len(), 4);
}

/// Every reference of every template, run with and without a background, reads the same
/// answers: no template's title, guest or place finds a background event, and no day a
/// template reasons about holds one.
#[test]
fn every_reference_reads_the_same_beside_a_background() {
    for t in Calendar::templates() {
        for n in 0..12u64 {
            let draft = (t.build)(&mut Rng::new(n, 0x6361));
            let plain = Calendar::from_seed(&draft.seed).unwrap();
            let furnished = Seed {
                background: Some(Background {
                    seed: n as u32,
                    events: 400,
                }),
                ..draft.seed.clone()
            };
            let busy = Calendar::from_seed(&furnished).unwrap();
            let titles: BTreeSet<String> =
                draft.seed.events.iter().map(|e| e.title.clone()).collect();
            let snapshot = Simulated::snapshot(&busy);
            for e in snapshot["events"].as_object().unwrap().values() {
                if !draft.seed.events.iter().any(|s| e["id"] == s.id.as_str()) {
                    let title = e["summary"].as_str().unwrap();
                    assert!(!titles.contains(title), "{}: {title}", t.id);
                    assert!(!draft.goal.contains(title), "{}: {title}", t.id);
                }
            }
            for reference in &draft.references {
                let (mut a, mut b) = (plain.clone(), busy.clone());
                for step in reference.iter().filter_map(Step::as_call) {
                    let tool = step.tool.trim_start_matches("calendar.");
                    let got =
                        Server::call(&mut b, tool, &step.arguments).map_err(|e| e.to_string());
                    let want =
                        Server::call(&mut a, tool, &step.arguments).map_err(|e| e.to_string());
                    if tool != "list_calendars" {
                        assert_eq!(got, want, "{} sample {n}: {tool}", t.id);
                    }
                }
            }
        }
    }
}
