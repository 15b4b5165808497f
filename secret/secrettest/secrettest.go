// Package secrettest holds fake credentials of every kind
// [github.com/agentctx/agentctx/secret.Find] reports, for tests that plant secrets. None of them is real: each has
// the shape of its provider's published key format, and each is built by
// concatenation so that secret scanners do not flag the source.
package secrettest

import (
	"encoding/base64"
	"strings"
)

// Fake credentials, one per kind of secret.Find (and a few variants).
var (
	AWSKeyID   = "AKIA" + "Z7Q4M2XK5WJ3R6TB"
	AWSSTS     = "ASIA" + "QX5B7N3K2M8P4R6T"
	AWSSecret  = "h8Kq2Lz" + "P9vR3mXw7Tb5Nc1Yd6Fg0Js4Ua/+Ze8Qo"
	GitHubPAT  = "ghp_" + "a8Bc3De9Fg2Hi7Jk4Lm1No6Pq5Rs0Tu2VwXyZ"
	GitHubS2S  = "ghs_" + "Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa"
	GitHubFG   = "github_pat_" + "11ABCDE2F0gH3iJ4kL5mN6_" + "oP7qR8sT9uV0wX1yZ2aB3cD4eF5gH6iJ7kL8mN9oP0qR1sT2uV3wX4yZ5aB6cD7eF8g"
	OpenAI     = "sk-" + "T3BlbkFJ4xQ9mZ2vR7nK1pL8wS5yD3hG6jF0cX4bN7aM2eU9"
	OpenAIProj = "sk-proj-" + "Ab3Cd9Ef2Gh7Ij4Kl1Mn6Op5Qr0St8Uv3Wx2Yz1aB4cD7eF0gH9iJ6kL_mN-oP"
	Anthropic  = "sk-ant-" + "api03-" + "Xy7Zq2Wv9Ut4Sr1Qp8On3Ml6Kj5Ih0Gf2Ed7Cb4Aa9Zz1Yy6Xx3Ww8Vv5Uu0Tt-AA"
	Slack      = "xoxb-" + "2480913576-" + "6619037724810-" + "Jq8Rk2Ls9Tm4Un1Vo7Wp3Xq"
	Google     = "AIza" + "SyB7k2Lm9Np4Qr1St8Uv3Wx6Yz0Ab5Cd2Ef"
	Stripe     = "sk_live_" + "51Hq8Rk2Ls9Tm4Un1Vo7Wp3XqYz6Ab"
	StripeRK   = "rk_live_" + "9Zy8Xw7Vu6Ts5Rq4Po3Nm2Lk1Ji"
	JWT        = B64(`{"alg":"HS256","typ":"JWT"}`) + "." + B64(`{"sub":"1234567890","name":"Jo","iat":1516239022}`) + "." + "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	PEMBody    = strings.Repeat("MIIEowIBAAKCAQEAw3Jk9pQ2vR7nK1pL8wS5yD3hG6jF0cX4bN7aM2eU9\n", 4)
	PEM        = "-----BEGIN RSA " + "PRIVATE KEY-----\n" + PEMBody + "-----END RSA " + "PRIVATE KEY-----"
	PEMJSON    = `-----BEGIN ` + `PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC8\n-----END ` + `PRIVATE KEY-----\n`
	PGP        = "-----BEGIN PGP " + "PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\nlQOYBF8x2ZMBCADJ4kq9pQ2vR7nK1pL8wS5yD3hG6jF0cX4bN7aM2eU9Zq\n=Ab3C\n-----END PGP " + "PRIVATE KEY BLOCK-----"
	Password   = "Tr0ub4dor&3xK9"

	// The kinds a security review found missing (GitLab, webhook URLs,
	// Azure storage, URL passwords, Twilio, SendGrid, Mailgun, Hugging
	// Face).
	GitLabPAT     = "glpat-" + "Xq7Rk2Ls9Tm4Un1Vo7Wp"
	SlackWebhook  = "https://hooks.slack.com/" + "services/T04B7K9QZ/B06H2LX8R4M/" + "q8Rk2Ls9Tm4Un1Vo7Wp3XqYz"
	AzureKey      = "Jq8Rk2Ls9Tm4Un1Vo7Wp3XqYz6Ab5Cd2Ef7Gh0Ij" + "Kl3Mn4Op5Qr6St7Uv8Wx9Yz0aB1cD2eF3gH4iJ5kL6mN=="
	AzureConn     = "DefaultEndpointsProtocol=https;AccountName=prodstore42;" + "AccountKey=" + AzureKey + ";EndpointSuffix=core.windows.net"
	URLPassword   = "s3cr3t-" + "Pg9xQ"
	URLWithPass   = "postgres://app:" + URLPassword + "@db.internal:5432/orders"
	TwilioAPIKey  = "SK" + "3f9a1c7e5b2d8f4a6c0e9b7d5f3a1c8e"
	TwilioAccount = "AC" + "8e2f6a4c1d9b7e3f5a0c8d6b4e2f9a17"
	SendGrid      = "SG." + "Xq7Rk2Ls9Tm4Un1Vo7Wp3X" + "." + "b5Cd2Ef7Gh0IjKl3Mn4Op5Qr6St7Uv8Wx9Yz0aB1cD_"
	Mailgun       = "key-" + "3f9a1c7e5b2d8f4a6c0e9b7d5f3a1c8e"
	HuggingFace   = "hf_" + "XqRkLsTmUnVoWpXqYzBtCwEfGhIjKlMnOp"
	EnvHashPass   = "Zq7#kLm2xV9p"
	EnvHashQuoted = "p4s#W0rd!9"
)

// B64 encodes s in unpadded base64url, as JWT segments are.
func B64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
