package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/wpqueue/wpqueue/config"
	"github.com/wpqueue/wpqueue/lockfile"
	"github.com/wpqueue/wpqueue/publisher"
	"github.com/wpqueue/wpqueue/wpclient"
)

// Exit statuses; documented in exitStatusHelp and README.md.
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitCredentials = 3
	exitNoDraft     = 4
	exitVerify      = 5
	exitLocked      = 75 // EX_TEMPFAIL from sysexits.h
	exitInterrupted = 130
)

const exitStatusHelp = `EXIT STATUS
  0    done, or nothing to do (every upcoming slot already holds a post)
  1    error: site unreachable, unexpected answer, lock file unusable
  2    usage or configuration error (the message names the key and value)
  3    credentials not accepted by the site
  4    a slot is empty and no publishable draft is queued
       (a run that fills some slots and then runs out of drafts exits 4)
  5    verification failed: the site does not show what was written
       (e.g. it published the post at once); wpqueue made no further change
  75   another wpqueue run holds this site's lock
  130  interrupted
With several sites, the status is the most severe of the sites':
130, 2, 3, 5, 1, 4, 75, 0 (most severe first).`

// severity orders exit statuses for combining sites: most severe first.
var severity = []int{exitInterrupted, exitUsage, exitCredentials, exitVerify, exitError, exitNoDraft, exitLocked, exitOK}

func worse(a, b int) int {
	for _, c := range severity {
		if a == c || b == c {
			return c
		}
	}
	return max(a, b)
}

// usageError is a command-line mistake; exit 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// noDraftError: a slot stays empty because the queue ran dry; exit 4.
type noDraftError struct{ empty int }

func (e *noDraftError) Error() string {
	const fix = " (add drafts with a title and content, or lower schedule.ahead)"
	if e.empty == 1 {
		return "a slot is empty and no publishable draft is queued" + fix
	}
	return fmt.Sprintf("%d slots are empty and no publishable draft is queued", e.empty) + fix
}

// exitCode maps an error to the exit status. It is the one place that does.
func exitCode(err error) int {
	var ue *usageError
	var nd *noDraftError
	var oe *lockfile.OpenError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.As(err, &ue), errors.Is(err, config.ErrConfig), errors.Is(err, publisher.ErrSchedule):
		return exitUsage
	case errors.Is(err, wpclient.ErrCredentials):
		return exitCredentials
	case errors.Is(err, publisher.ErrVerify):
		return exitVerify
	case errors.Is(err, lockfile.ErrLocked):
		return exitLocked
	case errors.As(err, &oe):
		return exitError
	case errors.As(err, &nd):
		return exitNoDraft
	}
	return exitError
}
