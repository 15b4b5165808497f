package session

import (
	"context"
	"fmt"
)

// Reminder is one system reminder as a [TypeReminder] entry records it:
// the reminder's kind, its de-duplication key and its text (without the
// <system-reminder> tags).
type Reminder struct {
	Kind string `json:"kind"`
	Key  string `json:"key,omitempty"`
	Text string `json:"text"`
}

// AddReminders appends one [TypeReminder] entry holding rs, the reminders
// sent with a request. It writes nothing for no reminders. Errors wrap
// the store's.
func (r *Recorder) AddReminders(ctx context.Context, rs ...Reminder) error {
	if len(rs) == 0 {
		return nil
	}
	e := Entry{Type: TypeReminder, Reminders: rs}
	if _, err := r.store.Append(ctx, r.id, e); err != nil {
		return fmt.Errorf("session: record %s: reminders: %w", r.id, err)
	}
	r.appended(e)
	return nil
}

// Reminders returns the reminders recorded in entries ([TypeReminder]),
// in order, side chains excluded.
func Reminders(entries []Entry) []Reminder {
	var out []Reminder
	for _, e := range entries {
		if e.Type == TypeReminder && !e.IsSidechain {
			out = append(out, e.Reminders...)
		}
	}
	return out
}
