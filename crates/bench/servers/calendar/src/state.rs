//! Calendars, events, their seed, and the rules every tool shares (access, double booking).

use crate::background::{self, Background, MAX_EVENTS};
use mcpbench_sim::dates::{format_datetime, parse_datetime};
use mcpbench_sim::{Capacity, Ledger, SeedError, ToolError, Usage, footprint};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// An attendee's answer to an invitation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Response {
    #[default]
    NeedsAction,
    Accepted,
    Declined,
    Tentative,
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SeedAttendee {
    pub email: String,
    #[serde(default, skip_serializing_if = "is_default")]
    pub response: Response,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SeedCalendar {
    /// Calendar id, like `team-northwind`. `primary` is the user's own calendar.
    pub id: String,
    pub name: String,
    /// Owner's address; defaults to the seed's user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// Creating, changing or deleting events here is `permission_denied`.
    #[serde(default, skip_serializing_if = "is_default")]
    pub read_only: bool,
    /// A new or moved event that overlaps another event of this calendar is a `conflict`.
    #[serde(default, skip_serializing_if = "is_default")]
    pub no_double_booking: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SeedEvent {
    pub id: String,
    /// Calendar id; defaults to `primary`.
    #[serde(default = "primary", skip_serializing_if = "is_primary")]
    pub calendar: String,
    pub title: String,
    /// Local start, `2026-03-04T13:30`.
    pub start: String,
    /// Local end, after the start.
    pub end: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attendees: Vec<SeedAttendee>,
}

impl SeedEvent {
    /// An event on `primary` without location, description or attendees.
    pub fn new(id: &str, title: &str, start: &str, end: &str) -> Self {
        SeedEvent {
            id: id.into(),
            calendar: primary(),
            title: title.into(),
            start: start.into(),
            end: end.into(),
            location: None,
            description: None,
            attendees: vec![],
        }
    }
}

pub(crate) fn primary() -> String {
    "primary".into()
}

fn is_primary(s: &String) -> bool {
    s == "primary"
}

pub(crate) fn default_now() -> String {
    "2026-03-02T08:00".into()
}

pub(crate) fn default_user() -> String {
    "alex@northwind.io".into()
}

/// `initial_state.calendar`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Seed {
    /// The current local time, `2026-03-02T08:00`; there is no clock.
    #[serde(default = "default_now")]
    pub now: String,
    /// The user's address: owner of `primary`, the attendee whose answers respond_to_event sets.
    #[serde(default = "default_user")]
    pub user: String,
    /// Calendars besides `primary`, which always exists (list it here to name or restrict it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calendars: Vec<SeedCalendar>,
    #[serde(default)]
    pub events: Vec<SeedEvent>,
    /// Months of meetings beside `events`, expanded when the calendar is built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<Background>,
}

impl Default for Seed {
    fn default() -> Self {
        Seed {
            now: default_now(),
            user: default_user(),
            calendars: vec![],
            events: vec![],
            background: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CalendarInfo {
    pub id: String,
    pub name: String,
    pub owner: String,
    pub read_only: bool,
    pub no_double_booking: bool,
}

impl CalendarInfo {
    pub(crate) fn json(&self) -> Value {
        json!({
            "id": self.id, "name": self.name, "owner": self.owner,
            "accessRole": if self.read_only { "reader" } else { "owner" },
            "allowsDoubleBooking": !self.no_double_booking,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Attendee {
    pub email: String,
    #[serde(rename = "responseStatus")]
    pub response: Response,
}

/// An event as the server keeps it; serialized only to measure it against [`CALENDAR`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Event {
    pub id: String,
    pub calendar: String,
    pub title: String,
    /// Minutes since the epoch.
    pub start: i64,
    pub end: i64,
    pub location: Option<String>,
    pub description: Option<String>,
    pub attendees: Vec<Attendee>,
}

impl Event {
    pub(crate) fn json(&self) -> Value {
        let mut v = json!({
            "id": self.id, "calendarId": self.calendar, "summary": self.title,
            "start": format_datetime(self.start), "end": format_datetime(self.end),
            "attendees": self.attendees,
        });
        if let Some(l) = &self.location {
            v["location"] = json!(l);
        }
        if let Some(d) = &self.description {
            v["description"] = json!(d);
        }
        v
    }

    pub(crate) fn overlaps(&self, start: i64, end: i64) -> bool {
        self.start < end && start < self.end
    }
}

/// What a run's calendars hold at most: a hundred times a seed, and more than a whole run of
/// the largest events the tools take could add (100 calls of 15 kB).
pub const CALENDAR: Capacity = Capacity {
    store: "calendar",
    records: 2_000,
    noun: "events",
    bytes: 2 << 20,
};

/// The simulated server: every calendar and every event.
#[derive(Clone, Debug)]
pub struct Calendar {
    pub(crate) now: i64,
    pub(crate) user: String,
    pub(crate) calendars: BTreeMap<String, CalendarInfo>,
    pub(crate) events: BTreeMap<String, Event>,
    /// The (calendar, title) of every event the background expanded to, which
    /// `calendar.eventCount` counts beside the seed's own (a task cannot know them).
    pub(crate) background: Vec<(String, String)>,
    next_id: u64,
    /// What the events hold, against [`CALENDAR`]: each write moves it by its footprint.
    ledger: Ledger,
}

/// Checks that `address` looks like `name@domain.tld`.
pub(crate) fn check_address(address: &str) -> Result<(), String> {
    let ok = address.split_once('@').is_some_and(|(l, d)| {
        !l.is_empty()
            && d.contains('.')
            && !d.contains('@')
            && !d.ends_with('.')
            && !address.contains(' ')
    });
    if ok {
        Ok(())
    } else {
        Err(format!("{address:?} is not an email address"))
    }
}

impl Calendar {
    pub(crate) fn from_seed(seed: &Seed) -> Result<Self, SeedError> {
        let bad = |m: String| SeedError::new("calendar", m);
        let now = parse_datetime(&seed.now).map_err(|e| bad(format!("now: {e}")))?;
        if let Some(b) = seed.background.filter(|b| b.events > MAX_EVENTS) {
            return Err(bad(format!(
                "a background of {} events is more than the {MAX_EVENTS} a calendar may hold",
                b.events
            )));
        }
        check_address(&seed.user).map_err(bad)?;
        let mut calendars = BTreeMap::new();
        for c in &seed.calendars {
            if c.id.trim().is_empty() || c.name.trim().is_empty() {
                return Err(bad("a calendar has an empty id or name".into()));
            }
            let info = CalendarInfo {
                id: c.id.clone(),
                name: c.name.clone(),
                owner: c.owner.clone().unwrap_or_else(|| seed.user.clone()),
                read_only: c.read_only,
                no_double_booking: c.no_double_booking,
            };
            check_address(&info.owner).map_err(|e| bad(format!("calendar {}: {e}", c.id)))?;
            if calendars.insert(c.id.clone(), info).is_some() {
                return Err(bad(format!("calendar id {} is used twice", c.id)));
            }
        }
        calendars.entry(primary()).or_insert_with(|| CalendarInfo {
            id: primary(),
            name: seed.user.clone(),
            owner: seed.user.clone(),
            read_only: false,
            no_double_booking: false,
        });
        let mut events = BTreeMap::new();
        for e in &seed.events {
            let at = |m: String| bad(format!("event {}: {m}", e.id));
            if !calendars.contains_key(&e.calendar) {
                return Err(at(format!("calendar {} does not exist", e.calendar)));
            }
            let start = parse_datetime(&e.start).map_err(at)?;
            let end = parse_datetime(&e.end).map_err(at)?;
            if end <= start {
                return Err(at("it ends before it starts".into()));
            }
            let attendees =
                checked_attendees(e.attendees.iter().map(|a| (a.email.clone(), a.response)))
                    .map_err(at)?;
            let event = Event {
                id: e.id.clone(),
                calendar: e.calendar.clone(),
                title: e.title.clone(),
                start,
                end,
                location: e.location.clone(),
                description: e.description.clone(),
                attendees,
            };
            if events.insert(e.id.clone(), event).is_some() {
                return Err(bad(format!("event id {} is used twice", e.id)));
            }
        }
        let expanded = match &seed.background {
            Some(b) => background::expand(b, &seed.user, now, &calendars, &events),
            None => background::Expanded::default(),
        };
        let background = expanded
            .events
            .iter()
            .map(|e| (e.calendar.clone(), e.title.clone()))
            .collect();
        for c in expanded.calendars {
            calendars.insert(c.id.clone(), c);
        }
        for e in expanded.events {
            events.insert(e.id.clone(), e);
        }
        let mut cal = Calendar {
            now,
            user: seed.user.clone(),
            calendars,
            events,
            background,
            next_id: 1,
            ledger: Ledger::new(CALENDAR, Usage::default()),
        };
        cal.ledger = Ledger::new(CALENDAR, cal.measure());
        Ok(cal)
    }

    pub(crate) fn calendar(&self, id: &str) -> Result<&CalendarInfo, ToolError> {
        self.calendars.get(id).ok_or_else(|| {
            let known: Vec<&str> = self.calendars.keys().map(String::as_str).collect();
            ToolError::not_found(format!(
                "no calendar with id {id} (calendars: {})",
                known.join(", ")
            ))
        })
    }

    /// The calendar, if the user may change its events.
    pub(crate) fn writable(&self, id: &str) -> Result<&CalendarInfo, ToolError> {
        let c = self.calendar(id)?;
        if c.read_only {
            return Err(ToolError::denied(format!(
                "calendar {} ({}) is read-only for you; its owner is {}",
                c.name, c.id, c.owner
            )));
        }
        Ok(c)
    }

    pub(crate) fn event(&self, calendar: &str, id: &str) -> Result<&Event, ToolError> {
        self.calendar(calendar)?;
        match self.events.get(id) {
            Some(e) if e.calendar == calendar => Ok(e),
            Some(e) => Err(ToolError::not_found(format!(
                "event {id} is not in calendar {calendar} (it is in {})",
                e.calendar
            ))),
            None => Err(ToolError::not_found(format!("no event with id {id}"))),
        }
    }

    /// Refuses `start..end` on a calendar that forbids double booking when it overlaps an
    /// event other than `except`.
    pub(crate) fn check_free(
        &self,
        calendar: &str,
        start: i64,
        end: i64,
        except: Option<&str>,
    ) -> Result<(), ToolError> {
        let c = self.calendar(calendar)?;
        if !c.no_double_booking {
            return Ok(());
        }
        let clash = self
            .events
            .values()
            .filter(|e| e.calendar == calendar && Some(e.id.as_str()) != except)
            .filter(|e| e.overlaps(start, end))
            .min_by_key(|e| (e.start, e.id.clone()));
        match clash {
            Some(e) => Err(ToolError::conflict(format!(
                "calendar {} does not allow double booking: {} to {} overlaps \"{}\" ({}), {} to {}",
                c.name,
                format_datetime(start),
                format_datetime(end),
                e.title,
                e.id,
                format_datetime(e.start),
                format_datetime(e.end)
            ))),
            None => Ok(()),
        }
    }

    /// What the events hold, measured from scratch: a sum over the events (per record, so
    /// that a write's footprint moves it exactly). Calendars come from the seed and never grow.
    pub(crate) fn measure(&self) -> Usage {
        self.events
            .values()
            .map(stored)
            .fold(Usage::default(), |sum, u| sum + u)
    }

    /// What the events hold by their running total, against [`CALENDAR`].
    pub fn held(&self) -> Usage {
        self.ledger.held()
    }

    /// Whether the running total is what a fresh measure says.
    pub(crate) fn audit_ledger(&self) -> Result<(), String> {
        self.ledger.audit(self.measure())
    }

    /// The id the next new event gets, and the counter once it is drawn; nothing is drawn
    /// yet, so that a refused event uses none.
    pub(crate) fn fresh_id(&self) -> (String, u64) {
        let mut n = self.next_id;
        loop {
            let id = format!("evt-{}", 9000 + n);
            n += 1;
            if !self.events.contains_key(&id) {
                return (id, n);
            }
        }
    }

    /// Stores new event `e`, whose id is the one [`Calendar::fresh_id`] gave along with
    /// `next_id`; refused, changing nothing, past [`CALENDAR`].
    pub(crate) fn add_event(&mut self, e: Event, next_id: u64) -> Result<(), ToolError> {
        let adding = stored(&e);
        self.ledger.admit(adding)?;
        self.next_id = next_id;
        self.events.insert(e.id.clone(), e);
        self.ledger.add(adding);
        Ok(())
    }

    /// Replaces the event with `e`'s id by `e`; only the growth is admitted, so an edit that
    /// does not grow the event always passes and a refusal changes nothing.
    pub(crate) fn replace_event(&mut self, e: Event) -> Result<(), ToolError> {
        let before = self.events.get(&e.id).map(stored).unwrap_or_default();
        let after = stored(&e);
        self.ledger.admit_change(before, after)?;
        self.events.insert(e.id.clone(), e);
        self.ledger.change(before, after);
        Ok(())
    }

    /// Deletes event `id`, if there is one.
    pub(crate) fn remove_event(&mut self, id: &str) {
        if let Some(e) = self.events.remove(id) {
            self.ledger.remove(stored(&e));
        }
    }

    /// Whether the user declined `e` (declined events do not make the user busy).
    pub(crate) fn declined(&self, e: &Event) -> bool {
        e.attendees
            .iter()
            .any(|a| a.email.eq_ignore_ascii_case(&self.user) && a.response == Response::Declined)
    }

    pub(crate) fn snapshot(&self) -> Value {
        let calendars: BTreeMap<&String, Value> =
            self.calendars.iter().map(|(k, c)| (k, c.json())).collect();
        let events: BTreeMap<&String, Value> =
            self.events.iter().map(|(k, e)| (k, e.json())).collect();
        json!({ "calendars": calendars, "events": events })
    }
}

/// What event `e` costs the calendar: one record, its fields as compact JSON, and its id once
/// more as the key it is filed under.
fn stored(e: &Event) -> Usage {
    Usage::of(1, e) + Usage::bytes(footprint(&e.id))
}

/// Attendees with valid, distinct addresses, in the given order.
pub(crate) fn checked_attendees(
    list: impl IntoIterator<Item = (String, Response)>,
) -> Result<Vec<Attendee>, String> {
    let mut out: Vec<Attendee> = Vec::new();
    for (email, response) in list {
        check_address(&email)?;
        if out.iter().any(|a| a.email.eq_ignore_ascii_case(&email)) {
            return Err(format!("attendee {email} is listed twice"));
        }
        out.push(Attendee { email, response });
    }
    Ok(out)
}
