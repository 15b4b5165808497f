"""End to end against a live `agentctx serve` at $AGENTCTX_URL (bearer
token $AGENTCTX_TOKEN if the server has tokens); skipped when unset. The
Go test TestClients (internal/cli/clients_test.go) starts a server and
runs this suite with it."""

import json
import os
import unittest
import uuid

import agentctx_client as ac

URL = os.environ.get("AGENTCTX_URL", "")
TOKEN = os.environ.get("AGENTCTX_TOKEN", "")

READ_FILE = ac.ToolDef(
    name="read_file",
    description="Read a file.",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)
OUTPUT = "".join(f"line {i}: package main\n" for i in range(1, 41))


def openai_completion(n, message, prompt_tokens):
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "model": "gpt-4o",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if "tool_calls" in message else "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 20, "total_tokens": prompt_tokens + 20},
    }


@unittest.skipUnless(URL, "AGENTCTX_URL is not set")
class LiveTest(unittest.TestCase):
    def setUp(self):
        self.c = ac.Client(URL, TOKEN, timeout=30)

    def new_session(self, **kw):
        s = self.c.create_session(id="py-" + uuid.uuid4().hex[:12], tools=[READ_FILE], **kw)
        self.addCleanup(self.delete_quietly, s.id)
        return s

    def delete_quietly(self, id):
        try:
            self.c.delete_session(id)
        except ac.AgentctxError as e:
            if e.status != 404:
                raise

    def test_health(self):
        self.assertEqual(self.c.health(), "ok")

    def test_openai_turn(self):
        s = self.new_session(model="gpt-4o", system_prompt="You are terse.", metadata={"client": "python"})
        self.assertIsInstance(s, ac.Session)
        self.assertEqual(s.model, "gpt-4o")
        self.assertGreater(s.budget, 0)
        with self.c.events(s.id) as stream:
            added = self.c.add_messages(s.id, [{"role": "user", "content": "What is in main.go?"}])
            self.assertEqual((added.added, added.format), (1, "openai"))

            req = self.c.next_request(s.id, format="openai")
            self.assertIsInstance(req, ac.NextRequest)
            self.assertEqual(req.format, "openai")
            self.assertLessEqual(req.tokens, req.budget)
            self.assertEqual(sum(r.tokens for r in req.rows), req.tokens)
            self.assertTrue(all(isinstance(r, ac.Row) for r in req.rows))
            body = json.dumps(req.body)
            self.assertIn("What is in main.go?", body)
            self.assertIn("You are terse.", body)
            self.assertEqual(req.body["tools"][0]["function"]["name"], "read_file")

            call = {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": json.dumps({"path": "main.go"})}}
            turn = self.c.add_reply(s.id, openai_completion(1, {"role": "assistant", "content": None, "tool_calls": [call]}, 120))
            self.assertEqual(len(turn.tool_calls), 1)
            tc = turn.tool_calls[0]
            self.assertIsInstance(tc, ac.ToolCall)
            self.assertEqual((tc.id, tc.name, tc.arguments), ("call_1", "read_file", {"path": "main.go"}))
            self.assertIsInstance(turn.usage, ac.Usage)
            self.assertEqual(turn.usage.input_tokens, 120)

            # The reply's usage arrives as a Server-Sent Event.
            usage = None
            for ev in stream:
                self.assertIsInstance(ev, ac.Event)
                self.assertEqual(ev.session, s.id)
                self.assertGreaterEqual(ev.seq, 1)
                if ev.kind == "usage":
                    usage = ev
                    break
            self.assertIsNotNone(usage)
            self.assertEqual(usage.usage["prompt_tokens"], 120)
            self.assertEqual(usage.usage["output_tokens"], 20)

        # The tool's result and the next request in one call.
        before = self.c.get_session(s.id).entries
        req = self.c.next_request(s.id, add=[{"role": "tool", "tool_call_id": "call_1", "content": OUTPUT}])
        self.assertEqual(req.added, 1)
        self.assertGreater(req.entries, before)
        self.assertIn('"tool_call_id": "call_1"', json.dumps(req.body))
        turn = self.c.add_reply(s.id, openai_completion(2, {"role": "assistant", "content": "main.go is 40 lines."}, 400))
        self.assertEqual(turn.text, "main.go is 40 lines.")
        self.assertEqual(turn.tool_calls, [])

        # Recall: the whole output, and one line of it.
        # (the server heads the text with the lines it holds).
        rec = self.c.recall(s.id, "call_1")
        self.assertEqual(rec.call_id, "call_1")
        self.assertTrue(rec.content.endswith(OUTPUT), rec.content)
        one = self.c.recall(s.id, "call_1", start_line=2, end_line=2).content
        self.assertIn("line 2: package main", one)
        self.assertNotIn("line 3:", one)

        # Export: one JSON object a line, every entry of this session, the
        # four messages among them.
        entries = self.c.export_entries(s.id)
        self.assertTrue(entries)
        self.assertEqual({e["sessionId"] for e in entries}, {s.id})
        self.assertIn("main.go is 40 lines.", self.c.export(s.id))
        got = self.c.get_session(s.id)
        self.assertEqual(got.messages, 4)
        self.assertEqual(got.metadata.get("client"), "python")
        self.assertIn(s.id, [x.id for x in self.c.list_sessions()])
        self.assertEqual(self.c.inspect(s.id)["window"]["messages"], 4)

    def test_anthropic_turn(self):
        s = self.new_session(model="claude-sonnet-4-5")
        self.c.add_messages(s.id, [{"role": "user", "content": [{"type": "text", "text": "Read a.go"}]}], format="anthropic", system="Be brief.")
        req = self.c.next_request(s.id, format="anthropic")
        self.assertEqual(req.format, "anthropic")
        self.assertIn("Read a.go", json.dumps(req.body))
        self.assertEqual(req.body["tools"][0]["name"], "read_file")
        reply = {
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "reading"}, {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a.go"}}],
            "stop_reason": "tool_use", "usage": {"input_tokens": 10, "cache_read_input_tokens": 90, "output_tokens": 7},
        }
        turn = self.c.add_reply(s.id, reply)
        self.assertEqual((turn.format, turn.text), ("anthropic", "reading"))
        self.assertEqual([(t.id, t.arguments) for t in turn.tool_calls], [("toolu_1", {"path": "a.go"})])
        self.c.add_messages(s.id, [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "package a\n"}]}], format="anthropic")
        req = self.c.next_request(s.id)
        self.assertIn("toolu_1", json.dumps(req.body))
        self.assertTrue(self.c.recall(s.id, "toolu_1").content.endswith("package a\n"))
        # A chat-shaped reply, as the query parameter names it.
        turn = self.c.add_reply(s.id, {"role": "assistant", "parts": [{"type": "text", "text": "done"}]}, format="chat")
        self.assertEqual((turn.format, turn.text), ("chat", "done"))

    def test_pins_and_compact(self):
        s = self.new_session()
        self.c.add_messages(s.id, [{"role": "user", "content": "hi"}])
        pin = self.c.add_pin(s.id, "Never push to main.")
        self.assertEqual(pin.text, "Never push to main.")
        self.assertEqual([p.id for p in self.c.list_pins(s.id)], [pin.id])
        self.assertIn("Never push to main.", json.dumps(self.c.next_request(s.id).body))
        self.c.delete_pin(s.id, pin.id)
        self.assertEqual(self.c.list_pins(s.id), [])
        res = self.c.compact(s.id)
        self.assertIsInstance(res, ac.CompactResult)
        self.assertGreater(res.tokens, 0)

    def test_fork_and_rewind(self):
        s = self.new_session()
        self.c.add_messages(s.id, [{"role": "user", "content": "first"}, {"role": "assistant", "content": "one"},
                                   {"role": "user", "content": "second"}])
        child = self.c.fork_session(s.id, at=2)
        self.assertNotEqual(child.id, s.id)
        body = json.dumps(self.c.next_request(child.id).body)
        self.assertIn("first", body)
        self.assertNotIn("second", body)
        self.c.rewind_session(s.id, to=1)
        body = json.dumps(self.c.next_request(s.id).body)
        self.assertIn("first", body)
        self.assertNotIn("one", body)
        self.assertIn("second", self.c.export(s.id))  # the abandoned branch stays stored
        with self.assertRaises(ac.AgentctxError) as cm:
            self.c.rewind_session(s.id, to=99)
        self.assertEqual(cm.exception.status, 400)

    def test_problems(self):
        with self.assertRaises(ac.AgentctxError) as cm:
            self.c.get_session("no-such-session-" + uuid.uuid4().hex)
        self.assertEqual((cm.exception.status, cm.exception.code), (404, "not-found"))
        self.assertEqual(cm.exception.problem.status, 404)
        s = self.new_session()
        with self.assertRaises(ac.AgentctxError) as cm:
            self.c.create_session(id=s.id)
        self.assertEqual((cm.exception.status, cm.exception.code), (409, "session-exists"))
        with self.assertRaises(ac.AgentctxError) as cm:
            self.c.recall(s.id, "call_nope")
        self.assertGreaterEqual(cm.exception.status, 400)
        with self.assertRaises(ac.AgentctxError) as cm:
            self.c.add_messages(s.id, [])
        self.assertEqual((cm.exception.status, cm.exception.code), (400, "bad-request"))


if __name__ == "__main__":
    unittest.main()
