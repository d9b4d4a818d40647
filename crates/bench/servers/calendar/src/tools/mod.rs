//! The tools, modelled on Google Calendar MCP servers (`list_calendars`, `list_events`,
//! `create_event`, `respond_to_event`, ...). Near-duplicates an agent must choose between:
//! `quick_add_event` (one line of text) vs `create_event` (structured), `search_events` vs
//! `list_events`, and `get_freebusy` (busy blocks) vs `find_free_slots` (free windows).

use crate::state::{Calendar, Event, Response, checked_attendees, primary};
use mcpbench_sim::dates::{
    format_clock, format_date, format_datetime, parse_clock, parse_date, parse_datetime, weekday,
};
use mcpbench_sim::{Tool, ToolBox, ToolError, page};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::LazyLock;

mod args;

use args::*;

type Out = Result<Value, ToolError>;

fn when(field: &str, value: &str) -> Result<i64, ToolError> {
    parse_datetime(value).map_err(|e| ToolError::invalid(format!("{field}: {e}")))
}

fn range(min: &Option<String>, max: &Option<String>) -> Result<(i64, i64), ToolError> {
    let lo = min
        .as_deref()
        .map(|v| when("timeMin", v))
        .transpose()?
        .unwrap_or(i64::MIN);
    let hi = max
        .as_deref()
        .map(|v| when("timeMax", v))
        .transpose()?
        .unwrap_or(i64::MAX);
    if lo >= hi {
        return Err(ToolError::invalid("timeMin must be before timeMax"));
    }
    Ok((lo, hi))
}

fn sorted<'a>(events: impl Iterator<Item = &'a Event>) -> Vec<&'a Event> {
    let mut v: Vec<&Event> = events.collect();
    v.sort_by(|a, b| (a.start, &a.id).cmp(&(b.start, &b.id)));
    v
}

fn list_calendars(cal: &Calendar, _: NoArgs) -> Out {
    Ok(Value::Array(
        cal.calendars.values().map(|c| c.json()).collect(),
    ))
}

fn get_current_time(cal: &Calendar, _: NoArgs) -> Out {
    let day = cal.now.div_euclid(1440);
    Ok(
        json!({ "now": format_datetime(cal.now), "date": format_date(day), "weekday": weekday(day), "timeZone": "local" }),
    )
}

fn list_events(cal: &Calendar, a: ListEvents) -> Out {
    let id = a.calendar_id.map_or_else(primary, String::from);
    cal.calendar(&id)?;
    let (lo, hi) = range(&a.time_min, &a.time_max)?;
    let hits = sorted(
        cal.events
            .values()
            .filter(|e| e.calendar == id && e.overlaps(lo, hi)),
    );
    let query = format!("list|{id}|{lo}|{hi}");
    let mut out = paged(&hits, a.page_token.as_deref(), a.max_results, &query)?;
    out["calendarId"] = json!(id);
    Ok(out)
}

fn search_events(cal: &Calendar, a: SearchEvents) -> Out {
    if let Some(id) = &a.calendar_id {
        cal.calendar(id)?;
    }
    let (lo, hi) = range(&a.time_min, &a.time_max)?;
    let words: Vec<String> = a.query.split_whitespace().map(str::to_lowercase).collect();
    let text = |e: &Event| {
        let mut t = format!(
            "{} {} {}",
            e.title,
            e.description.as_deref().unwrap_or(""),
            e.location.as_deref().unwrap_or("")
        );
        e.attendees
            .iter()
            .for_each(|x| t.push_str(&format!(" {}", x.email)));
        t.to_lowercase()
    };
    let hits = sorted(cal.events.values().filter(|e| {
        a.calendar_id.as_ref().is_none_or(|c| &e.calendar == c) && e.overlaps(lo, hi) && {
            let t = text(e);
            words.iter().all(|w| t.contains(w.as_str()))
        }
    }));
    let calendar = a.calendar_id.as_deref().unwrap_or("");
    let query = format!("search|{}|{calendar}|{lo}|{hi}", words.join(" "));
    paged(&hits, a.page_token.as_deref(), a.max_results, &query)
}

