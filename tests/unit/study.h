/*
 * study.h - the T4 article's ladder as rows can be built for it: the nine
 * rungs, and per rung the right / dead / ghosts the article reports. Which
 * questions those are is fixed by study_right, so that test_grader_bury
 * (the bury lines) and test_grader_ladder (the report's figures) test the
 * same ladder.
 */
#ifndef TEST_STUDY_H
#define TEST_STUDY_H

#include <stddef.h>

#define NQ 250
static const char *const ladder[] = {"BF16",   "F16",    "Q8_0",
                                     "Q6_K",   "Q5_K_M", "Q4_K_M",
                                     "Q4_0",   "Q3_K_M", "Q2_K"};
#define NR (sizeof(ladder) / sizeof(ladder[0]))

/* The T4 article's table: right, dead, ghosts per rung. */
static const int study[NR][3] = {{229, 0, 0},  {229, 1, 1},  {227, 4, 2},
                                 {229, 4, 4},  {231, 3, 5},  {224, 9, 4},
                                 {222, 15, 8}, {191, 42, 4}, {3, 226, 0}};

/*
 * Whether rung i answers question q right: the reference gets questions
 * 0..228 right; rung i kills study[i][1] of them starting at an offset of
 * 7*i (so the rungs' dead overlap only in part) and raises study[i][2] of
 * the 21 it gets wrong.
 */
static inline int study_right(size_t i, size_t q)
{
    if (q < 229) {
        size_t k = (q + 229 - (7 * i) % 229) % 229;
        return k >= (size_t)study[i][1];
    }
    return q - 229 < (size_t)study[i][2];
}

#endif
