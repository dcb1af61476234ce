// Package wpclient talks to one WordPress site through its REST API: it
// finds the REST root, lists and reads posts, and schedules one post at a
// time.
//
// The client is built for a scheduler that must act exactly once:
//
//   - Reads (GET) are retried on network errors and HTTP 429/502/503/504
//     with capped, jittered backoff that honours Retry-After; they carry
//     "Cache-Control: no-cache" and a cache-busting parameter.
//   - Writes (POST) are sent once, never retried and never redirected, and
//     carry only the fields they change ({"status","date_gmt"}).
//   - A read-only client (dry run) cannot write: its transport refuses any
//     method but GET and HEAD.
//   - Errors are typed ([*CredentialsError], [*APIError], [*NotJSONError],
//     [*RedirectError], [*UnavailableError], [*DiscoveryError]) and match the
//     sentinels ([ErrCredentials], [ErrNotFound], [ErrNotJSON],
//     [ErrRedirect], [ErrUnavailable], [ErrNoAPI], [ErrReadOnly],
//     [ErrTooLarge]) with errors.Is. No error, log record or String form
//     contains the application password or the Authorization header.
//
// Times: every time.Time the package returns or takes is UTC (the REST
// API's *_gmt fields, which carry no zone suffix). Site-local dates (the
// "date" field) stay strings in [DateLayout], because only the site's zone
// (see [Index]) gives them meaning.
//
// The facts about WordPress behind these rules were measured on WordPress
// 6.1.9 and are cited in the doc comments (e.g. WP_REST_Posts_Controller,
// rest_filter_response_fields).
package wpclient
