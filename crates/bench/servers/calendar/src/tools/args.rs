//! Argument types of the calendar tools: their JSON Schemas are what agents read and what
//! calls are validated against before a handler runs.

use mcpbench_sim::dates::{CLOCK_PATTERN, DATE_PATTERN, DATETIME_PATTERN};
use schemars::JsonSchema;
use serde::Deserialize;

mcpbench_sim::string_arg!(
    /// A calendar's id, as the tools that read or write one calendar take it.
    pub(crate) CalendarId, 1, 100, "Calendar id (default `primary`)."
);

mcpbench_sim::string_arg!(
    /// An event's id.
    pub(crate) EventId, 1, 100, "Event id, as returned by list_events or search_events."
);

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AttendeeArg {
    /// The guest's email address.
    #[schemars(length(min = 3, max = 200))]
    pub(crate) email: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct ListEvents {
    /// Calendar id (default `primary`, the user's own calendar).
    pub(crate) calendar_id: Option<CalendarId>,
    /// Only events ending after this local time, `2026-03-04T00:00`.
    #[schemars(pattern(DATETIME_PATTERN))]
    pub(crate) time_min: Option<String>,
    /// Only events starting before this local time, `2026-03-05T00:00`.
    #[schemars(pattern(DATETIME_PATTERN))]
    pub(crate) time_max: Option<String>,
    /// At most this many events a page, earliest first (default 50).
    #[schemars(range(min = 1, max = 250))]
    pub(crate) max_results: Option<u32>,
    /// The `nextPageToken` of the previous page, with the same calendar and time range.
    #[schemars(length(min = 1, max = 40))]
    pub(crate) page_token: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct SearchEvents {
    /// Words that must all occur in the title, description, location or guest addresses.
    #[schemars(length(min = 1, max = 200))]
    pub(crate) query: String,
    /// Calendar id; all calendars when omitted.
    pub(crate) calendar_id: Option<CalendarId>,
    /// Only events ending after this local time.
    #[schemars(pattern(DATETIME_PATTERN))]
    pub(crate) time_min: Option<String>,
    /// Only events starting before this local time.
    #[schemars(pattern(DATETIME_PATTERN))]
    pub(crate) time_max: Option<String>,
    /// At most this many events a page, earliest first (default 50).
    #[schemars(range(min = 1, max = 250))]
    pub(crate) max_results: Option<u32>,
    /// The `nextPageToken` of the previous page, with the same query, calendar and time range.
    #[schemars(length(min = 1, max = 40))]
    pub(crate) page_token: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct EventRef {
    pub(crate) calendar_id: Option<CalendarId>,
    pub(crate) event_id: EventId,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct CreateEvent {
    pub(crate) calendar_id: Option<CalendarId>,
    /// The event title.
    #[schemars(length(min = 1, max = 200))]
    pub(crate) summary: String,
    /// Local start, `2026-03-04T13:30`.
    #[schemars(pattern(DATETIME_PATTERN))]
    pub(crate) start: String,
    /// Local end, after the start.
    #[schemars(pattern(DATETIME_PATTERN))]
    pub(crate) end: String,
    /// Where it takes place.
    #[schemars(length(max = 200))]
    pub(crate) location: Option<String>,
    /// Free-text notes.
    #[schemars(length(max = 5000))]
    pub(crate) description: Option<String>,
    /// Guests to invite; their answers start as needsAction.
    #[schemars(length(max = 50))]
    pub(crate) attendees: Option<Vec<AttendeeArg>>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct UpdateEvent {
    pub(crate) calendar_id: Option<CalendarId>,
    pub(crate) event_id: EventId,
    /// New title.
    #[schemars(length(min = 1, max = 200))]
    pub(crate) summary: Option<String>,
    /// New local start.
    #[schemars(pattern(DATETIME_PATTERN))]
    pub(crate) start: Option<String>,
    /// New local end.
    #[schemars(pattern(DATETIME_PATTERN))]
    pub(crate) end: Option<String>,
    /// Where it takes place.
    #[schemars(length(max = 200))]
    pub(crate) location: Option<String>,
    /// Free-text notes.
    #[schemars(length(max = 5000))]
    pub(crate) description: Option<String>,
    /// The complete new guest list; guests already invited keep their answers.
    #[schemars(length(max = 50))]
    pub(crate) attendees: Option<Vec<AttendeeArg>>,
}

#[derive(Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) enum Answer {
    Accepted,
    Declined,
    Tentative,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct Respond {
    pub(crate) calendar_id: Option<CalendarId>,
    pub(crate) event_id: EventId,
    /// Your answer to the invitation.
    pub(crate) response: Answer,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct FreeSlots {
    /// Calendars whose events count as busy (default `["primary"]`).
    #[schemars(length(min = 1, max = 10), inner(length(max = 100)))]
    pub(crate) calendar_ids: Option<Vec<String>>,
    /// The day, `2026-03-04`.
    #[schemars(pattern(DATE_PATTERN))]
    pub(crate) date: String,
    /// Minimum length of a free window, in minutes.
    #[schemars(range(min = 5, max = 600))]
    pub(crate) duration_minutes: u32,
    /// Start of the working day, `HH:MM` (default 09:00).
    #[schemars(pattern(CLOCK_PATTERN))]
    pub(crate) workday_start: Option<String>,
    /// End of the working day, `HH:MM` (default 17:00).
    #[schemars(pattern(CLOCK_PATTERN))]
    pub(crate) workday_end: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct FreeBusy {
    /// Calendars to report (default `["primary"]`).
    #[schemars(length(min = 1, max = 10), inner(length(max = 100)))]
    pub(crate) calendar_ids: Option<Vec<String>>,
    /// Local start of the range, `2026-03-04T00:00`.
    #[schemars(pattern(DATETIME_PATTERN))]
    pub(crate) time_min: String,
    /// Local end of the range.
    #[schemars(pattern(DATETIME_PATTERN))]
    pub(crate) time_max: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct QuickAdd {
    pub(crate) calendar_id: Option<CalendarId>,
    /// `<title> on YYYY-MM-DD at HH:MM [for N minutes|hours]`; one hour when no length is given.
    #[schemars(length(min = 1, max = 300))]
    pub(crate) text: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NoArgs {}
