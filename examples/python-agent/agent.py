"""MCPBench example agent for the `mcpbench/1` protocol (see README.md).

The harness POSTs one task (goal, max_steps, deadline, one MCP endpoint per server); the agent
uses the tools through the official `mcp` SDK (1.x: Streamable HTTP 2025-11-25; 2.x: 2026-07-28,
falling back to 2025-11-25) and answers 200 {"answer": "..."} before the deadline. Policies: an
LLM tool-calling loop when one is configured, else a deterministic "survey" of the tools.
"""

import argparse
import asyncio
import base64
import hashlib
import hmac
import importlib.metadata
import json
import logging
import os
import re
import threading
import time
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import anyio  # the mcp SDK's async layer; its cancel scopes are what make the deadline safe

PROTOCOL = "mcpbench/1"
MAX_BODY = 1 << 20  # 1 MiB; a task is a few KiB
DEADLINE_MARGIN = 3.0  # seconds kept back to send the answer before the deadline
# Requests are signed in the manner of Standard Webhooks (docs/protocol.md, section 2): an
# HMAC-SHA256 over "<webhook-id>.<webhook-timestamp>.<body>", so a captured request cannot be
# sent again. (X-MCPBench-Signature, the body's HMAC alone, is still sent for one version; it
# can be replayed, so it is not checked here.)
ID_HEADER, TIMESTAMP_HEADER, SIGNATURE_HEADER = "webhook-id", "webhook-timestamp", "webhook-signature"
TOLERANCE = 300  # seconds a request's timestamp may be from our clock, either way
LLM_ENV = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "MCPBENCH_MODEL")  # all three set: LLM policy
MCP_MAJOR = int(importlib.metadata.version("mcp").split(".")[0])

if MCP_MAJOR >= 2:  # mcp 2.x moved to httpx2 and a high-level Client
    import httpx2 as httpx
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
else:  # mcp 1.x
    import httpx
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

log = logging.getLogger("agent")


# --- MCP: one small surface over both SDK majors ------------------------------------------------

class McpServer:
    """One MCP endpoint of the run. Tools and results are plain dicts in wire (camelCase) form,
    so the policies below do not depend on the SDK's model classes, which differ per major."""

    def __init__(self, name, session):
        self.name, self.session, self.tools = name, session, []

    async def load_tools(self):
        cursor = None
        for _ in range(50):  # bounded: never follow an endless cursor
            page = await self.session.list_tools(**({"cursor": cursor} if cursor else {}))
            page = page.model_dump(by_alias=True, mode="json", exclude_none=True)
            self.tools += page.get("tools", [])
            cursor = page.get("nextCursor")
            if not cursor:
                break

    async def call_tool(self, tool, arguments):
        result = await self.session.call_tool(tool, arguments)
        return result.model_dump(by_alias=True, mode="json", exclude_none=True)


@asynccontextmanager
async def connect(spec):
    """Open the MCP endpoint `spec` ({name, url, headers}); the headers carry the run's token."""
    headers = dict(spec.get("headers") or {})
    # The SDK's default timeouts; the run's deadline (see run_task) bounds everything anyway.
    http = httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(30.0, read=300.0))
    async with http:
        if MCP_MAJOR >= 2:
            # "auto": probe server/discover (2026-07-28), fall back to initialize (2025-11-25).
            async with Client(streamable_http_client(spec["url"], http_client=http), mode="auto") as client:
                yield McpServer(spec["name"], client)
        else:
            async with streamable_http_client(spec["url"], http_client=http) as (read, write, _):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    yield McpServer(spec["name"], session)


def describe(exc):
    """One line for an exception; unwraps the SDK's task-group ExceptionGroups to the cause."""
    while getattr(exc, "exceptions", None):
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}"


def parse_deadline(value):
    """RFC 3339 timestamp (e.g. 2026-11-22T10:00:00Z) -> Unix time; ValueError if invalid."""
    when = datetime.fromisoformat(str(value).upper().replace("Z", "+00:00"))
    if when.tzinfo is None:
        raise ValueError("deadline has no UTC offset")
    return when.timestamp()


def result_text(result, limit):
    """Flatten a CallToolResult dict to text for the model or the summary."""
    parts = []
    for block in result.get("content", []):
        parts.append(block["text"] if block.get("type") == "text" else f"[{block.get('type')}]")
    if not parts and "structuredContent" in result:
        parts.append(json.dumps(result["structuredContent"]))
    text = "\n".join(parts)
    return text if len(text) <= limit else text[:limit] + "...[truncated]"


