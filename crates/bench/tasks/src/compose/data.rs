//! Data templates: a number is read on one server (a sum or a count from the database, a stock
//! level from the shop, a forecast high, the open pull requests of a repository) and recorded on
//! another (a channel message, a database row, a report file, a knowledge-graph observation).
//! Goals say where the number is and fix every other value, including the exact wording with a
//! placeholder for the number; predicates check the written text or row exactly.

use mcpbench_server_filesystem as fs;
use mcpbench_server_github as gh;
use mcpbench_server_memory as mem;
use mcpbench_server_postgres as pg;
use mcpbench_server_postgres::sample::{Shop, ShopTable, money};
use mcpbench_server_shop as shop;
use mcpbench_server_slack as slack;
use mcpbench_server_weather as weather;
use mcpbench_sim::{Call, Category, Difficulty, Pred, Rng, Step, params};
use mcpbench_world::{AnyTemplate, Atom, Composed, InitialState};
use serde_json::{Value, json};
use std::collections::BTreeMap;

pub(crate) fn templates() -> Vec<AnyTemplate> {
    use Difficulty::*;
    let t = |id, servers, difficulty, build| {
        AnyTemplate::new(id, servers, Category::Composition, difficulty, build)
    };
    vec![
        t(
            "compose.revenue_to_channel",
            vec!["postgres", "slack"],
            Medium,
            revenue_to_channel,
        ),
        t(
            "compose.stock_to_database",
            vec!["shop", "postgres"],
            Medium,
            stock_to_database,
        ),
        t(
            "compose.report_file_and_announce",
            vec!["postgres", "filesystem", "slack"],
            Hard,
            report_file_and_announce,
        ),
        t(
            "compose.forecast_to_channel",
            vec!["weather", "slack"],
            Medium,
            forecast_to_channel,
        ),
        t(
            "compose.open_prs_to_memory",
            vec!["github", "memory"],
            Medium,
            open_prs_to_memory,
        ),
    ]
}

/// Month names, space-separated, January first.
const MONTHS: &str =
    "January February March April May June July August September October November December";

/// Channels numbers are reported to; none is in the slack crate's chatter pool.
const REPORT_CHANNELS: &[&str] = &["finance", "sales", "revenue", "ops-reports", "analytics"];
const TRIP_CHANNELS: &[&str] = &["travel", "team-offsite", "office-news", "weekend-plans"];

/// Owners and names of the repositories whose pull requests are counted.
const OWNERS: &[&str] = &["acme", "northwind", "globex", "initech", "hooli"];
const REPOS: &[&str] = &["api", "web", "billing", "search", "gateway", "scheduler"];
/// (branch slug, pull request title).
const FEATURES: &[(&str, &str)] = &[
    ("dark-mode", "Add dark mode"),
    ("csv-export", "Export reports as CSV"),
    ("retry-backoff", "Retry failed jobs with backoff"),
    ("audit-log", "Record changes in an audit log"),
    ("sso-login", "Sign in with SSO"),
    ("rate-limits", "Per-client rate limits"),
    ("bulk-edit", "Bulk edit of records"),
    ("webhooks", "Outgoing webhooks"),
    ("i18n", "Translate the UI"),
];
const REPO_FACTS: &[&str] = &[
    "Written in Python",
    "Deployed every Tuesday",
    "Owned by the platform team",
    "Uses GitHub Actions for CI",
];

fn call(tool: &str, arguments: Value) -> Step {
    Step::Call(Call {
        tool: tool.into(),
        arguments,
    })
}

