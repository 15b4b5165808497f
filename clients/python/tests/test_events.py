"""EventStream's Server-Sent Events parsing, offline: comments and
keep-alives skipped, data lines joined, CRLF and LF line ends, the last
event without its blank line not dispatched, unknown fields ignored."""

import io
import json
import unittest

import agentctx_client as ac


def event(seq, kind="usage", **extra):
    return {"seq": seq, "session": "s1", "time": "2026-01-01T00:00:00Z", "kind": kind, **extra}


class FakeResponse(io.BytesIO):
    """A response body: BytesIO iterates by lines, as http.client's does."""


class EventStreamTest(unittest.TestCase):
    def parse(self, text: str):
        return list(ac.EventStream(FakeResponse(text.encode())))

    def test_events(self):
        usage = json.dumps(event(1, usage={"prompt_tokens": 120}))
        comp = event(2, "compaction", compaction={"levels": ["L1"], "tokens_before": 9, "tokens_after": 3}, extra_field=1)
        # The data of one event split over two data lines joins with "\n",
        # which JSON reads as white space.
        data = json.dumps(comp)
        cut = data.index(', "time"')  # between two JSON tokens
        text = (
            ": agentctx events of session s1\n\n"
            f"id: 1\nevent: usage\ndata: {usage}\n\n"
            ": keep-alive\r\n\r\n"
            f"id: 2\r\nevent: compaction\r\ndata:{data[:cut]}\r\ndata: {data[cut:]}\r\nretry: 10\r\n\r\n"
            f"data: {json.dumps(event(3))}\n"  # no blank line: not dispatched
        )
        got = self.parse(text)
        self.assertEqual([e.seq for e in got], [1, 2])
        self.assertEqual(got[0].usage, {"prompt_tokens": 120})
        self.assertEqual((got[1].kind, got[1].compaction["levels"]), ("compaction", ["L1"]))
        self.assertIsInstance(got[1], ac.Event)

    def test_bad_data_raises(self):
        with self.assertRaises(ValueError):
            self.parse("data: {not json\n\n")

    def test_empty(self):
        self.assertEqual(self.parse(""), [])
        self.assertEqual(self.parse(":only a comment\n\n\n"), [])


if __name__ == "__main__":
    unittest.main()
