/*
 * cmd_import.c - graveyard import: another tool's per-answer log into a
 * rung's rows, graded by the matching task, so runs made with lm-eval or
 * llama.cpp's llama-eval are buried and reported like graveyard's own
 * (docs/import.md).
 *
 * Formats, learnt from their source (docs/import.md names the versions):
 *   lm-eval     --log_samples' samples_<task>_<date>.jsonl: one record per
 *               question per filter (v0.4.3 on; before, one JSON array)
 *   llama-eval  examples/llama-eval's state file: {"id", "task_states":
 *               {"cases": {task_id: {...}}}}
 * Unknown fields are ignored; a missing or mistyped field is one error
 * line naming the file and the record. The rows file is written whole or
 * not at all, and an existing one is never touched.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../grader/grader.h"
#include "../../rundir/files.h"
#include "../../rundir/manifest.h"
#include "../../rundir/outfile.h"
#include "../../rundir/rundir.h"
#include "../base/cli.h"
#include "commands.h"
#include "../base/hash.h"
#include "import.h"
#include "../input/questions.h"
#include "../input/taskfile.h"

static const char import_usage[] =
    "graveyard import FORMAT FILE RUNDIR RUNG [--task NAME|FILE]\n"
    "                        [--question-file FILE]";

static const char import_about[] =
    "Turn another tool's per-answer log into RUNDIR/rows/RUNG.jsonl, graded\n"
    "by the matching task, so bury, report and the rest treat it as a run\n"
    "of graveyard's own. FORMAT is:\n"
    "  lm-eval     lm-eval's --log_samples file, samples_<task>_<date>.jsonl\n"
    "              (gsm8k, gsm8k_cot, gsm8k_cot_zeroshot: the task is read\n"
    "              from the file's name, else give --task)\n"
    "  llama-eval  llama.cpp's examples/llama-eval state file (GSM8K:\n"
    "              task llama-eval-gsm8k)\n";

static const char import_after[] =
    "Prints one JSON line: rung, rows, right, and how often the tool's own\n"
    "recorded extraction and verdict agree with graveyard's rule of the\n"
    "same name. The rows file must not exist yet. Exit status: 0 imported,\n"
    "2 bad input (one line naming the file and the record). docs/import.md\n"
    "says which versions of each tool were read.\n";

int cmd_import(int argc, char **argv)
{
    const char *pos[4], *task_spec = NULL, *qfile = NULL;
    const struct cli_opt opts[] = {
        CLI_STRING("--task", "NAME|FILE", &task_spec,
                   "the task to grade by (docs/tasks.md); a log of lm-eval "
                   "v0.4.0/v0.4.1's gsm8k needs "
                   "tasks/lm-eval-gsm8k-v0.4.1.json, a chat log of a choice "
                   "task tasks/choice-phrasings.json"),
        CLI_STRING("--question-file", "FILE", &qfile,
                   "take each reference from this question file by id "
                   "(llama-eval stores a truncated gold for GSM8K answers "
                   "with a thousands comma)"),
        CLI_END};
    const struct cli_command cmd = {"import",
                                    import_usage,
                                    import_about,
                                    import_after,
                                    opts,
                                    "FORMAT FILE RUNDIR RUNG",
                                    4,
                                    4};
    struct import im;
    struct grader_task *task = NULL, *graded;
    char msg[4400];
    size_t npos;
    int rc;

    if ((rc = cli_parse(&cmd, argc, argv, pos, &npos)) != CLI_GO)
        return rc;
    if (strcmp(pos[0], "lm-eval") && strcmp(pos[0], "llama-eval")) {
        cli_error("import", "format '%s': not lm-eval or llama-eval", pos[0]);
        return EXIT_USAGE;
    }
    if ((rc = cli_rung_name_check("import", pos[3])) != 0)
        return rc;
    if (task_spec == NULL)
        task_spec = strcmp(pos[0], "llama-eval") == 0
                        ? "llama-eval-gsm8k"
                        : import_task_from_name(pos[1]);
    if (task_spec == NULL) {
        import_no_task(pos[1]);
        return EXIT_USAGE;
    }
    if ((task = taskfile_load(task_spec, msg, sizeof(msg))) == NULL) {
        cli_error("import", "--task %s: %s", task_spec, msg);
        return EXIT_USAGE;
    }
    if (grader_task_ref(task) == GRADER_REF_CODE) {
        /* a row of code is graded by its run in the sandbox, which no
         * other tool's log records in a form the grader can check */
        cli_error("import",
                  "--task %s: a code task grades each reply's code as run "
                  "in graveyard's sandbox, which no imported log keeps; "
                  "run the items with graveyard (docs/code.md)",
                  task_spec);
        grader_task_free(task);
        return EXIT_USAGE;
    }
    if (grader_task_ref(task) == GRADER_REF_CALLS) {
        /* lm-eval's and llama-eval's logs keep text, not calls */
        cli_error("import",
                  "--task %s: a tool-call task grades calls, which no "
                  "imported log keeps; run the items with graveyard "
                  "(docs/toolcalls.md)",
                  task_spec);
        grader_task_free(task);
        return EXIT_USAGE;
    }
    graded = import_task_as_logged(task);
    import_init(&im, pos[0], pos[1], pos[2], pos[3], graded);
    im.asked = task;
    rc = qfile != NULL ? import_references(&im, qfile) : 0;
    if (rc == 0)
        rc = strcmp(pos[0], "lm-eval") == 0 ? import_lm_eval(&im)
                                            : import_llama_eval(&im);
    if (rc == 0)
        rc = import_write(&im);
    if (rc == 0)
        import_summary(&im);
    import_release(&im);
    grader_task_free(graded);
    grader_task_free(task);
    return rc;
}
