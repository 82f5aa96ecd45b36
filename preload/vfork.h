/* preload/vfork.h - vfork as vfork, and memory that a vfork child may take.
 *
 * A real vfork child shares this process's memory (and runs on the
 * caller's stack) until it execs or exits; the exec wrappers run in it.
 * They take no lock and call no malloc; what they map for the new
 * program's arguments or environment (pd_scratch_map) outlives the child
 * in the parent's address space when the exec succeeds, so the parent
 * unmaps it when vfork returns there (wrap_vfork.c). */
#ifndef PALDRON_PRELOAD_VFORK_H
#define PALDRON_PRELOAD_VFORK_H

#include <stddef.h>

/* Anonymous read-write memory of len bytes (NULL with errno ENOMEM). */
void *pd_scratch_map(size_t len);

/* Give back what pd_scratch_map returned. */
void pd_scratch_unmap(void *p, size_t len);

#endif
