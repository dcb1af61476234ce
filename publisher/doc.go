// Package publisher is the core of wpqueue: it works out the upcoming
// publishing slots, decides which queued draft goes into which empty slot,
// and applies and verifies that decision against a site.
//
// The three steps are kept apart so that the decision can be tested and
// shown without touching a site:
//
//   - [Slots] turns a [Schedule] (site-local wall times) and an instant into
//     upcoming [Slot] values with calendar arithmetic in the site zone.
//   - [Decide] is a pure function of (now, [Rules], posts) returning a [Plan].
//     It reads no clock, does no I/O and never modifies the posts it is given.
//   - [Publisher.Apply] executes a plan: one update per assignment
//     (status=future and date_gmt, nothing else), a check of the update's
//     answer, then one verification read of the slots. It never picks a
//     draft the plan did not name.
//
// All instants in this package are UTC unless a name says Local. The site
// zone only matters for turning wall-clock slot times into instants.
package publisher
