//! `calendar`: calendars and events behind the tool surface of Google Calendar MCP servers
//! (`list_calendars`, `list_events`, `create_event`, `update_event`, `respond_to_event`, ...).
//!
//! Rules:
//! - Times are local wall-clock `YYYY-MM-DDTHH:MM` (no time zones); "now" comes from the seed.
//!   Date arithmetic is our own days-from-civil code in [`time`], so results never drift.
//! - `primary` (the user's own calendar) always exists. Calendars seeded `read_only` refuse
//!   creating, changing and deleting events with `permission_denied`; calendars seeded
//!   `no_double_booking` refuse an event that overlaps another of theirs with `conflict`.
//!   Other calendars allow overlaps.
//! - Events are half-open intervals: one ending at 14:00 does not overlap one starting at 14:00.
//! - Guests answer needsAction, accepted, declined or tentative; `respond_to_event` sets the
//!   user's own answer, and events the user declined do not count as busy.
//! - New event ids are `evt-9001`, `evt-9002`, ... (skipping ids in use). Listings are sorted by
//!   start, then id; `list_events` and `search_events` return a page at a time (`maxResults`,
//!   default 50) and, while more follow, a `nextPageToken` that `pageToken` takes to continue
//!   (refused by a listing with other filters).
//! - A seed may carry a `background`: months of meetings on `primary` and on colleagues'
//!   shared calendars, kept off the days the seed's own events are on, expanded when the
//!   calendar is built (`background.rs`).
//! - A run's calendars hold at most [`CALENDAR`]: past it, creating or growing an event is a
//!   tool error (`failed_precondition`) that changes nothing. Each write is counted by its
//!   exact footprint in a running total, which debug builds check against a fresh measure
//!   after every call.

mod background;
mod predicates;
mod state;
mod templates;
mod tools;

pub use background::{Background, MAX_EVENTS};
pub use predicates::Atom;
pub use state::{CALENDAR, Calendar, Response, Seed, SeedAttendee, SeedCalendar, SeedEvent};

use mcpbench_sim::{Capacity, Rng, SeedError, Simulated, Template, ToolBox};
use serde_json::Value;

impl Simulated for Calendar {
    const NAME: &'static str = "calendar";
    type Seed = Seed;
    type Atom = Atom;

    fn from_seed(seed: &Seed) -> Result<Self, SeedError> {
        Calendar::from_seed(seed)
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
        Calendar::snapshot(self)
    }
    fn templates() -> Vec<Template<Self>> {
        templates::all()
    }
    fn capacities() -> &'static [Capacity] {
        &[CALENDAR]
    }
    fn audit(&self) -> Result<(), String> {
        self.audit_ledger()
    }
    /// A seed whose template drew a background of its own keeps it.
    fn furnish(seed: &mut Seed, rng: &mut Rng) {
        seed.background.get_or_insert_with(|| Background::draw(rng));
    }
}

/// A small calendar set for cross-server tasks. The user is `alex@northwind.io`, now is Monday
/// 2026-03-02 08:00. Calendars: `primary`, `team-northwind` (shared, writable),
/// `company-holidays` (read-only), `room-atlas` (no double booking). Wednesday 2026-03-04 on
/// primary: Standup 09:00-09:15, Design review 10:00-11:00 (guests maria.lopez, tom.becker),
/// Lunch with Sam 12:30-13:30, Budget sync 14:00-14:30 (an invitation the user has not
/// answered yet, id `evt-1004`).
pub fn sample_seed() -> Seed {
    let cal =
        |id: &str, name: &str, owner: Option<&str>, read_only: bool, no_double_booking: bool| {
            SeedCalendar {
                id: id.into(),
                name: name.into(),
                owner: owner.map(String::from),
                read_only,
                no_double_booking,
            }
        };
    let guest = |email: &str, response: Response| SeedAttendee {
        email: email.into(),
        response,
    };
    let mut review = SeedEvent::new(
        "evt-1002",
        "Design review",
        "2026-03-04T10:00",
        "2026-03-04T11:00",
    );
    review.attendees = vec![
        guest("maria.lopez@northwind.io", Response::Accepted),
        guest("tom.becker@northwind.io", Response::NeedsAction),
    ];
    review.location = Some("Room Atlas".into());
    let mut budget = SeedEvent::new(
        "evt-1004",
        "Budget sync",
        "2026-03-04T14:00",
        "2026-03-04T14:30",
    );
    budget.attendees = vec![
        guest("maria.lopez@northwind.io", Response::Accepted),
        guest("alex@northwind.io", Response::NeedsAction),
    ];
    let mut holiday = SeedEvent::new(
        "evt-1005",
        "Company offsite",
        "2026-03-13T09:00",
        "2026-03-13T17:00",
    );
    holiday.calendar = "company-holidays".into();
    let mut booking = SeedEvent::new(
        "evt-1006",
        "Sprint planning",
        "2026-03-04T15:00",
        "2026-03-04T16:00",
    );
    booking.calendar = "room-atlas".into();
    Seed {
        calendars: vec![
            cal("team-northwind", "Team Northwind", None, false, false),
            cal(
                "company-holidays",
                "Company holidays",
                Some("hr@northwind.io"),
                true,
                false,
            ),
            cal(
                "room-atlas",
                "Room Atlas",
                Some("facilities@northwind.io"),
                false,
                true,
            ),
        ],
        events: vec![
            SeedEvent::new(
                "evt-1001",
                "Standup",
                "2026-03-04T09:00",
                "2026-03-04T09:15",
            ),
            review,
            SeedEvent::new(
                "evt-1003",
                "Lunch with Sam",
                "2026-03-04T12:30",
                "2026-03-04T13:30",
            ),
            budget,
            holiday,
            booking,
        ],
        ..Seed::default()
    }
}
