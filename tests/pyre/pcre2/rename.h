/*
 * rename.h - forced into pyre's own files (-include) when `make
 * pcre2-diff` builds the grader on PCRE2 (pyre_pcre2.c): pyre's public
 * calls take other names there, so that the grader's calls reach PCRE2
 * while str.lower() (pyre.c, pyre_uni.c) stays pyre's.
 */
#define grader_re_compile pyre_sre_compile
#define grader_re_free pyre_sre_free
#define grader_re_groups pyre_sre_groups
#define grader_re_iter_init pyre_sre_iter_init
#define grader_re_iter_next pyre_sre_iter_next
#define grader_re_iter_release pyre_sre_iter_release
#define grader_re_sub_empty pyre_sre_sub_empty
#define grader_re_may_match pyre_sre_may_match
