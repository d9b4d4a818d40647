//! The website as a person meets it, without a browser: the leaderboard page ranks what the
//! API ranks, filters and sorts, draws intervals accessibly, and stays small.

mod support;

use mcpbench_agents::AgentKind;
use std::time::Duration;
use support::{Options, Service};

/// A browser as far as these tests need one: no redirects followed, one session cookie.
struct Browser {
    http: reqwest::Client,
    base: String,
    cookie: Option<String>,
}

struct Page {
    status: u16,
    headers: http::HeaderMap,
    body: String,
}

impl Browser {
    fn new(svc: &Service) -> Self {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        Self {
            http,
            base: svc.url.clone(),
            cookie: None,
        }
    }

    async fn send(&self, req: reqwest::RequestBuilder) -> Page {
        let req = match &self.cookie {
            Some(c) => req.header("cookie", c),
            None => req,
        };
        let r = req.send().await.unwrap();
        Page {
            status: r.status().as_u16(),
            headers: r.headers().clone(),
            body: r.text().await.unwrap(),
        }
    }

    async fn get(&self, path: &str) -> Page {
        self.send(self.http.get(format!("{}{path}", self.base)))
            .await
    }

    /// Posts a form as a page of this site would (with its own Origin).
    async fn post(&self, path: &str, form: &str, origin: &str) -> Page {
        let req = self
            .http
            .post(format!("{}{path}", self.base))
            .header("content-type", "application/x-www-form-urlencoded")
            .header("origin", origin)
            .body(form.to_string());
        self.send(req).await
    }

    /// Signs in with `key`; keeps the session cookie.
    async fn sign_in(&mut self, key: &str) {
        let page = self
            .post("/web/login", &format!("api_key={key}"), &self.base.clone())
            .await;
        assert_eq!(page.status, 303, "{}", page.body);
        let cookie = page.headers["set-cookie"].to_str().unwrap();
        self.cookie = Some(cookie.split(';').next().unwrap().to_string());
    }
}

