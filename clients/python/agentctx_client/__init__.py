"""A typed client of ``agentctx serve``, standard library only (Python 3.11+).

Each turn of an agent loop: add messages (OpenAI, Anthropic or chat shapes),
get the next request (compacted, within the token budget, in the
provider's shape), send it to the provider, and post the provider's reply
back. Every call maps to one operation of the server's OpenAPI document
(``GET /openapi.json``, ``server/openapi.json`` in the repository), named in
``OPERATIONS``. Errors are ``AgentctxError`` carrying the RFC 9457 problem
object the server answered (status, stable code).
"""

from .client import (
    OPERATIONS,
    Added,
    AgentctxError,
    Client,
    CompactionRecord,
    CompactResult,
    Event,
    EventStream,
    NextRequest,
    Pin,
    Problem,
    Recall,
    Row,
    Session,
    ToolCall,
    ToolDef,
    Usage,
)

__all__ = [
    "OPERATIONS",
    "Added",
    "AgentctxError",
    "Client",
    "CompactionRecord",
    "CompactResult",
    "Event",
    "EventStream",
    "NextRequest",
    "Pin",
    "Problem",
    "Recall",
    "Row",
    "Session",
    "ToolCall",
    "ToolDef",
    "Usage",
]
