package transcript_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/agentctx/agentctx/transcript"
	"github.com/google/go-cmp/cmp"
)

// readBoth reads data as format with the fast JSON decoder and with
// encoding/json alone, and fails when they differ in anything: the
// trajectories (messages, tool arguments byte for byte, side data,
// problems) or the error, compared by message (which names file, line
// and byte offset).
func readBoth(t *testing.T, format transcript.Format, data []byte) {
	t.Helper()
	fast, fastErr := transcript.Read(bytes.NewReader(data), "in", transcript.Options{Format: format})
	transcript.StdOnly.Store(true)
	std, stdErr := transcript.Read(bytes.NewReader(data), "in", transcript.Options{Format: format})
	transcript.StdOnly.Store(false)
	if errText(fastErr) != errText(stdErr) {
		t.Fatalf("format %q: error %q, with encoding/json alone %q", format, errText(fastErr), errText(stdErr))
	}
	byMessage := cmp.Comparer(func(a, b error) bool { return errText(a) == errText(b) })
	if diff := cmp.Diff(std, fast, byMessage); diff != "" {
		t.Fatalf("format %q: trajectories (-encoding/json +fast):\n%s", format, diff)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// FuzzStdEquivalence checks that the fast JSON decoder the readers use
// reads every input exactly as encoding/json does (see internal/jsonx): the
// same trajectories and the same errors, for every format and for
// detection. The seeds include values of unexpected types, duplicate
// keys in odd case, escapes, invalid UTF-8 and broken JSON, where a
// decoder other than encoding/json is most likely to differ. It does not
// run in parallel: it switches the package to encoding/json for a while.
func FuzzStdEquivalence(f *testing.F) {
	for _, s := range []string{
		lines(ccSnap, ccUser1),
		lines(`{"type":"user","uuid":"u","sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"old"}],"Content":[null,"a",{"type":"text","text":5},{"type":"text","text":"b","extra":true}]}}`),
		lines(`{"type":"assistant","uuid":"a","sessionId":"s","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"t","name":"B","input":{}}]}}`,
			`{"type":"user","uuid":"u","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","is_error":"yes","content":[{"type":"text","text":"r"}]}]}}`),
		lines(`{"type":"assistant","uuid":"a","message":{"id":1,"model":"m","usage":{"input_tokens":"7","output_tokens":1.5e3},"content":[{"type":"tool_use","id":"t","name":"B","input":"{\"a\":\"\\u00e9\\ud83d\\ude00\"}"}]},"message":{"role":"assistant"}}`),
		lines(cxMeta, cxTurn, cxItem(`{"type":"function_call","name":5,"arguments":"{\"a\":1}","call_id":"c1"}`), cxTokens(10, 5, 1, 0, 10)),
		lines(`{"type":"session_meta","pAYloAd":{"id":"a","git":{"branch":"b"}},"payload":{"id":"s"}}`,
			`{"type":"response_item","payload":{"type":"message","role":"user","content":[null,"s",{"type":"input_text","text":"t"}]}}`),
		lines(`{"instance_id":"i","history":[[{"action":"message","args":{"content":"a"},"source":"user"},null],null,{"action":"message","args":{"content":"b"},"source":7}]}`),
		`{"trajectory_format":"mini-swe-agent-1.1","messages":[{"role":"user","content":"old","extra":{}}],"messages":[{"role":"user","content":"new"},null,{"role":"assistant","content":"x","tool_calls":5}]}`,
		`{"history":[{"role":"user","content":"old"}],"HISTORY":[{"role":"user","content":"new"},"x",{"role":"assistant","content":"y","thought":5}]}`,
		`[{"role":"user","content":"x\u0000\ud800y"},{"role":"assistant","content":null,"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":"r"}]`,
		"{\"type\":\"user\",\"uuid\":\"u\",\"message\":{\"role\":\"user\",\"content\":\"bad \xff\xfe utf-8\"}}\n",
		"{\"history\": [\n {\"role\": \"user\", \"content\": \"x\"},\n oops}\n]}",
		`{"type":"user","message":{"content":"torn`,
		"{\"a\":1}\n[1,2]\n\"s\"\n{\"role\":\"user\",\"content\":01}\n",
	} {
		f.Add([]byte(s))
	}
	addRealSeeds(f, "")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range append([]transcript.Format{""}, transcript.Formats()...) {
			readBoth(t, format, data)
		}
	})
}

// FuzzUnquote checks that the string decoder of the readers returns what
// encoding/json returns for every JSON string it accepts, and that it
// accepts real transcript text: escapes of every kind, surrogate pairs
// and lone surrogates, multi-byte UTF-8.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{
		`""`, `"plain"`, `"line\nbreak \"quoted\" \\ \/ \b\f\r\t"`, `"caf\u00e9 \u00E9 \ud83d\ude00 \ud83d x \ude00 \ud83d\u0041"`,
		`"snow ☃ and 😀"`, "\"bad \xff utf-8\"", `"\u12G4"`, `"\x"`, `"\'"`, `"tab	raw"`, `"a"b"`, `"\`, `"unterminated`, `x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, ok := transcript.Unquote(raw)
		var want string
		err := json.Unmarshal(raw, &want)
		if ok && (err != nil || got != want) {
			t.Fatalf("unquote(%q) = %q; encoding/json: %q, %v", raw, got, want, err)
		}
		if !ok && err == nil && utf8.Valid(raw) && len(bytes.TrimSpace(raw)) == len(raw) {
			t.Fatalf("unquote(%q) refused a valid JSON string of valid UTF-8 (%q)", raw, want)
		}
		if b, bok := transcript.UnquoteBytes(raw); bok != ok || string(b) != got {
			t.Fatalf("unquoteBytes(%q) = %q, %v; unquote: %q, %v", raw, b, bok, got, ok)
		}
	})
}

// FuzzArrayLen checks that the item count the readers size a decoded
// array by is the number of items encoding/json decodes, for every valid
// JSON array, and that it never panics on anything else.
func FuzzArrayLen(f *testing.F) {
	for _, s := range []string{
		`[]`, ` [ ] `, `[1]`, `[1,2,3]`, `[[1,2],{"a":[3,4],"b":"5,6"},"]"]`, `["a\"b,c", "\\", "\\\",]"]`,
		`[{"role":"user","content":"x,y"}, null, "s"]`, `[`, `[1,`, `["unterminated,`, `{"a":1}`, `"[1,2]"`, `x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		n := transcript.ArrayLen(raw)
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err == nil && n != len(items) {
			t.Fatalf("arrayLen(%q) = %d, encoding/json decodes %d items", raw, n, len(items))
		}
	})
}
