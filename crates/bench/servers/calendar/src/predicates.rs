//! `calendar.*` predicate atoms. Titles compare exactly, addresses case-insensitively and as
//! sets, times as local `YYYY-MM-DDTHH:MM`.

use crate::state::{Calendar, Response};
use mcpbench_sim::dates::parse_datetime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub enum Atom {
    /// An event titled exactly `title` starts at `start`; when given, it also ends at `end`,
    /// is on calendar `calendar`, has exactly the guests `attendees`, and is at `location`.
    #[serde(rename = "calendar.eventExists")]
    EventExists {
        title: String,
        start: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        end: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        calendar: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        attendees: Option<Vec<String>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        location: Option<String>,
    },
    /// No event (on `calendar` when given) covers the minute `time` (start <= time < end).
    #[serde(rename = "calendar.noEventAt")]
    NoEventAt {
        time: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        calendar: Option<String>,
    },
    /// No event has the id `id` any more.
    #[serde(rename = "calendar.eventAbsent")]
    EventAbsent { id: String },
    /// Event `eventId` exists and guest `email` has answered `response`.
    #[serde(rename = "calendar.attendeeResponse")]
    AttendeeResponse {
        #[serde(rename = "eventId")]
        event_id: String,
        email: String,
        response: Response,
    },
    /// Event `eventId` exists and its guests are exactly `attendees`.
    #[serde(rename = "calendar.eventAttendees")]
    EventAttendees {
        #[serde(rename = "eventId")]
        event_id: String,
        attendees: Vec<String>,
    },
}

fn normalized(list: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut v: Vec<String> = list.into_iter().map(|a| a.trim().to_lowercase()).collect();
    v.sort();
    v.dedup();
    v
}

impl Atom {
    pub(crate) fn holds(&self, cal: &Calendar) -> bool {
        match self {
            Atom::EventExists {
                title,
                start,
                end,
                calendar,
                attendees,
                location,
            } => {
                let Ok(start) = parse_datetime(start) else {
                    return false;
                };
                let end = match end.as_deref().map(parse_datetime) {
                    Some(Ok(e)) => Some(e),
                    Some(Err(_)) => return false,
                    None => None,
                };
                let want = attendees.clone().map(normalized);
                cal.events.values().any(|e| {
                    e.title == *title
                        && e.start == start
                        && end.is_none_or(|x| e.end == x)
                        && calendar.as_ref().is_none_or(|c| e.calendar == *c)
                        && location
                            .as_ref()
                            .is_none_or(|l| e.location.as_ref() == Some(l))
                        && want.as_ref().is_none_or(|w| {
                            normalized(e.attendees.iter().map(|a| a.email.clone())) == *w
                        })
                })
            }
            Atom::NoEventAt { time, calendar } => {
                let Ok(t) = parse_datetime(time) else {
                    return false;
                };
                !cal.events.values().any(|e| {
                    calendar.as_ref().is_none_or(|c| e.calendar == *c) && e.start <= t && t < e.end
                })
            }
            Atom::EventAbsent { id } => !cal.events.contains_key(id),
            Atom::AttendeeResponse {
                event_id,
                email,
                response,
            } => cal.events.get(event_id).is_some_and(|e| {
                e.attendees
                    .iter()
                    .any(|a| a.email.eq_ignore_ascii_case(email) && a.response == *response)
            }),
            Atom::EventAttendees {
                event_id,
                attendees,
            } => cal.events.get(event_id).is_some_and(|e| {
                normalized(e.attendees.iter().map(|a| a.email.clone()))
                    == normalized(attendees.iter().cloned())
            }),
        }
    }
}
