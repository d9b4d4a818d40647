"""Tests for the example agent: `python -m unittest -v` in a venv with requirements-mcp1.txt or
requirements-mcp2.txt installed. No MCPBench binary needed: the MCP server is a tiny in-process
server built with the same SDK (FastMCP on 1.x, MCPServer on 2.x) under uvicorn, and the LLM is a
scripted fake OpenAI-compatible endpoint."""

import base64
import hashlib
import hmac
import http.client
import json
import logging
import os
import socket
import threading
import time
import unittest
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from unittest import mock

import uvicorn

import agent

TOKEN = "test-run-token"
CALLS = []  # tool names the MCP server executed, in order
VERSIONS = set()  # MCP-Protocol-Version headers the MCP server saw

if agent.MCP_MAJOR >= 2:
    from mcp.server.mcpserver import MCPServer as ServerClass
else:
    from mcp.server.fastmcp import FastMCP as ServerClass

tiny = ServerClass("tiny")


@tiny.tool()
def list_items() -> str:
    """List the items."""
    CALLS.append("list_items")
    return "a, b, c"


@tiny.tool()
def echo(text: str) -> str:
    """Echo text (has a required argument, so the survey skips it)."""
    CALLS.append("echo")
    return text


@tiny.tool()
def fail() -> str:
    """Always fails."""
    CALLS.append("fail")
    raise ValueError("disk on fire")


@tiny.tool()
def count() -> int:
    """Count the items."""
    CALLS.append("count")
    return 3


@tiny.tool()
async def slow() -> str:
    """Takes longer than any test deadline."""
    CALLS.append("slow")
    import anyio
    await anyio.sleep(15)
    return "late"


# The SDK's server side configures root logging at INFO and logs expected tool failures and
# session teardown with tracebacks; keep test output to the results.
logging.getLogger().setLevel(logging.CRITICAL)


def with_bearer(app):
    """ASGI wrapper: 401 without the run token (as the gateway does); records protocol versions."""
    async def wrapped(scope, receive, send):
        if scope["type"] == "http":
            headers = dict(scope["headers"])
            if headers.get(b"authorization") != f"Bearer {TOKEN}".encode():
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b""})
                return
            if b"mcp-protocol-version" in headers:
                VERSIONS.add(headers[b"mcp-protocol-version"].decode())
        await app(scope, receive, send)
    return wrapped


def serve_in_thread(server):
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server


class FakeLLM(BaseHTTPRequestHandler):
    """Chat-completions endpoint: first asks for tiny__echo, then answers with the tool output.
    `failures` are answered first, one per request: (status, headers, body)."""
    requests = []
    failures = []

    def send(self, status, headers, out):
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeLLM.requests.append((self.headers.get("Authorization"), body))
        if FakeLLM.failures:
            status, headers, out = FakeLLM.failures.pop(0)
            return self.send(status, headers, out)
        tool_msgs = [m for m in body["messages"] if m["role"] == "tool"]
        if not tool_msgs:
            message = {"role": "assistant", "content": None, "tool_calls": [{
                "id": "c1", "type": "function",
                "function": {"name": "tiny__echo", "arguments": json.dumps({"text": "hello"})}}]}
        else:
            message = {"role": "assistant", "content": "final: " + tool_msgs[-1]["content"]}
        out = json.dumps({"choices": [{"index": 0, "message": message}],
                          "usage": {"prompt_tokens": 50, "completion_tokens": 7}}).encode()
        self.send(200, {"Content-Type": "application/json"}, out)

    def log_message(self, *args):
        pass


class AgentTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.agent = serve_in_thread(agent.make_server("127.0.0.1", 0))
        cls.agent_port = cls.agent.server_address[1]
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        cls.mcp_url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
        config = uvicorn.Config(with_bearer(tiny.streamable_http_app()), log_level="warning",
                                timeout_graceful_shutdown=1)
        cls.uvicorn = uvicorn.Server(config)
        cls.mcp_socket = sock
        cls.uvicorn_thread = threading.Thread(target=cls.uvicorn.run, kwargs={"sockets": [sock]}, daemon=True)
        cls.uvicorn_thread.start()
        while not cls.uvicorn.started:
            time.sleep(0.05)
        cls.llm = serve_in_thread(ThreadingHTTPServer(("127.0.0.1", 0), FakeLLM))

    @classmethod
    def tearDownClass(cls):
        for server in (cls.agent, cls.llm):
            server.shutdown()
            server.server_close()
        cls.uvicorn.should_exit = True
        cls.uvicorn_thread.join(5)
        cls.mcp_socket.close()

    def setUp(self):
        CALLS.clear()
        VERSIONS.clear()

    # helpers
    def task(self, max_steps=8, seconds=60, token=TOKEN, servers=("tiny",), **extra):
        deadline = datetime.now(timezone.utc) + timedelta(seconds=seconds)
        return {"protocol": "mcpbench/1", "run_id": "run-1", "goal": "survey the tools",
                "max_steps": max_steps, "deadline": deadline.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "mcp_servers": [{"name": n, "url": self.mcp_url, "headers": {"Authorization": f"Bearer {token}"}}
                                for n in servers], **extra}

    def post(self, body, headers=None):
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        conn = http.client.HTTPConnection("127.0.0.1", self.agent_port, timeout=60)
        conn.request("POST", "/", raw, {"Content-Type": "application/json", **(headers or {})})
        resp = conn.getresponse()
        status, data = resp.status, json.loads(resp.read())
        conn.close()
        return status, data

    # HTTP layer
    def test_healthz(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.agent_port, timeout=10)
        conn.request("GET", "/healthz")
        self.assertEqual(conn.getresponse().status, 200)

    def test_wrong_protocol(self):
        status, data = self.post(self.task(protocol="mcpbench/2"))
        self.assertEqual(status, 400)
        self.assertIn("protocol", data["error"])

    def test_bad_json(self):
        self.assertEqual(self.post(b"{not json")[0], 400)
        self.assertEqual(self.post(b"[1, 2]")[0], 400)
        self.assertEqual(self.post(self.task(max_steps="8"))[0], 400)
        self.assertEqual(self.post(self.task(deadline="tomorrow"))[0], 400)
        self.assertEqual(self.post(self.task(mcp_servers=[{"name": "x"}]))[0], 400)
        conn = http.client.HTTPConnection("127.0.0.1", self.agent_port, timeout=10)
        conn.putrequest("POST", "/")
        conn.putheader("Content-Length", "-1")
        conn.endheaders()
        self.assertEqual(conn.getresponse().status, 400)

    def test_oversized_body(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.agent_port, timeout=10)
        conn.putrequest("POST", "/")
        conn.putheader("Content-Length", str(agent.MAX_BODY + 1))
        conn.endheaders()  # the body is never sent: the agent must answer from the headers
        self.assertEqual(conn.getresponse().status, 413)

    @staticmethod
    def signed(raw, request_id, secret="s3cret", at=None):
        """The headers the harness sends: Standard Webhooks' id, timestamp and v1 signature."""
        at = int(time.time()) if at is None else at
        message = f"{request_id}.{at}.".encode() + raw
        digest = hmac.new(secret.encode(), message, hashlib.sha256).digest()
        return {"webhook-id": request_id, "webhook-timestamp": str(at),
                "webhook-signature": "v1," + base64.b64encode(digest).decode()}

    def test_signature(self):
        task = self.task(max_steps=0)
        raw, run_id = json.dumps(task).encode(), task["run_id"]
        with mock.patch.dict(os.environ, {"MCPBENCH_SIGNING_SECRET": "s3cret"}):
            self.assertEqual(self.post(raw)[0], 401)
            # The first version's header alone can be replayed, so it is not enough.
            legacy = "sha256=" + hmac.new(b"s3cret", raw, hashlib.sha256).hexdigest()
            self.assertEqual(self.post(raw, {"X-MCPBench-Signature": legacy})[0], 401)
            self.assertEqual(self.post(raw, self.signed(raw, run_id, secret="other"))[0], 401)
            self.assertEqual(self.post(raw + b" ", self.signed(raw, run_id))[0], 401)
            for skew in (-301, 301):
                status, data = self.post(raw, self.signed(raw, run_id, at=int(time.time()) + skew))
                self.assertEqual(status, 401)
                self.assertIn("stale", data["error"])
            # Signed right, but for another run than the body's.
            status, data = self.post(raw, self.signed(raw, "run_" + "f" * 24))
            self.assertEqual(status, 401)
            self.assertIn("run_id", data["error"])
            headers = self.signed(raw, run_id)
            status, data = self.post(raw, headers)
            self.assertEqual(status, 200, data)
            status, data = self.post(raw, headers)
            self.assertEqual(status, 401, "the same request again is a replay")
            self.assertIn("replayed", data["error"])

    def test_signature_vector(self):
        # The Standard Webhooks specification's example (key = the base64 of its whsec_ secret).
        key = base64.b64decode("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        message = b'msg_p5jXN8AQM9LWM0D4loKWxJek.1614265330.{"test": 2432232314}'
        self.assertEqual("v1," + base64.b64encode(hmac.new(key, message, hashlib.sha256).digest()).decode(),
                         "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")

    # survey policy, end to end over Streamable HTTP
    def test_survey(self):
        status, data = self.post(self.task(max_steps=3))  # 3 steps: stops before `slow`
        self.assertEqual(status, 200, data)
        self.assertEqual(CALLS, ["list_items", "fail", "count"])  # `echo` needs an argument
        self.assertIn("fail error", data["answer"])
        self.assertIn("5 tools", data["answer"])
        expected = "2026-07-28" if agent.MCP_MAJOR >= 2 else "2025-11-25"
        self.assertIn(expected, VERSIONS)

    def test_survey_respects_max_steps(self):
        status, data = self.post(self.task(max_steps=2, servers=("a", "b")))
        self.assertEqual(status, 200, data)
        self.assertEqual(CALLS, ["list_items", "fail"])
        self.assertIn("(2/2 steps)", data["answer"])
        self.assertIn("b: 5 tools; called none", data["answer"])

    def test_zero_steps(self):
        status, data = self.post(self.task(max_steps=0))
        self.assertEqual(status, 200, data)
        self.assertEqual(CALLS, [])

    def test_bad_token_is_reported(self):
        status, data = self.post(self.task(token="wrong"))
        self.assertEqual(status, 200, data)
        self.assertIn("connect failed", data["answer"])
        self.assertNotIn("wrong", data["answer"])  # never echo credentials
        self.assertEqual(CALLS, [])

    def test_deadline(self):
        start = time.monotonic()
        status, data = self.post(self.task(max_steps=8, seconds=6))  # budget: 6 s - 3 s margin
        elapsed = time.monotonic() - start
        self.assertEqual(status, 200, data)
        self.assertLess(elapsed, 5.5)
        self.assertEqual(CALLS[-1], "slow")
        self.assertIn("stopped at the deadline after 4 steps", data["answer"])

    def test_past_deadline(self):
        status, data = self.post(self.task(seconds=-10))
        self.assertEqual(status, 200, data)
        self.assertEqual(CALLS, [])

    # LLM policy against a scripted chat-completions endpoint
    def test_llm_loop(self):
        FakeLLM.requests.clear()
        env = {"OPENAI_BASE_URL": f"http://127.0.0.1:{self.llm.server_address[1]}/v1",
               "OPENAI_API_KEY": "sk-test", "MCPBENCH_MODEL": "fake-model"}
        with mock.patch.dict(os.environ, env):
            status, data = self.post(self.task(max_steps=3))
        self.assertEqual(status, 200, data)
        self.assertEqual(data["answer"], "final: hello")
        self.assertEqual(CALLS, ["echo"])
        auth, first = FakeLLM.requests[0]
        self.assertEqual(auth, "Bearer sk-test")
        self.assertEqual(first["model"], "fake-model")
        names = [t["function"]["name"] for t in first["tools"]]
        self.assertEqual(names, ["tiny__list_items", "tiny__echo", "tiny__fail", "tiny__count", "tiny__slow"])
        self.assertEqual(first["tools"][1]["function"]["parameters"]["required"], ["text"])
        self.assertEqual(data["usage"], {"input_tokens": 100, "output_tokens": 14})
        # Given the model's prices, the reply says what the run cost.
        FakeLLM.requests.clear()
        CALLS.clear()
        env.update(MCPBENCH_PRICE_INPUT="2.5", MCPBENCH_PRICE_OUTPUT="10")
        with mock.patch.dict(os.environ, env):
            status, data = self.post(self.task(max_steps=3))
        self.assertEqual(status, 200, data)
        self.assertAlmostEqual(data["usage"]["cost_usd"], (100 * 2.5 + 14 * 10) / 1e6)

    def test_llm_retries_what_models_fail_with_and_stops_at_a_refusal(self):
        FakeLLM.requests.clear()
        env = {"OPENAI_BASE_URL": f"http://127.0.0.1:{self.llm.server_address[1]}/v1",
               "OPENAI_API_KEY": "sk-test", "MCPBENCH_MODEL": "fake-model"}
        FakeLLM.failures = [(429, {"Retry-After": "1"}, b"slow down"), (502, {}, b"upstream"),
                            (200, {}, b'{"choices": [')]
        with mock.patch.dict(os.environ, env):
            status, data = self.post(self.task(max_steps=3))
        self.assertEqual(status, 200, data)
        self.assertEqual(data["answer"], "final: hello")
        self.assertEqual(len(FakeLLM.requests), 5, "three failures, then the two turns")
        FakeLLM.requests.clear()
        FakeLLM.failures = [(401, {}, b'{"error": "bad key"}')]
        with mock.patch.dict(os.environ, env):
            status, data = self.post(self.task(max_steps=3))
        self.assertEqual(status, 200, data)
        self.assertTrue(data["answer"].startswith("model error after 0 steps: HTTP 401"), data)
        self.assertNotIn("sk-test", data["answer"])
        self.assertEqual(len(FakeLLM.requests), 1, "a refusal is not asked again")


if __name__ == "__main__":
    unittest.main()
