package workmem

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExtractSteps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"numbered dot", "Plan:\n1. Read a.go\n2. Fix b\n3. Run tests", []string{"Read a.go", "Fix b", "Run tests"}},
		{"numbered paren", "1) first\n2) second", []string{"first", "second"}},
		{"step prefix bold", "**Step 1:** look\n**Step 2:** patch", []string{"look", "patch"}},
		{"nested bullets", "- top one\n  - nested a\n  - nested b\n- top two\n    continuation\n- top three", []string{"top one", "top two", "top three"}},
		{"nested numbers", "1. outer\n   1. inner\n   2. inner2\n2. outer2", []string{"outer", "outer2"}},
		{"checkbox", "- [ ] todo a\n- [x] todo b", []string{"todo a", "todo b"}},
		{"numbered preferred", "- a\n- b\n\n1. x\n2. y", []string{"x", "y"}},
		{"blank lines between", "1. a\n\n2. b\n\n3. c", []string{"a", "b", "c"}},
		{"code block only", "```\n1. not a plan\n2. really not\n```", nil},
		{"code block skipped", "```go\n- x\n- y\n```\n1. real\n2. plan", []string{"real", "plan"}},
		{"tilde fence", "~~~\n- a\n- b\n~~~", nil},
		{"single item", "1. only one", nil},
		{"not from 1", "3. c\n4. d", nil},
		{"numbering breaks", "1. a\n3. c", nil},
		{"paragraph ends list", "1. a\nSome text\n2. b", nil},
		{"emphasis stripped", "1. **Bold** `code`\n2. two", []string{"Bold code", "two"}},
		{"crlf", "1. a\r\n2. b\r\n", []string{"a", "b"}},
		{"empty", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, s := range ExtractSteps(tc.text) {
				got = append(got, s.Description)
				if s.Status != StepPending {
					t.Errorf("status %q", s.Status)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ExtractSteps (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExpectPlan(t *testing.T) {
	t.Parallel()
	const p1, p2 = "1. a\n2. b", "1. b\n2. c\n3. d"
	tests := []struct {
		name      string
		run       func(a *ActiveContext) []bool
		want      []bool
		wantSteps []string
		history   int
	}{
		{"first plan taken without asking", func(a *ActiveContext) []bool {
			return []bool{a.SetPlanFromText(p1)}
		}, []bool{true}, []string{"a", "b"}, 0},
		{"unasked list ignored", func(a *ActiveContext) []bool {
			return []bool{a.SetPlanFromText(p1), a.SetPlanFromText(p2)}
		}, []bool{true, false}, []string{"a", "b"}, 0},
		{"asked list replaces", func(a *ActiveContext) []bool {
			r := a.SetPlanFromText(p1)
			a.ExpectPlan()
			return []bool{r, a.SetPlanFromText(p2)}
		}, []bool{true, true}, []string{"b", "c", "d"}, 1},
		{"expectation consumed by a plan-less response", func(a *ActiveContext) []bool {
			r := a.SetPlanFromText(p1)
			a.ExpectPlan()
			return []bool{r, a.SetPlanFromText("no list here"), a.SetPlanFromText(p2)}
		}, []bool{true, false, false}, []string{"a", "b"}, 0},
		{"expectation survives blank text", func(a *ActiveContext) []bool {
			r := a.SetPlanFromText(p1)
			a.ExpectPlan()
			return []bool{r, a.SetPlanFromText("  "), a.SetPlanFromText(p2)}
		}, []bool{true, false, true}, []string{"b", "c", "d"}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := newTest(t, Options{})
			if diff := cmp.Diff(tc.want, tc.run(a)); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
			p, _ := a.Plan()
			var got []string
			for _, s := range p.Steps {
				got = append(got, s.Description)
			}
			if diff := cmp.Diff(tc.wantSteps, got); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			if h := len(a.PlanHistory()); h != tc.history {
				t.Errorf("history = %d, want %d", h, tc.history)
			}
		})
	}
}

func TestReplanKeepsStatus(t *testing.T) {
	t.Parallel()
	a := newTest(t, Options{})
	a.SetPlanFromText("1. read code\n2. patch")
	if err := a.MarkStep(0, StepDone); err != nil {
		t.Fatal(err)
	}
	a.ExpectPlan()
	a.SetPlanFromText("1. Read code\n2. write test\n3. patch")
	p, _ := a.Plan()
	got := []StepStatus{p.Steps[0].Status, p.Steps[1].Status, p.Steps[2].Status}
	if diff := cmp.Diff([]StepStatus{StepDone, StepPending, StepPending}, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if h := a.PlanHistory(); len(h) != 1 || h[0].Steps[0].Status != StepDone {
		t.Errorf("history = %+v", h)
	}
}

// FuzzExtractStepsPrefilter: ExtractSteps skips a line's regexps by its
// first character; the skip must never drop a line a regexp matches, so
// the steps are those of the regexps run on every line (extractAll).
func FuzzExtractStepsPrefilter(f *testing.F) {
	for _, s := range []string{
		"Plan:\n1. Read the parser\n2. Fix it\n",
		"  - [ ] write tests\n  * run them\n+ ship\n• done",
		"```go\n1. not a step\n```\n**1.** Step one\nStep 2: two",
		"\f\t3) third\n\r- x\nstep 4. four",
		"prose only, no list at all\n\nmore prose",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, line := range strings.Split(text, "\n") {
			line = strings.TrimRight(line, "\r")
			fence, numbered, bullet := mayMatch(line)
			for _, c := range []struct {
				re  *regexp.Regexp
				may bool
			}{
				{fenceRe, fence},
				{numberedRe, numbered},
				{bulletRe, bullet},
			} {
				if got, want := match(c.re, line, c.may), c.re.FindStringSubmatch(line); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s on %q: prefiltered %q, regexp %q", c.re, line, got, want)
				}
			}
		}
	})
}
