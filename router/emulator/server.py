"""`backend-router emulator`: the Compute Engine REST subset and the RunPod
GraphQL endpoint the router uses, on 127.0.0.1 only."""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from router.emulator.state import (
    RUNPOD_NO_CAPACITY,
    ApiError,
    CapacityError,
    FaultsError,
    World,
    validate_capacity,
    validate_faults,
    validate_port,
)

_ZONE = r"/compute/v1/projects/(?P<project>[^/]+)/zones/(?P<zone>[^/]+)"
ROUTES = [
    ("POST", re.compile(_ZONE + r"/instances$"), "insert"),
    ("GET", re.compile(_ZONE + r"/instances$"), "list"),
    ("GET", re.compile(_ZONE + r"/instances/(?P<name>[^/]+)$"), "get"),
    ("DELETE", re.compile(_ZONE + r"/instances/(?P<name>[^/]+)$"), "delete"),
    ("GET", re.compile(_ZONE + r"/operations/(?P<op>[^/]+)$"), "operation"),
    ("POST", re.compile(_ZONE + r"/operations/(?P<op>[^/]+)/wait$"), "operation"),
    ("GET", re.compile(r"/compute/v1/projects/(?P<project>[^/]+)/regions/(?P<region>[^/]+)$"),
     "region"),
]


def _graphql_fields(text: str) -> dict[str, Any]:
    """The `input: { ... }` fields of a RunPod mutation, as the SDK writes them."""
    fields: dict[str, Any] = {}
    for m in re.finditer(r'(\w+):\s*("(?:[^"\\]|\\.)*"|\[[^\]]*\]|[\w.-]+)', text):
        key, raw = m.group(1), m.group(2)
        if raw.startswith('"'):
            fields[key] = raw[1:-1]
        elif raw.startswith("["):
            fields[key] = [{"key": k, "value": v} for k, v in
                           re.findall(r'key:\s*"([^"]*)",\s*value:\s*"([^"]*)"', raw)]
        elif raw.isascii() and raw.isdigit() and len(raw) < 19:
            # isdigit() alone admits '²' and 5000-digit runs, which int() refuses
            fields[key] = int(raw)
        else:
            fields[key] = raw
    return fields


class Holder:
    """The current world; `POST /_emulator/reset` swaps in a new one."""

    def __init__(self, world: World) -> None:
        self.world = world


