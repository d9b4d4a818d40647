//! `compose.report_file_and_announce` (postgres + filesystem + slack): a report file holds
//! counts from an earlier date, one line per order status or customer city, for some of them
//! only. Refreshing it means reading the file to learn which lines it keeps, counting those in
//! the database (a listed one may have none now), rewriting it with the new date, and posting
//! the new total. A careless agent lists every status or city, keeps an old number, or posts
//! the total of the whole table.

use super::{REPORT_CHANNELS, bot_messages, call, list_channels, pg_query, post, posted};
use super::{spoken_date, with_slack, workspace};
use mcpbench_server_filesystem as fs;
use mcpbench_server_postgres::sample::{CITIES, ORDER_STATUSES, Shop, ShopTable};
use mcpbench_sim::{Pred, Rng, params};
use mcpbench_world::{Atom, Composed, InitialState};
use serde_json::json;
use std::collections::BTreeMap;

/// What a report counts: its title, the noun of its total, its file names.
struct Kind {
    title: &'static str,
    noun: &'static str,
    files: [&'static str; 3],
}

const BY_STATUS: Kind = Kind {
    title: "Orders by status",
    noun: "orders",
    files: ["order-status", "orders-by-status", "status-counts"],
};
const BY_CITY: Kind = Kind {
    title: "Customers by city",
    noun: "customers",
    files: ["customers-by-city", "city-counts", "customer-cities"],
};

pub(super) fn report_file_and_announce(rng: &mut Rng) -> Composed {
    let db = Shop::sample(rng);
    let channel = *rng.pick(REPORT_CHANNELS);
    let by_status = rng.chance(1, 2);
    let kind = if by_status { &BY_STATUS } else { &BY_CITY };
    let (lines, sql, tables) = if by_status {
        let listed = rng.sample(ORDER_STATUSES, 3);
        let lines: Vec<(String, usize)> = (listed.iter())
            .map(|s| {
                (
                    s.to_string(),
                    db.orders.iter().filter(|o| o.status == *s).count(),
                )
            })
            .collect();
        let sql = "SELECT status, count(*) FROM orders GROUP BY status".to_string();
        (
            lines,
            sql,
            vec![ShopTable::Customers, ShopTable::Products, ShopTable::Orders],
        )
    } else {
        // One city with customers, so the total is rarely nothing; the others may have none.
        let home = rng.pick(&db.customers).city.clone();
        let others: Vec<&str> = CITIES.iter().copied().filter(|c| *c != home).collect();
        let mut listed = rng.sample(&others, 2);
        listed.insert(rng.below(3) as usize, home.as_str());
        let lines: Vec<(String, usize)> = (listed.iter())
            .map(|c| {
                (
                    c.to_string(),
                    db.customers.iter().filter(|x| x.city == *c).count(),
                )
            })
            .collect();
        let sql = "SELECT city, count(*) FROM customers GROUP BY city".to_string();
        (lines, sql, vec![ShopTable::Customers])
    };
    let path = format!("/reports/{}.txt", rng.pick(&kind.files));
    let old_day = format!("2025-{:02}-{:02}", rng.range(1, 5), rng.range(1, 28));
    let new_day = format!("2025-{:02}-{:02}", rng.range(6, 12), rng.range(1, 28));
    let old: Vec<(String, usize)> = (lines.iter())
        .map(|(l, n)| (l.clone(), n + rng.range(1, 3) as usize))
        .collect();
    let total: usize = lines.iter().map(|(_, n)| n).sum();
    let content = render(kind.title, &new_day, &lines);
    let announcement = format!("{} as of {new_day}: {total} {}", kind.title, kind.noun);
    let files: BTreeMap<String, String> = [
        (
            "/reports/README.txt".to_string(),
            "Plain-text reports drawn from the shop database; each says when it was last counted.\n"
                .to_string(),
        ),
        (
            "/reports/products-total.txt".to_string(),
            format!("Products in catalog, as of {old_day}\nall: {}\n", db.products.len()),
        ),
        (path.clone(), render(kind.title, &old_day, &old)),
    ]
    .into_iter()
    .collect();
    let (w, channel_id) = workspace(rng, channel);

    let file_is = |c: String| {
        Pred::Atom(Atom::filesystem(fs::Atom::FileEquals {
            path: path.clone(),
            content: c,
        }))
    };
    let steps = vec![
        call("filesystem.read_text_file", json!({ "path": path })),
        pg_query(&sql),
        call(
            "filesystem.write_file",
            json!({ "path": path, "content": content }),
        ),
        list_channels(),
        post(&channel_id, &announcement),
    ];
    let day = spoken_date(&new_day);
    let title = kind.title;
    let noun = kind.noun;
    let goal = match rng.below(3) {
        0 => format!(
            "Our report {path} is stale. Bring it up to date for {day} 2025 from the shop database: keep its lines as they are (same entries, same order, same layout) but put today's date, {new_day}, in its heading and the current count on every line. Then post exactly `{title} as of {new_day}: <total> {noun}` in #{channel}, where <total> is the sum of the counts in the refreshed file."
        ),
        1 => format!(
            "Please refresh {path} as of {new_day}: the heading gets that date and each line the current number from the database, with no lines added or removed. Once it's written, announce it in the #{channel} channel with exactly `{title} as of {new_day}: <total> {noun}`, <total> being what the file's counts add up to."
        ),
        _ => format!(
            "The numbers in {path} are from an earlier count. Redo them from the database for {day} 2025 (heading dated {new_day}, the same entries in the same order and format, each with its current count), save the file, and tell #{channel} exactly `{title} as of {new_day}: <total> {noun}` with the sum of the file's counts as <total>."
        ),
    };
    Composed {
        max_steps: steps.len() as u32 + 5,
        goal,
        initial_state: InitialState {
            postgres: Some(db.seed(&tables)),
            filesystem: Some(fs::Seed {
                files,
                ..Default::default()
            }),
            slack: Some(w.seed),
            ..Default::default()
        },
        available_tools: with_slack(&[
            "postgres.query",
            "postgres.count_rows",
            "postgres.list_tables",
            "postgres.describe_table",
            "filesystem.write_file",
            "filesystem.read_text_file",
            "filesystem.list_directory",
        ]),
        success_predicate: Pred::All(vec![
            Pred::Any(vec![
                file_is(content.clone()),
                file_is(content.trim_end().to_string()),
            ]),
            posted(channel, &announcement),
            bot_messages(channel, 1),
        ]),
        faults: vec![],
        reference_solutions: vec![steps],
        params: params(&[
            ("by_status", json!(by_status)),
            ("path", json!(path)),
            ("total", json!(total)),
            ("channel", json!(channel)),
        ]),
    }
}

/// The report: a dated heading, then one `<entry>: <count>` line each, ending in a newline.
fn render(title: &str, day: &str, lines: &[(String, usize)]) -> String {
    let mut out = format!("{title}, as of {day}\n");
    for (entry, n) in lines {
        out.push_str(&format!("{entry}: {n}\n"));
    }
    out
}
