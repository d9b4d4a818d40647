# Helpers the public families share, server by server (each ported from the Rust code named).
# Helpers the public families share.
def euros: "€" + ((. / 100 | floor) | tostring) + "." + ((. % 100) | pad(2));
def active: map(select((.status // "active") == "active"));
# The shop's stock locations, in the order of the Rust LOCATIONS.
def loc_ids: ["berlin", "paris", "madrid"];
def location_name: {"berlin": "Berlin warehouse", "paris": "Paris warehouse", "madrid": "Madrid store"}[.] // "";
# Units of the product (input) at a location; absent is 0.
def stock($loc): .inventory[$loc] // 0;
# Atoms: the stock of product $p stays as seeded at every location other than $except.
def other_stock_unchanged($p; $except):
  [loc_ids[] | select(. != $except) | . as $l
   | {"shop.inventoryLevel": {"sku": $p.sku, "location": $l, "quantity": ($p | stock($l))}}];
# Cents of an order (input): subtotal plus shipping less discount, at least 0.
def order_total: ([.lines[] | .price * .quantity] | add // 0) + (.shipping // 0) - (.discount // 0) | if . < 0 then 0 else . end;
# Paid or fulfilled orders with at least two lines and no refunds.
def refundable: map(select(((.status // "paid") == "paid" or .status == "fulfilled") and (.lines | length) >= 2 and ((.refunds // []) | length) == 0));
# Names of the compose templates' people (compose::rounds_customers::people).
def first_names: "Aisha Bruno Carla Dmitri Elena Felix Grace Hugo Ines Jakob Keiko Liam Maya Nils Olga Pablo Quinn Rita Samir Tess Umar Vera Wanda Yusuf" | split(" ");
def last_names: "Adler Bianchi Costa Duarte Eriksen Fontaine Gruber Horvat Ibsen Jansen Kowalski Lindqvist Moreno Nakamura Oliveira Pereira Quist Reyes Schulz Takahashi Ulrich Varga Weber Zielinski" | split(" ");
# `first.last` of a full name (input), lower case.
def local_part: ascii_downcase | gsub(" "; ".");
# A shop order line of product (input) with a quantity.
def line_of($quantity): {sku, title, quantity: $quantity, price};
# The complaint of compose.refund_and_notify, as an email seed message.
def complaint($id; $subject; $date; $from; $name; $item; $quantity; $damage):
  (if $quantity == 1 then "the \($item)" else "one of the \($quantity) units of \($item)" end) as $what
  | {id: $id, from: $from, to: ["alex@northwind.io"], subject: $subject,
     body: "Hello,\n\nI'm writing about the parcel that arrived yesterday. Unfortunately, when I unpacked it, I found that \($what) was \($damage). Could you refund it, please? I don't need a replacement.\n\nKind regards,\n\($name)",
     date: $date};
# An order of compose.delayed_orders as the shop seed writes it; a refunded one refunded in full.
def delayed_order($id; $email; $lines; $shipping; $status):
  {id: $id, email: $email, lines: $lines}
  + (if $shipping == 0 then {} else {shipping: $shipping} end)
  + (if $status == "paid" then {} else {status: $status} end)
  + (if $status == "refunded" then {refunds: [{amount: (([$lines[] | .price * .quantity] | add) + $shipping), reason: "customer request"}]} else {} end);
# The checks of compose.delayed_orders: one email to each delayed order's customer and no other,
# with the order number and the item, and no other delayed order's number.
def delayed_checks($delayed; $item):
  def count($to; $subject; $body; $n):
    {"email.sentCount": ({to: $to} + (if $subject == null then {} else {subjectContains: $subject} end)
                         + (if $body == null then {} else {bodyContains: $body} end) + {count: $n})};
  def states($to; $text): {"any": [count($to; $text; null; 1), count($to; null; $text; 1)]};
  [{"email.sentOnlyTo": {addresses: [$delayed[].email]}}, {"email.sentCount": {count: ($delayed | length)}}]
  + [$delayed[] as $o
     | count($o.email; null; null; 1), states($o.email; $o.id | tostring), states($o.email; $item),
       ($delayed[] | select(.id != $o.id) | (.id | tostring) as $id
        | count($o.email; $id; null; 0), count($o.email; null; $id; 0))];
# ---- postgres: the sample shop database (crates/bench/servers/postgres/src/sample.rs) ----
# Pools of sample.rs.
def pg_products_pool: [["LMP","Desk Lamp"],["CHR","Office Chair"],["KBD","Mechanical Keyboard"],["MSE","Wireless Mouse"],["MON","Monitor Stand"],["HDP","Studio Headphones"],["CBL","USB-C Cable"],["NTB","Paper Notebook"],["BKP","Laptop Backpack"],["WBT","Water Bottle"],["PLN","Desk Plant"],["CAM","Web Camera"]];
def pg_cities: ["Lisbon","Austin","Lyon","Osaka","Nairobi","Toronto","Krakow","Melbourne"];
def pg_order_statuses: ["pending","paid","shipped","delivered","cancelled"];
# Cents as the stored amount (`amount`): 2450 is 24.5.
def pg_amount: . / 100;
# Cents as text with two decimals (`money`): 2450 is "24.50".
def pg_money: "\(. / 100 | floor).\(. % 100 | pad(2))";
# Cents as an SQL literal (`sql_amount`, Rust's f64 Display): 2450 is "24.5", 2400 is "24"
# (jq writes a whole float as "24.0" in a string).
def pg_sql_amount: if . % 100 == 0 then . / 100 | floor | tostring else . / 100 | tostring end;
# The seed of the `postgres` world as a Shop: customers, products, orders, inventory, read by
# position (the world writes its four tables in that order and every column in place, under
# names drawn per task: crates/bench/servers/postgres/src/naming.rs). `names` holds the
# names this task's schema uses: `names.orders` is the orders table's, `names.order.total`
# its total column's (also `customer`, `product` and `stock` for the other tables' columns);
# `columns` the tables' column definitions as seeded, by role. A family writes every table,
# column and SQL statement through them, never as a literal.
def pg_shop:
  .tables as $ts
  | def named($i; $keys): [$keys, [$ts[$i].columns[].name]] | transpose | map({(.[0]): .[1]}) | add;
  {customers: [($ts[0].rows // [])[] | {id: .[0], name: .[1], email: .[2], city: .[3], status: .[4]}],
   products: [($ts[1].rows // [])[] | {id: .[0], sku: .[1], name: .[2], price_cents: (.[3] * 100 | round), stock: .[4]}],
   orders: [($ts[2].rows // [])[] | {id: .[0], customer_id: .[1], product_id: .[2], quantity: .[3], total_cents: (.[4] * 100 | round), status: .[5], placed_on: .[6]}],
   inventory: [($ts[3].rows // [])[] | {warehouse: .[0], sku: .[1], quantity: .[2]}],
   names: {customers: $ts[0].name, products: $ts[1].name, orders: $ts[2].name, inventory: $ts[3].name,
           customer: named(0; ["id", "name", "email", "city", "status"]),
           product: named(1; ["id", "sku", "name", "price", "stock"]),
           order: named(2; ["id", "customer_id", "product_id", "quantity", "total", "status", "placed_on"]),
           stock: named(3; ["warehouse", "sku", "quantity"])},
   columns: {customers: $ts[0].columns, products: $ts[1].columns, orders: $ts[2].columns, inventory: $ts[3].columns},
   inventory_key: $ts[3].primary_key};
# A TableSeed without its rows when it has none (serde skips an empty list).
def pg_table($name; $columns; $rows):
  {name: $name, columns: $columns} + (if $rows == [] then {} else {rows: $rows} end);
# The columns of a table of a Shop (input) by role, as seeded; `pg_columns("orders") |
# map(del(.references))` for an archive copy without foreign keys.
def pg_columns($role): .columns[$role];
# The customers or inventory table of a Shop (input), under this task's names. The products
# and orders tables hold amounts, which an expression cannot give as Rust's f64 when whole
# (767.0 comes out as 767): families write their rows as templates of literal floats.
def pg_shop_table($role):
  if $role == "customers" then pg_table(.names.customers; .columns.customers; [.customers[] | [.id, .name, .email, .city, .status]])
  elif $role == "inventory" then pg_table(.names.inventory; .columns.inventory; [.inventory[] | [.warehouse, .sku, .quantity]]) + {primary_key: .inventory_key}
  else error("no table \($role)") end;
# Predicates: some row / exactly `count` rows of a table with these column values.
def pg_row($table; $where): {"postgres.rowExists": {table: $table, where: $where}};
def pg_rows($table; $where; $count): {"postgres.rowCount": ({table: $table} + (if $where == {} then {} else {where: $where} end) + {count: $count})};
# Reference steps of the SQL tools.
def pg_exec($sql): {tool: "postgres.execute_sql", arguments: {sql: $sql}};
def pg_read($sql): {tool: "postgres.query", arguments: {sql: $sql}};
# The products of the pool the shop does not sell yet (`new_product`'s candidates).
def pg_free_products: .products as $ps | [pg_products_pool[] | select(.[0] as $p | $ps | any(.sku | startswith($p)) | not)];
# ---- slack: the workspace builder (crates/bench/servers/slack/src/world.rs) ----
# PEOPLE: (handle, real name, title).
def slack_people_pool: [["ada.park","Ada Park","Staff Engineer"],["omar.haddad","Omar Haddad","Product Manager"],["li.wei","Li Wei","SRE Lead"],["priya.nair","Priya Nair","Engineering Manager"],["jonas.berg","Jonas Berg","Backend Engineer"],["mei.tanaka","Mei Tanaka","Product Designer"],["tariq.aziz","Tariq Aziz","Data Scientist"],["ines.moreau","Ines Moreau","Support Lead"],["kofi.mensah","Kofi Mensah","Security Engineer"],["sven.olsen","Sven Olsen","QA Engineer"],["lucia.romero","Lucia Romero","Marketing Manager"],["dev.patel","Dev Patel","Frontend Engineer"]];
def slack_chatter_pool: ["Morning everyone!","Reminder: all-hands at 3pm today","Who has the big meeting room booked this afternoon?","Lunch is here, kitchen on floor 2","Can someone take a look at my pull request?","I'll be out tomorrow afternoon","Thanks for the quick help earlier","Notes from the weekly sync are in the team folder","Welcome to the team, everyone say hi!","Heads up: I'm moving the standup 15 minutes later","Great demo today","Does anyone have a spare HDMI adapter?"];
def slack_bot: "U0BOT00001";
# A person of PEOPLE as a seeded user (`World::new`).
def slack_user: {id: (.[0] | slack_id("U")), name: .[0], real_name: .[1], title: .[2]};
# A public channel with every person (and the bot) as a member (`World::channel(name, true)`).
def slack_channel_seed($name; $people):
  {id: ($name | slack_id("C")), name: $name, purpose: "Everything about \($name)",
   members: ([$people[] | .[0] | slack_id("U")] + [slack_bot])};
# The ts of the $k-th message a World adds (from 1).
def slack_ts($k): "\(1699990000 + 53 * $k).000100";
# [[channel name, user id, text], ...] as the messages a World adds in that order.
def slack_messages: to_entries | map({channel: (.value[0] | slack_id("C")), ts: slack_ts(.key + 1), user: .value[1], text: .value[2]});
# ---- dates (crates/bench/sim/src/dates.rs), for years from 0 on ----
# `days_from_civil`: the day number (1970-01-01 is 0) of a date.
def civil_days($y; $m; $d):
  (if $m <= 2 then $y - 1 else $y end) as $y
  | ($y / 400 | floor) as $era | ($y - $era * 400) as $yoe
  | (($m + 9) % 12) as $mp
  | (((153 * $mp + 2) / 5 | floor) + $d - 1) as $doy
  | ($yoe * 365 + ($yoe / 4 | floor) - ($yoe / 100 | floor) + $doy) as $doe
  | $era * 146097 + $doe - 719468;
# `format_date`: a day number as `YYYY-MM-DD`.
def civil_date:
  (. + 719468) as $z | ($z / 146097 | floor) as $era | ($z - $era * 146097) as $doe
  | (($doe - ($doe / 1460 | floor) + ($doe / 36524 | floor) - ($doe / 146096 | floor)) / 365 | floor) as $yoe
  | ($doe - (365 * $yoe + ($yoe / 4 | floor) - ($yoe / 100 | floor))) as $doy
  | ((5 * $doy + 2) / 153 | floor) as $mp
  | ($doy - ((153 * $mp + 2) / 5 | floor) + 1) as $d
  | (if $mp < 10 then $mp + 3 else $mp - 9 end) as $m
  | "\($yoe + $era * 400 + (if $m <= 2 then 1 else 0 end) | pad(4))-\($m | pad(2))-\($d | pad(2))";
# ---- compose.key_accounts (crates/bench/tasks/src/compose/rounds_customers/key_accounts.rs) ----
# A quarter `4 * year + (quarter - 1)`: its first and last day numbers, label and months.
def ka_start: civil_days(. / 4 | floor; 3 * (. % 4) + 1; 1);
def ka_end: (. + 1 | ka_start) - 1;
def ka_label: "Q\(. % 4 + 1) \(. / 4 | floor)";
def ka_months: (3 * (. % 4) + 1) as $f | "\($f | month_name) to \($f + 2 | month_name) \(. / 4 | floor)";
# `Book::spend`: what customer $c spent in quarter $q (cancelled orders left out), of orders `.`.
def ka_spend($c; $q):
  ($q | ka_start | civil_date) as $s | ($q | ka_end | civil_date) as $e
  | [.[] | select(.customer_id == $c and .status != "cancelled" and .placed_on >= $s and .placed_on <= $e) | .total_cents] | add // 0;
# `Book::options`: [product index, quantity, total] of every order of 1-4 units.
def ka_options($products): [range($products | length) as $i | range(1; 5) as $q | [$i, $q, $q * $products[$i].price_cents]];
# Rust's `max_by_key` (the last of equals) and `min_by_key` (the first) over [_, _, total].
def ka_max: reduce .[] as $o (null; if . == null or $o[2] >= .[2] then $o else . end);
def ka_min: reduce .[] as $o (null; if . == null or $o[2] < .[2] then $o else . end);
# `fill_below`'s choices: the options it adds, biggest fitting first, from a gap of `.`.
def ka_fill_plan($options):
  def go: . as $g | ([$options[] | select(.[2] < $g)] | ka_max) as $o
    | if $o == null then empty else $o, ($g - $o[2] | go) end;
  [go];
# An order of the book (ids come at the end).
def ka_order($products; $c; $o; $day; $status):
  {customer_id: $c, product_id: $products[$o[0]].id, quantity: $o[1], total_cents: ($o[1] * $products[$o[0]].price_cents), status: $status, placed_on: ($day | civil_date)};
# `tip_over`: orders of $status on $day worth more than `.` (the gap) together: the smallest
# single order that is, if one is, else the biggest, again while the gap is not below zero.
def ka_tip_over($products; $c; $day; $status):
  ka_options($products) as $options
  | def go: . as $g | if $g < 0 then empty else
      (([$options[] | select(.[2] > $g)] | ka_min) // ($options | ka_max)) as $o | $o, ($g - $o[2] | go) end;
  [go] | map(ka_order($products; $c; .; $day; $status));
# Filesystem pools (crates/bench/servers/filesystem/src/templates/mod.rs).
def fs_users: ["dana", "omar", "li", "priya", "jonas", "mei", "tariq", "ines", "kofi", "sven"];
def fs_apps: ["acme", "billing", "ingest", "search", "gateway", "payments", "ledger", "notify"];
def fs_words: ["eggs", "rice", "tomatoes", "invoice", "quarterly", "budget", "roadmap", "meeting", "deploy", "backup", "review", "summary", "draft", "launch", "metrics", "onboarding", "audit", "retro"];
def fs_settings: [["port", ["8080", "9090", "3000", "5432", "7000"]], ["log_level", ["info", "debug", "warn", "error"]], ["workers", ["2", "4", "8", "16"]], ["timeout_seconds", ["30", "60", "90", "120"]], ["region", ["eu-west", "us-east", "ap-south"]]];
def fs_tools: map("filesystem." + .);
# [{path, content}, ...] as a files object (a later path wins, as BTreeMap::insert)
def fs_files: map({(.path): .content}) | add // {};
# Memory pools (crates/bench/servers/memory/src/world.rs).
def mem_people: ["Ada Park", "Omar Haddad", "Li Wei", "Priya Nair", "Jonas Berg", "Mei Tanaka", "Tariq Aziz", "Ines Moreau", "Kofi Mensah", "Sven Olsen", "Lucia Romero", "Dev Patel"];
def mem_orgs: ["Acme Corp", "Globex", "Initech", "Vandelay Industries", "Hooli", "Wonka Labs", "Cyberdyne Systems", "Tyrell Corp"];
def mem_cities: ["Lisbon", "Porto", "Berlin", "Oslo", "Nairobi", "Toronto", "Osaka", "Lyon"];
def mem_facts: ["Speaks Portuguese", "Prefers morning meetings", "Has a dog named Pixel", "Runs marathons", "Is vegetarian", "Plays the cello", "Is allergic to peanuts", "Is learning Japanese", "Enjoys hiking", "Drinks tea, not coffee", "Commutes by bike", "Mentors new hires"];
def mem_tools: map("memory." + .);
# world::company's graph from its draws: $orgs, $cities and $founded side by side; $people with
# their $facts (a list each) and $employers; $knows the drawn pairs (a pair already related is skipped).
def company_seed($people; $orgs; $cities; $founded; $facts; $employers; $knows):
  {entities: ([range(0; $orgs | length) as $k
      | {name: $orgs[$k], entityType: "organization", observations: ["Founded in \($founded[$k])"]},
        {name: $cities[$k], entityType: "city", observations: []}]
      + [range(0; $people | length) as $k | {name: $people[$k], entityType: "person", observations: $facts[$k]}]),
   relations: (([range(0; $orgs | length) as $k | {from: $orgs[$k], to: $cities[$k], relationType: "located_in"}]
      + [range(0; $people | length) as $k | {from: $people[$k], to: $employers[$k], relationType: "works_at"}])
      | reduce ($knows[] | {from: .[0], to: .[1], relationType: "knows"}) as $r (.; if index([$r]) then . else . + [$r] end))};
# Graph::observe: one more observation on an entity of the seed.
def observe($who; $text): .entities |= map(if .name == $who then .observations += [$text] else . end);
def observations_of($who): .entities[] | select(.name == $who) | .observations;
# mcpbench_sim::normalize_answer for ASCII text without numbers to reformat: lower case, each
# word's edge punctuation (anything but letters, digits, - and /) dropped, white space folded.
def normalize_answer: ascii_downcase | [splits("\\s+") | sub("^[^a-z0-9/-]+"; "") | sub("[^a-z0-9/-]+$"; "") | select(. != "")] | join(" ");
# compose.team_directory's profile file (Profile::text with the draws it made).
def team_profile($p; $dept; $tail; $langs; $year; $month):
  "# \($p.name)\n\nDepartment: \($dept)\nRole: \($p.role)\nOffice: \($p.office)\nStarted: \($year)-\($month | pad(2))\nLanguages: \($langs | join(", "))\n\($tail)";
def slug: ascii_downcase | gsub(" "; "-");
# Email helpers (servers/email: reply_subject; compose/people: local_part, first_name).
def reply_subject: if ascii_downcase | startswith("re: ") then . else "Re: " + . end;
def first_name: split(" ")[0];
# SeedMessage::received: an unread inbox message.
def received($id; $from; $to; $subject; $body; $date): {id: $id, from: $from, to: [$to], subject: $subject, body: $body, date: $date};
# compose.file_to_email's written(): day of 2026 counted from 0 as "2026-MM-DD" (January to March).
def written_date: if . < 31 then [1, . + 1] elif . < 59 then [2, . - 30] else [3, . - 58] end | "2026-\(.[0] | pad(2))-\(.[1] | pad(2))";
# compose.contact_from_memory's address(): `first.last@` at an even organisation index, `flast@`
# at an odd one, at the organisation's domain (its first word, lower case, `.com`).
def org_domain: split(" ")[0] | ascii_downcase + ".com";
def house_address($person; $org): ($person | ascii_downcase | split(" ")) as $n
  | (if $org % 2 == 0 then "\($n[0]).\($n[1:] | join(" "))" else "\($n[0][0:1])\($n[1:] | join(" "))" end) + "@" + (mem_orgs[$org] | org_domain);
def bullets: map("- " + .) | join("\n");
# ---- tracker (crates/bench/servers/tracker/src/templates) ----
def trk_labels: ["bug","feature","improvement","security","performance","docs","tech-debt","customer"];
def trk_new_labels: ["regression","accessibility","flaky-test","needs-design","billing","onboarding"];
def trk_new_bugs: ["Checkout total ignores discount codes","Session expires during file upload","Typo in the welcome email subject","Signup form accepts invalid phone numbers","Invoices list is not sorted by date","Export button missing for read-only members"];
def trk_new_tasks: ["Add audit log export","Rotate the staging database credentials","Show last login time on the profile page","Retry failed webhook deliveries","Write the runbook for the payment gateway","Add a health check for the search cluster","Set up alerts for queue backlog"];
def trk_descriptions: ["Reported by two customers this week.","Seen on staging and production since Monday.","Happens only for accounts created before 2023.","Steps: open the page, refresh twice, watch the console.","Blocks the enterprise rollout next sprint.","Low impact but very visible to new users."];
# "High", for priorities 1-4.
def priority_word: ["no","Urgent","High","Medium","Low"][if . > 4 then 4 else . end];
# A seeded issue's status (the seed leaves out backlog).
def status_of: .status // "backlog";
# Not done and not canceled.
def is_open: status_of | (. != "done" and . != "canceled");
# The project key of an issue id: "ENG-12" gives "ENG".
def project_of: .id | split("-") | .[:-1] | join("-");
# Indices of the seed's issues that f accepts (Rust's pick_issue picks one of them).
def issue_indices(f): [range(0; .issues | length) as $i | select(.issues[$i] | f) | $i];
# The issue number after the highest of project $key in a list of issues.
def next_number($key): [.[] | .id | select(startswith($key + "-")) | ltrimstr($key + "-") | tonumber] | if length == 0 then 1 else max + 1 end;
# ---- github (crates/bench/servers/github/src/fixtures.rs, templates/mod.rs) ----
def gh_orgs: ["acme","northwind","globex","initech","hooli","umbrella-labs","wayne-ent","stark-ind"];
def gh_repos: [["api","Public REST API of the platform"],["web","Customer-facing web application"],["billing","Invoices, payments and tax rules"],["docs","Product documentation site"],["infra","Deployment and infrastructure code"],["mobile","iOS and Android app"],["search","Search indexing and query service"],["scheduler","Background job scheduler"],["gateway","Edge gateway and rate limiting"],["notify","Email and push notification service"]];
def gh_repo_names: gh_repos | map(.[0]);
def gh_people: ["alice","bob","carol","dmitri","elena","farid","grace","hiro"];
def gh_labels: ["enhancement","documentation","question","performance","security","ui","good-first-issue"];
def gh_topics: [
  ["Login fails after password reset","Users who reset their password cannot log in until they clear cookies."],
  ["Dashboard loads slowly with many projects","With more than 200 projects the dashboard takes over 10 seconds to render."],
  ["Typo in installation guide","The setup guide says instal instead of install in step 2."],
  ["Export to CSV drops the last row","Exporting a report to CSV always omits the final row."],
  ["Dark mode toggle does not persist","The dark mode setting resets after every page reload."],
  ["Crash when uploading an empty file","Uploading a zero-byte file makes the server return 500."],
  ["Add pagination to the audit log","The audit log shows every entry at once; it should page by 50."],
  ["Timezone wrong in weekly email","The weekly summary email shows times in UTC instead of the user's timezone."],
  ["Search ignores accented characters","Searching for cafe with an accent does not find cafe without one."],
  ["Rate limiter blocks health checks","The health endpoint is rate limited and the load balancer marks nodes down."],
  ["Document the retry settings","The retry_count and retry_delay settings are not documented anywhere."],
  ["Memory leak in websocket handler","Memory grows by about 50 MB per hour while clients stay connected."],
  ["Broken link in README","The link to the contributing guide in README.md returns 404."],
  ["Flaky test in payment retries","test_payment_retry fails about one run in ten on CI."],
  ["Invoice totals rounded incorrectly","Invoices with three line items sometimes round the total down by one cent."],
  ["Session expires too early on mobile","Mobile sessions end after 5 minutes instead of 30."]
];
# Feature topics: [branch slug, pull request title].
def gh_features: [["csv-export","Add CSV export"],["sso-login","Support SSO login"],["dark-mode","Persist the dark mode setting"],["audit-pagination","Paginate the audit log"],["retry-settings","Make retries configurable"],["rate-limits","Tune rate limits"],["health-check","Add a health check endpoint"],["email-timezones","Use local time in emails"]];
# fixtures::base_repo, from its draws: the three collaborators sampled and the minor release.
def gh_base_repo($owner; $name; $collaborators; $minor):
  ((gh_repos | map(select(.[0] == $name)) | first | .[1]) // "Internal service") as $description
  | {
      owner: $owner, name: $name, description: $description, collaborators: $collaborators,
      files: {
        "README.md": "# \($name)\n\n\($description).\n",
        "docs/setup.md": "# Setup\n\n1. Install dependencies with make deps.\n2. Start the service with make run.\n",
        "config/app.yaml": "port: 8080\nworkers: 4\nlog_level: info\n",
        "src/app.py": "def main():\n    print(\"\($name) starting\")\n",
        "CHANGELOG.md": "# Changelog\n\n## 1.0.0\n- First release.\n"
      },
      commits: [{
        branch: "main", message: "Release 1.\($minor).0", author: $collaborators[0],
        files: {"CHANGELOG.md": "# Changelog\n\n## 1.\($minor).0\n- Bug fixes.\n\n## 1.0.0\n- First release.\n"}
      }]
    };
# fixtures::issues, from its draws: the topics sampled and each one's labels.
def gh_issues($first; $topics; $labels):
  [range(0; $topics | length) as $k | {number: ($first + $k), title: $topics[$k][0], body: $topics[$k][1], labels: $labels[$k]}];
def gh_seed: {user: "octocat", repos: [.]};
# How a goal asks for a merge method, and its name in the API.
def method_phrase: {"merge": "with a merge commit", "squash": "as a squash merge", "rebase": "by rebasing it"}[.];
def gh_methods: ["merge","squash","rebase"];
# The file holds exactly $content, with or without one trailing line break.
def file_is($owner; $repo; $branch; $path; $content):
  {any: [$content, $content + "\n"] | map({"github.fileEquals": {owner: $owner, repo: $repo, branch: $branch, path: $path, content: .}})};
def commit_exists($owner; $repo; $branch; $message):
  {"github.commitExists": {owner: $owner, repo: $repo, branch: $branch, message: $message}};
def file_exists($owner; $repo; $branch; $path):
  {"github.fileExists": {owner: $owner, repo: $repo, branch: $branch, path: $path}};
# ---- answers (mcpbench_sim::pred): normalize_answer for words without numbers, and
# AnswerCheck::names: the value and the other candidates a careless answer could name.
def norm_answer: [splits("\\s+") | ascii_downcase | sub("^[^a-z0-9/-]+"; "") | sub("[^a-z0-9/-]+$"; "") | select(. != "")] | join(" ");
def phrase_in($answer; $phrase): ($phrase | norm_answer) as $w | ($answer | norm_answer) as $h | $w != "" and ((" " + $h + " ") | contains(" " + $w + " "));
def names_check($value; $cands):
  {"answer.names": {value: $value, others: (reduce $cands[] as $c ([];
      if ($c | norm_answer) != ($value | norm_answer) and ($c | norm_answer) != ""
         and (phrase_in($value; $c) | not) and (index([$c]) == null)
      then . + [$c] else . end))}};
def slack_channel_pool: ["general", "random", "deploys", "incidents", "eng-backend", "design", "support", "data-team", "releases", "marketing"];
def slack_services: ["billing", "search", "checkout", "auth", "gateway", "ledger", "notify", "ingest"];
def slack_chatter: [
  "Morning everyone!", "Reminder: all-hands at 3pm today", "Who has the big meeting room booked this afternoon?",
  "Lunch is here, kitchen on floor 2", "Can someone take a look at my pull request?", "I'll be out tomorrow afternoon",
  "Thanks for the quick help earlier", "Notes from the weekly sync are in the team folder",
  "Welcome to the team, everyone say hi!", "Heads up: I'm moving the standup 15 minutes later", "Great demo today",
  "Does anyone have a spare HDMI adapter?"];
# A sampled [handle, real name, title] as a World person.
def slack_person: {id: (.[0] | slack_id("U")), handle: .[0], real_name: .[1], title: .[2]};
def slack_users: map({id, name: .handle, real_name, title});
# World::channel(name, bot_member) over `people`.
def slack_channel($name; $people; $bot):
  {id: ($name | slack_id("C")), name: $name, purpose: "Everything about \($name)",
   members: ([$people[].id] + (if $bot then [slack_bot] else [] end))};
# Messages {channel, user, text[, thread]} in the order World::say adds them, stamped; a
# reply's `thread` is the index (in this list) of its parent.
def slack_stamp: . as $ms | [range(0; length) as $k | $ms[$k]
  | {channel, ts: slack_ts($k + 1), user, text}
    + (if .thread != null then {thread_ts: slack_ts(.thread + 1)} else {} end)];
# A channel's chatter: the sampled texts with the people who say them.
def slack_say($channel): [.texts, .whos] | transpose | map({channel: $channel, user: .[1], text: .[0]});
# The arguments of the slack_get_channel_history reads (100 a page, as slack::history_reads)
# down to the page holding top-level message `$ts` (every page when `$ts` is null), given
# `$pages`: the answers of successive 100-message reads of `$chan`, each from the cursor of
# the one before.
def slack_reads($pages; $chan; $ts):
  (if $ts == null then first(range(0; $pages | length) | select($pages[.].response_metadata.next_cursor == ""))
   else first(range(0; $pages | length) | select([$pages[.].messages[].ts] | index([$ts]) != null)) end) as $k
  | [range(0; $k + 1) as $j | {channel_id: $chan, limit: 100}
      + (if $j > 0 then {cursor: $pages[$j - 1].response_metadata.next_cursor} else {} end)];
# ---- calendar (servers/calendar/src/templates/mod.rs). A day is its number in March 2026
# (32 is April 1); "now" is Monday March 2.
def cal_user: "alex@northwind.io";
def cal_titles: ["Design review", "Sprint planning", "Customer call", "Budget sync", "Hiring committee", "Vendor demo",
  "Quarterly review", "Roadmap workshop", "Security briefing", "Product sync", "Marketing standup", "Architecture forum"];
def cal_guests: ["maria.lopez@northwind.io", "tom.becker@northwind.io", "priya.shah@northwind.io", "kenji.sato@northwind.io",
  "lena.fischer@northwind.io", "sam.okafor@contoso.com", "julia.berg@fabrikam.net", "diego.ramos@globex.org"];
def cal_places: ["Room Atlas", "Room Borealis", "Cafe Lumen", "Video call", "Board room"];
def cal_weekday: ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][(. - 2) % 7];
# Day::pick's pool: the working days March 3 to 27.
def cal_days: [range(3; 28) | select((. - 2) % 7 < 5)];
def cal_date: if . > 31 then "2026-04-\(. - 31 | pad(2))" else "2026-03-\(. | pad(2))" end;
def cal_long: "\(cal_weekday) \(cal_date)";
def cal_next: . + 1 | if cal_weekday == "Saturday" then . + 2 elif cal_weekday == "Sunday" then . + 1 else . end;
def cal_clock: "\(. / 60 | floor | pad(2)):\(. % 60 | pad(2))";
def cal_at($minutes): "\(cal_date)T\($minutes | cal_clock)";
# SeedEvent::new with the k-th id of Ids starting at $base.
def cal_event($base; $k; $title; $day; $start; $end):
  {id: "evt-\($base + 11 * $k)", title: $title, start: ($day | cal_at($start)), end: ($day | cal_at($end))};
def cal_seed($events): {now: "2026-03-02T08:00", user: cal_user, events: $events};
# first_free: the first minute t >= $from with t..t+$need clear of every span [start, end]
# (minutes of the day) and ending by $until.
def cal_first_free($spans; $from; $until; $need):
  first(range($from; $until - $need + 1) as $t | select(all($spans[]; .[1] <= $t or $t + $need <= .[0])) | $t);
# ---- email (servers/email/src/templates/mod.rs)
def em_me: "alex@northwind.io";
def em_colleagues: [["Maria", "maria.lopez@northwind.io"], ["Tom", "tom.becker@northwind.io"], ["Priya", "priya.shah@northwind.io"],
  ["Kenji", "kenji.sato@northwind.io"], ["Lena", "lena.fischer@northwind.io"], ["Omar", "omar.haddad@northwind.io"]];
def em_externals: [["Sam", "sam.okafor@contoso.com"], ["Julia", "julia.berg@fabrikam.net"], ["Diego", "diego.ramos@globex.org"],
  ["Aiko", "aiko.tanaka@initech.co"], ["Nora", "nora.quinn@umbrella.biz"]];
def em_topics: ["Q3 budget review", "Offsite agenda", "Hiring plan", "Vendor contract", "Release checklist", "Customer feedback",
  "Security audit", "Travel booking", "Board deck", "Onboarding schedule"];
def em_sentences: ["Please review the numbers before Thursday.", "The meeting moved to 3 pm.", "Thanks, that works for me.",
  "Can you confirm the final headcount?", "I booked the large room for Friday.", "Let us sync tomorrow morning.",
  "The draft is ready for your comments.", "We are still waiting on legal."];
def em_clutter: [
  ["facilities@northwind.io", "Parking garage closed on Saturday", "The garage is closed for cleaning on Saturday."],
  ["hr@northwind.io", "Benefits enrollment reminder", "Enrollment closes at the end of the month."],
  ["it-help@northwind.io", "Scheduled maintenance", "Email may be slow on Sunday night."],
  ["events@citytheatre.org", "Your tickets for Saturday", "Doors open at 7 pm. Enjoy the show."],
  ["no-reply@cloudstore.com", "Storage almost full", "You have used 90% of your storage."],
  ["team@weeklyrunner.com", "Your weekly running summary", "You ran 21 km this week."]];
# date(rng)'s [day, hour, minute] as its timestamp.
def em_date: "2026-02-\(.[0] | pad(2))T\(.[1] | pad(2)):\(.[2] | pad(2)):00Z";
# SeedMessage::received with the k-th id of Ids starting at $base.
def em_msg($base; $k; $from; $to; $subject; $body; $date):
  {id: "msg-\($base + 11 * $k)", from: $from, to: [$to], subject: $subject, body: $body, date: $date};
def em_seed($messages): {address: em_me, now: "2026-03-02T09:00:00Z", messages: $messages};
def em_prefixed($prefix): if ascii_downcase | startswith($prefix | ascii_downcase) then . else $prefix + . end;
# ---- weather (servers/weather/src/world.rs). Days are numbers in March 2026 as for the
# calendar (32 is April 1).
def wx_catalogue: [
  ["lisbon-pt", "Lisbon", "Lisbon", "PT", "Portugal", 38.72, -9.14, "Europe/Lisbon", 18],
  ["porto-pt", "Porto", "Porto", "PT", "Portugal", 41.15, -8.61, "Europe/Lisbon", 16],
  ["madrid-es", "Madrid", "Madrid", "ES", "Spain", 40.42, -3.7, "Europe/Madrid", 16],
  ["valencia-es", "Valencia", "Valencian Community", "ES", "Spain", 39.47, -0.38, "Europe/Madrid", 19],
  ["valencia-ve", "Valencia", "Carabobo", "VE", "Venezuela", 10.16, -68.0, "America/Caracas", 32],
  ["paris-fr", "Paris", "Ile-de-France", "FR", "France", 48.86, 2.35, "Europe/Paris", 12],
  ["paris-tx-us", "Paris", "Texas", "US", "United States", 33.66, -95.56, "America/Chicago", 20],
  ["london-gb", "London", "England", "GB", "United Kingdom", 51.51, -0.13, "Europe/London", 11],
  ["london-on-ca", "London", "Ontario", "CA", "Canada", 42.98, -81.25, "America/Toronto", 4],
  ["springfield-il-us", "Springfield", "Illinois", "US", "United States", 39.8, -89.64, "America/Chicago", 11],
  ["springfield-mo-us", "Springfield", "Missouri", "US", "United States", 37.21, -93.29, "America/Chicago", 14],
  ["springfield-ma-us", "Springfield", "Massachusetts", "US", "United States", 42.1, -72.59, "America/New_York", 7],
  ["portland-or-us", "Portland", "Oregon", "US", "United States", 45.52, -122.68, "America/Los_Angeles", 13],
  ["portland-me-us", "Portland", "Maine", "US", "United States", 43.66, -70.26, "America/New_York", 5],
  ["perth-au", "Perth", "Western Australia", "AU", "Australia", -31.95, 115.86, "Australia/Perth", 29],
  ["perth-gb", "Perth", "Scotland", "GB", "United Kingdom", 56.4, -3.43, "Europe/London", 9],
  ["birmingham-gb", "Birmingham", "England", "GB", "United Kingdom", 52.49, -1.89, "Europe/London", 10],
  ["birmingham-al-us", "Birmingham", "Alabama", "US", "United States", 33.52, -86.8, "America/Chicago", 20],
  ["oslo-no", "Oslo", "Oslo", "NO", "Norway", 59.91, 10.75, "Europe/Oslo", 3],
  ["berlin-de", "Berlin", "Berlin", "DE", "Germany", 52.52, 13.4, "Europe/Berlin", 9],
  ["munich-de", "Munich", "Bavaria", "DE", "Germany", 48.14, 11.58, "Europe/Berlin", 10],
  ["hamburg-de", "Hamburg", "Hamburg", "DE", "Germany", 53.55, 9.99, "Europe/Berlin", 8],
  ["rome-it", "Rome", "Lazio", "IT", "Italy", 41.9, 12.5, "Europe/Rome", 16],
  ["milan-it", "Milan", "Lombardy", "IT", "Italy", 45.46, 9.19, "Europe/Rome", 14],
  ["tokyo-jp", "Tokyo", "Tokyo", "JP", "Japan", 35.68, 139.69, "Asia/Tokyo", 13],
  ["osaka-jp", "Osaka", "Osaka", "JP", "Japan", 34.69, 135.5, "Asia/Tokyo", 14],
  ["delhi-in", "Delhi", "Delhi", "IN", "India", 28.61, 77.21, "Asia/Kolkata", 29],
  ["mumbai-in", "Mumbai", "Maharashtra", "IN", "India", 19.08, 72.88, "Asia/Kolkata", 32],
  ["sydney-au", "Sydney", "New South Wales", "AU", "Australia", -33.87, 151.21, "Australia/Sydney", 25],
  ["toronto-ca", "Toronto", "Ontario", "CA", "Canada", 43.65, -79.38, "America/Toronto", 4],
  ["vancouver-ca", "Vancouver", "British Columbia", "CA", "Canada", 49.28, -123.12, "America/Vancouver", 10],
  ["chicago-us", "Chicago", "Illinois", "US", "United States", 41.88, -87.63, "America/Chicago", 8],
  ["denver-us", "Denver", "Colorado", "US", "United States", 39.74, -104.99, "America/Denver", 12],
  ["cairo-eg", "Cairo", "Cairo", "EG", "Egypt", 30.04, 31.24, "Africa/Cairo", 24],
  ["nairobi-ke", "Nairobi", "Nairobi", "KE", "Kenya", -1.29, 36.82, "Africa/Nairobi", 27],
  ["mexico-city-mx", "Mexico City", "Mexico City", "MX", "Mexico", 19.43, -99.13, "America/Mexico_City", 26],
  ["seoul-kr", "Seoul", "Seoul", "KR", "South Korea", 37.57, 126.98, "Asia/Seoul", 10],
  ["reykjavik-is", "Reykjavik", "Capital Region", "IS", "Iceland", 64.15, -21.94, "Atlantic/Reykjavik", 3]]
  | map({id: .[0], name: .[1], region: .[2], country_code: .[3], country: .[4], latitude: .[5], longitude: .[6], timezone: .[7], base_high_c: .[8]});
def wx_known($id): first(wx_catalogue[] | select(.id == $id));
def wx_shared($name): [wx_catalogue[] | select(.name == $name)] | length > 1;
# Ids of the places whose name no other shares, in catalogue order.
def wx_unambiguous: [wx_catalogue[] | select(wx_shared(.name) | not) | .id];
# Ids of the places with a shared name, grouped by name, in catalogue order.
def wx_ambiguous_groups: [wx_catalogue[] | select(wx_shared(.name))] as $s
  | [$s[].name] | reduce .[] as $n ([]; if index([$n]) then . else . + [$n] end)
  | map(. as $n | [$s[] | select(.name == $n) | .id]);
def wx_display: if wx_shared(.name) then "\(.name), \(.region), \(.country)" else "\(.name), \(.country)" end;
def wx_condition($p; $high):
  if $p <= 14 then "clear" elif $p <= 29 then "partly_cloudy" elif $p <= 44 then "cloudy" elif $p <= 59 then "drizzle"
  elif $high <= 1 then "snow" elif $p <= 84 then "rain" elif $high >= 15 then "thunderstorm" else "rain" end;
def wx_shape: [20, 15, 10, 6, 3, 0, 2, 10, 25, 40, 55, 70, 82, 92, 98, 100, 96, 88, 75, 62, 50, 40, 32, 26];
# The bounds of gen_place's 73 draws, in order: 7 days of (high, low, rain), the base wind,
# 24 hours of (rain, wind), humidity, AQI and the pollutant's index.
def wx_bounds: ([range(0; 7) | [-4, 4], [4, 10], [0, 19]] + [[5, 35]] + [range(0; 24) | [-2, 2], [-3, 3]] + [[35, 95], [8, 160], [0, 3]]);
def wx_round: if . >= 0 then (. + 0.5 | floor) else (-. + 0.5 | floor | -.) end;
def wx_fahrenheit: . * 1.8 + 32 | wx_round;
def wx_mph: . / 1.609344 | wx_round;
# gen_place for catalogue place $id from its 73 draws $v.
def wx_place($id; $today; $hour; $v):
  wx_known($id) as $k
  | [range(0; 7) as $i | ($k.base_high_c + $v[3 * $i]) as $high | ($high - $v[3 * $i + 1]) as $low | (5 * $v[3 * $i + 2]) as $p
      | {date: ($today + $i | cal_date), high_c: $high, low_c: $low, precipitation_probability: $p, condition: wx_condition($p; $high)}] as $daily
  | $daily[0] as $d0 | $v[21] as $base
  | {temperature_c: [range(0; 24) as $h | $d0.low_c + ((($d0.high_c - $d0.low_c) * wx_shape[$h] + 50) / 100 | floor)],
     precipitation_probability: [range(0; 24) as $h | [[$d0.precipitation_probability + 5 * $v[22 + 2 * $h], 0] | max, 100] | min],
     wind_kph: [range(0; 24) as $h | [$base + (if $h >= 11 and $h <= 17 then 4 else 0 end) + $v[23 + 2 * $h], 0] | max]} as $hourly
  | $k | del(.base_high_c)
  + {current: {temperature_c: $hourly.temperature_c[$hour], humidity: $v[70], wind_kph: $hourly.wind_kph[$hour], condition: $d0.condition},
     daily: $daily, hourly: $hourly, air_quality: {aqi: $v[71], dominant_pollutant: ["pm2_5", "pm10", "o3", "no2"][$v[72]]}};
# world_with's seed from its drawn day, hour, sorted place ids and their draws (73 a place).
def wx_world($today; $hour; $ids; $v):
  {now: "\($today | cal_date)T\($hour | pad(2)):00", units: "metric",
   places: [range(0; $ids | length) as $j | wx_place($ids[$j]; $today; $hour; $v[73 * $j:73 * $j + 73])]};
def wx_place_of($id): first(.places[] | select(.id == $id));
def wx_spoken: "\(cal_weekday) \(if . > 31 then . - 31 else . end) \(if . > 31 then "April" else "March" end)";
def wx_day_text: "\(wx_spoken) (\(cal_date))";
def wx_alert_types: ["thunderstorm", "flood", "heat", "frost", "wind", "snow"];
def wx_plausible($id): wx_known($id).base_high_c as $b
  | [wx_alert_types[] | select(if . == "heat" then $b >= 20 elif . == "frost" or . == "snow" then $b <= 12 else true end)];
def wx_sort_types: . as $t | [wx_alert_types[] | select(. as $x | $t | index([$x]))];
def wx_alert_title: {thunderstorm: "Severe Thunderstorm Warning", flood: "Flood Watch", heat: "Heat Advisory",
  frost: "Frost Advisory", wind: "Wind Advisory", snow: "Winter Storm Warning"}[.];
# add_alert on the seed with the drawn severity and onset hour.
def wx_add_alert($today; $id; $event; $severity; $onset):
  ([.places[].alerts // [] | length] | add + 1) as $n
  | .places |= map(if .id == $id then .alerts = (.alerts // []) + [{
      id: "\(.country_code)-\(1000 + 37 * $n | pad(4))", event: $event, severity: $severity,
      headline: "\($event | wx_alert_title) for \(.name) until \($today + 1 | cal_date) 18:00",
      onset: "\($today | cal_date)T\($onset | pad(2)):00", expires: "\($today + 1 | cal_date)T18:00"}] else . end);
def wx_and_list: if length <= 1 then (.[0] // "") else (.[:-1] | join(", ")) + " and " + .[-1] end;
# ---- port f: helpers of the templates ported here ----
# mcpbench_sim::dates::spoken_date (not the builtin `spoken_date`): a day number (1970-01-01
# is 0, days from 0 on) as `Wednesday 4 March`.
def sim_weekday: ["Thursday", "Friday", "Saturday", "Sunday", "Monday", "Tuesday", "Wednesday"][. % 7];
def sim_spoken_date: civil_date as $d | "\(sim_weekday) \($d[8:10] | tonumber) \($d[5:7] | tonumber | month_name)";
# compose::rounds_customers::TRANSIENT: [error, message with {lost}], as `transient` picks them.
def rc_transient_errors: [
  ["rate_limited", "too many requests in a short time; {lost}. Retry in a few seconds"],
  ["unavailable", "the service is briefly unavailable (503); {lost}"],
  ["timeout", "no response within 30 seconds; {lost}"]];
# compose::rounds_customers::transient's fault: the picked [error, message] with what was lost.
def rc_fault($tool; $on_call; $transient; $lost):
  {tool: $tool, on_call: $on_call, times: 1, error: $transient[0], message: ($transient[1] | split("{lost}") | join($lost))};
# compose::rounds_team::transient_fault's message for an error kind and what was not done.
def team_fault_message($error; $undone):
  if $error == "rate_limited" then "rate limit exceeded (429): too many requests in a short time; nothing was \($undone), retry in a few seconds"
  elif $error == "unavailable" then "service temporarily unavailable (503); nothing was \($undone), please try again"
  else "the request timed out after 30 seconds and was rolled back; nothing was \($undone), it is safe to retry" end;
