// gen_codepoints.mjs writes invalid_utf8.json and codepoints.bin.gz.
//
// invalid_utf8.json: texts with bytes that are not UTF-8, each given as
// parts, a string being valid text and a number one byte, and the count of
// the text with each such byte replaced by U+FFFD: package token's
// convention for invalid UTF-8 (one U+FFFD per bad byte, as Go's range
// loop decodes), counted by the reference tokenizer (which takes only
// valid text).
//
// codepoints.bin.gz: for every Unicode scalar
// value (U+0000..U+10FFFF less the surrogates U+D800..U+DFFF, 1,112,064 code
// points) and each probe template below, the token count of the probe with
// the code point in place of {c}, in o200k_base and cl100k_base, as counted
// by the reference tokenizer: the npm package "tiktoken" (OpenAI's Rust
// tiktoken compiled to WASM), encode_ordinary. The probes put the code point
// where tiktoken's pre-tokenizer asks which class it is in (letter and its
// case, mark, number, white space, newline, anything else, and the case
// folding of the contractions), so a class our pre-tokenizer gets wrong
// shows up as a wrong count.
//
// File format (read by TestCodePoints in codepoints_test.go): gzip of one
// JSON header line ({"generator","encodings","probes","scalars"}) and then,
// for each encoding in order and each probe in order, one byte per scalar
// value in code point order: its count.
//
// Usage (tiktoken is resolved from the working directory, outside the repo;
// about two minutes):
//
//	mkdir -p /tmp/tk && cd /tmp/tk && npm init -y && npm install tiktoken@1.0.22
//	node /path/to/token/testdata/gen_codepoints.mjs /path/to/token/testdata
//
// With --invalid-only it writes only invalid_utf8.json (a second).
import { createRequire } from "node:module";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const require = createRequire(join(process.cwd(), "noop.js"));
const { get_encoding } = require("tiktoken");
const version = JSON.parse(
  readFileSync(join(process.cwd(), "node_modules", "tiktoken", "package.json"), "utf8"),
).version;

const args = process.argv.slice(2);
const invalidOnly = args.includes("--invalid-only");
const [outDir] = args.filter((a) => a !== "--invalid-only");
if (!outDir) {
  console.error("usage: node gen_codepoints.mjs TESTDATA_DIR");
  process.exit(2);
}

const encodings = ["o200k_base", "cl100k_base"];
const probes = [
  "{c}", // the code point alone
  "a{c}", // after a lowercase letter: joins a word when a letter (cl100k) or in [\p{Ll}\p{Lm}\p{Lo}\p{M}] (o200k)
  "{c}Aa", // before an uppercase-lowercase word: Ll ends the o200k word, the rest join it
  "{c}'s", // before a contraction: a word takes it, punctuation takes the apostrophe
  "'{c}", // a contraction when it case-folds to s, t, m or d (U+017F)
  " {c}{c}", // after a space: a space-led word, punctuation or white space run
  "1{c}", // after a digit: \p{N}{1,3}
  "{c}!", // before punctuation: joins it when neither white space, letter nor number
  "{c}\n", // before a newline: \s*[\r\n]+ and [^\s\p{L}\p{N}]+[\r\n]*
];

const invalid = [
  [0xff],
  ["a", 0xff, "b"],
  [0xc3],
  ["hello ", 0xe2, 0x82, " world"], // a cut 3-byte sequence: two bytes, two U+FFFD
  ["x", 0xf0, 0x9f, 0x98, "y"], // a cut 4-byte sequence
  [0xed, 0xa0, 0x80], // a UTF-16 surrogate encoded in UTF-8
  [0xc0, 0xaf], // an overlong "/"
  [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
  [0x80, 0x80, 0x80], // continuation bytes alone
  ["don", 0x92, "t"], // Windows-1252's apostrophe
  ["caf", 0xe9, " au lait"], // Latin-1
  [0xfe, 0xff, "x"],
  ["it", 0xff, "'s"],
  ["  ", 0xff, "\n\n"],
  ["1", 0xff, "23"],
  ["日本", 0xe8, 0xaa, "語"],
  ["\ufffd", 0xff, "\ufffd"], // a real U+FFFD beside a replaced byte
];
const invalidCases = invalid.map((parts) => {
  const text = parts.map((p) => (typeof p === "number" ? "\ufffd" : p)).join("");
  return { parts, ...Object.fromEntries(encodings.map((n) => [n, 0])), text };
});
{
  for (const name of encodings) {
    const enc = get_encoding(name);
    for (const c of invalidCases) c[name] = enc.encode_ordinary(c.text).length;
    enc.free();
  }
  const cases = invalidCases.map(({ text, ...c }) => c);
  const generator = `npm tiktoken ${version}, encode_ordinary (testdata/gen_codepoints.mjs)`;
  writeFileSync(
    join(outDir, "invalid_utf8.json"),
    `{"generator": ${JSON.stringify(generator)}, "cases": [\n` +
      cases.map((c) => JSON.stringify(c)).join(",\n") +
      "\n]}\n",
  );
}

if (invalidOnly) process.exit(0);

const scalars = [];
for (let cp = 0; cp <= 0x10ffff; cp++) {
  if (cp < 0xd800 || cp > 0xdfff) scalars.push(cp);
}

const header =
  JSON.stringify({
    generator: `npm tiktoken ${version}, encode_ordinary (testdata/gen_codepoints.mjs)`,
    encodings,
    probes,
    scalars: scalars.length,
  }) + "\n";
const body = new Uint8Array(encodings.length * probes.length * scalars.length);
let off = 0;
for (const name of encodings) {
  const enc = get_encoding(name);
  for (const p of probes) {
    const parts = p.split("{c}");
    for (const cp of scalars) {
      const n = enc.encode_ordinary(parts.join(String.fromCodePoint(cp))).length;
      if (n > 255) throw new Error(`count ${n} of probe ${JSON.stringify(p)} at U+${cp.toString(16)}`);
      body[off++] = n;
    }
    console.error(`${name} ${JSON.stringify(p)} done`);
  }
  enc.free();
}
const out = gzipSync(Buffer.concat([Buffer.from(header), body]), { level: 9 });
writeFileSync(join(outDir, "codepoints.bin.gz"), out);
console.log(`${scalars.length} code points x ${probes.length} probes x ${encodings.length} encodings, ${out.length} bytes`);
