/*
 * error.c - names and messages for the grader's error table, and the one
 * function that fills a struct grader_error.
 */
#include "error.h"
#include "internal.h"
#include "../pyre/pyre.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* pyre (pyre.h) returns the grader's codes without including this
 * library: its copies of their values must stay the same. */
_Static_assert((int)PYRE_ENOMEM == (int)GRADER_ENOMEM, "pyre's ENOMEM");
_Static_assert((int)PYRE_EARG == (int)GRADER_EARG, "pyre's EARG");
_Static_assert((int)PYRE_ELIMIT == (int)GRADER_ELIMIT, "pyre's ELIMIT");

const char *grader_err_name(int code)
{
    switch (code) {
#define GRADER__NAME(name, msg)                                               \
    case GRADER_E##name:                                                      \
        return #name;
        GRADER_ERRNO_MAP(GRADER__NAME)
#undef GRADER__NAME
    case GRADER_OK:
        return "OK";
    }
    return "UNKNOWN";
}

const char *grader_strerror(int code)
{
    switch (code) {
#define GRADER__MSG(name, msg)                                                \
    case GRADER_E##name:                                                      \
        return msg;
        GRADER_ERRNO_MAP(GRADER__MSG)
#undef GRADER__MSG
    case GRADER_OK:
        return "success";
    }
    return "unknown error";
}

int grader__fail(struct grader_error *err, int code, const char *file,
                 long line, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL)
        return code;
    snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
    err->line = line;
    if (fmt == NULL) {
        snprintf(err->text, sizeof(err->text), "%s", grader_strerror(code));
        return code;
    }
    va_start(ap, fmt);
    vsnprintf(err->text, sizeof(err->text), fmt, ap);
    va_end(ap);
    return code;
}

void grader_error_format(const struct grader_error *err, char *buf,
                         size_t size)
{
    if (err->file[0] != '\0' && err->line > 0)
        snprintf(buf, size, "%s:%ld: %s", err->file, err->line, err->text);
    else if (err->file[0] != '\0')
        snprintf(buf, size, "%s: %s", err->file, err->text);
    else
        snprintf(buf, size, "%s", err->text);
}