fn strings(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

const SLACK_TOOLS: &[&str] = &[
    "slack.slack_list_channels",
    "slack.slack_post_message",
    "slack.slack_get_channel_history",
    "slack.slack_join_channel",
];

/// A workspace of four people with #general and `channel` (the bot in both), some chatter in
/// each; returns the seed and the id of `channel`.
fn workspace(rng: &mut Rng, channel: &str) -> (slack::Seed, String) {
    let mut w = slack::world::World::new(rng, 4);
    let general = w.channel("general", true);
    let id = w.channel(channel, true);
    w.chatter(rng, &general, 2);
    w.chatter(rng, &id, 2);
    (w.seed, id)
}

/// Posts `text` in the channel of id `channel_id`.
fn post(channel_id: &str, text: &str) -> Step {
    call(
        "slack.slack_post_message",
        json!({ "channel_id": channel_id, "text": text }),
    )
}

/// A top-level message in `channel` (a name) whose text is exactly `text`.
fn posted(channel: &str, text: &str) -> Pred<Atom> {
    Pred::Atom(Atom::slack(slack::Atom::MessagePosted {
        channel: channel.into(),
        text: Some(text.into()),
        text_contains: None,
        user: None,
    }))
}

/// `tools`, then the slack tools every task that posts gets.
fn with_slack(tools: &[&str]) -> Vec<String> {
    strings(&[tools, SLACK_TOOLS].concat())
}

fn list_channels() -> Step {
    call("slack.slack_list_channels", json!({}))
}

fn pg_query(sql: &str) -> Step {
    call("postgres.query", json!({ "sql": sql }))
}

fn revenue_to_channel(rng: &mut Rng) -> Composed {
    let mut db = Shop::sample(rng);
    let channel = *rng.pick(REPORT_CHANNELS);
    let by_customer = rng.chance(1, 2);
    let (what, wording, sql, total) = if by_customer {
        let customer = db.customers[rng.below(2) as usize].clone();
        let mine: Vec<usize> = (0..db.orders.len())
            .filter(|&i| db.orders[i].customer_id == customer.id)
            .collect();
        db.orders[*rng.pick(&mine)].status = "paid".into();
        let total: i64 = db
            .orders_of(customer.id)
            .iter()
            .filter(|o| o.status == "paid")
            .map(|o| o.total_cents)
            .sum();
        (
            format!("the total of all paid orders placed by {}", customer.name),
            format!("Paid orders from {}", customer.name),
            format!(
                "SELECT SUM(o.total) FROM orders o JOIN customers c ON c.id = o.customer_id \
                 WHERE c.name = '{}' AND o.status = 'paid'",
                customer.name
            ),
            total,
        )
    } else {
        let at = rng.below(db.orders.len() as u64) as usize;
        db.orders[at].status = "paid".into();
        let month = db.orders[at].placed_on[..7].to_string();
        let name = MONTHS
            .split(' ')
            .nth(month[5..].parse::<usize>().expect("a month") - 1)
            .expect("a month");
        let year = &month[..4];
        let total: i64 = db
            .orders
            .iter()
            .filter(|o| o.status == "paid" && o.placed_on.starts_with(&month))
            .map(|o| o.total_cents)
            .sum();
        (
            format!("the total of all paid orders placed in {name} {year}"),
            format!("Paid revenue for {name} {year}"),
            format!(
                "SELECT SUM(total) FROM orders WHERE status = 'paid' AND substr(placed_on, 1, 7) = '{month}'"
            ),
            total,
        )
    };
    let (slack_seed, channel_id) = workspace(rng, channel);
    let text = format!("{wording}: {}", money(total));
    let goal = format!(
        "Work out {what} from the orders table (the sum of its total column; only orders whose \
         status is 'paid' count), then post exactly `{wording}: <amount>` in the #{channel} \
         channel, with the amount written with two decimals (like 1234.50)."
    );
    Composed {
        max_steps: 6,
        goal,
        initial_state: InitialState {
            postgres: Some(db.seed(&[
                ShopTable::Customers,
                ShopTable::Products,
                ShopTable::Orders,
            ])),
            slack: Some(slack_seed),
            ..Default::default()
        },
        available_tools: with_slack(&[
            "postgres.query",
            "postgres.list_tables",
            "postgres.describe_table",
            "postgres.get_table_sample",
        ]),
        success_predicate: posted(channel, &text),
        faults: vec![],
        reference_solutions: vec![vec![
            pg_query(&sql),
            list_channels(),
            post(&channel_id, &text),
        ]],
        params: params(&[
            ("by_customer", json!(by_customer)),
            ("channel", json!(channel)),
            ("total", json!(money(total))),
        ]),
    }
}

fn stock_to_database(rng: &mut Rng) -> Composed {
    let mut store = shop::sample_seed(rng);
    let active: Vec<usize> = (0..store.products.len())
        .filter(|&i| store.products[i].status == shop::ProductStatus::Active)
        .collect();
    let at = *rng.pick(&active);
    let location = rng.pick(&store.locations).clone();
    let units = rng.range(1, 80) as u32;
    store.products[at]
        .inventory
        .insert(location.id.clone(), units);
    let product = store.products[at].clone();
    // Earlier counts of other products, one of them perhaps at the same location.
    let others: Vec<&shop::Product> = store
        .products
        .iter()
        .filter(|p| p.id != product.id)
        .collect();
    let n = rng.range(2, 4) as usize;
    let rows: Vec<Vec<Value>> = rng
        .sample(&others, n)
        .into_iter()
        .map(|p| {
            let loc = &rng.pick(&store.locations).id;
            vec![
                json!(p.sku),
                json!(loc),
                json!(rng.range(0, 60)),
                json!(format!("2025-01-{:02}", rng.range(2, 14))),
            ]
        })
        .collect();
    let before = rows.len();
    let table = pg::TableSeed {
        name: "stock_counts".into(),
        columns: vec![
            pg::ColumnSeed::new("sku", pg::SqlType::Text).not_null(),
            pg::ColumnSeed::new("location", pg::SqlType::Text).not_null(),
            pg::ColumnSeed::new("units", pg::SqlType::Integer)
                .not_null()
                .check("units >= 0"),
            pg::ColumnSeed::new("counted_on", pg::SqlType::Date)
                .not_null()
                .default(json!("2025-01-15")),
        ],
        primary_key: vec![],
        rows,
    };
    let goal = format!(
        "Check in the shop how many units of the {} (SKU {}) the {} holds right now, and record \
         that count in the stock_counts table of the database: add exactly one row with sku '{}', \
         location '{}' and units set to that count (counted_on can keep its default).",
        product.title, product.sku, location.name, product.sku, location.id
    );
    let row = |extra: &[(&str, Value)]| {
        let mut filter: BTreeMap<String, Value> = params(extra);
        filter.insert("sku".into(), json!(product.sku));
        filter.insert("location".into(), json!(location.id));
        filter
    };
    Composed {
        max_steps: 6,
        goal,
        initial_state: InitialState {
            shop: Some(store),
            postgres: Some(pg::Seed {
                tables: vec![table],
                ..Default::default()
            }),
            ..Default::default()
        },
        available_tools: strings(&[
            "shop.search_products",
            "shop.get_product",
            "shop.list_products",
            "shop.list_locations",
            "postgres.query",
            "postgres.execute_sql",
            "postgres.describe_table",
            "postgres.list_tables",
        ]),
        success_predicate: Pred::All(vec![
            Pred::Atom(Atom::postgres(pg::Atom::RowExists {
                table: "stock_counts".into(),
                filter: row(&[("units", json!(units))]),
            })),
            Pred::Atom(Atom::postgres(pg::Atom::RowCount {
                table: "stock_counts".into(),
                filter: row(&[]),
                count: 1,
            })),
            Pred::Atom(Atom::postgres(pg::Atom::RowCount {
                table: "stock_counts".into(),
                filter: BTreeMap::new(),
                count: before as u64 + 1,
            })),
        ]),
        faults: vec![],
        reference_solutions: vec![vec![
            call("shop.search_products", json!({ "query": product.sku })),
            call("shop.get_product", json!({ "productId": product.id })),
            call(
                "postgres.execute_sql",
                json!({ "sql": format!(
                    "INSERT INTO stock_counts (sku, location, units) VALUES ('{}', '{}', {units})",
                    product.sku, location.id
                ) }),
            ),
        ]],
        params: params(&[
            ("sku", json!(product.sku)),
            ("location", json!(location.id)),
            ("units", json!(units)),
        ]),
    }
}

fn report_file_and_announce(rng: &mut Rng) -> Composed {
    let db = Shop::sample(rng);
    let channel = *rng.pick(REPORT_CHANNELS);
    let by_status = rng.chance(1, 2);
    let (what, line, slug, sql, count, tables) = if by_status {
        let mut present: Vec<&str> = db.orders.iter().map(|o| o.status.as_str()).collect();
        present.sort_unstable();
        present.dedup();
        let status = rng.pick(&present).to_string();
        let count = db.orders.iter().filter(|o| o.status == status).count();
        (
            format!("how many orders in the database have the status '{status}'"),
            format!("Orders with status {status}"),
            format!("orders-{status}"),
            format!("SELECT count(*) FROM orders WHERE status = '{status}'"),
            count,
            vec![ShopTable::Customers, ShopTable::Products, ShopTable::Orders],
        )
    } else {
        let city = rng.pick(&db.customers).city.clone();
        let count = db.customers.iter().filter(|c| c.city == city).count();
        (
            format!("how many customers in the database are in the city of {city}"),
            format!("Customers in {city}"),
            format!("customers-{}", city.to_lowercase()),
            format!("SELECT count(*) FROM customers WHERE city = '{city}'"),
            count,
            vec![ShopTable::Customers],
        )
    };
    let path = format!("/reports/{slug}.txt");
    let content = format!("{line}: {count}");
    let announcement = format!("Report written to {path}");
    let files: BTreeMap<String, String> = [
        (
            "/reports/README.txt".to_string(),
            "Plain-text reports drawn from the shop database, one number per file.\n".to_string(),
        ),
        (
            "/reports/products-total.txt".to_string(),
            format!("Products in catalog: {}\n", db.products.len()),
        ),
    ]
    .into_iter()
    .collect();
    let (slack_seed, channel_id) = workspace(rng, channel);
    let goal = format!(
        "Find out {what}. Write a report file at {path} whose content is exactly `{line}: <count>` \
         with the number in place of <count>, then post exactly `{announcement}` in the #{channel} \
         channel."
    );
    let file_is = |c: String| {
        Pred::Atom(Atom::filesystem(fs::Atom::FileEquals {
            path: path.clone(),
            content: c,
        }))
    };
    Composed {
        max_steps: 7,
        goal,
        initial_state: InitialState {
            postgres: Some(db.seed(&tables)),
            filesystem: Some(fs::Seed {
                files,
                ..Default::default()
            }),
            slack: Some(slack_seed),
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
                file_is(format!("{content}\n")),
            ]),
            posted(channel, &announcement),
        ]),
        faults: vec![],
        reference_solutions: vec![vec![
            pg_query(&sql),
            call(
                "filesystem.write_file",
                json!({ "path": path, "content": content }),
            ),
            list_channels(),
            post(&channel_id, &announcement),
        ]],
        params: params(&[
            ("by_status", json!(by_status)),
            ("path", json!(path)),
            ("count", json!(count)),
            ("channel", json!(channel)),
        ]),
    }
}

