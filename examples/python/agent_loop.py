# A coding-agent loop in Python over `agentctx serve`, with the typed client
# of clients/python (standard library only; `pip install ./clients/python`
# or run from the repository): agentctx keeps the context; the agent sends
# each request to its provider.
import json, os, pathlib, sys, urllib.request
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "clients" / "python"))
from agentctx_client import Client, ToolDef
ctx = Client(os.environ.get("AGENTCTX_URL", "http://127.0.0.1:8080"), os.environ.get("AGENTCTX_TOKEN", ""))
LLM = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1")
def complete(body):  # the provider call: OpenAI's chat completions
    req = urllib.request.Request(LLM + "/chat/completions", json.dumps(body).encode(), {
        "Content-Type": "application/json", "Authorization": "Bearer " + os.environ.get("OPENAI_API_KEY", "")})
    return json.loads(urllib.request.urlopen(req).read())
tool = ToolDef("read_file", parameters={"type": "object", "properties": {"path": {"type": "string"}}})
s = ctx.create_session(model="gpt-4o", tools=[tool])
ctx.add_messages(s.id, [{"role": "user", "content": sys.argv[1]}])
for turn_no in range(20):  # at most 20 model calls
    req = ctx.next_request(s.id, format="openai")  # compacted, within the budget
    turn = ctx.add_reply(s.id, complete(req.body))
    if not turn.tool_calls:
        break
    for c in turn.tool_calls:
        out = open(c.arguments["path"]).read()
        ctx.add_messages(s.id, [{"role": "tool", "tool_call_id": c.id, "content": out}])
print(turn.text)
print(len(ctx.export_entries(s.id)), "entries")
