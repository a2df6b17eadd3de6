/*
 * rename.h - forced into pyre's own files (-include) when `make
 * pcre2-diff` builds the grader on PCRE2 (pyre_pcre2.c): pyre's public
 * calls take other names there, so that the grader's calls reach PCRE2
 * while str.lower() (pyre.c, pyre_uni.c) stays pyre's.
 */
#define pyre_compile pyre_sre_compile
#define pyre_free pyre_sre_free
#define pyre_groups pyre_sre_groups
#define pyre_iter_init pyre_sre_iter_init
#define pyre_iter_next pyre_sre_iter_next
#define pyre_iter_release pyre_sre_iter_release
#define pyre_sub_empty pyre_sre_sub_empty
#define pyre_may_match pyre_sre_may_match