fn forecast_to_channel(rng: &mut Rng) -> Composed {
    let unique: Vec<&weather::Known> = weather::unambiguous_places().collect();
    let known = *rng.pick(&unique);
    let mut seed = weather::world_with(rng, &[known.id], 3);
    seed.units = *rng.pick(&[weather::Units::Metric, weather::Units::Imperial]);
    let asked = *rng.pick(&[weather::Units::Metric, weather::Units::Imperial]);
    let (unit_word, sign) = match asked {
        weather::Units::Metric => ("Celsius", "°C"),
        weather::Units::Imperial => ("Fahrenheit", "°F"),
    };
    let offset = rng.range(1, 5) as usize;
    let place = seed.place(known.id).expect("a place of the world").clone();
    let day = &place.daily[offset];
    let high = weather::temperature(day.high_c, asked);
    let shown = weather::display_name(&place);
    let channel = *rng.pick(TRIP_CHANNELS);
    let (slack_seed, channel_id) = workspace(rng, channel);
    let text = format!("{} high on {}: {high}{sign}", place.name, day.date);
    let goal = format!(
        "Look up the forecast high for {shown} on {}, in degrees {unit_word}, and post exactly \
         `{} high on {}: <n>{sign}` in the #{channel} channel, with the whole number of degrees \
         in place of <n>.",
        day.date, place.name, day.date
    );
    Composed {
        max_steps: 6,
        goal,
        initial_state: InitialState {
            weather: Some(seed),
            slack: Some(slack_seed),
            ..Default::default()
        },
        available_tools: with_slack(&[
            "weather.geocode",
            "weather.get_forecast",
            "weather.get_current_weather",
            "weather.get_hourly_forecast",
        ]),
        success_predicate: posted(channel, &text),
        faults: vec![],
        reference_solutions: vec![vec![
            call(
                "weather.get_forecast",
                json!({ "location": shown, "days": offset + 1, "units": asked }),
            ),
            list_channels(),
            post(&channel_id, &text),
        ]],
        params: params(&[
            ("place", json!(known.id)),
            ("date", json!(day.date)),
            ("units", json!(asked)),
            ("high", json!(high)),
            ("channel", json!(channel)),
        ]),
    }
}

