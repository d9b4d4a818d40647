"""Every page of the MCPBench website in headless Chromium, checked as a person would check it.

Run by apps/cli/tests/browser.rs against a live `mcpbench up` with real data; the environment
names the service, the demo vendor's key, two of its submissions on the dev set (one solved
and published, one that failed every run), Chromium and where screenshots go.
"""

import os
import re
import sys
from urllib.parse import urlparse, parse_qs

from playwright.sync_api import sync_playwright, expect

URL = os.environ["MCPBENCH_URL"].rstrip("/")
KEY = os.environ["MCPBENCH_API_KEY"]
SOLVED = os.environ["MCPBENCH_SOLVED"]
FAILED = os.environ["MCPBENCH_FAILED"]
SHOTS = os.environ["MCPBENCH_SCREENSHOTS"]
MAX_PAGE_BYTES = 100_000

# Relative luminance and contrast ratio, WCAG 2.x.
CONTRAST = """
() => {
  const lum = (c) => {
    const [r, g, b] = c.match(/[\\d.]+/g).slice(0, 3).map(Number).map((v) => {
      v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const background = (el) => {
    for (; el; el = el.parentElement) {
      const bg = getComputedStyle(el).backgroundColor;
      const alpha = bg.match(/[\\d.]+/g);
      if (alpha && (alpha.length < 4 || Number(alpha[3]) > 0)) return bg;
    }
    return 'rgb(255, 255, 255)';
  };
  const worst = [];
  for (const el of document.querySelectorAll('body *')) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || el.closest('svg') || !el.getClientRects().length) continue;
    const a = lum(getComputedStyle(el).color), b = lum(background(el));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (ratio < 4.5) worst.push(`${el.tagName} "${el.textContent.trim().slice(0, 30)}" ${ratio.toFixed(2)}`);
  }
  return worst;
}
"""


class Site:
    def __init__(self, page):
        self.page = page
        self.seen = []

    def visit(self, path, status=200):
        """Loads a page and checks what every page must be: its status, small, no script,
        a language, a title, the policy header."""
        response = self.page.goto(URL + path)
        self.check(response, path, status)
        return response

    def check(self, response, what, status=200):
        assert response.status == status, f"{what}: HTTP {response.status}"
        body = response.body()
        assert len(body) < MAX_PAGE_BYTES, f"{what}: {len(body)} bytes"
        html = body.decode()
        assert "<script" not in html, f"{what}: a script"
        assert html.startswith("<!DOCTYPE html>") and '<html lang="en">' in html, what
        csp = response.headers.get("content-security-policy", "")
        assert "default-src 'none'" in csp, f"{what}: {csp!r}"
        self.seen.append((what, len(body)))

    def follow(self, locator, what, status=200):
        """Clicks a link or button and checks the page it leads to."""
        with self.page.expect_navigation() as nav:
            locator.click()
        self.check(nav.value, what, status)

    def shot(self, name):
        self.page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)

    def readable(self, what):
        low = self.page.evaluate(CONTRAST)
        assert not low, f"{what}: text below 4.5:1 contrast: {low[:5]}"