class Run:
    """Budget keeper: never more than max_steps tool calls, never past the deadline."""

    def __init__(self, task):
        self.task, self.steps, self.notes = task, 0, []
        self.usage = None  # tokens the model reported: {"input_tokens", "output_tokens"}
        self.end = time.monotonic() + (parse_deadline(task["deadline"]) - time.time()) - DEADLINE_MARGIN

    def time_left(self):
        return self.end - time.monotonic()

    def can_call(self):
        return self.steps < self.task["max_steps"] and self.time_left() > 0

    async def call(self, server, tool, arguments):
        """Call one tool; returns (ok, text). Tool and protocol errors come back as text."""
        self.steps += 1
        log.info("step %d: %s.%s", self.steps, server.name, tool)
        try:
            result = await server.call_tool(tool, arguments)
        except Exception as exc:  # MCP error (e.g. tool not available), transport failure
            return False, describe(exc)
        return not result.get("isError", False), result_text(result, 20_000)


# --- policies ----------------------------------------------------------------------------------

async def survey_policy(run, servers):
    """No LLM: call each tool without required arguments, once, in listed order."""
    for server in servers:
        called = []
        for tool in server.tools:
            if (tool.get("inputSchema") or {}).get("required"):
                continue
            if not run.can_call():
                break
            ok, text = await run.call(server, tool["name"], {})
            called.append(f"{tool['name']} ok" if ok else f"{tool['name']} error: {text[:120]!r}")
        run.notes.append(f"{server.name}: {len(server.tools)} tools; called " + (", ".join(called) or "none"))
    return f"survey ({run.steps}/{run.task['max_steps']} steps): " + "; ".join(run.notes)


SYSTEM_PROMPT = ("You are an agent that completes the user's goal by calling the provided tools. "
                 "Call as few tools as needed. When done, reply with a short final answer.")


class ModelError(Exception):
    """The model could not be asked (a refused request, or failures until the time ran out)."""


async def chat(llm, url, body, run):
    """One completion: (message, usage). Retried as models' endpoints need: 429 after its
    Retry-After (at most 30 s), 408, 5xx, a dropped connection or timeout, and a body that is
    not a completion; another 4xx stops at once. Never past the run's time."""
    last = None
    for attempt in range(5):
        left = run.time_left()
        if left <= 0:
            break
        wait = 0.5 * 2 ** attempt
        try:
            resp = await llm.post(url, json=body, timeout=min(120.0, left))
        except httpx.TransportError as exc:  # timeouts included
            last = describe(exc)
        else:
            if resp.status_code == 200:
                try:
                    completion = resp.json()
                    message = completion["choices"][0]["message"]
                    if isinstance(message, dict):
                        return message, completion.get("usage")
                    last = "no choices[0].message"
                except (ValueError, KeyError, IndexError, TypeError):
                    last = "not a completion: " + resp.text[:200]
            elif resp.status_code == 429:
                last = "rate limited (429)"
                try:
                    wait = min(float(resp.headers.get("retry-after", "1")), 30.0)
                except ValueError:
                    wait = 1.0
            elif resp.status_code == 408 or resp.status_code >= 500:
                last = f"HTTP {resp.status_code}: {resp.text[:200]}"
            else:
                raise ModelError(f"HTTP {resp.status_code}: {resp.text[:200]}")
        if wait >= run.time_left():
            break
        await anyio.sleep(wait)
    raise ModelError(f"the model kept failing: {last}" if last else "no time left to ask the model")


def add_usage(run, usage):
    if isinstance(usage, dict) and isinstance(usage.get("prompt_tokens"), int) \
            and isinstance(usage.get("completion_tokens"), int):
        run.usage = run.usage or {"input_tokens": 0, "output_tokens": 0}
        run.usage["input_tokens"] += usage["prompt_tokens"]
        run.usage["output_tokens"] += usage["completion_tokens"]


def priced(usage):
    """The usage with its cost in US dollars added when the model's prices are given
    (MCPBENCH_PRICE_INPUT and MCPBENCH_PRICE_OUTPUT, dollars per million tokens)."""
    prices = [os.environ.get(k) for k in ("MCPBENCH_PRICE_INPUT", "MCPBENCH_PRICE_OUTPUT")]
    if not usage or not all(prices):
        return usage
    try:
        per_in, per_out = (float(p) for p in prices)
    except ValueError:
        log.warning("MCPBENCH_PRICE_INPUT/OUTPUT are not numbers; cost not reported")
        return usage
    cost = (usage["input_tokens"] * per_in + usage["output_tokens"] * per_out) / 1e6
    return {**usage, "cost_usd": cost}