fn open_prs_to_memory(rng: &mut Rng) -> Composed {
    let owner = *rng.pick(OWNERS);
    let name = *rng.pick(REPOS);
    let mut repo = gh::base_repo(rng, owner, name);
    let full = repo.full_name();
    let n_issues = rng.range(1, 3) as u64;
    for k in 0..n_issues {
        repo.issues.push(gh::IssueSeed::new(
            k + 1,
            &format!("Follow-up {} from the last release", k + 1),
            "Left over from the release checklist.",
            &[],
        ));
    }
    let open = rng.range(1, 5) as usize;
    let closed = rng.range(0, 2) as usize;
    let features = rng.sample(FEATURES, open + closed);
    for (i, (slug, title)) in features.iter().enumerate() {
        let branch = format!("feature/{slug}");
        let module = slug.replace('-', "_");
        let mut c = gh::CommitSeed::new(
            &branch,
            &format!("Add {module}"),
            &[(
                &format!("src/{module}.py"),
                &format!("def {module}():\n    return True\n"),
            )],
        );
        c.from = Some("main".into());
        repo.commits.push(c);
        let mut pr = gh::PullSeed::new(n_issues + 1 + i as u64, title, &branch, "main");
        pr.user = Some(repo.collaborators[i % repo.collaborators.len()].clone());
        if i >= open {
            pr.state = gh::State::Closed;
        }
        repo.pull_requests.push(pr);
    }
    let mut graph = mem::world::company(rng, 3, 2);
    let facts = rng.sample(REPO_FACTS, 2);
    graph.graph.entity(&full, "repository", &facts);
    let maintainer = rng.pick(&graph.people).clone();
    graph.graph.relate(&maintainer, &full, "maintains");
    let observation = format!("Open pull requests: {open}");
    let goal = format!(
        "Count the open pull requests of the GitHub repository {full}, then record the number in \
         the knowledge graph as an observation on the existing entity \"{full}\", worded exactly \
         `Open pull requests: <n>`."
    );
    Composed {
        max_steps: 5,
        goal,
        initial_state: InitialState {
            github: Some(gh::Seed {
                repos: vec![repo],
                ..Default::default()
            }),
            memory: Some(graph.graph.seed),
            ..Default::default()
        },
        available_tools: strings(&[
            "github.list_pull_requests",
            "github.get_pull_request",
            "github.list_issues",
            "github.search_issues",
            "memory.add_observations",
            "memory.open_nodes",
            "memory.search_nodes",
            "memory.read_graph",
        ]),
        success_predicate: Pred::All(vec![
            Pred::Atom(Atom::memory(mem::Atom::HasObservation {
                entity: full.clone(),
                observation: observation.clone(),
            })),
            Pred::Atom(Atom::memory(mem::Atom::ObservationCount {
                entity: full.clone(),
                count: facts.len() as u32 + 1,
            })),
        ]),
        faults: vec![],
        reference_solutions: vec![vec![
            call(
                "github.list_pull_requests",
                json!({ "owner": owner, "repo": name, "state": "open" }),
            ),
            call(
                "memory.add_observations",
                json!({ "observations": [{ "entityName": full, "contents": [observation] }] }),
            ),
        ]],
        params: params(&[
            ("repo", json!(full)),
            ("open", json!(open)),
            ("closed", json!(closed)),
        ]),
    }
}
