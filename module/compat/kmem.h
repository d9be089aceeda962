/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kmem and percpu tracepoints, for memleak.c and slabtop.c, which
 * include this instead of trace/events/kmem.h.  Each MS_*_PROTO is the
 * handler's parameter list on the target kernel, as compat/probe.sh found
 * it in the tree's own trace/events headers, and the handlers are checked
 * against those headers at build time (MS_TP_CHECK(), tracepoints.h).  The bodies use
 * the parameters through the MS_KMEM_* accessors, which name what the
 * event passes on this kernel and a neutral value where it passes nothing.
 * Ranges are mainline's (NOTES.md).
 */
#ifndef _MEMSCOPE_COMPAT_KMEM_H
#define _MEMSCOPE_COMPAT_KMEM_H

#include <linux/slab.h>
#include <trace/events/kmem.h>

/*
 * kmalloc and kmem_cache_alloc: one class with _node twins before 6.1,
 * which 5.19 gave the cache; 6.1 merged the twins (a node argument) and
 * kmem_cache_alloc passes the cache instead of sizes.  Where the _node
 * events do not exist, their handlers take the merged prototype, are
 * never attached (MS_KMEM_NODE_MERGED) and have nothing to be checked
 * against.
 */
#if defined(MS_HAVE_TP_KMEM_CACHE_ALLOC_S)
#define MS_KMALLOC_PROTO \
	void *data, unsigned long call_site, const void *ptr, size_t bytes_req, \
	size_t bytes_alloc, gfp_t gfp_flags, int node
#define MS_KMEM_CACHE_ALLOC_PROTO \
	void *data, unsigned long call_site, const void *ptr, struct kmem_cache *s, \
	gfp_t gfp_flags, int node
#define MS_KMALLOC_NODE_PROTO MS_KMALLOC_PROTO
#define MS_KMEM_CACHE_ALLOC_NODE_PROTO MS_KMEM_CACHE_ALLOC_PROTO
#define MS_KMEM_NODE_MERGED true
#define MS_TP_CHECK_NODE(event, fn) ((void)(fn))
/* The size the caller asked for: the cache's object size. */
#define MS_KMEM_CACHE_ALLOC_BYTES (s ? kmem_cache_size(s) : 0)
#define MS_KMEM_CACHE_ALLOC_CACHE s
#else
#ifdef MS_HAVE_TP_KMEM_ALLOC_CLASS_S
#define MS_KMEM_ALLOC_ARGS unsigned long call_site, const void *ptr, \
	struct kmem_cache *s, size_t bytes_req, size_t bytes_alloc, gfp_t gfp_flags
#define MS_KMEM_CACHE_ALLOC_CACHE s
#else
#define MS_KMEM_ALLOC_ARGS unsigned long call_site, const void *ptr, \
	size_t bytes_req, size_t bytes_alloc, gfp_t gfp_flags
#define MS_KMEM_CACHE_ALLOC_CACHE ((struct kmem_cache *)NULL)
#endif /* MS_HAVE_TP_KMEM_ALLOC_CLASS_S */
#define MS_KMALLOC_PROTO void *data, MS_KMEM_ALLOC_ARGS
#define MS_KMEM_CACHE_ALLOC_PROTO void *data, MS_KMEM_ALLOC_ARGS
#define MS_KMALLOC_NODE_PROTO void *data, MS_KMEM_ALLOC_ARGS, int node
#define MS_KMEM_CACHE_ALLOC_NODE_PROTO void *data, MS_KMEM_ALLOC_ARGS, int node
#define MS_KMEM_NODE_MERGED false
#define MS_TP_CHECK_NODE(event, fn) MS_TP_CHECK(event, fn)
#define MS_KMEM_CACHE_ALLOC_BYTES bytes_req
#endif /* MS_HAVE_TP_KMEM_CACHE_ALLOC_S */

/* kmem_cache_free: the cache from 6.1, its name from 5.12, neither before. */
#if defined(MS_HAVE_TP_KMEM_CACHE_FREE_S)
#define MS_KMEM_CACHE_FREE_PROTO \
	void *data, unsigned long call_site, const void *ptr, const struct kmem_cache *s
/* kmem_cache_size() takes no const; nothing that reads it writes to s. */
#define MS_KMEM_CACHE_FREE_CACHE ((struct kmem_cache *)s)
#elif defined(MS_HAVE_TP_KMEM_CACHE_FREE_NAME)
#define MS_KMEM_CACHE_FREE_PROTO \
	void *data, unsigned long call_site, const void *ptr, const char *name
