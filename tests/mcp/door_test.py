"""The MCP door as the Python SDK (`mcp` from PyPI) sees it, in both eras: `mode="auto"` probes
`server/discover` and stays on the stateless 2026-07-28 revision; `mode="legacy"` does the
initialize handshake. Each starts a task, lists the capabilities (every routine, the write with
its grant line), calls `read`, is refused a `run` of the write with the grant line until it is
granted, then runs it; a revoked token is 401.

    python3 -m venv tests/mcp/.venv && tests/mcp/.venv/bin/pip install -r tests/mcp/requirements.txt
    COWORK_BIN=<target>/debug/cowork tests/mcp/.venv/bin/python tests/mcp/door_test.py
"""

import asyncio
import json
import os
import socket
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

BIN = os.environ.get("COWORK_BIN") or str(
    Path(os.environ.get("CARGO_TARGET_DIR", "target")) / "debug" / "cowork"
)


def workspace() -> Path:
    ws = Path(tempfile.mkdtemp(prefix="cowork-py-ws-")).resolve()
    app = ws / ".cowork/apps/tasks"
    app.mkdir(parents=True)
    (app / "cowork.json").write_text(json.dumps({
        "name": "tasks", "version": "1.0.0", "kind": "capability",
        "routines": {
            "tasks-list": {"file": "list.ts", "readOnly": True, "description": "Lists the open tasks"},
            "tasks-add": {"file": "add.ts", "description": "Adds a task"},
        },
    }))
    (app / "list.ts").write_text("export default () => ({ tasks: ['write the report'] });\n")
    (app / "add.ts").write_text(
        "import fs from 'node:fs';\nimport path from 'node:path';\n"
        "export default (args: any, ctx: any) => { fs.appendFileSync(path.join(ctx.workspaceRoot, 'added.txt'), args.title); return { added: args.title }; };\n"
    )
    return ws


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def session(url: str, token: str, mode: str, ws: Path, cowork, name: str) -> None:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
        expected = "2026-07-28" if mode == "auto" else "2025-11-25"
        assert client.session.protocol_version == expected, client.session.protocol_version
        tools = (await client.list_tools(cache_mode="refresh")).tools
        assert [t.name for t in tools] == ["start_task", "list_capabilities", "read", "run"], tools
        task = json.loads((await client.call_tool("start_task", {})).content[0].text)["taskId"]
        listed = await client.call_tool("list_capabilities", {})
        routines = json.loads(listed.content[0].text)["capabilities"][0]["routines"]
        grant = f"cowork agent grant tasks/tasks-add allow --agent {name} --workspace {ws}"
        assert [(r["tool"], r["state"], r.get("grant")) for r in routines] == [
            ("tasks-add", "not granted", grant), ("tasks-list", "granted", None)], routines
        read = await client.call_tool("read", {"capability": "tasks", "tool": "tasks-list", "taskId": task})
        assert not read.is_error and json.loads(read.content[0].text) == {"tasks": ["write the report"]}, read
        write = {"capability": "tasks", "tool": "tasks-add", "params": {"title": mode}, "taskId": task}
        refused = await client.call_tool("run", write)
        assert refused.is_error and f"not granted to the agent {name}" in refused.content[0].text, refused
        assert grant in refused.content[0].text, refused
        assert not (ws / "added.txt").exists() or mode not in (ws / "added.txt").read_text()
        cowork(*grant.split(" ")[1:])
        ran = await client.call_tool("run", write)
        assert not ran.is_error, ran
        assert mode in (ws / "added.txt").read_text()


def main() -> None:
    home = tempfile.mkdtemp(prefix="cowork-py-home-")
    ws = workspace()
    env = {k: v for k, v in os.environ.items() if k != "COWORK_AGENT"} | {"COWORK_HOME": home}

    def cowork(*args: str) -> str:
        return subprocess.run([BIN, *args], env=env, check=True, capture_output=True, text=True).stdout

    port = free_port()
    daemon = subprocess.Popen([BIN, "start", "--headless", "--port", str(port)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(400):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health")
            except urllib.error.HTTPError:
                break
            except OSError:
                time.sleep(0.05)
        url = f"http://127.0.0.1:{port}/api/mcp?ws={urllib.parse.quote(str(ws), safe='')}"
        for mode, name in [("auto", "py-modern"), ("legacy", "py-legacy")]:
            token = json.loads(cowork("agent", "create", name, "--json", "--workspace", str(ws)))["token"]
            asyncio.run(session(url, token, mode, ws, cowork, name))
            cowork("agent", "revoke", name, "--yes")
            request = urllib.request.Request(url, data=b"{}", method="POST",
                                             headers={"Authorization": f"Bearer {token}"})
            try:
                urllib.request.urlopen(request)
                raise AssertionError("a revoked token was let in")
            except urllib.error.HTTPError as error:
                assert error.code == 401, error.code
            print(f"ok - the Python SDK ({mode}): list, read, write refused then granted then run, revoked 401")
        runs = json.loads(cowork("routine", "runs", "--workspace", str(ws), "--json"))["runs"]
        sources = {(r["context"].get("principal"), r["status"]) for r in runs}
        assert ("py-modern", "denied") in sources and ("py-legacy", "ok") in sources, sources
    finally:
        daemon.kill()


if __name__ == "__main__":
    main()
