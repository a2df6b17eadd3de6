/*
 * md_duel.h - the duels (md_duel.c; docs/duel.md): REPORT.md's "Duels",
 * report.json's "duels" and graveyard duel's text and JSON, all from the
 * grader's figures (duel.h) and the provenance the figures library read
 * from the files (figures_duel.c). Formatting only.
 */
#ifndef REPORT_MD_DUEL_H
#define REPORT_MD_DUEL_H

#include <jansson.h>
#include <stdio.h>

#include "doc.h"
#include "render.h"

/* How many disagreeing question ids the text and REPORT.md show. */
#define MD_DUEL_FIRST 5

/* One duel as report.json's "duels" holds it (docs/duel.md gives the
 * fields); prov its provenance object (borrowed; NULL: null). New, or
 * NULL out of memory. */
json_t *render_duel_json(const struct grader_duel_set *s, const json_t *prov);

/* report.json's "duels" set into o from rep->duels and run->duel_prov;
 * nothing when the folder has none (a report without duels stays byte
 * for byte). 0, or -1 out of memory. */
int render_duels_json(json_t *o, const struct rundir_run *run,
                      const struct grader_ladder *rep);

/* "Duels": one row per duel, then each one's provenance; nothing when
 * rep has none. */
void md_duels(struct doc *d, const struct rundir_run *run,
              const struct grader_ladder *rep);

/* graveyard duel's terminal text: the table, p, the change and its
 * intervals, the verdict, the floor, a line per subject, the questions
 * they disagree on, the provenance. 0, or -1 when f failed. */
int render_duel_text(FILE *f, const struct grader_duel_set *s,
                     const json_t *prov);

/* The verdict in words: "A ≡ B within ±d points", "A better", "B
 * better", "cannot tell" and, with with_n, "; N questions would tell"
 * (N the equivalence test's n needed, else McNemar's at 80 % power; a
 * and b the rungs' names) into out. */
char *render_duel_verdict(char *out, size_t size, const char *a, const char *b,
                          const struct grader_duel *d, int with_n);

#endif