async def llm_policy(run, servers, base_url, api_key, model):
    """The standard chat-completions tool-calling loop; tools are named <server>__<tool>."""
    functions, route = [], {}
    for server in servers:
        for tool in server.tools:
            # Function names must match ^[A-Za-z0-9_-]{1,64}$; keep a map back to the MCP name.
            fname = re.sub(r"[^A-Za-z0-9_-]", "_", f"{server.name}__{tool['name']}")[:64]
            route[fname] = (server, tool["name"])
            functions.append({"type": "function", "function": {
                "name": fname, "description": tool.get("description", ""),
                "parameters": tool.get("inputSchema") or {"type": "object", "properties": {}}}})
    messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": run.task["goal"]}]
    headers = {"Authorization": f"Bearer {api_key}"}
    async with httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(120.0)) as llm:
        for _ in range(run.task["max_steps"] + 3):  # model turns, bounded
            body = {"model": model, "messages": messages}
            if functions:  # once the step budget is spent, ask for the final text only
                body.update(tools=functions, tool_choice="auto" if run.can_call() else "none")
            try:
                message, usage = await chat(llm, base_url.rstrip("/") + "/chat/completions", body, run)
            except ModelError as exc:
                return f"model error after {run.steps} steps: {exc}"
            add_usage(run, usage)
            messages.append(message)
            if not message.get("tool_calls"):
                return message.get("content") or ""
            for call in message["tool_calls"]:
                fn = call.get("function", {})
                if fn.get("name") not in route:
                    text = f"error: unknown tool {fn.get('name')!r}"
                elif not run.can_call():
                    text = "error: step budget or time exhausted; give your final answer"
                else:
                    try:
                        args = json.loads(fn.get("arguments") or "{}")
                    except json.JSONDecodeError as exc:
                        args, text = None, f"error: arguments are not valid JSON: {exc}"
                    if isinstance(args, dict):
                        ok, text = await run.call(*route[fn["name"]], args)
                        text = text if ok else "error: " + text
                    elif args is not None:
                        text = "error: arguments must be a JSON object"
                messages.append({"role": "tool", "tool_call_id": call.get("id"), "content": text})
    return "stopped: model turn limit reached"


async def run_task(task):
    """Connect to every server, run a policy; always an answer string, and the tokens the model
    reported (None when it reported none, or no model ran)."""
    run = Run(task)
    llm = [os.environ.get(k) for k in LLM_ENV]
    answer = None
    # One cancel scope for the whole run: at deadline - margin everything in flight is cancelled.
    with anyio.move_on_after(max(run.time_left(), 0)):
        async with AsyncExitStack() as stack:
            servers = []
            for spec in task["mcp_servers"]:
                try:
                    server = await stack.enter_async_context(connect(spec))
                    await server.load_tools()
                    servers.append(server)
                except Exception as exc:  # report, keep going with the other servers
                    log.warning("run %s: %s: connect failed: %s", task["run_id"], spec["name"], describe(exc))
                    run.notes.append(f"{spec['name']}: connect failed: {describe(exc)}")
            log.info("run %s: %d/%d servers, %d tools", task["run_id"], len(servers),
                     len(task["mcp_servers"]), sum(len(s.tools) for s in servers))
            try:
                if all(llm):
                    answer = await llm_policy(run, servers, *llm)
                else:
                    answer = await survey_policy(run, servers)
            except Exception as exc:  # e.g. the LLM API failed: still answer
                log.exception("policy failed")
                answer = f"policy error after {run.steps} steps: {describe(exc)}"
    if answer is None:
        answer = f"stopped at the deadline after {run.steps} steps; " + "; ".join(run.notes)
    return answer, priced(run.usage)


# --- HTTP layer --------------------------------------------------------------------------------

def validate(task):
    """Return an error message for a malformed task, or None."""
    if not isinstance(task, dict):
        return "body must be a JSON object"
    if task.get("protocol") != PROTOCOL:
        return f"unsupported protocol {task.get('protocol')!r}, expected {PROTOCOL!r}"
    if not isinstance(task.get("run_id"), str) or not isinstance(task.get("goal"), str):
        return "run_id and goal must be strings"
    if type(task.get("max_steps")) is not int or task["max_steps"] < 0:
        return "max_steps must be a non-negative integer"
    try:
        parse_deadline(task.get("deadline"))
    except ValueError:
        return "deadline must be an RFC 3339 timestamp"
    servers = task.get("mcp_servers")
    if not isinstance(servers, list) or not all(
            isinstance(s, dict) and isinstance(s.get("name"), str) and isinstance(s.get("url"), str)
            and isinstance(s.get("headers", {}), dict) for s in servers):
        return "mcp_servers must be a list of {name, url, headers}"
    return None


