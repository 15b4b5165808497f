// Package reminder makes the system reminders of an agent session: short
// notes the engine puts, inside <system-reminder> tags, before the last
// user message of the next request only (seed 004, Kode's
// generateSystemReminders; Claude Code does the same). They are never
// stored as user text: the engine records them in the session as their own
// entries.
//
// # Generators
//
// A [Generator] looks at a [State] (todo list, changed files, the tool
// results since the last request, the window's usage) and proposes
// reminders, each with a Key, a Kind and a Priority. The built-in set
// ([Defaults]) is:
//
//   - [SecurityGenerator]: a tool result looks like it holds a credential
//     ([secret.Find]); the text names the tool, the call id and the kind,
//     never the secret. Priority 40.
//   - [ChangedFilesGenerator]: files read earlier changed on disk since;
//     read them again before editing. Priority 30.
//   - [PressureGenerator]: the window nears its compaction threshold, with
//     the numbers, once per 5 % step and compaction. Priority 20.
//   - [TodoGenerator]: the todo list is empty (once per session) or has
//     changed (once per distinct state). Priority 10.
//
// [TodosFromCall] reads the todo list from the todo tools of Claude Code
// (TodoWrite), Codex (update_plan), OpenHands (task_tracker) and others,
// for State.Todos.
//
// # De-duplication and caps
//
// A [Manager] runs the generators before each request ([Manager.Pending]),
// drops reminders whose key was already sent in the session or repeats in
// the batch, orders the rest by priority and keeps at most 3 per request
// and 10 per session by default (Kode's numbers; [Options]). Pending does
// not mark them sent: the engine marks what it really sent with
// [Manager.MarkSent], or calls [Manager.Next] to do both.
// [Manager.State] and [Manager.SetState] persist this in the session.
//
// # Latest-only kinds
//
// The todo and changed-files reminders describe a current state, keyed by
// a hash of it ("todo:<hash>", "changed_files:<hash>"). For these two
// kinds the Manager remembers only the last state key sent, not every key
// ever sent:
//
//   - an unchanged list is not re-sent, however many requests follow (the
//     seed and Claude Code re-send it, a common complaint);
//   - a changed list is sent, and replaces the remembered key;
//   - a list that changes back to an earlier state is sent again, since
//     the agent was last told something else (Kode's clearTodoReminders);
//   - when the state goes away (the list is emptied, every changed file
//     was read again), Pending forgets the kind's key, so the same state
//     is announced again if it returns (a file that changes a second
//     time).
//
// The empty-list reminder ([KeyTodoEmpty]) is not a state key: it is sent
// once per session.
//
// # Injection
//
// [Render] formats reminders as seed 004 does and [Inject] places them in
// a copy of the outgoing messages: prepended to a last user message, or as
// a new user message after tool results. The input messages are never
// modified.
//
// # Improvements over the seed
//
// No console logging (an optional [log/slog.Logger] gets debug records);
// reminders marked sent when they are sent, not when they are generated
// (the seed marks and counts them the moment a generator returns them,
// whether or not they reach the model); keys that describe the state, so
// an unchanged todo list is never repeated; priority ordering instead of
// generator order; reminder text cut to a rune budget; a real secret
// detector.
package reminder
