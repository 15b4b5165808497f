# A coding-agent loop in Python's standard library over `agentctx serve`:
# agentctx keeps the context; the agent sends each request to its provider.
import json, os, sys, urllib.request
API, KEY = os.environ.get("AGENTCTX_URL", "http://127.0.0.1:8080"), os.environ.get("AGENTCTX_TOKEN", "")
LLM = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1")
def call(url, body=None, key=KEY, raw=False):
    req = urllib.request.Request(url, None if body is None else json.dumps(body).encode(),
                                 {"Content-Type": "application/json", "Authorization": "Bearer " + key})
    data = urllib.request.urlopen(req).read()
    return data.decode() if raw else json.loads(data)
tool = {"name": "read_file", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}
S = API + "/v1/sessions/" + call(API + "/v1/sessions", {"model": "gpt-4o", "tools": [tool]})["id"]
call(S + "/messages", {"messages": [{"role": "user", "content": sys.argv[1]}]})
for turn_no in range(20):  # at most 20 model calls
    req = call(S + "/request", {"format": "openai"})  # compacted, within the budget
    turn = call(S + "/reply", call(LLM + "/chat/completions", req["body"], os.environ.get("OPENAI_API_KEY", "")))
    if not turn.get("tool_calls"):
        break
    for c in turn["tool_calls"]:
        out = open(c["arguments"]["path"]).read()
        call(S + "/messages", {"messages": [{"role": "tool", "tool_call_id": c["id"], "content": out}]})
print(turn["text"])
print(len(call(S + "/export", raw=True).splitlines()), "entries")
