//! `weather.*` predicate atoms, evaluated on the user's state at the end of a run.

use crate::state::{AlertType, Channel, Units, Weather, normalize_types};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub enum Atom {
    /// The place (by id) is among the saved locations; with `label`, saved under exactly that
    /// label.
    #[serde(rename = "weather.locationSaved")]
    LocationSaved {
        place: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        label: Option<String>,
    },
    /// The place (by id) is not among the saved locations.
    #[serde(rename = "weather.notSaved")]
    NotSaved { place: String },
    /// Exactly `count` locations are saved.
    #[serde(rename = "weather.savedCount")]
    SavedCount { count: u32 },
    /// A subscription for the place (by id) covers exactly the set `alert_types`; with
    /// `channel`, on that channel.
    #[serde(rename = "weather.subscribed")]
    Subscribed {
        place: String,
        alert_types: Vec<AlertType>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        channel: Option<Channel>,
    },
    /// No subscription, on any channel, exists for the place (by id).
    #[serde(rename = "weather.notSubscribed")]
    NotSubscribed { place: String },
    /// The user's preferred units are `units`.
    #[serde(rename = "weather.unitsAre")]
    UnitsAre { units: Units },
}

impl Atom {
    pub(crate) fn holds(&self, w: &Weather) -> bool {
        match self {
            Atom::LocationSaved { place, label } => w
                .saved
                .iter()
                .any(|s| &s.place == place && label.as_ref().is_none_or(|l| &s.label == l)),
            Atom::NotSaved { place } => w.saved.iter().all(|s| &s.place != place),
            Atom::SavedCount { count } => w.saved.len() == *count as usize,
            Atom::Subscribed {
                place,
                alert_types,
                channel,
            } => {
                let want = normalize_types(alert_types);
                w.subscriptions.iter().any(|s| {
                    &s.place == place
                        && s.alert_types == want
                        && channel.is_none_or(|c| s.channel == c)
                })
            }
            Atom::NotSubscribed { place } => w.subscriptions.iter().all(|s| &s.place != place),
            Atom::UnitsAre { units } => w.units == *units,
        }
    }
}
