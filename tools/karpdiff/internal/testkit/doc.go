// Package testkit builds the small scenarios, catalogs and plans the tools'
// tests use, with fluent setters so that a test case reads as its intent.
package testkit
