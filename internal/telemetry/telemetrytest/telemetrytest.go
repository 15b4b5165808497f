// Package telemetrytest scrapes a /metrics route in tests and reads the
// families with Prometheus' own text parser.
package telemetrytest

import (
	"net/http"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Families are the metric families of one scrape, by name.
type Families map[string]*dto.MetricFamily

// Scrape GETs url (a /metrics route) and parses its Prometheus text
// exposition; it fails t on a transport error, a status other than 200 or
// a body the parser refuses.
func Scrape(t testing.TB, url string) Families {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The text format, whatever the handler would negotiate otherwise.
	req.Header.Set("Accept", "text/plain; version=0.0.4")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d", url, res.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return fams
}

// Value sums the values of family name's series whose labels include
// labels (every series for none): a counter's or gauge's value, a
// histogram's sample count. It fails t when the family is absent.
func (f Families) Value(t testing.TB, name string, labels map[string]string) float64 {
	t.Helper()
	fam := f[name]
	if fam == nil {
		t.Fatalf("no metric family %s in the scrape", name)
	}
	var sum float64
	for _, m := range fam.GetMetric() {
		if !matches(m, labels) {
			continue
		}
		switch {
		case m.Counter != nil:
			sum += m.GetCounter().GetValue()
		case m.Gauge != nil:
			sum += m.GetGauge().GetValue()
		case m.Histogram != nil:
			sum += float64(m.GetHistogram().GetSampleCount())
		case m.Untyped != nil:
			sum += m.GetUntyped().GetValue()
		}
	}
	return sum
}

// matches reports whether m has every label of want.
func matches(m *dto.Metric, want map[string]string) bool {
	for k, v := range want {
		found := false
		for _, lp := range m.GetLabel() {
			if lp.GetName() == k && lp.GetValue() == v {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