def leaderboard(site):
    page = site.page
    # The front page is the official board, the live private month; the public set's board is
    # practice, a tab away, and each says which it is.
    site.visit("/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Leaderboard of 2026-11")
    tabs = page.get_by_role("navigation", name="Boards")
    official = tabs.get_by_role("link", name="Official board (2026-11)")
    expect(official).to_have_attribute("aria-current", "page")
    expect(page.locator("p.standing")).to_contain_text("The official board.")
    site.readable("the official board")
    site.shot("leaderboard-official")
    site.follow(tabs.get_by_role("link", name="Practice (dev)"), "the practice board")
    expect(page.get_by_role("heading", level=1)).to_have_text("Leaderboard of dev")
    expect(tabs.get_by_role("link", name="Practice (dev)")).to_have_attribute("aria-current", "page")
    expect(page.locator("p.standing")).to_contain_text("Practice board.")
    expect(page.locator("p.standing")).to_contain_text("the live month 2026-11")
    rows = page.locator("table").first.locator("tbody tr")
    assert rows.count() >= 5, rows.count()
    # The ranking: an oracle first, rates never rising down the table, the null agents last.
    assert "oracle" in rows.nth(0).inner_text()
    # Columns: rank, agent, organisation, weights, scaffold, success rate, ...
    rates = [float(rows.nth(i).locator("td").nth(5).inner_text().split()[0]) for i in range(rows.count())]
    assert rates == sorted(rates, reverse=True), rates
    assert rates[0] == 1.0 and rates[-1] == 0.0, rates
    # Each interval bar says its numbers to a screen reader.
    bar = rows.nth(0).locator("svg[role=img]")
    assert re.match(r"1\.00, 95% interval 0\.\d\d to 1\.00", bar.get_attribute("aria-label"))
    # The keyboard: the first Tab reaches the skip link, which leads to the content.
    page.keyboard.press("Tab")
    expect(page.locator(":focus")).to_have_text("Skip to the content")
    site.readable("the leaderboard")
    site.shot("leaderboard")

    # A filter and a sort, chosen with the form as a person would.
    server = page.get_by_label("Server").locator("option").nth(1).get_attribute("value")
    page.get_by_label("Server").select_option(server)
    page.get_by_label("Sort by").select_option("hallucinated")
    site.follow(page.get_by_role("button", name="Show"), "the filtered leaderboard")
    query = parse_qs(urlparse(page.url).query)
    assert query["server"] == [server] and query["sort"] == ["hallucinated"], page.url
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Leaderboard of dev, {server} tasks")
    expect(page.get_by_label("Server")).to_have_value(server)
    site.shot("leaderboard-filtered")

    # On a phone the page does not scroll sideways (the table does, inside its box).
    page.set_viewport_size({"width": 390, "height": 844})
    site.visit("/?set=dev")
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"the page is {overflow}px wider than a phone"
    site.shot("leaderboard-phone")
    page.set_viewport_size({"width": 1280, "height": 900})

    # What entries say of themselves: the reference agents are MCPBench's, on the standard
    # scaffold; an organisation's name filters the board to it.
    site.visit("/?set=dev")
    reference = page.locator("table").first.locator("tbody tr").filter(has_text="(reference agent)").first
    expect(reference.locator("td").nth(4)).to_have_text("standard")
    # A baseline of ours, run inside the service; under the table, what the board's entries
    # were measured under (an entry measured otherwise would be marked beside its name).
    expect(reference.get_by_text("baseline", exact=True)).to_be_visible()
    expect(page.get_by_text("Measured under: mcpbench")).to_be_visible()
    site.follow(reference.get_by_role("link", name="MCPBench"), "the board of one organisation")
    assert parse_qs(urlparse(page.url).query)["organisation"] == ["MCPBench"], page.url
    expect(page.get_by_text("Only MCPBench's models")).to_be_visible()
    shown = page.locator("table").first.locator("tbody tr")
    assert all("MCPBench" in shown.nth(i).inner_text() or "reference" in shown.nth(i).inner_text()
               for i in range(shown.count()))
    page.get_by_label("Scaffold").select_option("own")
    site.follow(page.get_by_role("button", name="Show"), "the board of own scaffolds")
    query = parse_qs(urlparse(page.url).query)
    assert query["scaffold"] == ["own"] and query["organisation"] == ["MCPBench"], page.url

    # The board's exports, from the links under it: the CSV has the table's rows in its order.
    site.visit("/?set=dev")
    table_ids = [href.rsplit("/", 1)[1] for href in page.locator("table").first.locator(
        "tbody tr td:nth-child(2) a[href^='/web/submissions/']").evaluate_all("els => els.map(e => e.getAttribute('href'))")]
    csv_link = page.get_by_role("link", name="CSV", exact=True)
    exported = page.context.request.get(URL + csv_link.get_attribute("href"))
    assert exported.ok and exported.headers["content-type"].startswith("text/csv"), exported.status
    lines = exported.text().strip().split("\r\n")
    assert lines[0].startswith("rank,rank_low,rank_high,submission_id"), lines[0]
    ids = [line.split(",")[3] for line in lines[1:]]
    assert ids[: len(table_ids)] == table_ids, (ids, table_ids)
    matrix = page.context.request.get(URL + page.get_by_role("link", name="the result matrix").get_attribute("href"))
    assert matrix.ok and matrix.text().startswith("task_id,server,category,submission_id"), matrix.status


def compare(site):
    """Head to head from the practice board: an entry's "vs #1" link."""
    page = site.page
    site.visit("/?set=dev")
    rows = page.locator("table").first.locator("tbody tr")
    leader = rows.first.locator("a[href^='/web/submissions/']").first.inner_text()
    # The last entry solved nothing, the first everything: the test tells them apart.
    site.follow(rows.last.get_by_role("link", name="vs #1"), "a head-to-head")
    expect(page.get_by_role("heading", level=1)).to_have_text("Head to head")
    expect(page.locator("#verdict")).to_contain_text("McNemar p =")
    expect(page.locator("main")).to_contain_text(leader)
    expect(page.get_by_role("table", name=re.compile("By server"))).to_be_visible()
    expect(page.get_by_role("heading", name="Where they differ")).to_be_visible()
    site.readable("a head-to-head")
    site.shot("compare")


