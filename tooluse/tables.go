package tooluse

import (
	"maps"
	"slices"
	"strings"
)

// kindUnknown marks a name no table holds.
const kindUnknown Kind = -1

// tool is one table entry: the kind, and how the tool's arguments name
// its files, searches and command (nil: they name none).
type tool struct {
	kind Kind
	read func(*builder, args)
}

// table is one agent's tools.
type table struct {
	agent, source string
	tools         map[string]tool
}

// tables are the agents' tool tables, in lookup order.
var tables = []table{
	{"claude-code", "https://code.claude.com/docs/en/tools-reference (and the tool definitions in the Claude Code transcripts of ../shared/data)", map[string]tool{
		"Read":         {KindRead, readPath("file_path", "notebook_path")},
		"NotebookRead": {KindRead, readPath("notebook_path", "file_path")},
		"Write":        {KindWrite, writePath(OpWrite, "file_path")},
		"Edit":         {KindEdit, writePath(OpEdit, "file_path")},
		"MultiEdit":    {KindEdit, writePath(OpEdit, "file_path")},
		"NotebookEdit": {KindEdit, writePath(OpEdit, "notebook_path", "file_path")},
		"Grep":         {KindSearch, searchArgs},
		"Glob":         {KindSearch, searchArgs},
		"LS":           {KindList, nil},
		"Bash":         {KindShell, shellArgs},
		"BashOutput":   {KindOther, nil},
		"KillShell":    {KindOther, nil},
		"KillBash":     {KindOther, nil},
		"TodoWrite":    {KindTodo, nil},
		"TodoRead":     {KindTodo, nil},
		"WebFetch":     {KindWeb, nil},
		"WebSearch":    {KindWeb, webSearch},
		"Task":         {KindTask, nil},
		"Agent":        {KindTask, nil},
		"ExitPlanMode": {KindOther, nil},
		// Newer tools (tools-reference above). TaskCreate, TaskUpdate,
		// TaskList and TaskGet keep the interactive session's task list,
		// which replaces TodoWrite there; [Todos] does not read them (they
		// change one task at a time).
		"EnterPlanMode":   {KindOther, nil},
		"TaskCreate":      {KindTodo, nil},
		"TaskUpdate":      {KindTodo, nil},
		"TaskList":        {KindTodo, nil},
		"TaskGet":         {KindTodo, nil},
		"TaskOutput":      {KindOther, nil},
		"TaskStop":        {KindOther, nil},
		"Skill":           {KindOther, nil},
		"SlashCommand":    {KindOther, nil},
		"AskUserQuestion": {KindOther, nil},
		"LSP":             {KindOther, nil},
		"ToolSearch":      {KindOther, nil},
	}},
	{"codex", "https://github.com/openai/codex (codex-rs/core tool specs; codex-rs/apply-patch/apply_patch_tool_instructions.md)", map[string]tool{
		"shell":        {KindShell, shellArgs},
		"local_shell":  {KindShell, shellArgs},
		"exec_command": {KindShell, shellArgs},
		// shell_command {command: string, workdir}: the shell tool of
		// newer Codex models (codex-rs/core/src/tools/spec.rs).
		"shell_command": {KindShell, shellArgs},
		"write_stdin":   {KindOther, nil},
		"apply_patch":   {KindEdit, patchArgs},
		"update_plan":   {KindTodo, nil},
		"view_image":    {KindRead, readPath("path")},
		"web_search":    {KindWeb, webSearch},
	}},
	{"openhands", "https://github.com/OpenHands/OpenHands (openhands/agenthub/codeact_agent/tools: bash.py, str_replace_editor.py, task_tracker.py, think.py, finish.py, browser.py, ipython.py, llm_based_edit.py) and https://github.com/OpenHands/software-agent-sdk (terminal, file_editor)", map[string]tool{
		"execute_bash":         {KindShell, shellArgs},
		"str_replace_editor":   {KindEdit, editorArgs},
		"file_editor":          {KindEdit, editorArgs}, // the software-agent-sdk's name for it
		"terminal":             {KindShell, shellArgs}, // the software-agent-sdk's execute_bash
		"edit_file":            {KindEdit, writePath(OpEdit, "path")},
		"task_tracker":         {KindTodo, func(b *builder, a args) { b.u.Action = a.str("command") }},
		"think":                {KindNote, nil},
		"finish":               {KindOther, nil},
		"browser":              {KindWeb, nil},
		"web_read":             {KindWeb, nil},
		"fetch":                {KindWeb, nil},
		"execute_ipython_cell": {KindShell, func(b *builder, a args) { b.u.Command = a.str("code") }},
	}},
	{"swe-agent", "https://github.com/SWE-agent/SWE-agent (tools/: defaults, windowed, search, windowed_edit_linting, windowed_edit_replace, edit_anthropic, submit, filemap)", map[string]tool{
		"bash":               {KindShell, shellArgs},
		"open":               {KindRead, sweOpen},
		"goto":               {KindRead, sweWindow},
		"scroll_up":          {KindRead, sweWindow},
		"scroll_down":        {KindRead, sweWindow},
		"create":             {KindWrite, sweCreate},
		"edit":               {KindEdit, sweEdit},
		"insert":             {KindEdit, sweEdit},
		"find_file":          {KindSearch, sweSearch("file_name", "dir")},
		"search_dir":         {KindSearch, sweSearch("search_term", "dir")},
		"search_file":        {KindSearch, sweSearch("search_term", "file")},
		"filemap":            {KindRead, sweFilemap},
		"str_replace_editor": {KindEdit, editorArgs},
		"submit":             {KindOther, nil},
	}},
	{"mini-swe-agent", "https://github.com/SWE-agent/mini-swe-agent (one bash action per step, in a markdown block)", map[string]tool{
		"bash": {KindShell, shellArgs},
	}},
	{"cline", "https://github.com/cline/cline (the tools of its system prompt, src/core/prompts: write_to_file {path, content}, replace_in_file {path, diff}, execute_command {command, requires_approval}, search_files {path, regex, file_pattern}, list_files {path, recursive}, read_file {path}, list_code_definition_names {path}); Roo Code keeps these names", map[string]tool{
		"write_to_file":              {KindWrite, writePath(OpWrite, "path")},
		"replace_in_file":            {KindEdit, writePath(OpEdit, "path")},
		"execute_command":            {KindShell, shellArgs},
		"search_files":               {KindSearch, searchArgs},
		"list_files":                 {KindList, nil},
		"list_code_definition_names": {KindSearch, searchArgs},
		"ask_followup_question":      {KindOther, nil},
		"attempt_completion":         {KindOther, nil},
		"plan_mode_respond":          {KindOther, nil},
		"new_task":                   {KindTask, nil},
		"browser_action":             {KindWeb, nil},
		"web_fetch":                  {KindWeb, nil},
		"use_mcp_tool":               {KindOther, nil},
		"access_mcp_resource":        {KindOther, nil},
	}},
	// read_file and write_file are also Gemini CLI's: read_file {file_path}
	// (absolute_path in its earlier versions), write_file {file_path,
	// content} (https://github.com/google-gemini/gemini-cli, docs/tools/
	// file-system.md); Cline's read_file takes {path}.
	{"seed", "../shared/seeds/000 (read_file {path}, search {query}, run_command {command}) and 001 (write_file {path, content})", map[string]tool{
		"read_file":   {KindRead, readPath("path", "file_path", "absolute_path")},
		"search":      {KindSearch, searchArgs},
		"run_command": {KindShell, shellArgs},
		"write_file":  {KindWrite, writePath(OpWrite, "path", "file_path")},
	}},
	{"reference", "the reference agent's tools (agentctx's own: recall_output in ../recall.go)", map[string]tool{
		"edit_file":     {KindEdit, writePath(OpEdit, "path")},
		"list_files":    {KindList, nil},
		"todo_write":    {KindTodo, nil},
		"note_finding":  {KindNote, nil},
		"recall_output": {KindOther, nil},
	}},
}

