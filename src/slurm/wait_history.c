/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wait_history.c - see wait_history.h.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "wait_history.h"

static const char *const key[WAIT_CAUSES] = {
	"vcQuota", "cells", "pinnedCell", "vcTooSmall", "behindVcHead",
	"victimsLeaving", "other", "notAsked"
};
static const char *const text[WAIT_CAUSES] = {
	"its VC's quota in use", "no free cells of its shape",
	"its pinned cell held", "its VC's cells too small",
	"behind its VC's head job", "its preempted jobs leaving", "other",
	"not asked by Slurm"
};

/* A clock that steps back counts as no time, never as a huge unsigned one. */
static uint32_t _span(time_t from, time_t to)
{
	return (to > from) ? (uint32_t) (to - from) : 0;
}

/* Where the current stretch stops counting for its cause. */
static time_t _asked_until(const wait_history_t *w, time_t now)
{
	time_t end = w->last + WAIT_HISTORY_GAP;

	return (now < end) ? now : end;
}

extern void wait_history_note(wait_history_t *w, wait_cause_t cause,
			      time_t now)
{
	if ((cause < 0) || (cause >= WAIT_CAUSES))
		cause = WAIT_CAUSE_OTHER;
	if (!w->first) {
		w->first = w->since = w->last = now;
		w->cause = cause;
		return;
	}
	if ((cause != w->cause) || (now > w->last + WAIT_HISTORY_GAP)) {
		w->secs[w->cause] += _span(w->since, _asked_until(w, now));
		w->secs[WAIT_CAUSE_NOT_ASKED] +=
			_span(w->last + WAIT_HISTORY_GAP, now);
		w->since = now;
		w->cause = cause;
	}
	if (now > w->last)
		w->last = now;
}

extern uint32_t wait_history_secs(const wait_history_t *w, wait_cause_t cause,
				  time_t now)
{
	uint32_t s;

	if (!w->first || (cause < 0) || (cause >= WAIT_CAUSES))
		return 0;
	s = w->secs[cause];
	if (cause == w->cause)
		s += _span(w->since, _asked_until(w, now));
	if (cause == WAIT_CAUSE_NOT_ASKED)
		s += _span(w->last + WAIT_HISTORY_GAP, now);
	return s;
}

extern wait_cause_t wait_history_current(const wait_history_t *w, time_t now)
{
	return (now >= w->last + WAIT_HISTORY_GAP) ? WAIT_CAUSE_NOT_ASKED :
						      w->cause;
}

extern uint32_t wait_history_total(const wait_history_t *w, time_t now)
{
	return w->first ? _span(w->first, now) : 0;
}

extern const char *wait_cause_key(wait_cause_t cause)
{
	return ((cause >= 0) && (cause < WAIT_CAUSES)) ?
		key[cause] : key[WAIT_CAUSE_OTHER];
}

extern const char *wait_cause_text(wait_cause_t cause)
{
	return ((cause >= 0) && (cause < WAIT_CAUSES)) ?
		text[cause] : text[WAIT_CAUSE_OTHER];
}

extern wait_cause_t wait_cause_from_key(const char *k)
{
	for (int c = 0; c < WAIT_CAUSES; c++)
		if (k && !strcmp(k, key[c]))
			return c;
	return WAIT_CAUSES;
}

/* Appends; keeps counting past the end of buf, as snprintf itself does. */
__attribute__((format(printf, 4, 5)))
static void _add(char *buf, size_t size, int *len, const char *fmt, ...)
{
	size_t at = ((size_t) *len < size) ? (size_t) *len : size;
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(buf + at, size - at, fmt, ap);
	va_end(ap);
	if (k > 0)
		*len += k;
}

/* Every cause with a second or more: "words N s" or "\"key\":N", separated. */
static void _causes(const wait_history_t *w, time_t now, bool json, char *buf,
		    size_t size, int *len)
{
	const char *sep = json ? "" : ": ";

	for (int c = 0; c < WAIT_CAUSES; c++) {
		uint32_t s = wait_history_secs(w, c, now);

		if (!s)
			continue;
		if (json)
			_add(buf, size, len, "%s\"%s\":%u", sep, key[c], s);
		else
			_add(buf, size, len, "%s%s %u s", sep, text[c], s);
		sep = json ? "," : ", ";
	}
}

extern int wait_history_text(const wait_history_t *w, time_t now, char *buf,
			     size_t size)
{
	int len = 0;

	if (size)
		buf[0] = '\0';
	_add(buf, size, &len, "%u s", wait_history_total(w, now));
	_causes(w, now, false, buf, size, &len);
	return len;
}

extern int wait_history_json(const wait_history_t *w, time_t now, char *buf,
			     size_t size)
{
	int len = 0;

	if (size)
		buf[0] = '\0';
	_add(buf, size, &len, "{");
	_causes(w, now, true, buf, size, &len);
	_add(buf, size, &len, "}");
	return len;
}
