package transcript_test

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/transcript"
)

// readExample reads the example file at path, detecting its format, and
// requires one trajectory of format want whose tool results all answer a
// call.
func readExample(t *testing.T, path string, want transcript.Format) *transcript.Trajectory {
	t.Helper()
	trs, err := transcript.ReadFile(path, transcript.Options{})
	if err != nil {
		t.Fatalf("ReadFile: %v", err)
	}
	if len(trs) != 1 {
		t.Fatalf("got %d trajectories, want 1", len(trs))
	}
	if trs[0].Format != want {
		t.Fatalf("detected %q, want %q", trs[0].Format, want)
	}
	checkPairs(t, trs[0].Messages)
	return trs[0]
}

// countCalls returns the number of assistant messages (model calls), of
// tool calls and of tool results in msgs, and how many results answer a
// call.
func countCalls(msgs []chat.Message) (calls, toolCalls, results, paired int) {
	for _, m := range msgs {
		switch m.Role {
		case chat.RoleAssistant:
			calls++
			toolCalls += len(m.ToolCalls())
		case chat.RoleTool:
			results++
		}
	}
	p := chat.Pair(msgs)
	for _, c := range p.CallOf {
		if c >= 0 {
			paired++
		}
	}
	return calls, toolCalls, results, paired
}

// checkHostile reads data cut at many points, with format f forced and
// detected, and the hostile variants given: nothing may panic, an error
// must name the input (file "hostile"), and a *ParseError must give a
// line and an offset inside the input.
func checkHostile(t *testing.T, f transcript.Format, data []byte, variants map[string]string) {
	t.Helper()
	inputs := map[string][]byte{}
	step := max(len(data)/41, 1)
	for cut := 1; cut < len(data); cut += step {
		inputs["cut at "+strconv.Itoa(cut)] = data[:cut]
	}
	for name, v := range variants {
		inputs[name] = []byte(v)
	}
	for name, in := range inputs {
		for _, format := range []transcript.Format{f, ""} {
			trs, err := transcript.Read(bytes.NewReader(in), "hostile", transcript.Options{Format: format})
			if err != nil {
				if !strings.Contains(err.Error(), "hostile") {
					t.Errorf("%s (format %q): error %q does not name the input", name, format, err)
				}
				var pe *transcript.ParseError
				if errors.As(err, &pe) && (pe.Line < 1 || pe.Offset < 0 || pe.Offset > int64(len(in))) {
					t.Errorf("%s (format %q): error %q: line %d, offset %d of %d bytes", name, format, err, pe.Line, pe.Offset, len(in))
				}
				continue
			}
			for _, tr := range trs {
				if o := chat.Pair(tr.Messages).Orphans; len(o) > 0 {
					t.Errorf("%s (format %q): %d orphan tool results", name, format, len(o))
				}
			}
		}
	}
}

// itoa is strconv.Itoa, short for the tables.
func itoa(n int) string { return strconv.Itoa(n) }

// mustReadF reads a seed file for a fuzz target.
func mustReadF(f *testing.F, path string) []byte {
	f.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// detectCase is an input and the format [transcript.Detect] must find
// in it ("": an error wrapping ErrUnknownFormat).
type detectCase struct {
	name, input string
	want        transcript.Format
}

// checkDetect runs [transcript.Detect] on each case.
func checkDetect(t *testing.T, cases []detectCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := transcript.Detect([]byte(tc.input))
			if tc.want == "" {
				if !errors.Is(err, transcript.ErrUnknownFormat) {
					t.Errorf("Detect = %q, %v; want ErrUnknownFormat", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("Detect = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