def make_handler(world: World | Holder) -> type[BaseHTTPRequestHandler]:
    holder = world if isinstance(world, Holder) else Holder(world)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "backend-router-emulator"

        def log_message(self, format: str, *args: Any) -> None:
            return  # quiet: the router's own events tell the story

        def send_json(self, status: int, body: Any) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def body(self) -> dict[str, Any]:
            header = (self.headers.get("Content-Length") or "0").strip()
            # A negative length would read to EOF (a hang); a non-number would raise.
            # Either way the body stays unread, so the connection cannot be reused.
            if not (header.isascii() and header.isdigit()):
                self.close_connection = True
                raise ApiError(400, "invalid", "bad Content-Length")
            if len(header) > 9 or int(header) > 5_000_000:
                self.close_connection = True
                raise ApiError(413, "invalid", "request too large")
            length = int(header)
            raw = self.rfile.read(length) if length else b""
            try:
                doc = json.loads(raw) if raw else {}
            # ValueError: also bad UTF-8 and ints past 4300 digits; RecursionError: [[[[...
            except (ValueError, RecursionError):
                raise ApiError(400, "parseError", "Parse Error") from None
            if not isinstance(doc, dict):
                raise ApiError(400, "invalid", "expected a JSON object")
            return doc

        def handle_any(self, method: str) -> None:
            world = holder.world
            url = urlsplit(self.path)
            query = {k: v[-1] for k, v in parse_qs(url.query).items()}
            try:
                if url.path == "/_emulator/instances" and method == "GET":
                    self.send_json(200, world.snapshot())
                    return
                if url.path == "/_emulator/preempt" and method == "POST":
                    name = str(self.body().get("name", ""))
                    if not world.preempt(name):
                        raise ApiError(404, "notFound", f"no instance or pod {name!r}")
                    self.send_json(200, {"preempted": name})
                    return
                if url.path == "/_emulator/reset" and method == "POST":
                    doc = self.body()
                    capacity = doc.get("capacity") or {}
                    try:
                        validate_capacity(capacity)
                        faults = validate_faults(doc.get("faults") or {})
                    except CapacityError as exc:
                        raise ApiError(400, "invalid", f"bad reset: {exc}") from None
                    holder.world = World(capacity, faults)
                    self.send_json(200, {"reset": True})
                    return
                if url.path == "/graphql" and method == "POST":
                    self.graphql()
                    return
                for route_method, pattern, action in ROUTES:
                    m = pattern.match(url.path)
                    if m and route_method == method:
                        if world.reject_auth:
                            raise ApiError(401, "authError", "Request had invalid authentication "
                                                             "credentials.")
                        self.gce(action, m.groupdict(), query)
                        return
                raise ApiError(404, "notFound", f"no route for {method} {url.path}")
            except ApiError as exc:
                self.send_json(exc.status, exc.body())

        def gce(self, action: str, params: dict[str, str], query: dict[str, str]) -> None:
            world = holder.world
            project = params.get("project", "")
            zone = params.get("zone", "")
            if action == "insert":
                body = self.body()
                world.latency()
                op, stall = world.insert(project, zone, body, query.get("requestId"))
                if stall:
                    time.sleep(world.faults.timeout_s)
                    if not op:
                        raise ApiError(504, "timeout", "Deadline exceeded")
                self.send_json(200, op)
            elif action == "get":
                self.send_json(200, world.get(project, zone, params["name"]))
            elif action == "list":
                self.send_json(200, world.list(project, zone, query.get("filter")))
            elif action == "delete":
                self.send_json(200, world.delete(project, zone, params["name"],
                                                 query.get("requestId")))
            elif action == "operation":
                self.send_json(200, world.operation(params["op"]))
            elif action == "region":
                self.send_json(200, world.region(project, params["region"]))

        def graphql(self) -> None:
            world = holder.world
            key = (self.headers.get("Authorization") or "").removeprefix("Bearer ").strip()
            if not key or key in world.runpod_keys_rejected:
                self.send_json(401, {"errors": [{"message": "Unauthorized"}]})
                return
            query = str(self.body().get("query", ""))
            if "podFindAndDeployOnDemand" in query:
                try:
                    pod = world.deploy_pod(_graphql_fields(query))
                except LookupError:
                    self.send_json(200, {"errors": [{"message": RUNPOD_NO_CAPACITY}]})
                    return
                self.send_json(200, {"data": {"podFindAndDeployOnDemand": pod}})
            elif "podTerminate" in query:
                world.terminate_pod(str(_graphql_fields(query).get("podId")))
                self.send_json(200, {"data": {"podTerminate": None}})
            elif "gpuTypes" in query:
                wanted = _graphql_fields(query).get("id")
                known = sorted(set(world.runpod_capacity) | {
                    "NVIDIA A100 80GB PCIe", "NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3"})
                ids = [wanted] if wanted in known else [] if wanted else known
                self.send_json(200, {"data": {"gpuTypes": [
                    {"id": g, "displayName": g, "memoryInGb": 80, "maxGpuCount": 8}
                    for g in ids]}})
            elif re.search(r"\bpod\s*\(", query):
                pod_id = str(_graphql_fields(query).get("podId"))
                self.send_json(200, {"data": {"pod": world.pods.get(pod_id)}})
            elif "pods" in query and "myself" in query:
                self.send_json(200, {"data": {"myself": {"pods": list(world.pods.values())}}})
            else:
                self.send_json(200, {"errors": [{"message": "unsupported query"}]})

        def do_GET(self) -> None:
            self.handle_any("GET")

        def do_POST(self) -> None:
            self.handle_any("POST")

        def do_DELETE(self) -> None:
            self.handle_any("DELETE")

    return Handler


class _Server(ThreadingHTTPServer):
    # socketserver listens with a backlog of 5. Many dispatchers at once, each
    # fanning out over every zone, overflow that; the kernel then drops their
    # connections and the client retries a second later, which a short request
    # timeout reports as the cloud failing.
    request_queue_size = 128
    daemon_threads = True


class Emulator:
    """An emulator serving on 127.0.0.1 in a background thread (tests, benches)."""

    def __init__(self, world: World, port: int = 0) -> None:
        self.world = world
        self.server = _Server(("127.0.0.1", port), make_handler(world))
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Emulator:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def serve(capacity_path: str, port: int, fault_overrides: dict[str, Any] | None = None) -> int:
    import dataclasses

    from router.emulator.state import load_capacity

    validate_port(port)
    data, faults = load_capacity(capacity_path)
    try:  # the flags are checked like the file: a nan timeout would raise in a handler
        faults = validate_faults(dataclasses.asdict(faults) | (fault_overrides or {}))
    except FaultsError as exc:
        flag = f"--{exc.key.replace('_', '-')}" if exc.key else "faults"
        raise CapacityError(f"{flag}: {str(exc).split(': ', 1)[-1]}") from None
    world = World(data, faults)
    try:
        server = _Server(("127.0.0.1", port), make_handler(world))
    except (OverflowError, ValueError) as exc:  # bind() refuses a port outside 0..65535
        raise CapacityError(f"invalid port {port}: {exc}") from None
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    sys.stdout.flush()
    return 0
