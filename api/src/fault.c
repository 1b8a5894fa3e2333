/* Fault injection state (fault builds only; see api/include/redscan_fault.h): per kind, a count of points
 * passed since the last arm, the armed point (0 = none) and whether it fired; per live kind, a balance of
 * created/retained minus released objects. Atomics: test_threads runs against a fault build too. */
#ifdef REDSCAN_FAULT_INJECTION
#include <stdatomic.h>

#include "fault.h"
#include "redscan_fault.h"

_Static_assert((int)RS_FAULT_KINDS == (int)REDSCAN_FAULT_KINDS, "fault kinds match");
_Static_assert((int)RS_LIVE_KINDS == (int)REDSCAN_LIVE_KINDS, "live kinds match");

static atomic_ullong rs_fault_passed[RS_FAULT_KINDS];
static atomic_ullong rs_fault_armed[RS_FAULT_KINDS];
static atomic_ullong rs_fault_fires[RS_FAULT_KINDS];
static atomic_long rs_fault_objects[RS_LIVE_KINDS];

int rs_fault_hit(rs_fault_kind kind)
{
    if ((unsigned)kind >= RS_FAULT_KINDS) return 0;
    unsigned long long at = atomic_fetch_add(&rs_fault_passed[kind], 1) + 1;
    if (at != atomic_load(&rs_fault_armed[kind])) return 0;
    atomic_fetch_add(&rs_fault_fires[kind], 1);
    return 1;
}

void rs_fault_track(rs_live_kind kind, int delta)
{
    if ((unsigned)kind < RS_LIVE_KINDS) atomic_fetch_add(&rs_fault_objects[kind], delta);
}

void redscan_fault_arm(redscan_fault_kind kind, uint64_t n)
{
    if ((unsigned)kind >= RS_FAULT_KINDS) return;
    atomic_store(&rs_fault_armed[kind], 0); /* no point may fire while the count restarts */
    atomic_store(&rs_fault_passed[kind], 0);
    atomic_store(&rs_fault_fires[kind], 0);
    atomic_store(&rs_fault_armed[kind], n);
}

uint64_t redscan_fault_count(redscan_fault_kind kind)
{
    return (unsigned)kind < RS_FAULT_KINDS ? atomic_load(&rs_fault_passed[kind]) : 0;
}

uint64_t redscan_fault_fired(redscan_fault_kind kind)
{
    return (unsigned)kind < RS_FAULT_KINDS ? atomic_load(&rs_fault_fires[kind]) : 0;
}

long redscan_fault_live(redscan_live_kind kind)
{
    return (unsigned)kind < RS_LIVE_KINDS ? atomic_load(&rs_fault_objects[kind]) : 0;
}

const char *redscan_fault_kind_name(redscan_fault_kind kind)
{
    static const char *const names[] = {"alloc", "transfer", "build", "launch"};
    return (unsigned)kind < RS_FAULT_KINDS ? names[kind] : "?";
}

const char *redscan_live_kind_name(redscan_live_kind kind)
{
    static const char *const names[] = {"memory", "program", "kernel", "event"};
    return (unsigned)kind < RS_LIVE_KINDS ? names[kind] : "?";
}
#else
/* Normal build: nothing here (ISO C wants a declaration in every translation unit). */
typedef int rs_fault_not_built;
#endif
