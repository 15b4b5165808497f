// Package migration reads the schema migrations a database store embeds
// (session/sqlitestore, session/pgstore): one SQL file per version,
// "NNNN_name.sql", where file NNNN takes the schema from version NNNN-1
// to NNNN. A file, once released, never changes; a change of schema is a
// new file. Applying them is each store's own business (its transaction,
// its lock, its version table).
package migration

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Migration is one schema version: its number, its file's name and its
// SQL.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Load returns the migrations "*.sql" of folder dir of fsys (an
// embed.FS), in version order. Errors: a file name that does not start
// with a version ("0001_"), versions that are not 1, 2, … n without a gap
// or a repeat (a build mistake, caught by the stores' tests), or fsys's.
func Load(fsys fs.FS, dir string) ([]Migration, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.sql"))
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, name := range names {
		base := path.Base(name)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name does not start with a version", base)
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: base, SQL: string(b)})
	}
	slices.SortFunc(out, func(a, b Migration) int { return a.Version - b.Version })
	for i, m := range out {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migration %s: version %d, want %d", m.Name, m.Version, i+1)
		}
	}
	return out, nil
}
