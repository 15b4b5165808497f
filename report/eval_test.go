package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriteEval(t *testing.T) {
	t.Parallel()
	s := 0.8
	p := &EvalPage{Title: "eval <x>", Rows: []EvalRow{
		{Budget: 8000, Strategy: "tiered", Default: true, TokensSent: 4000, Support: &s, SupportCI: &[2]float64{0.7, 0.9}},
		{Budget: 8000, Strategy: "mask", TokensSent: 5000},
	}}
	var b bytes.Buffer
	if err := WriteEval(&b, p); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"eval &lt;x&gt;", `"strategy":"tiered"`, `"support":0.8`, `"support":null`, "uPlot", UPlotVersion} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, bad := range []string{"src=\"http", "href=\"http"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page loads %q from the network", bad)
		}
	}
}
