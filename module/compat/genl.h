/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Generic netlink API differences, for genl.c; included by compat.h.  As
 * there, probes (MS_HAVE_*, probe.sh) decide, and each shim names the
 * mainline range [first, last) that needs it.
 * Copyright (C) 2026 The memscope authors.
 */
#ifndef _MEMSCOPE_COMPAT_GENL_H
#define _MEMSCOPE_COMPAT_GENL_H

#include <linux/capability.h>
#include <net/genetlink.h>

/*
 * [4.4, 4.10): ops and groups are passed at registration, which sets them
 * in the family; the id is GENL_ID_GENERATE, 0.  genl.c fills them in the
 * family as from 4.10, and this passes them on.
 */
#ifdef MS_HAVE_GENL_REGISTER_WITH_OPS
static inline int ms_genl_register_family(struct genl_family *f)
{
	return _genl_register_family_with_ops_grps(f, f->ops, f->n_ops, f->mcgrps, f->n_mcgrps);
}
#else
#define ms_genl_register_family(f) genl_register_family(f)
#endif /* MS_HAVE_GENL_REGISTER_WITH_OPS */

/*
 * [4.4, 5.2): the attribute policy is each operation's; from 5.2 the
 * family's (RHEL 8's 4.18 too), and an op's own would need its own
 * maxattr.  Designated initializers, for the one or the other.
 */
#ifdef MS_HAVE_GENL_FAMILY_POLICY
#define MS_GENL_FAMILY_POLICY(p) .policy = (p),
#define MS_GENL_OP_POLICY(p)
#else
#define MS_GENL_FAMILY_POLICY(p)
#define MS_GENL_OP_POLICY(p) .policy = (p),
#endif /* MS_HAVE_GENL_FAMILY_POLICY */

/*
 * A multicast group only CAP_SYS_ADMIN may join:
 * [6.8, ...)       the group's GENL_MCAST_CAP_SYS_ADMIN flag (Debian's 6.1
 *                  and RHEL 9.6 too);
 * [5.4.y, 6.8)     its cap_sys_admin bit (stable backport; Debian's 5.10);
 * [3.18, 5.2)      the family's mcast_bind(), run by the joining task
 *                  (RHEL 8 too);
 * otherwise none: MS_GENL_MCAST_ADMIN_ONLY is 0, and genl.c registers no
 * groups rather than open them to everyone.
 */
#if defined(GENL_MCAST_CAP_SYS_ADMIN)
#define MS_GENL_MCGRP_ADMIN .flags = GENL_MCAST_CAP_SYS_ADMIN
#define MS_GENL_FAMILY_MCAST_ADMIN
#define MS_GENL_MCAST_ADMIN_ONLY 1
#elif defined(MS_HAVE_GENL_MCGRP_CAP_SYS_ADMIN)
#define MS_GENL_MCGRP_ADMIN .cap_sys_admin = 1
#define MS_GENL_FAMILY_MCAST_ADMIN
#define MS_GENL_MCAST_ADMIN_ONLY 1
#elif defined(MS_HAVE_GENL_MCAST_BIND)
static inline int ms_genl_mcast_bind(struct net *net, int group)
{
	return capable(CAP_SYS_ADMIN) ? 0 : -EPERM;
}
#define MS_GENL_MCGRP_ADMIN
#define MS_GENL_FAMILY_MCAST_ADMIN .mcast_bind = ms_genl_mcast_bind,
#define MS_GENL_MCAST_ADMIN_ONLY 1
#else
#define MS_GENL_MCGRP_ADMIN
#define MS_GENL_FAMILY_MCAST_ADMIN
#define MS_GENL_MCAST_ADMIN_ONLY 0
#endif /* GENL_MCAST_CAP_SYS_ADMIN, MS_HAVE_GENL_MCGRP_CAP_SYS_ADMIN, MS_HAVE_GENL_MCAST_BIND */

/*
 * [4.4, 4.7): no nla_put_u64_64bit(); a u64 attribute was 4-byte aligned,
 * which x86 reads as well.  @pad is the family's padding attribute.
 */
#ifdef MS_HAVE_NLA_PUT_U64_64BIT
#define ms_nla_put_u64(skb, type, v, pad) nla_put_u64_64bit(skb, type, v, pad)
#else
#define ms_nla_put_u64(skb, type, v, pad) nla_put_u64(skb, type, v)
#endif /* MS_HAVE_NLA_PUT_U64_64BIT */

#endif /* _MEMSCOPE_COMPAT_GENL_H */