// aliases are other agents' names for the same tools, and the names
// compact's limiter and facts knew (Agent "alias").
var aliases = map[string]tool{
	"str_replace_based_edit_tool": {KindEdit, editorArgs}, // Anthropic text editor tool
	"text_editor":                 {KindEdit, editorArgs},
	"write_todos":                 {KindTodo, nil}, // Gemini CLI
	"run_shell_command":           {KindShell, shellArgs},
	"container.exec":              {KindShell, shellArgs},
	"run":                         {KindShell, shellArgs},
	"rg":                          {KindSearch, searchArgs},
	"find":                        {KindSearch, searchArgs},
	"grep_search":                 {KindSearch, searchArgs},
	"codebase_search":             {KindSearch, searchArgs},
	"file_search":                 {KindSearch, searchArgs},
	"search_project_code":         {KindSearch, searchArgs},
	"cat":                         {KindRead, readPath("path", "file_path", "file")},
	"view":                        {KindRead, readPath("path", "file_path", "file")},
	"view_file":                   {KindRead, readPath("path", "file_path", "file")},
	"read_project_file":           {KindRead, readPath("path", "file_path", "file")},
	"create_file":                 {KindWrite, writePath(OpCreate, "path", "file_path", "target_file")},
}

// AgentTable is one agent's tool names and the kind each has. Source
// says where the names and their arguments come from.
type AgentTable struct {
	Agent  string
	Source string
	Tools  map[string]Kind
}