fn header<'a>(page: &'a Page, name: &str) -> &'a str {
    page.headers
        .get(name)
        .map(|v| v.to_str().unwrap())
        .unwrap_or("")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_leaderboard_page_ranks_filters_sorts_and_stays_small() {
    let svc = Service::start(Options::default()).await;
    let token = svc.token("acme").await;
    svc.submit_and_wait(&token, AgentKind::Oracle, "oracle")
        .await;
    // The page is cached per query, and a new entry still shows (the cache is dropped when a
    // submission reaches the board, and ages out in seconds anyway).
    let (_, _, before) = svc.get_text("/").await;
    assert!(before.contains("oracle-agent") && !before.contains("null-agent"));
    svc.submit_and_wait(&token, AgentKind::Null, "null").await;
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !svc.get_text("/").await.2.contains("null-agent") {
        assert!(
            std::time::Instant::now() < deadline,
            "the page never showed the new entry"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let (status, kind, html) = svc.get_text("/").await;
    assert_eq!((status, kind.as_str()), (200, "text/html; charset=utf-8"));
    assert!(html.len() < 100_000, "{} bytes", html.len());
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("<html lang=\"en\">"));
    assert!(html.contains("name=\"viewport\""));
    assert!(!html.contains("<script"), "pages work without JavaScript");
    // The oracle ranks above the null agent, each rate with an accessible interval bar.
    let (oracle, null) = (
        html.find("oracle-agent").unwrap(),
        html.find("null-agent").unwrap(),
    );
    assert!(oracle < null, "ranked by success rate");
    assert!(html.contains("aria-label=\"1.00, 95% interval"), "{html}");
    assert!(html.contains("aria-label=\"0.00, 95% interval 0.00 to"));
    // Every filter (set, server, category, weights, scaffold, track, sort) has a label; the
    // table has a caption and column headers.
    assert_eq!(html.matches("<label>").count(), 7);
    assert!(html.contains("<caption>") && html.contains("scope=\"col\""));

    // Sorting by the hallucinated-tool rate (lower first) and filtering by a server.
    let (status, _, sorted) = svc.get_text("/?sort=hallucinated").await;
    assert_eq!(status, 200);
    assert!(sorted.contains("<option value=\"hallucinated\" selected>"));
    let server = svc.tasks[0].server.clone();
    let (status, _, filtered) = svc.get_text(&format!("/?server={server}")).await;
    assert_eq!(status, 200);
    assert!(
        filtered.contains(&format!("Leaderboard of dev, {server} tasks")),
        "{filtered}"
    );
    // An empty set says so; a malformed filter is a clear error.
    svc.private_set("2026-11", &svc.tasks).await;
    let (status, _, empty) = svc.get_text("/?set=2026-11").await;
    assert_eq!(status, 200);
    assert!(empty.contains("No finished submission on this set yet."));
    let (status, _, bad) = svc.get_text("/?server=../etc").await;
    assert_eq!(status, 400, "{bad}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn signing_in_opens_a_vendors_own_pages_and_nothing_of_anyone_elses() {
    let svc = Service::start(Options::default()).await;
    let key = svc.vendor("acme", false).await;
    let token = svc.token_for(&key).await;
    let rival_key = svc.vendor("rival", false).await;
    let (mut owner, mut rival, anyone) =
        (Browser::new(&svc), Browser::new(&svc), Browser::new(&svc));

    // Signing in: a wrong key is refused on the page and sets nothing; another origin's post
    // is refused; a malformed form says so; `next` never leaves the site.
    let wrong = owner
        .post("/web/login", "api_key=mcpb_nope_x", &svc.url)
        .await;
    assert_eq!(wrong.status, 401);
    assert!(wrong.body.contains("That API key is unknown or revoked."));
    assert!(wrong.headers.get("set-cookie").is_none());
    let forged = owner
        .post(
            "/web/login",
            &format!("api_key={key}"),
            "http://evil.example",
        )
        .await;
    assert_eq!(forged.status, 403, "{}", forged.body);
    assert!(forged.headers.get("set-cookie").is_none());
    let malformed = owner.post("/web/login", "next=/", &svc.url).await;
    assert_eq!(malformed.status, 400);
    assert!(header(&malformed, "content-type").starts_with("text/html"));
    assert!(
        malformed.body.contains("the sign-in form was malformed"),
        "{}",
        malformed.body
    );
    let huge = owner
        .post(
            "/web/login",
            &format!("api_key={}", "k".repeat(100_000)),
            &svc.url,
        )
        .await;
    assert_eq!(huge.status, 413, "{}", huge.body);
    let away = owner
        .post(
            "/web/login",
            &format!("api_key={key}&next=//evil.example/x"),
            &svc.url,
        )
        .await;
    assert_eq!(header(&away, "location"), "/web/submissions");
    let cookie = header(&away, "set-cookie").to_string();
    for part in ["HttpOnly", "SameSite=Lax", "Path=/", "Max-Age="] {
        assert!(cookie.contains(part), "{cookie}");
    }
    assert!(
        !cookie.contains(&key),
        "the cookie holds a token, never the key"
    );
    owner.sign_in(&key).await;
    rival.sign_in(&rival_key).await;

    // While it runs only its owner sees it, and the page reloads itself.
    let (id, serve) = svc
        .submit_reference(&token, None, (AgentKind::Oracle, "oracle-1"), &svc.tasks)
        .await;
    let path = format!("/web/submissions/{id}");
    let page = owner.get(&path).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("http-equiv=\"refresh\"") && page.body.contains("<progress"));
    assert_eq!(header(&page, "cache-control"), "private, no-store");
    assert_eq!(header(&page, "vary"), "Cookie");
    let still = owner.get(&format!("{path}?refresh=off")).await;
    assert!(!still.body.contains("http-equiv=\"refresh\"") && still.body.contains(">Reload<"));
    let (_, view) = svc.get(&format!("/submissions/{id}"), Some(&token)).await;
    let endpoint = view["endpoint_url"].as_str().unwrap().to_string();
    assert!(
        page.body.contains(&endpoint),
        "its owner sees where the agent is"
    );
    for other in [&rival, &anyone] {
        let hidden = other.get(&path).await;
        assert_eq!(hidden.status, 404, "{}", hidden.body);
        assert!(!hidden.body.contains("oracle-1"));
    }
    serve();
    svc.wait(&id, &token, Duration::from_secs(120)).await;

    // Done: the owner sees scores, charts and every run with its trace; anyone sees the scores.
    let page = owner.get(&path).await;
    assert!(!page.body.contains("http-equiv=\"refresh\""));
    for part in [
        "Success rate by server",
        "Success rate by category",
        "Success rate by difficulty",
        "No run failed.",
    ] {
        assert!(page.body.contains(part), "{part}");
    }
    assert_eq!(
        page.body.matches("href=\"/web/runs/").count(),
        svc.tasks.len()
    );
    let n = svc.tasks.len();
    assert!(
        page.body.contains(&format!("{n} of {n} runs passed")),
        "{}",
        page.body
    );
    assert!(page.body.contains("aria-label=\"1.00, 95% interval"));
    let public = anyone.get(&path).await;
    assert_eq!(public.status, 200);
    assert!(public.body.contains("Success rate by server"));
    assert!(
        !public.body.contains("/web/runs/"),
        "traces are not published yet"
    );
    assert!(
        !public.body.contains(&endpoint),
        "the endpoint is the owner's to see"
    );

    // A trace: the owner reads it as a timeline of calls; the public only once published.
    let run = svc.first_run(&id, &token).await;
    let trace = owner.get(&format!("/web/runs/{run}")).await;
    assert_eq!(trace.status, 200, "{}", trace.body);
    for part in [
        "Timeline",
        "tools/call",
        "Arguments",
        "answered HTTP 200",
        "role=\"img\"",
    ] {
        assert!(trace.body.contains(part), "{part}: {}", trace.body);
    }
    assert!(trace.body.len() < 100_000);
    assert_eq!(anyone.get(&format!("/web/runs/{run}")).await.status, 404);
    svc.publish(&id, &token).await;
    assert_eq!(anyone.get(&format!("/web/runs/{run}")).await.status, 200);
    assert!(anyone.get(&path).await.body.contains("/web/runs/"));

    // My submissions; a stale or forged session is simply signed out.
    let mine = owner.get("/web/submissions").await;
    assert!(mine.body.contains("oracle-1-agent") && mine.body.contains("Sign out acme"));
    assert!(
        !rival
            .get("/web/submissions")
            .await
            .body
            .contains("oracle-1-agent")
    );
    let signed_out = anyone.get("/web/submissions").await;
    assert_eq!(
        header(&signed_out, "location"),
        "/web/login?next=/web/submissions"
    );
    let mut forged = Browser::new(&svc);
    forged.cookie = Some("mcpbench_session=eyJhbGciOiJub25lIn0.e30.".into());
    let page = forged.get("/").await;
    assert_eq!(page.status, 200);
    assert!(page.body.contains("href=\"/web/login\""));
    let forged_out = owner.post("/web/logout", "", "http://evil.example").await;
    assert_eq!(
        forged_out.status, 403,
        "another site cannot sign a vendor out"
    );
    let cross = owner
        .send(
            owner
                .http
                .post(format!("{}/web/login", svc.url))
                .header("content-type", "application/x-www-form-urlencoded")
                .header("sec-fetch-site", "cross-site")
                .body(format!("api_key={key}")),
        )
        .await;
    assert_eq!(
        cross.status, 403,
        "a browser that says the post is cross-site"
    );
    let out = owner.post("/web/logout", "", &svc.url).await;
    assert_eq!(out.status, 303);
    assert!(header(&out, "set-cookie").contains("Max-Age=0"));
    assert_eq!(header(&out, "cache-control"), "no-store");

    // Malformed addresses get a page that says what is wrong, never a stack or JSON.
    for (path, status) in [
        ("/web/submissions/not-a-uuid", 404),
        (&format!("/web/submissions/{id}?after=no-trial"), 400),
        ("/web/runs/%00", 404),
        ("/web/tasks?set=../etc", 400),
        ("/web/tasks/bad%20id", 400),
        ("/web/tasks?difficulty=impossible", 400),
        ("/web/sets/nope", 404),
        ("/?set=dev&set=dev", 400),
        ("/?server=no-such-server", 400),
        ("/?page=-1", 400),
        ("/web/login?next=a&next=b", 400),
    ] {
        let page = anyone.get(path).await;
        assert_eq!(page.status, status, "{path}: {}", page.body);
        assert!(
            header(&page, "content-type").starts_with("text/html"),
            "{path}"
        );
        assert!(page.body.contains("role=\"alert\""), "{path}");
        assert!(header(&page, "content-security-policy").contains("default-src 'none'"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn set_pages_show_a_live_commitment_keep_its_tasks_closed_and_explain_the_reveal() {
    let svc = Service::start(Options::default()).await;
    let key = svc.vendor("acme", false).await;
    let token = svc.token_for(&key).await;
    let mut owner = Browser::new(&svc);
    owner.sign_in(&key).await;
    let anyone = Browser::new(&svc);
    svc.private_set("2026-11", &svc.tasks).await;
    let (id, serve) = svc
        .submit_reference(
            &token,
            Some("2026-11"),
            (AgentKind::Oracle, "oracle-1"),
            &svc.tasks,
        )
        .await;
    serve();
    svc.wait(&id, &token, Duration::from_secs(120)).await;

    let sets = anyone.get("/web/sets").await;
    assert!(sets.body.contains("href=\"/web/sets/2026-11\""));
    let live = anyone.get("/web/sets/2026-11").await;
    assert_eq!(live.status, 200);
    assert!(
        live.body.contains("/sets/2026-11\n"),
        "the checkpoint: {}",
        live.body
    );
    assert!(
        live.body
            .contains(&format!("The {} commitments", svc.tasks.len()))
    );
    assert!(
        live.body
            .contains("Its tasks stay private until it retires")
    );
    assert!(!live.body.contains("How to verify the reveal"));
    assert_eq!(anyone.get("/web/tasks?set=2026-11").await.status, 404);
    // The owner sees the runs' verdicts, not their traces, and no page shows a private goal.
    let mine = owner.get(&format!("/web/submissions/{id}")).await;
    assert!(mine.body.contains("closed until the set retires"));
    assert!(!mine.body.contains("/web/runs/"));
    let run = svc.first_run(&id, &token).await;
    assert_eq!(owner.get(&format!("/web/runs/{run}")).await.status, 404);
    // Published while the month is live: still nothing of its runs for anyone else.
    svc.publish(&id, &token).await;
    let rival_key = svc.vendor("rival", false).await;
    let mut rival = Browser::new(&svc);
    rival.sign_in(&rival_key).await;
    for other in [&anyone, &rival] {
        let seen = other.get(&format!("/web/submissions/{id}")).await;
        assert_eq!(seen.status, 200, "its scores are on the board");
        assert!(!seen.body.contains("/web/runs/") && !seen.body.contains("Why runs failed"));
        for t in &svc.tasks {
            assert!(!seen.body.contains(&t.id), "{} leaked", t.id);
        }
        assert_eq!(other.get(&format!("/web/runs/{run}")).await.status, 404);
    }
    let task = &svc.tasks[0].id;
    let pages = [
        live.body,
        mine.body,
        anyone.get("/?set=2026-11").await.body,
        owner
            .get(&format!("/web/tasks/{task}?set=2026-11"))
            .await
            .body,
    ];
    for t in &svc.tasks {
        assert!(pages.iter().all(|p| !p.contains(&t.goal)), "{}", t.goal);
    }

    // Retired: the reveal, how to check it, the tasks, the traces to publish.
    mcpbench_sets::retire(&svc.pool, &svc.custody, "2026-11")
        .await
        .unwrap();
    let retired = anyone.get("/web/sets/2026-11").await;
    assert!(retired.body.contains("How to verify the reveal"));
    assert!(
        retired
            .body
            .contains(&format!("mcpbench verify {}/sets/2026-11/bundle", svc.url))
    );
    assert!(retired.body.contains("href=\"/sets/2026-11/bundle\""));
    let tasks = anyone.get("/web/tasks?set=Historical-2026-11").await;
    assert_eq!(tasks.status, 200);
    assert_eq!(tasks.body.matches("<tr>").count(), 1 + svc.tasks.len());
    // Filters narrow the list to the matching tasks, on the page and in the JSON API alike.
    let first = &svc.tasks[0];
    let server = first.servers[0].as_str();
    let count =
        |keep: &dyn Fn(&mcpbench_tasks::Task) -> bool| svc.tasks.iter().filter(|t| keep(t)).count();
    let filters = [
        (
            format!("server={server}"),
            count(&|t| t.servers.iter().any(|s| s == server)),
        ),
        (
            format!("category={}", first.category.as_str()),
            count(&|t| t.category == first.category),
        ),
        (
            format!("server={server}&difficulty={}", first.difficulty.as_str()),
            count(&|t| t.servers.iter().any(|s| s == server) && t.difficulty == first.difficulty),
        ),
    ];
    assert!(
        filters.iter().any(|(_, want)| *want < svc.tasks.len()),
        "some filter leaves tasks out"
    );
    for (query, want) in filters {
        let page = anyone.get(&format!("/web/tasks?set=2026-11&{query}")).await;
        assert_eq!(page.body.matches("<tr>").count(), 1 + want, "{query}");
        assert!(
            page.body.contains(&format!("/web/tasks/{}?", first.id)),
            "{query}"
        );
        for (_, value) in query.split('&').filter_map(|kv| kv.split_once('=')) {
            let chosen = format!("<option value=\"{value}\" selected");
            assert!(
                page.body.contains(&chosen),
                "{query}: {value} is not shown chosen"
            );
        }
        let (status, json) = svc.get(&format!("/tasks?set=2026-11&{query}"), None).await;
        assert_eq!(
            (status, json["tasks"].as_array().map(Vec::len)),
            (200, Some(want)),
            "{query}"
        );
    }
    let (status, refused) = svc.get("/tasks?set=2026-11&server=nope", None).await;
    assert_eq!(status, 400);
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .contains("server must be one of")
    );
    let one = anyone.get(&format!("/web/tasks/{task}?set=2026-11")).await;
    assert!(one.body.contains("What counts as success"));
    assert_eq!(
        anyone.get(&format!("/web/runs/{run}")).await.status,
        200,
        "published while live, open once retired"
    );
    assert_eq!(owner.get(&format!("/web/runs/{run}")).await.status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_proxy_the_public_url_decides_origins_and_cookies() {
    let svc = Service::start(Options {
        tasks: 1,
        worker: false,
        public_url: Some("https://bench.example.org".into()),
        ..Default::default()
    })
    .await;
    let key = svc.vendor("acme", false).await;
    let browser = Browser::new(&svc);
    // The proxy rewrote Host to our loopback address; the browser's Origin is the public one.
    let local = browser
        .post("/web/login", &format!("api_key={key}"), &svc.url)
        .await;
    assert_eq!(local.status, 403, "{}", local.body);
    let public = browser
        .post(
            "/web/login",
            &format!("api_key={key}"),
            "https://bench.example.org",
        )
        .await;
    assert_eq!(public.status, 303, "{}", public.body);
    assert!(header(&public, "set-cookie").contains("; Secure"));
    svc.private_set("2026-11", &svc.tasks).await;
    let set = browser.get("/web/sets/2026-11").await;
    assert!(set.body.contains("Keep the checkpoint now"));
    mcpbench_sets::retire(&svc.pool, &svc.custody, "2026-11")
        .await
        .unwrap();
    let set = browser.get("/web/sets/2026-11").await;
    assert!(
        set.body
            .contains("mcpbench verify https://bench.example.org/sets/2026-11/bundle"),
        "the commands name the public address, not the Host: {}",
        set.body
    );
}
