/*
 * qload.c - load a question file as graveyard run does (questions.h) and
 * print how many questions it holds: the program questions_bench.py
 * times against a plain Python reader of the same file.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../orchestrator/input/questions.h"

int main(int argc, char **argv)
{
    struct questions qs;
    char msg[1024];

    if (argc != 2) {
        fprintf(stderr, "usage: qload FILE\n");
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
