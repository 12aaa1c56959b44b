/* alphad P4 reference: headers, metadata and constants (P4_16, TNA / T2NA). */

#ifndef _ALPHAD_REF_HEADERS_P4_
#define _ALPHAD_REF_HEADERS_P4_

/* Register array sizes; keep equal to p4ref/schema.py (MAX_QUEUES, MAX_NIDX, MAX_PORTS). */
#define MAX_QUEUES 1024
#define MAX_NIDX   64
#define MAX_PORTS  256

/* Pipe-local port of the packet generator (Tofino 1: 68; Tofino 2: 6). */
#if __TARGET_TOFINO__ == 2
#define PKTGEN_LOCAL_PORT 6
#else
#define PKTGEN_LOCAL_PORT 68
#endif

const bit<16> ETHERTYPE_IPV4 = 0x0800;
const bit<16> ETHERTYPE_SYNC = 0x88B5;   /* IEEE 802 local experimental EtherType */

const bit<8> KIND_NONE = 0;              /* unmanaged traffic: egress leaves it alone */
const bit<8> KIND_DATA = 1;              /* admitted data packet: record queue depth */
const bit<8> KIND_SYNC = 2;              /* SYNC packet: read queue depth and state */

/* Queue state bits recorded at egress and counted by SYNC packets. */
const bit<8> ST_ACTIVE    = 2;           /* non-empty: counts in gamma = 1/active (FB 5.1) */
const bit<8> ST_CONGESTED = 1;           /* q >= thr_cong: counts in n_p (ABM 3.1) */

header ethernet_h {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

header ipv4_h {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> total_len;
    bit<16> identification;
    bit<3>  flags;
    bit<13> frag_offset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdr_checksum;
    bit<32> src_addr;
    bit<32> dst_addr;
}

/* SYNC packet body: one queue per packet. phase 0 = fresh from the packet generator,
 * phase 1 = back from egress with the queue's depth and state. */
header sync_h {
    bit<16> qidx;
    bit<8>  phase;
    bit<8>  state;
    bit<32> depth;
}

/* Ingress -> egress bridged metadata. */
header bridge_h {
    bit<8>  kind;
    bit<16> qidx;
    bit<32> thr_cong;
}

struct headers_t {
    bridge_h              bridge;
    pktgen_timer_header_t pktgen;
    ethernet_h            ethernet;
    sync_h                sync;
    ipv4_h                ipv4;
}

struct ig_metadata_t {
    /* classification and indexes (set by classify / map_queue / sync_map) */
    bit<5>  queue;
    bit<1>  unsched;      /* first-RTT packet: alpha_unsched (ABM 3.3) */
    bit<16> qidx;         /* per-queue register index = pidx * queues_per_port + queue */
    bit<8>  pidx;         /* port index: active-queue counter */
    bit<8>  aidx;         /* priority index: alpha_p */
    bit<8>  nidx;         /* n_p counter: priority (ABM) or priority group (FB) */
    /* buffer quantities, in buffer units (Tofino cells) */
    bit<32> pkt_units;
    bit<32> qlen;
    bit<32> need;         /* qlen + pkt_units */
    bit<32> rem;          /* B - Q */
    bit<16> np;
    bit<16> act;
    bit<32> nofit;        /* pkt_units |-| rem: non-zero when the pool cannot hold it */
    bit<32> over;         /* need |-| thr: non-zero when q + size > T */
    /* log domain, signed fixed point Q7.8 in bit<16> */
    bit<16> l_alpha;
    bit<16> l_rem;
    bit<16> l_np;
    bit<16> l_g;
    bit<16> s_a;          /* log2(alpha_p * gamma) */
    bit<16> s_b;          /* log2((B - Q) / n_p) */
    bit<16> s;            /* log2(T) */
    bit<32> thr;
    bit<32> thr_cong;
    /* SYNC updates */
    bit<32> old_depth;
    bit<8>  old_state;
    bit<32> delta;
    bit<16> d_act;
    bit<16> d_cong;
}

/* Shared-pool register: sum of the ingress copies of the queue depths, and B. */
struct occupancy_t {
    bit<32> occ;
    bit<32> pool;
}

struct eg_metadata_t {
    bit<32> depth;
    bit<32> gap;          /* thr_cong |-| depth: zero when the queue is congested */
    bit<8>  state;
}

#endif
