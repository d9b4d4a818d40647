//! `calendar.*` predicate atoms. Titles compare exactly (`titleContains` as a normalised
//! phrase), addresses case-insensitively and as sets, times as local `YYYY-MM-DDTHH:MM`.

use crate::state::{Calendar, Response};
use mcpbench_sim::contains_phrase;
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
    /// Exactly `count` events exist, counting only those on calendar `calendar` and those
    /// whose title holds the phrase `titleContains` (case, white space and punctuation at
    /// word edges aside, whole words) when given. A seed's background adds as many as it
    /// expanded to that pass the same filters: `count` is what the seed's own events and the
    /// task's changes make it.
    #[serde(rename = "calendar.eventCount")]
    EventCount {
        count: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        calendar: Option<String>,
        #[serde(
            default,
            rename = "titleContains",
            skip_serializing_if = "Option::is_none"
        )]
        title_contains: Option<String>,
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
            Atom::EventCount {
                count,
                calendar,
                title_contains,
            } => {
                let counted = |(c, title): (&String, &String)| {
                    calendar.as_ref().is_none_or(|want| c == want)
                        && title_contains
                            .as_ref()
                            .is_none_or(|t| contains_phrase(title, t))
                };
                let n = cal
                    .events
                    .values()
                    .filter(|e| counted((&e.calendar, &e.title)))
                    .count();
                let background = cal
                    .background
                    .iter()
                    .filter(|(c, t)| counted((c, t)))
                    .count();
                n == *count as usize + background
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Seed, SeedEvent};

    fn calendar() -> Calendar {
        let event = |id: &str, title: &str, day: &str, calendar: &str| {
            let mut e = SeedEvent::new(id, title, &format!("{day}T10:00"), &format!("{day}T11:00"));
            e.calendar = calendar.into();
            e
        };
        let seed = Seed {
            calendars: crate::sample_seed().calendars,
            events: vec![
                event("evt-1", "Park run (rain plan)", "2026-03-03", "primary"),
                event("evt-2", "Park run", "2026-03-04", "primary"),
                event("evt-3", "Harbour walk", "2026-03-05", "primary"),
                event("evt-4", "Team picnic", "2026-03-05", "team-northwind"),
            ],
            ..Seed::default()
        };
        Calendar::from_seed(&seed).expect("a valid seed")
    }

    fn count(count: u32, calendar: Option<&str>, title_contains: Option<&str>) -> Atom {
        Atom::EventCount {
            count,
            calendar: calendar.map(String::from),
            title_contains: title_contains.map(String::from),
        }
    }

    #[test]
    fn event_count_holds_for_the_exact_number_only() {
        let cal = calendar();
        assert!(count(4, None, None).holds(&cal));
        assert!(!count(3, None, None).holds(&cal));
        assert!(!count(5, None, None).holds(&cal));
    }

    #[test]
    fn event_count_filters_by_calendar_and_title_phrase() {
        let cal = calendar();
        assert!(count(3, Some("primary"), None).holds(&cal));
        assert!(count(1, Some("team-northwind"), None).holds(&cal));
        assert!(count(0, Some("room-atlas"), None).holds(&cal));
        assert!(count(0, Some("no-such-calendar"), None).holds(&cal));
        // Case, spacing and the brackets around a word aside; whole words only.
        assert!(count(2, None, Some("park RUN")).holds(&cal));
        assert!(count(1, None, Some("  Rain   plan ")).holds(&cal));
        assert!(count(0, None, Some("Par")).holds(&cal));
        assert!(count(0, None, Some("")).holds(&cal));
        assert!(count(1, Some("team-northwind"), Some("picnic")).holds(&cal));
        assert!(count(0, Some("primary"), Some("picnic")).holds(&cal));
    }

    #[test]
    fn event_count_reads_and_writes_camel_case() {
        let atom = count(2, Some("primary"), Some("rain plan"));
        let json = serde_json::to_value(&atom).unwrap();
        let want = serde_json::json!({ "calendar.eventCount": {
            "count": 2, "calendar": "primary", "titleContains": "rain plan"
        } });
        assert_eq!(json, want);
        assert_eq!(serde_json::from_value::<Atom>(want).unwrap(), atom);
        let bare = serde_json::json!({ "calendar.eventCount": { "count": 0 } });
        assert_eq!(
            serde_json::from_value::<Atom>(bare).unwrap(),
            count(0, None, None)
        );
    }
}
