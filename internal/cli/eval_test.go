package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/internal/sharedtest"
)

// TestEvalRealFiles runs eval on two small real trajectories at one
// budget with two strategies and checks the JSON's shape and sanity: a
// structural check of the harness, not of any strategy's figures.
func TestEvalRealFiles(t *testing.T) {
	t.Parallel()
	dir := sharedtest.Dir(t)
	files := []string{
		filepath.Join(dir, "swe-agent", "pydicom__pydicom-1458.traj"),
		filepath.Join(dir, "codex", "rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl"),
	}
	page := filepath.Join(t.TempDir(), "eval.html")
	args := append([]string{"eval", "--budget", "8000", "--strategies", "tiered,mask", "--json", "-o", page}, files...)
	code, out, errOut := run(t, args...)
	if code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	required := []string{"budget", "strategy", "next_action_support", "edit_support", "recoverable", "instruction_survival",
		"retention", "tokens_sent", "cache_reuse", "compactions", "summary_calls", "calls_over_budget"}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	var strategies []string
	for sc.Scan() {
		var obj map[string]any
		if err := json.Unmarshal(sc.Bytes(), &obj); err != nil {
			t.Fatalf("not a JSON object: %v: %s", err, sc.Text())
		}
		for _, k := range required {
			if _, ok := obj[k]; !ok {
				t.Errorf("%v: no %q", obj["strategy"], k)
			}
		}
		strategies = append(strategies, obj["strategy"].(string))
		if obj["budget"].(float64) != 8000 || obj["trajectories"].(float64) != 2 {
			t.Errorf("budget %v, trajectories %v; want 8000 and 2", obj["budget"], obj["trajectories"])
		}
		if obj["measured_calls"].(float64) < 1 {
			t.Errorf("%v: no call measured", obj["strategy"])
		}
		for _, k := range []string{"next_action_support", "edit_support", "recoverable", "instruction_survival", "retention", "cache_reuse"} {
			if v, ok := obj[k].(float64); ok && (v < 0 || v > 1) {
				t.Errorf("%v: %s = %v, not a share", obj["strategy"], k, v)
			}
		}
		if obj["next_action_support"] == nil {
			t.Errorf("%v: no support", obj["strategy"])
		}
		if ts := obj["tokens_sent"].(float64); ts <= 0 || ts > 8000*1.02 {
			t.Errorf("%v: tokens_sent %v, want in (0, 8160]", obj["strategy"], ts)
		}
		if obj["strategy"] == "tiered" && obj["default"] != true {
			t.Errorf("tiered is the default strategy: %v", obj["default"])
		}
	}
	if strings.Join(strategies, ",") != "tiered,mask" {
		t.Errorf("strategies %v, want tiered then mask", strategies)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "uPlot") || !strings.Contains(string(b), `"strategy":"mask"`) {
		t.Errorf("the page lacks the chart library or the rows")
	}
}

func TestEvalStrategies(t *testing.T) {
	t.Parallel()
	all, err := evalStrategies("all")
	if err != nil || len(all) < 4 || all[0] != "tiered" {
		t.Fatalf("all = %v, %v", all, err)
	}
	got, err := evalStrategies(" mask, default ,mask")
	if err != nil || strings.Join(got, ",") != "mask,tiered" {
		t.Errorf("got %v, %v; want mask,tiered", got, err)
	}
	if _, err := evalStrategies("nope"); err == nil || !strings.Contains(err.Error(), "known: ") {
		t.Errorf("unknown strategy: %v", err)
	}
}

func TestEvalUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"eval", "--strategies", "nope", "x.jsonl"},
		{"eval", "--budget", "-5", "x.jsonl"},
		{"eval"},
	} {
		if code, _, _ := run(t, args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, ExitUsage)
		}
	}
	code, _, errOut := run(t, "eval", filepath.Join(t.TempDir(), "missing.jsonl"))
	if code != ExitError || !strings.Contains(errOut, "missing.jsonl") {
		t.Errorf("a missing file: exit %d, stderr %q", code, errOut)
	}
}
