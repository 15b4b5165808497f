// Package providers constructs a [provider.Model] from a [provider.Config]:
// it picks the adapter (provider/openai or provider/anthropic) by
// [provider.Config.Provider]. It lives apart from package provider so that
// the root package stays free of the SDKs; only this leaf and the adapters
// import them.
package providers
