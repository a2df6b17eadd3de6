/*
 * commands.h - graveyard's subcommands. Each takes its own argv (argv[0]
 * is the command name) and returns the process exit status.
 */
#ifndef COMMANDS_H
#define COMMANDS_H

int cmd_bury(int argc, char **argv);
int cmd_autopsy(int argc, char **argv);
int cmd_repeat(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_sha256(int argc, char **argv);
int cmd_ladder(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_duel(int argc, char **argv);
int cmd_think(int argc, char **argv);
int cmd_f16range(int argc, char **argv);
int cmd_tensors(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_canary(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_publish(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_init(int argc, char **argv);
int cmd_long(int argc, char **argv);
int cmd_sandbox(int argc, char **argv);

#endif
