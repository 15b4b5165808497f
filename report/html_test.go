package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/compact"
)

// TestVendoredUPlot checks the embedded chart library against the pins:
// its version (vendor.sh, assets/uplot/VERSION) and its files' sha256.
func TestVendoredUPlot(t *testing.T) {
	t.Parallel()
	for _, f := range []struct{ name, text, want string }{
		{"uPlot.iife.min.js", uplotJS, uplotJSSHA256},
		{"uPlot.min.css", uplotCSS, uplotCSSSHA256},
		{"LICENSE", uplotLicense, uplotLicenseSHA256},
	} {
		sum := sha256.Sum256([]byte(f.text))
		if got := hex.EncodeToString(sum[:]); got != f.want {
			t.Errorf("assets/uplot/%s: sha256 %s, want %s (run go generate ./report)", f.name, got, f.want)
		}
	}
	v, err := os.ReadFile("assets/uplot/VERSION")
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("vendor.sh")
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(v)) != UPlotVersion || !bytes.Contains(script, []byte("\nVERSION="+UPlotVersion+"\n")) {
		t.Errorf("UPlotVersion %s, assets/uplot/VERSION %q, vendor.sh pins another", UPlotVersion, v)
	}
	if !strings.Contains(uplotLicense, "MIT License") || !strings.Contains(uplotJS, "uPlot") {
		t.Error("the vendored files are not uPlot's")
	}
}

// dataRE finds the report's JSON in a page.
var dataRE = regexp.MustCompile(`(?s)<script type="application/json" id="report-data">(.*?)</script>`)

// TestWriteEscapes writes a report whose strings try to end the script
// element and open another: the page holds them only as data, and the
// JSON read back from the page equals the report.
func TestWriteEscapes(t *testing.T) {
	t.Parallel()
	evil := `</script><script>alert("x")</script><!-- ' & ` + "\u2028"
	rep := syntheticReport(t, 8)
	rep.Title = evil
	rep.Note = evil
	rep.Compactions = append(rep.Compactions, Compaction{Call: 1, Level: "summary", Summarizer: evil,
		Retention: &compact.Retention{Missing: []string{evil}, Counts: map[string][2]int{"errors": {0, 1}}}})
	var buf bytes.Buffer
	if err := Write(&buf, rep); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if n := strings.Count(page, "<script"); n != 3 {
		t.Errorf("%d <script elements, want 3 (data, uPlot, page)", n)
	}
	m := dataRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no report data in the page")
	}
	var back Report
	if err := json.Unmarshal([]byte(m[1]), &back); err != nil {
		t.Fatalf("report data: %v", err)
	}
	if diff := cmp.Diff(rep, &back); diff != "" {
		t.Errorf("report read back from the page (-want +got):\n%s", diff)
	}
	if !strings.Contains(page, "<title>&lt;/script&gt;") {
		t.Errorf("title not escaped: %.200s", page[strings.Index(page, "<title>"):])
	}
}

// TestWriteOffline checks that the page loads nothing: no external
// script, stylesheet, image or font.
func TestWriteOffline(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := Write(&buf, syntheticReport(t, 4)); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, bad := range []string{"<link", " src=", "@import", "url(http", "url(//", "fetch(", "XMLHttpRequest"} {
		if strings.Contains(page, bad) {
			i := strings.Index(page, bad)
			t.Errorf("page holds %q: %q", bad, page[max(i-60, 0):min(i+60, len(page))])
		}
	}
}