def history(site):
    page = site.page
    site.visit("/?set=2026-11")
    section = page.locator("section", has=page.get_by_role("heading", name="History across months"))
    table = section.locator("table")
    headers = table.locator("thead th").all_inner_texts()
    assert headers == ["Model", "2026-10", "2026-11", "Across months"], headers
    oracle = table.locator("tbody tr", has_text="oracle-1")
    cells = oracle.locator("td").all_inner_texts()
    october, november = float(cells[0].split()[0]), float(cells[1].split()[0])
    assert october == 1.0 and november < 1.0, cells  # fresh tasks the oracle never saw
    # Each month's cell says the rank the model had there; across months, the mean.
    assert "#1" in cells[0], cells
    across = float(cells[2].split()[0])
    assert november <= across <= october and "over 2" in cells[2], cells
    null = table.locator("tbody tr", has_text="null-1").locator("td").all_inner_texts()
    assert null[0].startswith("0.00") and null[1] == "–", null
    assert "over 1" in null[2], null
    expect(section.locator("svg[role=img]")).to_have_count(1)
    site.shot("history")


def submissions(site):
    page = site.page
    # Not signed in: a finished submission shows its scores to anyone; my list needs signing in.
    site.visit(f"/web/submissions/{FAILED}")
    expect(page.get_by_role("heading", name="Scores")).to_be_visible()
    expect(page.get_by_role("heading", name="Runs")).to_have_count(0)
    site.visit("/web/submissions")
    assert urlparse(page.url).path == "/web/login", page.url
    page.get_by_label("API key").fill("mcpb_wrong_key")
    site.follow(page.get_by_role("button", name="Sign in"), "a wrong key", status=401)
    expect(page.get_by_role("alert")).to_have_text("That API key is unknown or revoked.")
    page.get_by_label("API key").fill(KEY)
    site.follow(page.get_by_role("button", name="Sign in"), "signing in")
    assert urlparse(page.url).path == "/web/submissions", page.url
    expect(page.get_by_role("button", name=re.compile("Sign out"))).to_be_visible()
    expect(page.get_by_role("link", name="cli-oracle")).to_be_visible()

    # The failed one: every run's exact reason, grouped and one by one.
    site.follow(page.get_by_role("link", name="cli-null"), "a failed submission")
    expect(page.locator("#status")).to_have_text("completed")
    failures = page.locator("section", has=page.get_by_role("heading", name="Why runs failed"))
    expect(failures.locator("tbody tr").first).to_contain_text("predicate_false")
    runs = page.locator("section", has=page.get_by_role("heading", name="Runs", exact=True)).locator("tbody tr")
    assert runs.count() == 6, runs.count()
    for i in range(runs.count()):
        text = runs.nth(i).inner_text()
        assert "the goal was not reached" in text, text
        # ... and which part of the task's predicate failed (a dev task: public).
        assert re.search(r"is false|must not|the answer |no answer was given|none of these holds", text), text
    site.readable("a failed submission")
    site.shot("submission-failed")

    # The solved one: scores and the four breakdown charts (server, category, difficulty,
    # task shape).
    site.visit(f"/web/submissions/{SOLVED}")
    expect(page.get_by_text("6 of 6 runs passed")).to_be_visible()
    charts = page.locator("figure svg[role=img]")
    expect(charts).to_have_count(4)
    label = charts.first.get_attribute("aria-label")
    assert label.startswith("Success rate by server: ") and " 1.00 (" in label, label
    shape = charts.last.get_attribute("aria-label")
    assert shape.startswith("Success rate by task shape") and " 1.00 (" in shape, shape
    site.shot("submission-solved")

    # From a run to its trace: the timeline and every call with its arguments and result.
    site.follow(page.get_by_role("link", name="trace").first, "a run")
    expect(page.locator("span.pass")).to_have_text("passed")
    expect(page.locator("figure figcaption")).to_have_text("Timeline")
    calls = page.locator("ol.events > li")
    assert calls.count() >= 2, calls.count()
    call = calls.filter(has_text="tools/call").first
    expect(call.get_by_text("Arguments", exact=True)).to_be_hidden()
    call.locator("summary").focus()
    page.keyboard.press("Enter")  # details open from the keyboard
    expect(call.get_by_text("Arguments", exact=True)).to_be_visible()
    expect(call.locator("pre").first).to_contain_text("{")
    site.readable("a run")
    site.shot("run")


