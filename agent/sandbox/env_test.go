package sandbox_test

import (
	"testing"

	"github.com/agentctx/agentctx/agent/sandbox"
	"github.com/google/go-cmp/cmp"
)

func TestEnviron(t *testing.T) {
	t.Parallel()
	in := []string{
		"PATH=/usr/bin", "HOME=/home/u", "LANG=C.UTF-8", "GOPATH=/go", "TERM=xterm",
		"GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@b", "SSH_TTY=/dev/pts/1", "KEYBOARD=us",
		"OPENAI_API_KEY=sk-1", "OPENAI_BASE_URL=http://x", "ANTHROPIC_API_KEY=sk-ant",
		"ANTHROPIC_AUTH_TOKEN=t", "AWS_ACCESS_KEY_ID=AKIA", "AWS_SECRET_ACCESS_KEY=s",
		"AWS_PROFILE=p", "GITHUB_TOKEN=ghp_x", "GH_TOKEN=gho_x", "NPM_TOKEN=n",
		"DB_PASSWORD=pw", "PGPASSWORD=pw", "MY_SECRET=s", "CLIENT_SECRET_FILE=f",
		"STRIPE_API_KEY=k", "HF_TOKEN=h", "GOOGLE_APPLICATION_CREDENTIALS=/k.json",
		"SSH_AUTH_SOCK=/tmp/agent", "AGENTCTX_API_KEY=k", "gitlab_private_token=x",
		"HUGGING_FACE_HUB_TOKEN=h", "AZURE_OPENAI_KEY=k", "DOCKER_AUTH_CONFIG=x",
		"NO_EQUALS",
	}
	want := []string{
		"PATH=/usr/bin", "HOME=/home/u", "LANG=C.UTF-8", "GOPATH=/go", "TERM=xterm",
		"GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@b", "SSH_TTY=/dev/pts/1", "KEYBOARD=us",
	}
	if diff := cmp.Diff(want, sandbox.Environ(in)); diff != "" {
		t.Errorf("Environ (-want +got):\n%s", diff)
	}
}
