"""The client of ``agentctx serve``: dataclasses for the OpenAPI schemas the
calls return, ``Client`` for the operations, ``EventStream`` for the
Server-Sent Events of a session, ``AgentctxError`` for problem answers."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Iterator, Literal

#: The operations this client covers: operationId -> (method, path template)
#: of server/openapi.json. tests/test_openapi.py checks each one against the
#: document, so a renamed or moved route fails the test until the client
#: follows.
OPERATIONS: dict[str, tuple[str, str]] = {
    "healthz": ("GET", "/healthz"),
    "readyz": ("GET", "/readyz"),
    "openapi": ("GET", "/openapi.json"),
    "createSession": ("POST", "/v1/sessions"),
    "listSessions": ("GET", "/v1/sessions"),
    "getSession": ("GET", "/v1/sessions/{id}"),
    "deleteSession": ("DELETE", "/v1/sessions/{id}"),
    "forkSession": ("POST", "/v1/sessions/{id}/fork"),
    "rewindSession": ("POST", "/v1/sessions/{id}/rewind"),
    "addMessages": ("POST", "/v1/sessions/{id}/messages"),
    "nextRequest": ("POST", "/v1/sessions/{id}/request"),
    "addReply": ("POST", "/v1/sessions/{id}/reply"),
    "compact": ("POST", "/v1/sessions/{id}/compact"),
    "inspect": ("GET", "/v1/sessions/{id}/inspect"),
    "recall": ("GET", "/v1/sessions/{id}/outputs/{call_id}"),
    "export": ("GET", "/v1/sessions/{id}/export"),
    "report": ("GET", "/v1/sessions/{id}/report"),
    "events": ("GET", "/v1/sessions/{id}/events"),
    "listPins": ("GET", "/v1/sessions/{id}/pins"),
    "addPin": ("POST", "/v1/sessions/{id}/pins"),
    "deletePin": ("DELETE", "/v1/sessions/{id}/pins/{pin}"),
}

#: A message shape of the API (schema Format): OpenAI chat completions,
#: Anthropic messages, or agentctx's own chat messages (parts).
Format = Literal["chat", "openai", "anthropic"]


def _decode(tp: Any, v: Any) -> Any:
    """Converts the JSON value v to the annotated type tp: dataclasses
    from objects (unknown keys ignored, so a newer server's extra fields do
    not break an older client), lists element-wise, the rest as is."""
    if v is None:
        return None
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return _decode(args[0], v) if len(args) == 1 else v
    if origin is list:
        (elem,) = typing.get_args(tp) or (Any,)
        return [_decode(elem, x) for x in v]
    if dataclasses.is_dataclass(tp) and isinstance(v, dict):
        return _from_dict(tp, v)
    return v


def _from_dict(cls: type, d: dict[str, Any]) -> Any:
    hints = typing.get_type_hints(cls)
    kw = {f.name: _decode(hints[f.name], d[f.name]) for f in dataclasses.fields(cls) if f.name in d}
    return cls(**kw)


@dataclass
class Problem:
    """An RFC 9457 problem object (schema Problem): status is the HTTP
    status, code one of the server's stable codes (not-found, invalid-id,
    session-busy…), detail what went wrong."""

    type: str = "about:blank"
    title: str = ""
    status: int = 0
    code: str = ""
    detail: str = ""
    instance: str = ""


class AgentctxError(Exception):
    """A call the server answered with a problem (status >= 400). status and
    code come from the problem object; when the body was not one (a proxy's
    error page), code is "" and body holds the text."""

    def __init__(self, problem: Problem, body: str = ""):
        self.problem = problem
        self.status = problem.status
        self.code = problem.code
        self.body = body
        super().__init__(f"agentctx: {problem.status} {problem.code}: {problem.detail or problem.title or body[:200]}")


@dataclass
class ToolDef:
    """A tool the model may call (schema ToolDef): parameters is its
    arguments' JSON Schema."""

    name: str
    description: str | None = None
    parameters: dict[str, Any] | None = None


@dataclass
class Usage:
    """Tokens of one model call (schema Usage)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0


@dataclass
class Session:
    """A session's summary (schema Session); times are RFC 3339 strings,
    prompt_tokens the window's size in tokens."""

    id: str
    project: str = ""
    created: str = ""
    last_activity: str = ""
    entries: int = 0
    messages: int = 0
    prompt_tokens: int = 0
    title: str = ""
    git_branch: str = ""
    model: str = ""
    compactions: int = 0
    origin: str = ""
    metadata: dict[str, str] = field(default_factory=dict)
    budget: int = 0
    warnings: list[str] = field(default_factory=list)


