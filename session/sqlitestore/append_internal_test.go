package sqlitestore

import (
	"reflect"
	"testing"
	"time"

	"github.com/agentctx/agentctx/session"
)

// TestSameRowEveryField: two rows that differ in any one field of the
// session (found by reflection, so that a field added to session.Session
// later is covered), its size or its last uuid are not the same row: an
// append prepared after one is encoded again after the other.
func TestSameRowEveryField(t *testing.T) {
	base := state{
		sess: session.Session{ID: "s", Created: time.Unix(1, 0).UTC(), LastActivity: time.Unix(2, 0).UTC(),
			Metadata: map[string]string{"k": "v"}},
		size: 10, lastUUID: "u",
	}
	cp := func() state {
		c := base
		c.sess.Metadata = map[string]string{"k": "v"}
		return c
	}
	same := cp()
	if !sameRow(&base, &same) {
		t.Fatal("a copy is not the same row")
	}
	typ := reflect.TypeFor[session.Session]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		other := cp()
		v := reflect.ValueOf(&other.sess).Elem().Field(i)
		switch v.Kind() {
		case reflect.String:
			v.SetString(v.String() + "x")
		case reflect.Int, reflect.Int64:
			v.SetInt(v.Int() + 1)
		case reflect.Bool:
			v.SetBool(!v.Bool())
		case reflect.Map:
			v.Set(reflect.ValueOf(map[string]string{"k": "w"}))
		case reflect.Struct:
			if f.Type != reflect.TypeFor[time.Time]() {
				t.Fatalf("field %s: type %s not covered by this test", f.Name, f.Type)
			}
			v.Set(reflect.ValueOf(v.Interface().(time.Time).Add(time.Millisecond)))
		default:
			t.Fatalf("field %s: kind %s not covered by this test", f.Name, v.Kind())
		}
		if sameRow(&base, &other) {
			t.Errorf("rows differing in %s are the same row", f.Name)
		}
	}
	other := cp()
	other.size++
	if sameRow(&base, &other) {
		t.Error("rows differing in size are the same row")
	}
	other = cp()
	other.lastUUID = "v"
	if sameRow(&base, &other) {
		t.Error("rows differing in the last uuid are the same row")
	}
}
