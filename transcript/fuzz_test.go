package transcript_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/transcript"
)

// fuzzSeedLimit is the size in bytes of the largest real seed used while
// fuzzing. The fuzzer minimizes every input that finds new coverage, and
// minimizing a large one takes longer than a short fuzzing run; the whole
// files are read by the seed run of a plain go test and by
// TestReadRealFiles anyway.
const fuzzSeedLimit = 4 << 10

// addRealSeeds adds the shared data files under dir as seeds, when the
// shared data folder is present (fuzzing must not fail without it). While
// fuzzing, a larger file is cut after its last line break within the first
// fuzzSeedLimit bytes, or left out when that leaves nothing.
func addRealSeeds(f *testing.F, dir string) {
	root := sharedtest.Root()
	if root == "" {
		return
	}
	fuzzing := false
	if fl := flag.Lookup("test.fuzz"); fl != nil && fl.Value.String() != "" {
		fuzzing = true
	}
	_ = filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		if fuzzing && len(data) > fuzzSeedLimit {
			i := bytes.LastIndexByte(data[:fuzzSeedLimit], '\n')
			if i < 0 {
				return nil
			}
			data = data[:i+1]
		}
		f.Add(data)
		return nil
	})
}

// addUnknownSeeds adds the shapes of testdata/unknown (formats this
// package refuses) and testdata/misread (formats once misread) as seeds.
func addUnknownSeeds(f *testing.F) {
	for _, dir := range []string{"unknown", "misread"} {
		entries, _ := os.ReadDir(filepath.Join("testdata", dir))
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			if data, err := os.ReadFile(filepath.Join("testdata", dir, e.Name())); err == nil {
				f.Add(data)
			}
		}
	}
}

// fuzzRead reads data as format and checks the reader's promises: no
// panic, and on success at least one trajectory whose tool results all
// answer a call, one result per tool message, JSON tool arguments.
func fuzzRead(t *testing.T, format transcript.Format, data []byte) {
	trs, err := transcript.Read(bytes.NewReader(data), "fuzz", transcript.Options{Format: format})
	if err != nil {
		if format != "" && !strings.HasPrefix(err.Error(), "transcript: ") {
			t.Fatalf("error without the package prefix: %v", err)
		}
		return
	}
	if len(trs) == 0 {
		t.Fatalf("no error and no trajectory")
	}
	msgs, dropped := 0, 0
	for _, tr := range trs {
		msgs += len(tr.Messages)
		for k, n := range tr.Dropped {
			if n <= 0 || k == "" {
				t.Fatalf("Dropped[%q] = %d", k, n)
			}
			dropped += n
		}
		if tr.Orphans < 0 {
			t.Fatalf("Orphans = %d", tr.Orphans)
		}
	}
	if msgs == 0 && dropped > 0 {
		t.Fatalf("accepted with no message and %d items dropped", dropped)
	}
	for _, tr := range trs {
		check := func(msgs []chat.Message) {
			if p := chat.Pair(msgs); len(p.Orphans) > 0 {
				t.Fatalf("orphan tool results at %v", p.Orphans)
			}
			for i, m := range msgs {
				if !m.Role.Valid() {
					t.Fatalf("message %d: invalid role %q", i, m.Role)
				}
				if m.Role == chat.RoleTool {
					if _, ok := m.ToolResult(); !ok || len(m.Parts) != 1 {
						t.Fatalf("tool message %d has %d parts", i, len(m.Parts))
					}
				}
				for _, c := range m.ToolCalls() {
					if !json.Valid(c.Arguments) {
						t.Fatalf("message %d: call arguments not JSON: %q", i, c.Arguments)
					}
				}
			}
		}
		check(tr.Messages)
		for _, c := range tr.Compactions {
			check(c.Replacement)
			if c.At < 0 || c.At > len(tr.Messages) {
				t.Fatalf("compaction at %d of %d messages", c.At, len(tr.Messages))
			}
		}
	}
}

func FuzzReadClaudeCode(f *testing.F) {
	f.Add([]byte(lines(ccSnap, ccUser1,
		`{"type":"assistant","uuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":3,"output_tokens":2}}}`,
		`{"type":"user","uuid":"u2","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":[{"type":"text","text":"x"}]}]}}`,
		`{"type":"assistant","uuid":"a2","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Read","input":{}}]}}`,
		`{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":10}}`,
		`{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"summary"}}`,
	)))
	f.Add([]byte(`{"type":"user","isSidechain":true,"message":{"content":[{"type":"tool_result","tool_use_id":"x"}]}}`))
	f.Add([]byte(lines(ccUser1,
		`{"type":"user","isSidechain":true,"uuid":"x1","parentUuid":null,"message":{"role":"user","content":"find A"}}`,
		`{"type":"assistant","isSidechain":true,"uuid":"x2","parentUuid":"x1","message":{"id":"mx","role":"assistant","content":[{"type":"odd"},{"type":"text","text":"A"}]}}`,
		`{"type":"assistant","isSidechain":true,"agentId":"b","uuid":"y2","message":{"id":"my","role":"assistant","content":"B"}}`,
	)))
	addUnknownSeeds(f)
	addRealSeeds(f, "claude-code")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, transcript.FormatClaudeCode, data) })
}