/// One page of `hits` (50 unless `max` says otherwise): the total, the events, and while
/// more follow the token of the next page.
fn paged(hits: &[&Event], token: Option<&str>, max: Option<u32>, query: &str) -> Out {
    let p = page(hits, token, max.unwrap_or(50) as usize, query)?;
    let mut out = json!({
        "total": hits.len(),
        "events": p.items.iter().map(|e| e.json()).collect::<Vec<_>>(),
    });
    if let Some(next) = p.next {
        out["nextPageToken"] = json!(next);
    }
    Ok(out)
}

fn get_event(cal: &Calendar, a: EventRef) -> Out {
    Ok(cal
        .event(
            &a.calendar_id.map_or_else(primary, String::from),
            &a.event_id,
        )?
        .json())
}

struct NewEvent {
    calendar: String,
    title: String,
    start: i64,
    end: i64,
    location: Option<String>,
    description: Option<String>,
    attendees: Vec<AttendeeArg>,
}

fn insert(cal: &mut Calendar, n: NewEvent) -> Out {
    cal.writable(&n.calendar)?;
    if n.end <= n.start {
        return Err(ToolError::invalid(format!(
            "the event must end after it starts ({})",
            format_datetime(n.start)
        )));
    }
    let attendees = checked_attendees(
        n.attendees
            .into_iter()
            .map(|a| (a.email, Response::NeedsAction)),
    )
    .map_err(|e| ToolError::invalid(format!("attendees: {e}")))?;
    cal.check_free(&n.calendar, n.start, n.end, None)?;
    // Built with its final id, so that what is admitted is what is stored.
    let (id, next_id) = cal.fresh_id();
    let event = Event {
        id,
        calendar: n.calendar,
        title: n.title,
        start: n.start,
        end: n.end,
        location: n.location,
        description: n.description,
        attendees,
    };
    let out = event.json();
    cal.add_event(event, next_id)?;
    Ok(out)
}

fn create_event(cal: &mut Calendar, a: CreateEvent) -> Out {
    let n = NewEvent {
        calendar: a.calendar_id.map_or_else(primary, String::from),
        title: a.summary,
        start: when("start", &a.start)?,
        end: when("end", &a.end)?,
        location: a.location,
        description: a.description,
        attendees: a.attendees.unwrap_or_default(),
    };
    insert(cal, n)
}

/// Reads `<title> on YYYY-MM-DD at HH:MM [for N minutes|hours]`.
pub(crate) fn parse_quick(text: &str) -> Result<(String, i64, i64), String> {
    let usage = || {
        format!(
            "cannot read {text:?}; write it as \"<title> on 2026-03-04 at 13:30 for 45 minutes\""
        )
    };
    let at = text.rfind(" on ").ok_or_else(usage)?;
    let title = text[..at].trim();
    let rest: Vec<&str> = text[at + 4..].split_whitespace().collect();
    let (date, clock, length) = match rest[..] {
        [d, "at", c] => (d, c, 60),
        [d, "at", c, "for", n, unit] => {
            let n: i64 = n.parse().map_err(|_| usage())?;
            let factor = match unit {
                "minute" | "minutes" | "min" => 1,
                "hour" | "hours" => 60,
                _ => return Err(usage()),
            };
            (d, c, n * factor)
        }
        _ => return Err(usage()),
    };
    if title.is_empty() || length <= 0 {
        return Err(usage());
    }
    let start = parse_datetime(&format!("{date}T{clock}"))?;
    Ok((title.to_string(), start, start + length))
}

fn quick_add_event(cal: &mut Calendar, a: QuickAdd) -> Out {
    let (title, start, end) = parse_quick(&a.text).map_err(ToolError::invalid)?;
    let n = NewEvent {
        calendar: a.calendar_id.map_or_else(primary, String::from),
        title,
        start,
        end,
        location: None,
        description: None,
        attendees: vec![],
    };
    insert(cal, n)
}

