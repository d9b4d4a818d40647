//! A database's other tables beside the task's own: an audit log and a support queue of a few
//! hundred rows between them, written in the seed as a seed and a count and expanded when the
//! database is built. They hold no row of the task's tables and no foreign key to them, and
//! their names are used by no template; a listing of the schema shows them among the task's
//! tables, and a query over them runs into the 100-row cap of a result as a real one would.

use crate::state::{ColumnSeed, Seed, SqlType, TableSeed};
use mcpbench_sim::Rng;
use mcpbench_sim::background::{minutes_ago, person};
use mcpbench_sim::dates::{format_datetime, parse_datetime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The most background rows a seed may ask for.
pub const MAX_ROWS: u32 = 2_000;

/// `initial_state.postgres.background`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Background {
    /// The stream the rows are drawn from.
    pub seed: u32,
    /// How many rows in all, at most 2,000: three fifths audit events, the rest tickets.
    #[schemars(range(max = 2000))]
    pub rows: u32,
}

impl Background {
    /// 200 to 500 rows.
    pub fn draw(rng: &mut Rng) -> Self {
        Background {
            seed: rng.below(1 << 32) as u32,
            rows: rng.range(200, 500) as u32,
        }
    }
}

const ACTIONS: &[&str] = &[
    "signed_in",
    "signed_out",
    "changed_password",
    "exported_dashboard",
    "invited_teammate",
    "updated_billing_address",
    "rotated_api_token",
];

const SUBJECTS: &[&str] = &[
    "Cannot reset two-factor device",
    "Dashboard loads slowly in the afternoon",
    "Question about data retention",
    "Request to rename the workspace",
    "Webhook retries look doubled",
    "Single sign-on setup help",
    "Timezone shown wrong in exports",
];

const STATUSES: &[&str] = &["open", "pending", "closed", "closed", "closed"];

const DOMAINS: &[&str] = &["quillfield.com", "tallpine.org", "harbourview.net"];

fn column(name: &str, data_type: SqlType, primary_key: bool) -> ColumnSeed {
    ColumnSeed {
        name: name.into(),
        data_type,
        primary_key,
        not_null: !primary_key,
        unique: false,
        default: None,
        check: None,
        references: None,
    }
}

/// `seed` with the background's tables added after its own (a table whose name the seed
/// already uses is left out).
pub(crate) fn furnished(background: &Background, seed: &Seed, now: &str) -> Seed {
    let mut rng = Rng::new(u64::from(background.seed), 0x7067);
    let now = parse_datetime(&now.replace(' ', "T")[..16.min(now.len())]).unwrap_or(0);
    let when = |rng: &mut Rng| {
        let t = format_datetime(now - minutes_ago(rng, 7, 180)).replace('T', " ");
        format!("{t}:{:02}", rng.below(60))
    };
    let total = background.rows.min(MAX_ROWS) as usize;
    let events = total * 3 / 5;
    let address = |rng: &mut Rng| {
        let (first, last) = person(rng);
        format!(
            "{}.{}@{}",
            first.to_lowercase(),
            last.to_lowercase(),
            rng.pick(DOMAINS)
        )
    };
    let mut audit: Vec<Vec<Value>> = (0..events)
        .map(|_| {
            let at = when(&mut rng);
            vec![
                json!(0),
                json!(at),
                json!(address(&mut rng)),
                json!(*rng.pick(ACTIONS)),
            ]
        })
        .collect();
    let mut tickets: Vec<Vec<Value>> = (events..total)
        .map(|_| {
            let at = when(&mut rng);
            vec![
                json!(0),
                json!(at),
                json!(address(&mut rng)),
                json!(*rng.pick(SUBJECTS)),
                json!(*rng.pick(STATUSES)),
            ]
        })
        .collect();
    // Ids follow time, as serial keys do.
    for rows in [&mut audit, &mut tickets] {
        rows.sort_by(|a, b| a[1].as_str().cmp(&b[1].as_str()));
        for (i, row) in rows.iter_mut().enumerate() {
            row[0] = json!(i as i64 + 1);
        }
    }
    let mut out = seed.clone();
    let tables = [
        TableSeed {
            name: "audit_events".into(),
            columns: vec![
                column("id", SqlType::Integer, true),
                column("occurred_at", SqlType::Timestamp, false),
                column("actor_email", SqlType::Text, false),
                column("action", SqlType::Text, false),
            ],
            primary_key: vec![],
            rows: audit,
        },
        TableSeed {
            name: "support_tickets".into(),
            columns: vec![
                column("id", SqlType::Integer, true),
                column("opened_at", SqlType::Timestamp, false),
                column("requester_email", SqlType::Text, false),
                column("subject", SqlType::Text, false),
                column("status", SqlType::Text, false),
            ],
            primary_key: vec![],
            rows: tickets,
        },
    ];
    for t in tables {
        if !out.tables.iter().any(|o| o.name == t.name) {
            out.tables.push(t);
        }
    }
    out
}
