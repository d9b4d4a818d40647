//! The CSV exports (RFC 4180, CRLF line ends, a header row): the board, one row per entry,
//! and a set's result matrix, one row per task and submission. A missing figure is an empty
//! cell, never 0. Text a vendor chose (names, models) is quoted where it must be and, where it
//! starts as a spreadsheet formula would (`=`, `+`, `-`, `@`, tab, CR), led by `'` so that no
//! spreadsheet runs it (OWASP's advice on CSV injection).

use axum::body::Body;
use axum::response::{IntoResponse, Response};
use http::header;
use mcpbench_core::board::{Board, BoardEntry};
use mcpbench_core::results::Results;
use time::format_description::well_known::Rfc3339;

/// Rows under a header.
pub(crate) struct Table {
    out: String,
}

impl Table {
    pub fn new(header: &[&str]) -> Self {
        let mut t = Table { out: String::new() };
        t.row(header.iter().map(|h| h.to_string()));
        t
    }

    /// One row of cells already made with [`text`] or [`num`].
    pub fn row(&mut self, cells: impl IntoIterator<Item = String>) {
        let mut first = true;
        for cell in cells {
            if !first {
                self.out.push(',');
            }
            first = false;
            self.out.push_str(&cell);
        }
        self.out.push_str("\r\n");
    }

    pub fn finish(self) -> String {
        self.out
    }
}

/// A text cell: quoted when it holds a comma, quote or line break; defused when a spreadsheet
/// would read it as a formula, which it does past leading spaces (a non-breaking one too) and
/// for the full-width forms of the signs as well.
pub(crate) fn text(s: &str) -> String {
    let lead = s.trim_start();
    let formula = [
        '=', '+', '-', '@', '\u{ff1d}', '\u{ff0b}', '\u{ff0d}', '\u{ff20}',
    ];
    let defused = if s.starts_with(['\t', '\r']) || lead.starts_with(formula) {
        format!("'{s}")
    } else {
        s.to_string()
    };
    if defused.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", defused.replace('"', "\"\""))
    } else {
        defused
    }
}

/// A figure: empty when unknown.
pub(crate) fn num(v: Option<f64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

fn int(v: impl ToString) -> String {
    v.to_string()
}

/// A download of CSV text under `filename`.
pub(crate) fn attachment(filename: &str, body: impl Into<Body>) -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{filename}\""),
            ),
        ],
        body.into(),
    )
        .into_response()
}

/// The columns of the board's CSV, in order (docs/data.md lists what each means).
pub(crate) const BOARD_COLUMNS: [&str; 44] = [
    "rank",
    "rank_low",
    "rank_high",
    "submission_id",
    "vendor",
    "name",
    "model",
    "reference",
    "organisation",
    "model_version",
    "weights",
    "framework",
    "scaffold",
    "hosting",
    "track",
    "tasks",
    "passed",
    "success_rate",
    "ci95_low",
    "ci95_high",
    "ci95_clustered_low",
    "ci95_clustered_high",
    "coverage",
    "resolved_rate",
    "tool_name_validity",
    "schema_compliance",
    "execution_success",
    "distractor_accuracy",
    "efficiency",
    "hallucinated_tool_rate",
    "recovery_rate",
    "cost_per_task_usd",
    "cost_runs",
    "tokens_per_task",
    "token_runs",
    "median_seconds",
    "finished_at",
    "flags",
    "cost_basis",
    "condition_marks",
    "utility",
    "utility_under_attack",
    "attack_success_rate",
    "attacked_runs",
];

/// The board, one row per entry in rank order.
pub(crate) fn board(board: &Board) -> String {
    let mut t = Table::new(&BOARD_COLUMNS);
    for e in &board.entries {
        t.row(entry_row(e));
    }
    t.finish()
}

