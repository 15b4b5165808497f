package workmem

import (
	"fmt"
	"github.com/agentctx/agentctx/tooluse"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// StepStatus is the progress of one plan [Step].
type StepStatus string

// The step statuses.
const (
	StepPending    StepStatus = "pending"
	StepInProgress StepStatus = "in_progress"
	StepDone       StepStatus = "done"
	StepSkipped    StepStatus = "skipped"
)

// Valid reports whether s is one of the declared statuses.
func (s StepStatus) Valid() bool {
	switch s {
	case StepPending, StepInProgress, StepDone, StepSkipped:
		return true
	}
	return false
}

// Step is one step of a [Plan].
type Step struct {
	// Description is the list item's text with Markdown emphasis removed,
	// cut to [StepRunes] runes.
	Description string     `json:"description"`
	Status      StepStatus `json:"status"`
	// Keywords are up to 5 distinctive lower-case words of Description
	// (identifiers, paths), for matching actions against the step.
	Keywords []string `json:"keywords,omitempty"`
}

// Plan is the agent's current plan (seed 002): the text it came from and
// its steps. Created and Updated are the rounds it was set and last
// replaced or marked in.
type Plan struct {
	Text    string `json:"text"`
	Steps   []Step `json:"steps"`
	Created int    `json:"created"`
	Updated int    `json:"updated"`
}

func (p Plan) clone() Plan {
	p.Steps = cloneSlice(p.Steps)
	for i := range p.Steps {
		p.Steps[i].Keywords = cloneSlice(p.Steps[i].Keywords)
	}
	return p
}

// Plan-extraction limits.
const (
	// MinPlanSteps is the fewest list items that make a plan.
	MinPlanSteps = 2
	// MaxPlanSteps is the most steps a plan keeps; later items are dropped.
	MaxPlanSteps = 30
	// StepRunes is the length in runes a step's description is cut to.
	StepRunes = 200
	// MaxPlanTextRunes is the length in runes Plan.Text is cut to.
	MaxPlanTextRunes = 4000
)

var (
	numberedRe = regexp.MustCompile(`^(\s*)(?:\*\*)?(?:[Ss]tep\s+)?(\d{1,3})[.):](?:\*\*)?\s+(\S.*)$`)
	bulletRe   = regexp.MustCompile(`^(\s*)[-*+•]\s+(?:\[[ xX]\]\s+)?(\S.*)$`)
	fenceRe    = regexp.MustCompile("^\\s*(```|~~~)")
)

type listItem struct {
	indent   int
	numbered bool
	num      int
	text     string
	line     int
}

// mayMatch reports which of fenceRe, numberedRe and bulletRe can match
// line, by its first character after the leading \s* (RE2's [\t\n\f\r ]):
// most lines of prose match none, and skip the three regexps.
func mayMatch(line string) (fence, numbered, bullet bool) {
	lead := strings.TrimLeft(line, " \t\n\f\r")
	if lead == "" {
		return false, false, false
	}
	c := lead[0]
	fence = c == '`' || c == '~'
	numbered = c == '*' || c == 'S' || c == 's' || ('0' <= c && c <= '9')
	bullet = c == '-' || c == '*' || c == '+' || strings.HasPrefix(lead, "•")
	return fence, numbered, bullet
}

// match is re.FindStringSubmatch(line) when may, else nil: the caller
// knows from the line's first character that re cannot match.
func match(re *regexp.Regexp, line string, may bool) []string {
	if !may {
		return nil
	}
	return re.FindStringSubmatch(line)
}

// ExtractSteps returns the steps of the first plan-like list in text: the
// first numbered list starting at 1 ("1.", "1)", "Step 1:") with at least
// [MinPlanSteps] top-level items, else the first bulleted list ("-", "*",
// "+", "•", "- [ ]") with that many. Nested items (indented deeper than the
// list's first item) are not steps; lines inside fenced code blocks are never
// list items. It returns nil when text holds no such list. Pure; never
// panics.
func ExtractSteps(text string) []Step {
	var items []listItem
	inFence := false
	var fenceMark string
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		fence, numbered, bullet := mayMatch(line)
		if m := match(fenceRe, line, fence); m != nil {
			if !inFence {
				inFence, fenceMark = true, m[1]
			} else if m[1] == fenceMark {
				inFence = false
			}
			items = append(items, listItem{line: i, indent: -1}) // a barrier
			continue
		}
		if inFence {
			continue
		}
		if m := match(numberedRe, line, numbered); m != nil {
			n, _ := strconv.Atoi(m[2]) // digits only (the pattern), 0 on overflow
			items = append(items, listItem{indent: width(m[1]), numbered: true, num: n, text: m[3], line: i})
			continue
		}
		if m := match(bulletRe, line, bullet); m != nil {
			items = append(items, listItem{indent: width(m[1]), text: m[2], line: i})
			continue
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		// Plain text: a continuation when indented, else a barrier.
		if unicode.IsSpace(rune(line[0])) {
			continue
		}
		items = append(items, listItem{line: i, indent: -1})
	}
	if s := pickList(items, true); s != nil {
		return s
	}
	return pickList(items, false)
}

// pickList returns the first run of same-kind items with enough top-level
// entries.
func pickList(items []listItem, numbered bool) []Step {
	for i := 0; i < len(items); i++ {
		it := items[i]
		if it.indent < 0 || it.numbered != numbered || (numbered && it.num != 1) {
			continue
		}
		top := it.indent
		var steps []Step
		next := 1
		j := i
		for ; j < len(items); j++ {
			c := items[j]
			if c.indent < 0 {
				break
			}
			if c.indent > top {
				continue // nested item
			}
			if c.indent < top || c.numbered != numbered {
				break
			}
			if numbered {
				if c.num != next {
					break
				}
				next++
			}
			if len(steps) < MaxPlanSteps {
				if d := cleanStep(c.text); d != "" {
					steps = append(steps, Step{Description: d, Status: StepPending, Keywords: keywords(d)})
				}
			}
		}
		if len(steps) >= MinPlanSteps {
			return steps
		}
		i = j - 1 // resume after this run; j > i since item i joined it
	}
	return nil
}

func width(indent string) int {
	w := 0
	for _, r := range indent {
		if r == '\t' {
			w += 4
		} else {
			w++
		}
	}
	return w
}

var emphasisRe = regexp.MustCompile(`\*\*|__|` + "`")

func cleanStep(s string) string {
	s = emphasisRe.ReplaceAllString(s, "")
	s = strings.Join(strings.Fields(s), " ")
	return tooluse.CutRunes(s, StepRunes)
}

var wordRe = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_./-]{3,}`)

var stopWords = map[string]bool{
	"this": true, "that": true, "with": true, "from": true, "then": true, "make": true, "sure": true,
	"will": true, "into": true, "the": true, "and": true, "check": true, "first": true, "need": true,
	"have": true, "what": true, "where": true, "which": true, "there": true, "their": true, "they": true,
	"file": true, "files": true, "code": true, "should": true, "using": true, "when": true, "also": true,
	"look": true, "find": true, "understand": true, "run": true, "test": true, "tests": true, "fix": true,
}

func keywords(d string) []string {
	var out []string
	for _, w := range wordRe.FindAllString(d, -1) {
		w = strings.ToLower(strings.Trim(w, "./-"))
		if len(w) < 4 || stopWords[w] {
			continue
		}
		dup := false
		for _, o := range out {
			dup = dup || o == w
		}
		if !dup {
			out = append(out, w)
		}
		if len(out) == 5 {
			break
		}
	}
	return out
}

// ExpectPlan marks that the next response was asked for a plan (a plan
// elicitation or replan prompt), which authorizes the next
// [ActiveContext.SetPlanFromText] to replace an existing plan (seed 002
// expectPlan).
func (a *ActiveContext) ExpectPlan() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.st.ExpectingPlan = true
}

// SetPlanFromText extracts a plan from a model response ([ExtractSteps])
// and reports whether it became the current plan. Without a current plan
// any list is taken. With one, the list replaces it only when
// [ActiveContext.ExpectPlan] was called since the last response; this keeps
// a numbered list in an ordinary answer from clobbering the plan (seed 002
// extractAndSetPlan). The replaced plan goes to the plan history, and a new
// step with the same description as a finished old one keeps its status.
// Each call with non-blank text consumes the expectation, whether or not
// it holds a plan.
func (a *ActiveContext) SetPlanFromText(text string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if strings.TrimSpace(text) == "" {
		return false
	}
	expecting := a.st.ExpectingPlan
	a.st.ExpectingPlan = false
	text = clean(text)
	steps := ExtractSteps(text)
	if steps == nil {
		return false
	}
	round := len(a.st.Rounds)
	if a.st.Plan != nil {
		if !expecting {
			a.opts.Logger.Debug("workmem: plan-like list ignored; no plan was asked for", "steps", len(steps))
			return false
		}
		old := *a.st.Plan
		for i := range steps {
			for _, s := range old.Steps {
				if s.Status != StepPending && strings.EqualFold(s.Description, steps[i].Description) {
					steps[i].Status = s.Status
				}
			}
		}
		a.st.PlanHistory = append(a.st.PlanHistory, old)
		a.opts.Logger.Debug("workmem: plan replaced", "old_steps", len(old.Steps), "steps", len(steps))
	}
	a.st.Plan = &Plan{Text: tooluse.CutRunes(strings.TrimSpace(text), MaxPlanTextRunes), Steps: steps, Created: round, Updated: round}
	return true
}

// Plan returns a copy of the current plan and whether there is one.
func (a *ActiveContext) Plan() (Plan, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.st.Plan == nil {
		return Plan{}, false
	}
	return a.st.Plan.clone(), true
}

// PlanHistory returns copies of the replaced plans, oldest first.
func (a *ActiveContext) PlanHistory() []Plan {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]Plan, len(a.st.PlanHistory))
	for i, p := range a.st.PlanHistory {
		out[i] = p.clone()
	}
	return out
}

// MarkStep sets the status of step i (0-based) of the current plan.
// Errors: [ErrNoStep] when there is no plan or i is out of range,
// [ErrInvalidStatus] for an undeclared status.
func (a *ActiveContext) MarkStep(i int, status StepStatus) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !status.Valid() {
		return fmt.Errorf("workmem: mark step %d: %q: %w", i, status, ErrInvalidStatus)
	}
	if a.st.Plan == nil || i < 0 || i >= len(a.st.Plan.Steps) {
		return fmt.Errorf("workmem: mark step %d: %w", i, ErrNoStep)
	}
	a.st.Plan.Steps[i].Status = status
	a.st.Plan.Updated = len(a.st.Rounds)
	return nil
}
