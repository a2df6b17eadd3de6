/*
 * number.h - the numbers the study compares: scanning, canonical form,
 * equality.
 *
 * Answers are compared exactly, as decimal strings in a canonical form
 * ("-1234.5", "0", "70000"), never as floating point: "2,350", "2350.00"
 * and "$2350" are the same answer, and 0.1 + 0.2 questions cannot be
 * fooled by binary rounding. The double is kept only for JSON output.
 */
#ifndef GRADER_NUMBER_H
#define GRADER_NUMBER_H

#include <stddef.h>

/* Canonical forms longer than this are not taken as numbers: no GSM8K-style
 * answer has 60 digits, and the cap keeps every stored answer small. */
#define GRADER_NUM_MAX 64

struct grader_num {
    char s[GRADER_NUM_MAX]; /* canonical: [-]int[.frac], no leading or
                               trailing zeros, "0" for any zero */
    double v;               /* the same value, for JSON output only */
};

/*
 * Scan one number at the start of p[0..len): an optional sign, digits
 * (either plain, or 1-3 digits followed by ",ddd" groups), and an optional
 * decimal part ".d+". A period not followed by a digit is not part of the
 * number ("42." is 42), nor is a comma not followed by exactly three digits.
 * Returns the bytes consumed, 0 when p does not start with a number or its
 * canonical form is over the cap.
 */
size_t grader_num_scan(const char *p, size_t len, struct grader_num *out);

/*
 * Parse a whole reference answer as written in a question file: optional
 * surrounding white space and a currency sign, then one number and nothing
 * else. Returns 0, or -1 when s is not such a number.
 */
int grader_num_parse(const char *s, size_t len, struct grader_num *out);

#endif