fn entry_row(e: &BoardEntry) -> Vec<String> {
    let opt = |v: &Option<String>| text(v.as_deref().unwrap_or_default());
    let p = &e.process;
    let clustered = e.success_ci95_clustered;
    let security = e.security.as_ref().map(|s| &s.overall);
    vec![
        int(e.rank),
        int(e.rank_range[0]),
        int(e.rank_range[1]),
        int(e.submission_id),
        text(&e.vendor),
        text(&e.name),
        text(&e.model),
        int(e.reference),
        opt(&e.about.organisation),
        opt(&e.about.model_version),
        text(e.about.weights.map(|w| w.as_str()).unwrap_or_default()),
        opt(&e.about.framework),
        text(e.about.scaffold.map(|s| s.as_str()).unwrap_or_default()),
        text(e.hosting.as_str()),
        text(e.track.as_str()),
        int(e.tasks),
        int(e.passed),
        num(Some(e.success_rate)),
        num(Some(e.success_ci95[0])),
        num(Some(e.success_ci95[1])),
        num(clustered.map(|c| c[0])),
        num(clustered.map(|c| c[1])),
        num(p.coverage),
        num(p.resolved_rate),
        num(p.tool_name_validity),
        num(p.schema_compliance),
        num(p.execution_success),
        num(p.distractor_accuracy),
        num(e.efficiency),
        num(e.hallucinated_tool_rate),
        num(e.recovery_rate),
        num(e.spend.cost_per_task),
        int(e.spend.cost_runs),
        num(e.spend.tokens_per_task),
        int(e.spend.token_runs),
        num(e.spend.median_seconds),
        e.finished_at.format(&Rfc3339).unwrap_or_default(),
        text(
            &e.flags
                .iter()
                .map(|f| f.as_str())
                .collect::<Vec<_>>()
                .join(";"),
        ),
        text(e.spend.cost_basis.map(|b| b.as_str()).unwrap_or_default()),
        text(&e.condition_marks.join(";")),
        num(security.and_then(|s| s.utility)),
        num(security.and_then(|s| s.utility_under_attack)),
        num(security.and_then(|s| s.attack_success_rate)),
        security.map_or_else(String::new, |s| int(s.attacked_runs)),
    ]
}

/// The matrix as CSV, one row per task and shown submission (the long form spreadsheets and
/// data frames read directly).
pub(crate) fn results(results: &Results) -> String {
    let mut t = Table::new(&[
        "task_id",
        "server",
        "category",
        "submission_id",
        "vendor",
        "name",
        "model",
        "trials",
        "passed",
        "coverage",
        "calls",
    ]);
    for row in &results.tasks {
        for (col, cell) in results.submissions.iter().zip(&row.cells) {
            let Some(cell) = cell else { continue };
            t.row([
                text(&row.task_id),
                text(&row.server),
                text(&row.category),
                col.submission_id.to_string(),
                text(&col.vendor),
                text(&col.name),
                text(&col.model),
                cell.trials.to_string(),
                cell.passed.to_string(),
                num(cell.coverage),
                num(Some(cell.calls)),
            ]);
        }
    }
    t.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_quoted_and_defused() {
        assert_eq!(text("plain"), "plain");
        assert_eq!(text("a,b"), "\"a,b\"");
        assert_eq!(text("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(text("two\nlines"), "\"two\nlines\"");
        assert_eq!(text("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(text("+1"), "'+1");
        assert_eq!(text("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(text(" =1+1"), "' =1+1");
        assert_eq!(text("\u{a0}\u{a0}=1+1"), "'\u{a0}\u{a0}=1+1");
        assert_eq!(text("\u{ff1d}1+1"), "'\u{ff1d}1+1");
        assert_eq!(text("\ta"), "'\ta");
        assert_eq!(text("a = b"), "a = b");
        assert_eq!(num(None), "");
        assert_eq!(num(Some(0.5)), "0.5");
    }

    #[test]
    fn rows_end_in_crlf_and_have_the_headers_width() {
        let mut t = Table::new(&["a", "b"]);
        t.row([text("x,y"), num(None)]);
        assert_eq!(t.finish(), "a,b\r\n\"x,y\",\r\n");
    }
}
