/*
 * fmt.h - how the reports print numbers, in one place so that REPORT.md,
 * COMPARE.md and THINK.md agree: thousands with commas (4,671), one
 * decimal for speeds and percentages, three for p-values, an en dash
 * for "not applicable".
 */
#ifndef REPORT_FMT_H
#define REPORT_FMT_H

#include <stddef.h>
#include <stdio.h>

#define FMT_DASH "\xe2\x80\x94" /* an em dash: no value here */
#define FMT_SIZE 96

/* Each returns out, which must hold FMT_SIZE bytes. */
char *fmt_count(char *out, long long v); /* 4,671; "—" when < 0 */
/* v with digits decimals: 40.0 (1), 1.97 (2); "—" when unknown (< 0,
 * inf, NaN); 1e+40 past 1e15, whole, never cut to its first digits. */
char *fmt_fixed(char *out, double v, int digits);
char *fmt_p(char *out, double p); /* 0.727; 2.4e-05; "< 1e-300" */
/* A verdicts' margin in points, as people write it (2, 7.5, 12.25): four
 * significant digits, more while those would round it up to 100, the
 * bound it stays under (99.99999, never "100"). */
char *fmt_margin(char *out, double points);
/* v with digits decimals and a real minus sign (\u2212) when negative
 * (a log-probability, a correlation); "\u2014" when NaN or infinite. */
char *fmt_signed(char *out, double v, int digits);
char *fmt_pct_ci(char *out, double v, double lo,
                 double hi); /* 91.6 (87.5–94.4) */
char *fmt_pp_ci(char *out, double v, double lo,
                double hi); /* −2.8 (−6.9 to +1.1) */

/* A canonical number (grader/number.h) with its thousands grouped, as
 * the study writes answers: "120000" -> "120,000", "-1234.5" ->
 * "-1,234.5"; anything else (a letter, "answers:2:...") as it is. */
char *fmt_number(char *out, const char *canonical);

/* Markdown cell text: '|' and newlines would break a table. */
void fmt_cell(char *out, size_t size, const char *s);

/*
 * Text from outside (a question id, a ladder's name, a GPU's name, a run's
 * label) as Markdown that shows it as written and nothing more: '<', '>'
 * and '&' as HTML entities, Markdown's punctuation (\ ` * _ [ ] ( ) # | !
 * ~) behind a backslash, line ends as spaces. Cut at size (7 bytes a
 * character at most).
 */
void fmt_text(char *out, size_t size, const char *s);

/* A question id as fmt_text writes it, but a line end as a numeric entity
 * (&#10;, &#13;), which shows as a space: "a\nb" and "a b" are two ids
 * in REPORT.md as on the page (doc_html.c writes the same entities). */
void fmt_id(char *out, size_t size, const char *s);

/* The same for the inside of a `code span`, where escapes do not work: a
 * backtick becomes ', '|' \| (a table's cell), line ends spaces. */
void fmt_code(char *out, size_t size, const char *s);

/* What the pictures and the page write for a byte that is not UTF-8 (a
 * run folder's name may hold one; rows cannot): U+FFFD. */
#define FMT_REPLACEMENT "\xef\xbf\xbd"

/* Text for HTML and for XML (the page, cover.svg, pareto.svg): & < > and
 * " as entities (attributes are always in double quotes), and U+FFFD for a
 * byte that is not UTF-8 and for a control character XML 1.0 does not allow
 * (all below U+0020 but tab, line feed and carriage return), so that the file
 * stays well-formed whatever a folder's name or a reply holds. */
void fmt_markup(FILE *f, const char *s, size_t len);

/* An SVG picture's opening: the <svg> element w x h (its viewBox the
 * same), a white ground, and title (escaped) at (tx, ty) in 15 px; the
 * caller closes it with "</svg>". One head for every picture the report
 * draws (cover, pareto, lengths, depth). */
void fmt_svg_open(FILE *f, double w, double h, double tx, double ty,
                  const char *title);

/* The KLD shading's scale, the cover's and the page's grid alike: a
 * question's mean top-N KLD in decades, 0 for none (below 0.001, or NAN:
 * not compared), 1 for 0.001 to 0.01, ... FMT_KLD_LEVELS for 1 and over. */
#define FMT_KLD_LEVELS 4
int fmt_kld_level(double kld);

/*
 * A token's text (or a reply's bytes before a split) made fit to show:
 * raw bytes from the server, possibly a part of a UTF-8 sequence or a
 * control character. A byte that is not UTF-8 becomes U+FFFD; a control
 * character an escape in ASCII (\n, \t, \r, else \x01 and the like: every
 * font has those glyphs, few have U+2400's control pictures), so that a
 * token of "\n" or "\x01" is seen, not lost, and a backslash \\ so that
 * the escapes cannot be mistaken. With lines (a reply's tail), line ends
 * and tabs stay as they are, a backslash as it is, and up to three
 * continuation bytes at the start (the tail was cut inside a character)
 * are left out. Always valid
 * UTF-8, cut at a character; out holds size bytes (4 a byte in at most,
 * and the NUL). Returns out.
 */
#define FMT_SHOWN_SIZE(n) (4 * (n) + 1)
char *fmt_shown(char *out, size_t size, const char *s, size_t len, int lines);

#endif
