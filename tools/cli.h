/* redscan command-line tool: shared declarations (tools/redscan.c, tools/info.c, tools/bench.c). */
#ifndef REDSCAN_CLI_H
#define REDSCAN_CLI_H

#include <stdio.h>

/* Exit status for bad command-line arguments (usage printed on stderr). */
#define CLI_EXIT_USAGE 2

/* Print the whole usage text to f. */
void cli_usage(FILE *f);

/* 1 when the context's device (backend name and redscan_device_name) is an OpenCL CPU device such as PoCL's,
 * 0 when it is not, -1 when unknown (built without OpenCL, no match). Uses the OpenCL API (tools/info.c). */
int cli_device_is_cpu(const char *backend, const char *device_name);

/* Subcommands: argv[0] is the subcommand name; return the process exit status. */
int cli_info(int argc, char **argv);
int cli_bench(int argc, char **argv);
int cli_first_result(int argc, char **argv); /* tools/first_result.c */
/* reduce | mean | argmin | argmax | topk | scan FILE (tools/cli_data.c); argv[0] is the command */
int cli_data(int argc, char **argv);
/* The program cache section of `redscan info` (tools/cache_info.c). */
void cli_print_program_cache(void);

#endif /* REDSCAN_CLI_H */