class Replays:
    """The request ids taken within the tolerance: each is taken once. Ids older than twice the
    tolerance are forgotten (their timestamps are stale by then anyway)."""

    def __init__(self):
        self.seen, self.lock = {}, threading.Lock()

    def first(self, request_id, timestamp, now):
        with self.lock:
            if len(self.seen) >= 1024:
                self.seen = {k: t for k, t in self.seen.items() if now - t <= 2 * TOLERANCE}
            if request_id in self.seen:
                return False
            self.seen[request_id] = timestamp
            return True


REPLAYS = Replays()


def check_signature(secret, headers, raw, now=None):
    """None when the request is signed with `secret`, fresh and new; else why not."""
    request_id, stamp, given = (headers.get(h) for h in (ID_HEADER, TIMESTAMP_HEADER, SIGNATURE_HEADER))
    if not (request_id and stamp and given):
        return f"missing {ID_HEADER}, {TIMESTAMP_HEADER} or {SIGNATURE_HEADER}"
    try:
        timestamp = int(stamp)
    except ValueError:
        return f"{TIMESTAMP_HEADER} is not Unix seconds"
    now = int(time.time()) if now is None else now
    if abs(timestamp - now) > TOLERANCE:
        return f"stale request: signed {timestamp - now:+d}s from now"
    message = request_id.encode() + b"." + stamp.encode() + b"." + raw
    expected = "v1," + base64.b64encode(hmac.new(secret.encode(), message, hashlib.sha256).digest()).decode()
    # The header may carry several signatures, space-separated (a key being rotated).
    if not any(hmac.compare_digest(expected, s) for s in given.split(" ")):
        return "invalid signature"
    if not REPLAYS.first(request_id, timestamp, now):
        return "replayed request"
    return None


class Handler(BaseHTTPRequestHandler):
    timeout = 30  # seconds to receive a request; a stalled client does not hold a thread forever

    def reply(self, status, payload):
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/healthz":
            self.reply(200, {"status": "ok"})
        else:
            self.reply(404, {"error": "not found"})

    def do_POST(self):
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            return self.reply(411, {"error": "Content-Length required"})
        if length < 0:
            return self.reply(400, {"error": "invalid Content-Length"})
        if length > MAX_BODY:
            self.close_connection = True  # the body is left unread
            return self.reply(413, {"error": f"body larger than {MAX_BODY} bytes"})
        raw = self.rfile.read(length)
        # Verify the signature on the raw bytes before parsing anything.
        secret = os.environ.get("MCPBENCH_SIGNING_SECRET")
        if secret:
            refused = check_signature(secret, self.headers, raw)
            if refused:
                return self.reply(401, {"error": refused})
        try:
            task = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            return self.reply(400, {"error": "body is not valid JSON"})
        error = validate(task)
        if error:
            return self.reply(400, {"error": error})
        if secret and task["run_id"] != self.headers.get(ID_HEADER):
            return self.reply(401, {"error": f"{ID_HEADER} is not the request's run_id"})
        log.info("run %s: start, max_steps=%d, deadline=%s", task["run_id"], task["max_steps"], task["deadline"])
        try:
            answer, usage = asyncio.run(run_task(task))  # one event loop per request thread
        except Exception:
            log.exception("run %s failed", task["run_id"])
            return self.reply(500, {"error": "internal agent error"})
        log.info("run %s: done", task["run_id"])
        self.reply(200, {"answer": answer, **({"usage": usage} if usage else {})})

    def log_message(self, fmt, *args):  # route the access log through logging (stderr)
        log.info("%s %s", self.address_string(), fmt % args)


def make_server(host, port):
    return ThreadingHTTPServer((host, port), Handler)


def main():
    parser = argparse.ArgumentParser(description="MCPBench example agent (mcpbench/1)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8080")))
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for noisy in ("httpx", "httpx2", "httpcore", "mcp"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    server = make_server(args.host, args.port)
    log.info("listening on http://%s:%d/ (mcp %s, policy: %s, signatures: %s)", args.host, args.port,
             importlib.metadata.version("mcp"), "llm" if all(os.environ.get(k) for k in LLM_ENV) else "survey",
             "required" if os.environ.get("MCPBENCH_SIGNING_SECRET") else "not checked")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
