// The checked-in types match the OpenAPI document: openapi-typescript (the
// pinned version) regenerates them from server/openapi.json and, with
// $AGENTCTX_URL, from the document the live server serves, into a
// temporary file that must equal src/schema.d.ts. A changed document fails
// here until `npm run generate` is run and the result committed. The
// options are package.json's generate script's: --additional-properties
// and --empty-objects-unknown, since the document's objects without
// additionalProperties: false (a provider's reply, a message, a JSON
// Schema) take any property.
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

// dist/test/schema.test.js -> the package folder.
const pkg = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const checkedIn = readFileSync(join(pkg, "src", "schema.d.ts"), "utf8");

function generate(doc: string): string {
  const dir = mkdtempSync(join(tmpdir(), "agentctx-schema-"));
  try {
    const out = join(dir, "schema.d.ts");
    const cli = join(pkg, "node_modules", "openapi-typescript", "bin", "cli.js");
    execFileSync(process.execPath, [cli, doc, "--additional-properties", "--empty-objects-unknown", "-o", out], { stdio: "pipe" });
    return readFileSync(out, "utf8");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("src/schema.d.ts is generated from server/openapi.json", () => {
  assert.equal(generate(join(pkg, "..", "..", "server", "openapi.json")), checkedIn, "run npm run generate");
});

const url = process.env.AGENTCTX_URL;
test("src/schema.d.ts matches the served document", { skip: url ? false : "AGENTCTX_URL is not set" }, async () => {
  const res = await fetch(`${url}/openapi.json`);
  assert.equal(res.status, 200);
  const dir = mkdtempSync(join(tmpdir(), "agentctx-served-"));
  try {
    const doc = join(dir, "openapi.json");
    writeFileSync(doc, await res.text());
    assert.equal(generate(doc), checkedIn, "the served document differs from the one the types came from");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