fn update_event(cal: &mut Calendar, a: UpdateEvent) -> Out {
    let calendar = a.calendar_id.map_or_else(primary, String::from);
    let old = cal.event(&calendar, &a.event_id)?.clone();
    cal.writable(&calendar)?;
    let nothing = a.summary.is_none()
        && a.start.is_none()
        && a.end.is_none()
        && a.location.is_none()
        && a.description.is_none()
        && a.attendees.is_none();
    if nothing {
        return Err(ToolError::invalid(
            "nothing to update: give at least one field to change",
        ));
    }
    let mut e = old.clone();
    if let Some(s) = &a.start {
        e.start = when("start", s)?;
    }
    if let Some(s) = &a.end {
        e.end = when("end", s)?;
    }
    if e.end <= e.start {
        return Err(ToolError::invalid(format!(
            "the event would end ({}) before it starts ({})",
            format_datetime(e.end),
            format_datetime(e.start)
        )));
    }
    if let Some(list) = a.attendees {
        let keep = |email: &str| {
            old.attendees
                .iter()
                .find(|x| x.email.eq_ignore_ascii_case(email))
                .map_or(Response::NeedsAction, |x| x.response)
        };
        e.attendees = checked_attendees(list.into_iter().map(|x| {
            let r = keep(&x.email);
            (x.email, r)
        }))
        .map_err(|m| ToolError::invalid(format!("attendees: {m}")))?;
    }
    e.title = a.summary.unwrap_or(e.title);
    e.location = a.location.or(e.location);
    e.description = a.description.or(e.description);
    cal.check_free(&calendar, e.start, e.end, Some(&e.id))?;
    let out = e.json();
    cal.replace_event(e)?;
    Ok(out)
}

fn delete_event(cal: &mut Calendar, a: EventRef) -> Out {
    let calendar = a.calendar_id.map_or_else(primary, String::from);
    let title = cal.event(&calendar, &a.event_id)?.title.clone();
    cal.writable(&calendar)?;
    cal.remove_event(&a.event_id);
    Ok(Value::String(format!(
        "Deleted event \"{title}\" ({})",
        a.event_id
    )))
}

fn respond_to_event(cal: &mut Calendar, a: Respond) -> Out {
    let calendar = a.calendar_id.map_or_else(primary, String::from);
    let mut e = cal.event(&calendar, &a.event_id)?.clone();
    let user = cal.user.clone();
    let Some(me) = e
        .attendees
        .iter_mut()
        .find(|x| x.email.eq_ignore_ascii_case(&user))
    else {
        return Err(ToolError::precondition(format!(
            "you ({user}) are not a guest of event {}; there is nothing to answer",
            e.id
        )));
    };
    me.response = match a.response {
        Answer::Accepted => Response::Accepted,
        Answer::Declined => Response::Declined,
        Answer::Tentative => Response::Tentative,
    };
    let out = e.json();
    cal.replace_event(e)?;
    Ok(out)
}