func FuzzReadCodex(f *testing.F) {
	f.Add([]byte(lines(cxMeta, cxTurn,
		cxItem(`{"type":"reasoning","summary":[{"type":"summary_text","text":"p"}],"encrypted_content":"E"}`),
		cxItem(`{"type":"function_call","name":"x","arguments":"{\"a\":1}","call_id":"c1"}`),
		cxTokens(10, 5, 1, 0, 10),
		cxItem(`{"type":"function_call_output","call_id":"c1","output":{"content":"o","success":true}}`),
		cxItem(`{"type":"custom_tool_call","call_id":"c2","name":"apply_patch","input":"p"}`),
		`{"timestamp":"t","type":"compacted","payload":{"message":"s","replacement_history":[{"type":"function_call_output","call_id":"c9","output":"x"}]}}`,
		`{"timestamp":"t","type":"event_msg","payload":{"type":"context_compacted"}}`,
		cxZeroTok,
	)))
	addUnknownSeeds(f)
	addRealSeeds(f, "codex")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, transcript.FormatCodex, data) })
}

func FuzzReadSWEAgent(f *testing.F) {
	f.Add([]byte(`{"history":[{"role":"system","content":"s"},{"role":"assistant","content":"t\n` + "```\nls\n```" + `","thought":"t","action":"ls\n"},{"role":"user","content":"a"}],"replay_config":"{\"agent\":{\"model\":{\"name\":\"m\"}}}"}`))
	f.Add([]byte(`{"history":[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"bash","arguments":"{}"}}]},{"role":"tool","content":[{"type":"text","text":"x"}],"tool_call_ids":["c","d"]}]}`))
	addRealSeeds(f, "swe-agent")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, transcript.FormatSWEAgent, data) })
}

func FuzzReadMiniSWEAgent(f *testing.F) {
	f.Add([]byte(`{"info":{"config":{"model":{"model_name":"m"}}},"messages":[{"role":"assistant","content":"x","tool_calls":[{"id":"c","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}],"extra":{"response":{"usage":{"prompt_tokens":10,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":4}}}}},{"role":"tool","tool_call_id":"c","content":"o","extra":{"returncode":1}},{"role":"exit","content":""}],"trajectory_format":"mini-swe-agent-1.1"}`))
	f.Add([]byte(`[{"role":"assistant","content":"` + "```bash\\nls\\n```" + `"},{"role":"user","content":"<returncode>0</returncode>"}]`))
	addRealSeeds(f, "mini-swe-agent")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, transcript.FormatMiniSWEAgent, data) })
}

func FuzzReadOpenHands(f *testing.F) {
	small := `[{"id":0,"source":"agent","action":"system","args":{"content":"sys","tools":[{"type":"function","function":{"name":"run"}}]}},` +
		`{"id":1,"source":"user","action":"message","args":{"content":"go"}},` +
		`{"id":2,"source":"agent","action":"run","tool_call_metadata":{"function_name":"run","tool_call_id":"t1","model_response":{"id":"g1","choices":[{"message":{"content":"x","tool_calls":[{"id":"t1","function":{"name":"run","arguments":"{}"}},{"id":"t2","function":{"name":"run","arguments":"{}"}}]}}],"usage":{"prompt_tokens":5,"completion_tokens":1}}},"args":{}},` +
		`{"id":3,"source":"agent","observation":"run","tool_call_metadata":{"function_name":"run","tool_call_id":"t1"},"content":"o","extras":{"metadata":{"exit_code":1}}},` +
		`{"id":4,"source":"agent","action":"run","tool_call_metadata":{"function_name":"run","tool_call_id":"t2","model_response":{"id":"g1"}},"args":{}},` +
		`{"id":5,"source":"agent","observation":"error","content":"bad"},` +
		`{"id":6,"source":"agent","action":"condensation","args":{"summary":"s"}}]`
	f.Add([]byte(ohLine("i-1", small) + "\n" + ohLine("i-2", `[]`) + "\n"))
	f.Add([]byte(small))
	addRealSeeds(f, "openhands")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, transcript.FormatOpenHands, data) })
}

func FuzzReadOpenAI(f *testing.F) {
	f.Add([]byte(`[{"role":"user","content":"x"},{"role":"assistant","content":null,"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":"r"},{"role":"function","name":"g","content":"y"}]`))
	f.Add([]byte(`[{"task_id":0,"traj":[{"role":"user","content":[{"type":"text","text":"x"}]}]},[{"role":"tool"}]]`))
	f.Add([]byte(lines(`{"messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f"}}]}`, `{"role":"assistant","content":"y"}`)))
	addUnknownSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, transcript.FormatOpenAI, data) })
}

func FuzzDetect(f *testing.F) {
	f.Add([]byte(lines(ccSnap, ccUser1)))
	f.Add([]byte(lines(cxMeta, cxTurn)))
	f.Add([]byte(`{"history":[{"role":"user","content":"x"}]}`))
	f.Add([]byte(`{"info":{},"messages":[]}`))
	f.Add([]byte(`[{"role":"user","content":"x"}]`))
	f.Add([]byte(ohLine("i", `[]`)))
	f.Add([]byte("{\n \"history\": [\n"))
	addUnknownSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		format, err := transcript.Detect(data)
		if err != nil {
			if format != "" {
				t.Fatalf("Detect returned %q with error %v", format, err)
			}
			return
		}
		fuzzRead(t, "", data)
	})
}