@dataclass
class ToolCall:
    """A tool call of the model's reply (schema ToolCall); arguments are
    decoded JSON."""

    id: str
    name: str
    arguments: Any = None


@dataclass
class Added:
    """The answer to adding messages or a reply (schema Added): entries is
    the session's entry count afterwards; for a reply, text and tool_calls
    are what the model said and asked for."""

    added: int
    format: str
    entries: int
    limited: int = 0
    tool_calls: list[ToolCall] = field(default_factory=list)
    text: str = ""
    usage: Usage | None = None


@dataclass
class Row:
    """One line of a request's token table (schema Row)."""

    name: str
    tokens: int
    cached: bool = False


@dataclass
class CompactionRecord:
    """One compaction level applied (schema CompactionRecord); tokens
    before and after it."""

    strategy: str
    level: str
    tokens_before: int
    tokens_after: int
    budget: int = 0
    messages_removed: int = 0
    over_budget: bool = False
    summarizer: str = ""


@dataclass
class NextRequest:
    """The next request (schema NextRequest): body is what to post to the
    provider (OpenAI /v1/chat/completions, Anthropic /v1/messages or the
    chat form), tokens its prompt size and budget the token budget it was
    fitted to; rows sum to tokens; entries is the session's entry count
    afterwards; added counts the messages of next_request's add (added
    first, in the same call), limited the tool results among them the
    limiter cut."""

    format: str
    body: dict[str, Any]
    tokens: int
    budget: int
    over: int = 0
    cached_tokens: int = 0
    rows: list[Row] = field(default_factory=list)
    compactions: list[CompactionRecord] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    reminders: list[str] = field(default_factory=list)
    interrupted: list[str] = field(default_factory=list)
    entries: int = 0
    added: int = 0
    limited: int = 0


@dataclass
class CompactResult:
    """The answer to a manual compaction (schema CompactResult); tokens is
    the window's size afterwards, entries the session's entry count."""

    compactions: list[CompactionRecord]
    tokens: int
    entries: int = 0


@dataclass
class Recall:
    """A tool output's full text or the part asked for (schema Recall)."""

    call_id: str
    content: str


@dataclass
class Pin:
    """An instruction kept verbatim in every later request (schema Pin)."""

    id: str
    text: str


@dataclass
class Event:
    """One Server-Sent Event of a session (schema Event): kind is
    compaction, reminder or usage, with the matching field set (as decoded
    JSON objects); seq numbers the session's events from 1, a gap shows
    missed ones."""

    seq: int
    session: str
    time: str
    kind: str
    turn: int = 0
    compaction: dict[str, Any] | None = None
    reminders: list[str] = field(default_factory=list)
    usage: dict[str, Any] | None = None


