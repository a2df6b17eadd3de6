/*
 * qload.c - load a question file as graveyard run does (questions.h) and
 * print how many questions it holds: the program questions_bench.py
 * times against a plain Python reader of the same file. With --long MODE
 * it reads long items ("answers" references) as the runner does (render:
 * each long item's prompt made once, questions_load_as) or as the
 * report's pages do (texts: none made, questions_load_texts), and prints
 * the count and the load's seconds (longctx_bench.py compares the two).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../orchestrator/input/questions.h"

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    struct questions qs;
    char msg[1024];
    int render = 0, rc;
    double t0;

    if (argc == 4 && strcmp(argv[1], "--long") == 0 &&
        (strcmp(argv[2], "render") == 0 || strcmp(argv[2], "texts") == 0)) {
        render = strcmp(argv[2], "render") == 0;
        t0 = now();
        rc = render ? questions_load_as(argv[3], 0, GRADER_REF_ANSWERS, &qs,
                                        msg, sizeof(msg))
                    : questions_load_texts(argv[3], 0, GRADER_REF_ANSWERS, &qs,
                                           msg, sizeof(msg));
        if (rc != 0) {
            fprintf(stderr, "%s\n", msg);
            return 2;
        }
        printf("%zu %.6f\n", qs.n, now() - t0);
        questions_release(&qs);
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr,
                "usage: qload FILE | qload --long render|texts FILE\n");
        return 2;
    }
    if (questions_load(argv[1], 0, &qs, msg, sizeof(msg)) != 0) {
        fprintf(stderr, "%s\n", msg);
        return 2;
    }
    printf("%zu\n", qs.n);
    questions_release(&qs);
    return 0;
}