/// Busy blocks of the user on `calendars` within `lo..hi`, merged and sorted.
fn busy(cal: &Calendar, calendars: &[String], lo: i64, hi: i64) -> Vec<(i64, i64)> {
    let mut blocks: Vec<(i64, i64)> = cal
        .events
        .values()
        .filter(|e| calendars.contains(&e.calendar) && e.overlaps(lo, hi) && !cal.declined(e))
        .map(|e| (e.start.max(lo), e.end.min(hi)))
        .collect();
    blocks.sort();
    let mut merged: Vec<(i64, i64)> = Vec::new();
    for (s, e) in blocks {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    merged
}

fn calendar_ids(cal: &Calendar, ids: Option<Vec<String>>) -> Result<Vec<String>, ToolError> {
    let ids = ids.unwrap_or_else(|| vec![primary()]);
    for id in &ids {
        cal.calendar(id)?;
    }
    Ok(ids)
}

fn find_free_slots(cal: &Calendar, a: FreeSlots) -> Out {
    let ids = calendar_ids(cal, a.calendar_ids)?;
    let day = parse_date(&a.date).map_err(ToolError::invalid)?;
    let clock = |field: &str, v: Option<&str>, default: i64| {
        v.map(|v| parse_clock(v).map_err(|e| ToolError::invalid(format!("{field}: {e}"))))
            .transpose()
            .map(|x| x.unwrap_or(default))
    };
    let ws = clock("workdayStart", a.workday_start.as_deref(), 9 * 60)?;
    let we = clock("workdayEnd", a.workday_end.as_deref(), 17 * 60)?;
    if ws >= we {
        return Err(ToolError::invalid("workdayStart must be before workdayEnd"));
    }
    let (lo, hi) = (day * 1440 + ws, day * 1440 + we);
    let need = i64::from(a.duration_minutes);
    let mut slots = Vec::new();
    let mut at = lo;
    for (s, e) in busy(cal, &ids, lo, hi).into_iter().chain([(hi, hi)]) {
        if s - at >= need {
            slots.push(json!({ "start": format_clock(at - day * 1440), "end": format_clock(s - day * 1440), "minutes": s - at }));
        }
        at = at.max(e);
    }
    Ok(json!({
        "date": a.date, "weekday": weekday(day), "durationMinutes": need, "calendarIds": ids,
        "workingHours": { "start": format_clock(ws), "end": format_clock(we) }, "freeSlots": slots,
    }))
}

fn get_freebusy(cal: &Calendar, a: FreeBusy) -> Out {
    let ids = calendar_ids(cal, a.calendar_ids)?;
    let (lo, hi) = range(&Some(a.time_min.clone()), &Some(a.time_max.clone()))?;
    let report: BTreeMap<&String, Value> = ids
        .iter()
        .map(|id| {
            let blocks: Vec<Value> = busy(cal, std::slice::from_ref(id), lo, hi)
                .into_iter()
                .map(|(s, e)| json!({ "start": format_datetime(s), "end": format_datetime(e) }))
                .collect();
            (id, json!({ "busy": blocks }))
        })
        .collect();
    Ok(json!({ "timeMin": a.time_min, "timeMax": a.time_max, "calendars": report }))
}

pub(crate) static TOOLS: LazyLock<ToolBox<Calendar>> = LazyLock::new(|| {
    ToolBox::new(vec![
        Tool::read(
            "list_calendars",
            "List the calendars you can see: id, name, owner, access role (owner or reader) and whether double booking is allowed.",
            list_calendars,
        ),
        Tool::read(
            "get_current_time",
            "Get the current local date, time and weekday.",
            get_current_time,
        ),
        Tool::read(
            "list_events",
            "List the events of one calendar (default primary) that overlap a time range, earliest first, a page at a time (maxResults, default 50); while more follow, pass nextPageToken back as pageToken. Times are local, YYYY-MM-DDTHH:MM.",
            list_events,
        ),
        Tool::read(
            "search_events",
            "Find events whose title, description, location or guest addresses contain all the query words, across all calendars or one, earliest first, a page at a time (maxResults, default 50; pass nextPageToken back as pageToken).",
            search_events,
        ),
        Tool::read(
            "get_event",
            "Get one event in full: title, start, end, location, description and guests with their answers.",
            get_event,
        ),
        Tool::write(
            "create_event",
            "Create an event with a title, local start and end, and optional location, description and guests. Calendars that forbid double booking refuse overlapping events. A run's calendar holds at most 2,000 events and 2 MiB in all.",
            create_event,
        ),
        Tool::write(
            "quick_add_event",
            "Create a simple event from one line of text: \"<title> on 2026-03-04 at 13:30 for 45 minutes\" (one hour if no length). No guests or location. A run's calendar holds at most 2,000 events and 2 MiB in all.",
            quick_add_event,
        ),
        Tool::write(
            "update_event",
            "Change fields of an existing event; omitted fields stay as they are. attendees replaces the whole guest list (guests already invited keep their answers). A run's calendar holds at most 2,000 events and 2 MiB in all.",
            update_event,
        ),
        Tool::write(
            "delete_event",
            "Delete an event from a calendar.",
            delete_event,
        ),
        Tool::write(
            "respond_to_event",
            "Answer an invitation you are a guest of: accepted, declined or tentative.",
            respond_to_event,
        ),
        Tool::read(
            "find_free_slots",
            "Find the free windows of at least a given length on one day within working hours (default 09:00-17:00). Events you declined do not count as busy.",
            find_free_slots,
        ),
        Tool::read(
            "get_freebusy",
            "Get the busy blocks of one or more calendars in a time range, merged per calendar. Events you declined do not count as busy.",
            get_freebusy,
        ),
    ])
});