def sets(site):
    page = site.page
    site.visit("/web/sets")
    live = page.locator("section", has=page.get_by_role("heading", name="Live"))
    retired = page.locator("section", has=page.get_by_role("heading", name="Retired"))
    expect(live.get_by_role("link", name="2026-11")).to_be_visible()
    expect(retired.get_by_role("link", name="2026-10")).to_be_visible()
    site.shot("sets")

    # The live month: committed, tasks still private.
    site.follow(live.get_by_role("link", name="2026-11"), "a live set")
    expect(page.locator("pre").first).to_contain_text(re.compile(r"/sets/2026-11\s+6\s"))
    expect(page.get_by_text("Its tasks stay private until it retires")).to_be_visible()
    response = page.goto(URL + "/web/tasks?set=2026-11")
    site.check(response, "the tasks of a live month", status=404)

    # The retired month: its reveal, how to verify it, and its tasks.
    site.visit("/web/sets/2026-10")
    expect(page.get_by_role("heading", name="How to verify the reveal")).to_be_visible()
    expect(page.get_by_text("The 6 commitments, in set order")).to_be_visible()
    commands = page.locator("section", has=page.get_by_role("heading", name="How to verify the reveal")).locator("pre")
    expect(commands).to_contain_text(f"mcpbench verify {URL}/sets/2026-10/bundle")
    bundle = page.context.request.get(URL + "/sets/2026-10/bundle")
    assert bundle.ok and bundle.json()["format"] == "mcpbench-reveal/2", bundle.status
    # November, live, kept half of October: those stay withheld (commitment only) and unlisted.
    withheld = sum("commitment" in t for t in bundle.json()["tasks"])
    assert withheld == 3, withheld
    expect(page.get_by_text(f"({withheld} withheld: a live set still holds them")).to_be_visible()
    # Its published traces, as one archive.
    archive = page.context.request.get(URL + page.get_by_role("link", name="its published traces (tar)").get_attribute("href"))
    assert archive.ok and archive.headers["content-type"] == "application/x-tar", archive.status
    assert len(archive.body()) % 512 == 0 and archive.body()[-1024:] == bytes(1024), "a whole tar"
    site.shot("set-retired")
    site.follow(page.get_by_role("link", name="its tasks").first, "the tasks of a retired set")
    rows = page.locator("tbody tr")
    assert rows.count() == 6 - withheld, rows.count()
    # Narrowed with the form to the first task's difficulty: only such tasks, that one among them.
    first_id = rows.first.locator("td").nth(0).inner_text()
    difficulty = rows.first.locator("td").nth(3).inner_text()
    page.get_by_label("Difficulty").select_option(difficulty)
    site.follow(page.get_by_role("button", name="Show"), "the tasks of one difficulty")
    assert parse_qs(urlparse(page.url).query)["difficulty"] == [difficulty], page.url
    shown = [rows.nth(i).locator("td").nth(3).inner_text() for i in range(rows.count())]
    assert shown and all(d == difficulty for d in shown), shown
    assert rows.first.locator("td").nth(0).inner_text() == first_id
    expect(page.get_by_label("Difficulty")).to_have_value(difficulty)
    site.follow(rows.first.get_by_role("link"), "a task")
    expect(page.get_by_role("heading", name="What counts as success")).to_be_visible()
    site.shot("task")


def sign_out(site):
    page = site.page
    site.visit("/")
    site.follow(page.get_by_role("button", name=re.compile("Sign out")), "signing out")
    expect(page.get_by_role("link", name="Sign in")).to_be_visible()
    site.visit("/web/submissions")
    assert urlparse(page.url).path == "/web/login", page.url


def main():
    os.makedirs(SHOTS, exist_ok=True)
    args = ["--no-sandbox"] if os.geteuid() == 0 else []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=os.environ["MCPBENCH_CHROMIUM"], args=args)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(15_000)
        # The stylesheet must be the one the policy allows: a refusal is a page without style.
        refused = []
        page.on("console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None)
        site = Site(page)
        for check in (leaderboard, compare, history, submissions, sets, sign_out):
            try:
                check(site)
            except Exception:
                site.shot(f"failed-{check.__name__}")
                print(f"FAILED in {check.__name__} at {page.url}", file=sys.stderr)
                raise
            print(f"ok: {check.__name__}")
        browser.close()
    assert not refused, f"the browser refused part of a page: {refused[:3]}"
    for what, size in site.seen:
        print(f"  {size:>6} bytes  {what}")
    print(f"all pages checked; screenshots in {SHOTS}")


if __name__ == "__main__":
    main()