#define MS_KMEM_CACHE_FREE_CACHE ((struct kmem_cache *)NULL)
#else
#define MS_KMEM_CACHE_FREE_PROTO void *data, unsigned long call_site, const void *ptr
#define MS_KMEM_CACHE_FREE_CACHE ((struct kmem_cache *)NULL)
#endif /* MS_HAVE_TP_KMEM_CACHE_FREE_S, MS_HAVE_TP_KMEM_CACHE_FREE_NAME */

/*
 * Both events pass the cache (6.1): slabtop counts by tracepoint, and the
 * events also cover the _node and _lru variants.  Before, it kprobes the
 * functions, where kmem_cache_alloc_lru() exists from 5.18.
 */
#if defined(MS_HAVE_TP_KMEM_CACHE_ALLOC_S) && defined(MS_HAVE_TP_KMEM_CACHE_FREE_S)
#define MS_SLAB_BY_TRACEPOINT true
#else
#define MS_SLAB_BY_TRACEPOINT false
#endif /* MS_HAVE_TP_KMEM_CACHE_ALLOC_S && MS_HAVE_TP_KMEM_CACHE_FREE_S */
#ifdef MS_HAVE_KMEM_CACHE_ALLOC_LRU
#define MS_HAVE_SLAB_ALLOC_LRU true
#else
#define MS_HAVE_SLAB_ALLOC_LRU false
#endif /* MS_HAVE_KMEM_CACHE_ALLOC_LRU */

/*
 * kmem_cache_alloc_bulk()'s return value as a count of objects: all or
 * nothing from 4.6 (int), a bool before.
 */
#ifdef MS_HAVE_KMEM_CACHE_ALLOC_BULK_BOOL
#define ms_slab_bulk_count(ret, size) ((ret) & 1 ? (int)(size) : 0)
#else
#define ms_slab_bulk_count(ret, size) (ret)
#endif /* MS_HAVE_KMEM_CACHE_ALLOC_BULK_BOOL */

/*
 * percpu_alloc_percpu and percpu_free_percpu (4.13); 6.0 put the call site
 * and sizes first and last.  Without them, the handlers take 6.0's form,
 * are never attached (MS_HAVE_PERCPU_EVENTS) and are not checked.
 */
#ifdef MS_HAVE_TP_PERCPU
#include <trace/events/percpu.h>
#define MS_HAVE_PERCPU_EVENTS true
#define MS_TP_CHECK_PERCPU(event, fn) MS_TP_CHECK(event, fn)
#else
#define MS_HAVE_PERCPU_EVENTS false
#define MS_TP_CHECK_PERCPU(event, fn) ((void)(fn))
#endif /* MS_HAVE_TP_PERCPU */
#if defined(MS_HAVE_TP_PERCPU_CALL_SITE) || !defined(MS_HAVE_TP_PERCPU)
#define MS_PERCPU_ALLOC_PROTO \
	void *data, unsigned long call_site, bool reserved, bool is_atomic, size_t size, \
	size_t align, void *base_addr, int off, void __percpu *ptr, size_t bytes_alloc, \
	gfp_t gfp_flags
#else
#define MS_PERCPU_ALLOC_PROTO \
	void *data, bool reserved, bool is_atomic, size_t size, size_t align, \
	void *base_addr, int off, void __percpu *ptr
#endif /* MS_HAVE_TP_PERCPU_CALL_SITE || !MS_HAVE_TP_PERCPU */
#define MS_PERCPU_FREE_PROTO void *data, void *base_addr, int off, void __percpu *ptr

/*
 * The current kernel stack into store, skip frames (this caller's own
 * included): stack_trace_save() from 5.2, save_stack_trace() before (RHEL
 * 8's 4.18), whose ULONG_MAX end marker is not a frame.
 */
#include <linux/stacktrace.h>
static __always_inline unsigned int ms_stack_save(unsigned long *store, unsigned int size,
						  unsigned int skip)
{
#ifdef MS_HAVE_STACK_TRACE_SAVE
	return stack_trace_save(store, size, skip);
#else
	struct stack_trace t = { .max_entries = size, .entries = store, .skip = skip };

	save_stack_trace(&t);
	if (t.nr_entries && store[t.nr_entries - 1] == ULONG_MAX)
		t.nr_entries--;
	return t.nr_entries;
#endif /* MS_HAVE_STACK_TRACE_SAVE */
}

#endif /* _MEMSCOPE_COMPAT_KMEM_H */
