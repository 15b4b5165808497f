package migration_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentctx/agentctx/internal/migration"
)

func TestLoad(t *testing.T) {
	t.Parallel()
	ok := fstest.MapFS{
		"m/0002_more.sql": {Data: []byte("ALTER 2")},
		"m/0001_init.sql": {Data: []byte("CREATE 1")},
		"m/README.md":     {Data: []byte("not a migration")},
	}
	ms, err := migration.Load(ok, "m")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].Version != 1 || ms[0].Name != "0001_init.sql" || ms[0].SQL != "CREATE 1" || ms[1].Version != 2 {
		t.Errorf("Load = %+v, want 0001_init then 0002_more", ms)
	}
	for name, fsys := range map[string]fstest.MapFS{
		"no version": {"m/init.sql": {}},
		"gap":        {"m/0001_a.sql": {}, "m/0003_c.sql": {}},
		"twice":      {"m/0001_a.sql": {}, "m/0001_b.sql": {}},
		"zero":       {"m/0000_a.sql": {}},
	} {
		if _, err := migration.Load(fsys, "m"); err == nil || !strings.Contains(err.Error(), "migration") {
			t.Errorf("%s: Load error %v, want one naming the migration", name, err)
		}
	}
}
