package sandbox

import "strings"

// Environ returns environ (os.Environ's form, KEY=value) without the
// variables that hold credentials, for the commands the agent runs, with
// or without a sandbox: the agent's own provider key must not reach a
// command's output, and through it the model and the session file.
//
// A variable is removed when its name, upper-cased, is one of
// GITHUB_TOKEN, GH_TOKEN, TOKEN, API_KEY, NETRC or SSH_AUTH_SOCK (the
// ssh agent holds keys), or:
//
//   - starts with AWS_, AZURE_, GOOGLE_, GCP_, GCLOUD_, ANTHROPIC_,
//     OPENAI_, GEMINI_, MISTRAL_, GROQ_, COHERE_, DEEPSEEK_, XAI_,
//     OPENROUTER_, HF_, HUGGINGFACE_, AGENTCTX_ (the agent's own
//     settings, its key among them);
//   - ends with _KEY, _KEYS, APIKEY, _TOKEN, _TOKENS, _PAT or _AUTH;
//   - contains SECRET, PASSWORD, PASSWD, CREDENTIAL, PRIVATE_KEY,
//     _AUTH_ or ACCESS_KEY (not GIT_AUTHOR_NAME).
//
// The rule errs towards removing: a build that needs such a variable
// sets it in the command itself. Names are compared upper-cased;
// entries without "=" are dropped.
func Environ(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" || IsCredential(name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

var credentialPrefixes = []string{
	"AWS_", "AZURE_", "GOOGLE_", "GCP_", "GCLOUD_", "ANTHROPIC_", "OPENAI_",
	"GEMINI_", "MISTRAL_", "GROQ_", "COHERE_", "DEEPSEEK_", "XAI_",
	"OPENROUTER_", "HF_", "HUGGINGFACE_", "AGENTCTX_",
}

var credentialSuffixes = []string{"_KEY", "_KEYS", "APIKEY", "_TOKEN", "_TOKENS", "_PAT", "_AUTH"}

var credentialParts = []string{"SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE_KEY", "_AUTH_", "ACCESS_KEY"}

var credentialNames = map[string]bool{"GITHUB_TOKEN": true, "GH_TOKEN": true, "NETRC": true, "TOKEN": true, "API_KEY": true, "SSH_AUTH_SOCK": true}

// IsCredential reports whether an environment variable named name holds
// a credential by [Environ]'s rule.
func IsCredential(name string) bool {
	n := strings.ToUpper(name)
	if credentialNames[n] {
		return true
	}
	for _, p := range credentialPrefixes {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	for _, s := range credentialSuffixes {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	for _, p := range credentialParts {
		if strings.Contains(n, p) {
			return true
		}
	}
	return false
}