class EventStream:
    """The open event stream of one session (GET .../events): iterate it
    for Event values as they happen; close it (or use it in a with block)
    to end the subscription. The stream is subscribed when the constructor
    returns, so events of calls made afterwards arrive. Comments
    (keep-alives) are skipped; a read blocks at most the client's timeout
    and then raises TimeoutError."""

    def __init__(self, resp: Any):
        self._resp = resp

    def __enter__(self) -> EventStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Ends the subscription."""
        self._resp.close()

    def __iter__(self) -> Iterator[Event]:
        data: list[str] = []
        for raw in self._resp:
            line = raw.decode("utf-8").rstrip("\r\n")
            if line == "":
                # A blank line dispatches the event (WHATWG HTML, Server-sent
                # events: "dispatch the event"); one without data is none.
                if data:
                    yield _from_dict(Event, json.loads("\n".join(data)))
                data = []
                continue
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            if value.startswith(" "):
                value = value[1:]
            if name == "data":
                data.append(value)
            # "event" and "id" repeat the JSON's kind and seq.


class Client:
    """A client of one agentctx server at base_url (e.g.
    "http://127.0.0.1:8080"); token is a bearer token of the server's
    tokens file ("" for a server on loopback without tokens), timeout the
    seconds a call may wait. Safe to share between threads: each call
    opens its own connection."""

    def __init__(self, base_url: str, token: str = "", timeout: float = 60.0):
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout

    # -- plumbing

    def _url(self, op: str, query: dict[str, Any] | None = None, **path: str) -> tuple[str, str]:
        method, tmpl = OPERATIONS[op]
        url = self.base_url + tmpl.format(**{k: urllib.parse.quote(v, safe="") for k, v in path.items()})
        q = {k: v for k, v in (query or {}).items() if v is not None}
        if q:
            url += "?" + urllib.parse.urlencode(q)
        return method, url

    def _open(self, op: str, body: Any = None, query: dict[str, Any] | None = None, accept: str = "application/json", **path: str) -> Any:
        method, url = self._url(op, query, **path)
        headers = {"Accept": accept}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        req = urllib.request.Request(url, data, headers, method=method)
        try:
            return urllib.request.urlopen(req, timeout=self.timeout)
        except urllib.error.HTTPError as e:
            text = e.read().decode("utf-8", "replace")
            try:
                p = json.loads(text)
                problem = _from_dict(Problem, p) if isinstance(p, dict) else Problem(status=e.code)
            except ValueError:
                problem = Problem(status=e.code, title=e.reason or "")
            problem.status = problem.status or e.code
            raise AgentctxError(problem, text) from None

    def _json(self, op: str, body: Any = None, query: dict[str, Any] | None = None, **path: str) -> Any:
        with self._open(op, body, query, **path) as resp:
            data = resp.read()
        return json.loads(data) if data else None

    def _text(self, op: str, **path: str) -> str:
        with self._open(op, **path) as resp:
            return resp.read().decode("utf-8")

    # -- service

    def health(self) -> str:
        """GET /healthz: "ok" while the process serves."""
        return self._json("healthz")["status"]

    def ready(self) -> str:
        """GET /readyz: the status while the store answers (503 else)."""
        return self._json("readyz")["status"]

    def openapi(self) -> dict[str, Any]:
        """GET /openapi.json: the server's OpenAPI document."""
        return self._json("openapi")

    # -- sessions

    def create_session(
        self,
        id: str | None = None,
        model: str | None = None,
        budget: int | None = None,
        max_tokens: int | None = None,
        system_prompt: str | None = None,
        tools: list[ToolDef] | None = None,
        recall_tool: bool | None = None,
        project: str | None = None,
        metadata: dict[str, str] | None = None,
    ) -> Session:
        """POST /v1/sessions: a new session; budget and max_tokens in
        tokens (default: the model's). An id already taken raises
        AgentctxError with code session-exists (409)."""
        body: dict[str, Any] = {
            "id": id,
            "model": model,
            "budget": budget,
            "max_tokens": max_tokens,
            "system_prompt": system_prompt,
            "recall_tool": recall_tool,
            "project": project,
            "metadata": metadata,
        }
        if tools is not None:
            body["tools"] = [{k: v for k, v in dataclasses.asdict(t).items() if v is not None} for t in tools]
        # The server refuses null for its typed fields: omit them instead.
        return _from_dict(Session, self._json("createSession", {k: v for k, v in body.items() if v is not None}))

    def list_sessions(self, limit: int | None = None, project: str | None = None) -> list[Session]:
        """GET /v1/sessions: the tenant's sessions, most recently active
        first; limit caps their number, project keeps one project's."""
        out = self._json("listSessions", query={"limit": limit, "project": project})
        return [_from_dict(Session, s) for s in out["sessions"]]

    def get_session(self, id: str) -> Session:
        """GET /v1/sessions/{id}; not-found (404) when there is none."""
        return _from_dict(Session, self._json("getSession", id=id))

    def delete_session(self, id: str) -> None:
        """DELETE /v1/sessions/{id}."""
        self._json("deleteSession", id=id)

    def fork_session(self, id: str, at: int | None = None, new_id: str | None = None) -> Session:
        """POST /v1/sessions/{id}/fork: a new session holding the first
        ``at`` window messages of this one (all by default), under
        ``new_id`` or a new id. 201 with the new session."""
        body = {k: v for k, v in {"at": at, "id": new_id}.items() if v is not None}
        return _from_dict(Session, self._json("forkSession", body, id=id))

    def rewind_session(self, id: str, to: int) -> Session:
        """POST /v1/sessions/{id}/rewind: the session goes back to its first
        ``to`` window messages; the later ones stay in the store (export
        shows them)."""
        return _from_dict(Session, self._json("rewindSession", {"to": to}, id=id))

    # -- a turn

    def add_messages(
        self,
        id: str,
        messages: list[dict[str, Any]],
        format: Format | None = None,
        system: str | list[Any] | None = None,
    ) -> Added:
        """POST /v1/sessions/{id}/messages: messages in one shape (format;
        by default the server tells OpenAI from Anthropic from chat by the
        messages themselves); system is Anthropic's top-level system."""
        body: dict[str, Any] = {"messages": messages}
        if format is not None:
            body["format"] = format
        if system is not None:
            body["system"] = system
        return _from_dict(Added, self._json("addMessages", body, id=id))

    def next_request(
        self,
        id: str,
        format: Format | None = None,
        add: list[dict[str, Any]] | None = None,
        add_format: Format | None = None,
        system: str | list[Any] | None = None,
    ) -> NextRequest:
        """POST /v1/sessions/{id}/request: the next request in format's
        shape (default: the shape the session's messages came in). With
        add, those messages (in add_format's shape, with Anthropic's
        top-level system) are added first, as add_messages adds them, in
        the same call: the tool results and the next request in one round
        trip."""
        body: dict[str, Any] = {}
        if format is not None:
            body["format"] = format
        if add is not None:
            more: dict[str, Any] = {"messages": add}
            if add_format is not None:
                more["format"] = add_format
            if system is not None:
                more["system"] = system
            body["add"] = more
        return _from_dict(NextRequest, self._json("nextRequest", body or None, id=id))

    def add_reply(self, id: str, reply: dict[str, Any], format: Format | None = None) -> Added:
        """POST /v1/sessions/{id}/reply: the provider's reply as it came (an
        OpenAI chat completion, an Anthropic message, or a chat message);
        the answer holds its text, tool calls and usage."""
        return _from_dict(Added, self._json("addReply", reply, {"format": format}, id=id))

    def compact(self, id: str, instructions: str | None = None) -> CompactResult:
        """POST /v1/sessions/{id}/compact: compacts the window now."""
        body = {"instructions": instructions} if instructions is not None else None
        return _from_dict(CompactResult, self._json("compact", body, id=id))

    def inspect(self, id: str) -> dict[str, Any]:
        """GET /v1/sessions/{id}/inspect: the window's breakdown (schema
        Inspect) as decoded JSON."""
        return self._json("inspect", id=id)

    def recall(
        self,
        id: str,
        call_id: str,
        start_line: int | None = None,
        end_line: int | None = None,
        offset: int | None = None,
        length: int | None = None,
    ) -> Recall:
        """GET /v1/sessions/{id}/outputs/{call_id}: a tool output's full
        text, or lines start_line..end_line (from 1), or length bytes from
        offset. A range outside the output raises bad-request (400)."""
        q = {"start_line": start_line, "end_line": end_line, "offset": offset, "length": length}
        return _from_dict(Recall, self._json("recall", query=q, id=id, call_id=call_id))

    def export(self, id: str) -> str:
        """GET /v1/sessions/{id}/export: the session as JSON Lines, one
        entry a line."""
        return self._text("export", id=id)

    def export_entries(self, id: str) -> list[dict[str, Any]]:
        """The export's entries, decoded."""
        return [json.loads(line) for line in self.export(id).splitlines() if line.strip()]

    def report(self, id: str) -> str:
        """GET /v1/sessions/{id}/report: the session's HTML report page."""
        return self._text("report", id=id)

    def events(self, id: str) -> EventStream:
        """GET /v1/sessions/{id}/events: the session's event stream,
        subscribed when this returns."""
        return EventStream(self._open("events", accept="text/event-stream", id=id))

    # -- pins

    def list_pins(self, id: str) -> list[Pin]:
        """GET /v1/sessions/{id}/pins."""
        return [_from_dict(Pin, p) for p in self._json("listPins", id=id)["pins"]]

    def add_pin(self, id: str, text: str) -> Pin:
        """POST /v1/sessions/{id}/pins: text is kept in every later
        request, whatever compaction does."""
        return _from_dict(Pin, self._json("addPin", {"text": text}, id=id))

    def delete_pin(self, id: str, pin: str) -> None:
        """DELETE /v1/sessions/{id}/pins/{pin}."""
        self._json("deletePin", id=id, pin=pin)