// Agents returns a copy of the tables [Classify] looks names up in, in
// lookup order: claude-code, codex, openhands, swe-agent, mini-swe-agent, cline,
// seed, reference, and last "alias". Names shared by agents (bash,
// str_replace_editor, edit_file) appear in each agent's table and
// classify the same.
func Agents() []AgentTable {
	out := make([]AgentTable, 0, len(tables)+1)
	for _, t := range tables {
		out = append(out, AgentTable{Agent: t.agent, Source: t.source, Tools: kinds(t.tools)})
	}
	return append(out, AgentTable{Agent: "alias", Source: "other agents' names for the same tools (Anthropic, Gemini CLI) and compact's names", Tools: kinds(aliases)})
}

func kinds(m map[string]tool) map[string]Kind {
	out := make(map[string]Kind, len(m))
	for k, t := range m {
		out[k] = t.kind
	}
	return out
}

type entry struct {
	tool
	agent string
}

// exact and folded index the tables by name and by folded name.
var exact, folded = index()

func index() (map[string]entry, map[string]entry) {
	ex, fo := map[string]entry{}, map[string]entry{}
	add := func(agent string, tools map[string]tool) {
		for _, name := range sortedKeys(tools) {
			e := entry{tools[name], agent}
			if _, ok := ex[name]; !ok {
				ex[name] = e
			}
			if _, ok := fo[fold(name)]; !ok {
				fo[fold(name)] = e
			}
		}
	}
	for _, t := range tables {
		add(t.agent, t.tools)
	}
	add("alias", aliases)
	return ex, fo
}

// sortedKeys makes the folded index deterministic: "Edit" before "edit".
func sortedKeys(m map[string]tool) []string {
	return slices.Sorted(maps.Keys(m))
}

// fold lower-cases a name and drops '_' and '-', as reminder matches todo
// tools: TodoWrite, todo_write and todowrite are one name.
func fold(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	if strings.ContainsAny(name, "_-") {
		name = nameSeps.Replace(name)
	}
	return name
}

// nameSeps drops the separators fold ignores; built once (a Replacer
// builds its tables at its first use).
var nameSeps = strings.NewReplacer("_", "", "-", "")

// lookup returns the entry for a tool name and the agent whose table
// holds it, or kind kindUnknown.
func lookup(name string) (tool, string) {
	if e, ok := exact[name]; ok {
		return e.tool, e.agent
	}
	if e, ok := folded[fold(name)]; ok {
		return e.tool, e.agent
	}
	return tool{kind: kindUnknown}, ""
}
