"""The client against server/openapi.json: every operation it claims to
cover exists there with the same method and path, and every dataclass
field is a property of its schema (required ones all present). A change of
the document fails here until the client follows."""

import dataclasses
import json
import os
import pathlib
import unittest
import urllib.request

import agentctx_client as ac

DOC = pathlib.Path(__file__).resolve().parents[3] / "server" / "openapi.json"

# Each dataclass and the schema it decodes.
SCHEMAS = {
    ac.Problem: "Problem",
    ac.ToolDef: "ToolDef",
    ac.Usage: "Usage",
    ac.Session: "Session",
    ac.ToolCall: "ToolCall",
    ac.Added: "Added",
    ac.Row: "Row",
    ac.CompactionRecord: "CompactionRecord",
    ac.NextRequest: "NextRequest",
    ac.CompactResult: "CompactResult",
    ac.Recall: "Recall",
    ac.Pin: "Pin",
    ac.Event: "Event",
}


class OpenAPITest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.doc = json.loads(DOC.read_text())

    def test_operations_exist(self):
        ops = {}
        for path, item in self.doc["paths"].items():
            for method, op in item.items():
                if isinstance(op, dict) and "operationId" in op:
                    ops[op["operationId"]] = (method.upper(), path)
        for op_id, want in ac.OPERATIONS.items():
            with self.subTest(op_id):
                self.assertIn(op_id, ops, "operationId missing from the document")
                self.assertEqual(ops[op_id], want)
        # The client covers the whole document: a new route fails here.
        self.assertEqual(sorted(set(ops) - set(ac.OPERATIONS)), [])

    def test_dataclasses_match_schemas(self):
        schemas = self.doc["components"]["schemas"]
        for cls, name in SCHEMAS.items():
            with self.subTest(name):
                props = set(schemas[name].get("properties", {}))
                fields = {f.name for f in dataclasses.fields(cls)}
                self.assertEqual(sorted(fields - props), [], "fields the schema lacks")
                self.assertEqual(sorted(set(schemas[name].get("required", [])) - fields), [], "required properties the class lacks")

    def test_problem_codes(self):
        codes = self.doc["components"]["schemas"]["Problem"]["properties"]["code"]["enum"]
        for code in ("not-found", "invalid-id", "session-exists", "bad-request"):
            self.assertIn(code, codes)

    @unittest.skipUnless(os.environ.get("AGENTCTX_URL"), "AGENTCTX_URL is not set")
    def test_served_document_is_the_file(self):
        served = ac.Client(os.environ["AGENTCTX_URL"], os.environ.get("AGENTCTX_TOKEN", "")).openapi()
        self.assertEqual(served, self.doc)


if __name__ == "__main__":
    unittest.main()
