package workmem

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
)

// TestEncodeFields keeps stateHead and stateTail in step with State: its
// members are theirs, with Rounds between, in the same order and under
// the same tags.
func TestEncodeFields(t *testing.T) {
	var got []string
	for _, typ := range []reflect.Type{reflect.TypeFor[stateHead](), nil, reflect.TypeFor[stateTail]()} {
		if typ == nil {
			f, _ := reflect.TypeFor[State]().FieldByName("Rounds")
			got = append(got, f.Name+" "+string(f.Tag))
			continue
		}
		for i := range typ.NumField() {
			got = append(got, typ.Field(i).Name+" "+string(typ.Field(i).Tag))
		}
	}
	var want []string
	st := reflect.TypeFor[State]()
	for i := range st.NumField() {
		want = append(want, st.Field(i).Name+" "+string(st.Field(i).Tag))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("encode's members:\n%s\nState's:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestToJSONIsMarshal: ToJSON, which keeps the JSON of settled rounds,
// writes json.Marshal's bytes of the state after every step of a long
// task: rounds opened and closed, results compressed as they leave the
// sliding window, findings, a plan and its steps, texts with HTML
// characters; and a memory restored from it goes on the same way.
func TestToJSONIsMarshal(t *testing.T) {
	a := New("migrate the <db> & the tests", Options{})
	check := func(step string) {
		t.Helper()
		got, err := a.ToJSON()
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(a.State())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: ToJSON differs from json.Marshal:\n got %s\nwant %s", step, got, want)
		}
	}
	check("new")
	a.ExpectPlan()
	a.SetPlanFromText("1. read the schema\n2. write the migration\n3. run the tests")
	for i := range 12 {
		a.StartRound(fmt.Sprintf("round %d: <look> at table %d", i, i))
		id := fmt.Sprintf("c%d", i)
		a.AddAction(chat.ToolCall{ID: id, Name: "Bash", Arguments: []byte(fmt.Sprintf(`{"command":"psql -c 'select * from t%d'"}`, i))})
		check(fmt.Sprintf("round %d, action", i))
		a.Observe(chat.ToolResult{ToolCallID: id, ToolName: "Bash", Content: strings.Repeat(fmt.Sprintf("row %d & more\n", i), 3+i)})
		check(fmt.Sprintf("round %d, observed", i))
		if i%4 == 1 {
			a.AddFinding(Finding{Finding: fmt.Sprintf("table %d has no index", i), Importance: 7})
		}
		if i == 5 {
			if err := a.MarkStep(0, StepDone); err != nil {
				t.Fatal(err)
			}
		}
		a.EndRound(fmt.Sprintf("table %d read", i))
		check(fmt.Sprintf("round %d, closed", i))
		if i == 7 {
			b, err := a.ToJSON()
			if err != nil {
				t.Fatal(err)
			}
			if a, err = FromJSON(b, Options{}); err != nil {
				t.Fatal(err)
			}
			check("restored")
		}
	}
	if len(a.enc) == 0 {
		t.Error("no round's JSON kept after twelve rounds")
	}
}
