/* Name tables for algorithms and backends (api/src/names.c). */
#ifndef REDSCAN_NAMES_H
#define REDSCAN_NAMES_H

#include <stddef.h>

#include "redscan.h"

typedef enum { RS_NAMES_REDUCE, RS_NAMES_BLOCK, RS_NAMES_GRID, RS_NAMES_BACKEND } rs_name_kind;

const char *const *rs_names(rs_name_kind kind); /* NULL-terminated, index = enum value */
int rs_name_count(rs_name_kind kind);
int rs_name_parse(rs_name_kind kind, const char *text); /* enum value, or -1; case-insensitive */
void rs_name_list(rs_name_kind kind, char *buf, size_t size); /* "a|b|c" */

#endif
