/*
 * alphad P4 reference: exact per-packet ABM / FB / DT admission for Tofino (TNA, T2NA).
 *
 *   T = alpha_p * gamma / n_p * (B - Q)            ABM Eq. 9, FB Eq. 4 (DT: gamma = n_p = 1)
 *     = 2 ^ (l_alpha + l_gamma - l_np + l_rem)     no multiply/divide (Protean Eq. 4-5)
 *
 * Ingress admits a data packet iff qlen + size <= T and size <= B - Q. Queue lengths live
 * only in egress (FB 5.1 C1); SYNC packets from the packet generator copy each queue's
 * depth and state (active, congested) from egress to ingress and keep the pool occupancy
 * (sum of the copies), n_p and per-port active counts up to date incrementally (FB 5.1
 * C2). On Tofino 2 a ghost thread also writes each queue's instantaneous depth into
 * ingress.
 *
 * Every register array is accessed at most once per packet. Table contents come from
 * control/p4ref_control.py; model/p4ref/pipeline.py executes this program bit for bit.
 * Build: bf-p4c --target tofino --arch tna alphad_ref.p4
 *        bf-p4c --target tofino2 --arch t2na alphad_ref.p4
 */

#include <core.p4>
#if __TARGET_TOFINO__ == 2
#include <t2na.p4>
#else
#include <tna.p4>
#endif

#include "headers.p4"

/* ------------------------------------------------------------------------------------ */
parser IngressParser(packet_in pkt, out headers_t hdr, out ig_metadata_t ig_md,
                     out ingress_intrinsic_metadata_t ig_intr_md) {
    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        transition select(ig_intr_md.ingress_port[6:0]) {
            PKTGEN_LOCAL_PORT : parse_pktgen;
            default           : parse_ethernet;
        }
    }
    state parse_pktgen {
        pkt.extract(hdr.pktgen);
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.sync);
        transition accept;
    }
    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_IPV4 : parse_ipv4;
            ETHERTYPE_SYNC : parse_sync;
            default        : accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition accept;
    }
    state parse_sync {
        pkt.extract(hdr.sync);
        transition accept;
    }
}

#if __TARGET_TOFINO__ == 2
/* Written by the ghost thread, read by data packets: instantaneous depth per queue. */
Register<bit<32>, bit<16>>(MAX_QUEUES, 0) qlen_gh;
#endif

/* ------------------------------------------------------------------------------------ */
control Ingress(inout headers_t hdr, inout ig_metadata_t ig_md,
                in ingress_intrinsic_metadata_t ig_intr_md,
                in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                inout ingress_intrinsic_metadata_for_tm_t ig_tm_md
#if __TARGET_TOFINO__ == 2
                , in ghost_intrinsic_metadata_t gh_md
#endif
                ) {
    /* ---- registers: ingress copies of the buffer state ---- */
    Register<bit<32>, bit<16>>(MAX_QUEUES, 0) qlen_ig;     /* depth per queue (SYNC) */
    Register<bit<8>, bit<16>>(MAX_QUEUES, 0) qstate;       /* state bits per queue (SYNC) */
    Register<occupancy_t, bit<1>>(1) occupancy;            /* Q and B; control plane sets B */
    Register<bit<16>, bit<8>>(MAX_NIDX, 0) np_reg;         /* n_p per priority / group */
    Register<bit<16>, bit<8>>(MAX_PORTS, 0) active_reg;    /* active queues per port */

#if __TARGET_TOFINO__ != 2
    RegisterAction<bit<32>, bit<16>, bit<32>>(qlen_ig) qlen_read = {   /* Tofino 1: q */
        void apply(inout bit<32> value, out bit<32> rv) { rv = value; }
    };
#endif
    RegisterAction<bit<32>, bit<16>, bit<32>>(qlen_ig) qlen_swap = {   /* read-modify-write */
        void apply(inout bit<32> value, out bit<32> rv) { rv = value; value = hdr.sync.depth; }
    };
    RegisterAction<bit<8>, bit<16>, bit<8>>(qstate) qstate_swap = {    /* read-modify-write */
        void apply(inout bit<8> value, out bit<8> rv) { rv = value; value = hdr.sync.state; }
    };
    RegisterAction<occupancy_t, bit<1>, bit<32>>(occupancy) rem_read = {  /* B |-| Q */
        void apply(inout occupancy_t value, out bit<32> rv) {
            if (value.occ < value.pool) {
                rv = value.pool - value.occ;
            } else {
                rv = 0;
            }
        }
    };
    RegisterAction<occupancy_t, bit<1>, bit<32>>(occupancy) occ_add = {  /* read-modify-write */
        void apply(inout occupancy_t value) { value.occ = value.occ + ig_md.delta; }
    };
    RegisterAction<bit<16>, bit<8>, bit<16>>(np_reg) np_read = {
        void apply(inout bit<16> value, out bit<16> rv) { rv = value; }
    };
    RegisterAction<bit<16>, bit<8>, bit<16>>(np_reg) np_add = {        /* read-modify-write */
        void apply(inout bit<16> value) { value = value + ig_md.d_cong; }
    };
    RegisterAction<bit<16>, bit<8>, bit<16>>(active_reg) act_read = {
        void apply(inout bit<16> value, out bit<16> rv) { rv = value; }
    };
    RegisterAction<bit<16>, bit<8>, bit<16>>(active_reg) act_add = {   /* read-modify-write */
        void apply(inout bit<16> value) { value = value + ig_md.d_act; }
    };
#if __TARGET_TOFINO__ == 2
    RegisterAction<bit<32>, bit<16>, bit<32>>(qlen_gh) qlen_gh_read = {
        void apply(inout bit<32> value, out bit<32> rv) { rv = value; }
    };
#endif

    Counter<bit<64>, bit<16>>(MAX_QUEUES, CounterType_t.PACKETS_AND_BYTES) admitted_ctr;
    Counter<bit<64>, bit<16>>(MAX_QUEUES, CounterType_t.PACKETS_AND_BYTES) dropped_ctr;

    /* ---- forwarding and classification ---- */
    action set_port(PortId_t port) { ig_tm_md.ucast_egress_port = port; }
    action drop_packet() { ig_dprsr_md.drop_ctl = 1; }
    table fwd {
        key = { hdr.ipv4.dst_addr : lpm @name("dst_addr"); }
        actions = { set_port; drop_packet; }
        default_action = drop_packet();
        size = 4096;
    }

    action set_class(bit<5> queue, bit<1> unsched) {
        ig_md.queue = queue;
        ig_md.unsched = unsched;
    }
    table classify {
        key = { hdr.ipv4.diffserv : ternary @name("diffserv"); }
        actions = { set_class; }
        default_action = set_class(0, 0);
        size = 256;
    }

    action set_pkt_units(bit<32> units) { ig_md.pkt_units = units; }
    table pkt_units {
        key = { hdr.ipv4.total_len : exact @name("total_len"); }
        actions = { set_pkt_units; }
        default_action = set_pkt_units(0xFFFF);
        size = 16384;
    }

    action set_queue(QueueId_t qid, bit<16> qidx, bit<8> pidx, bit<8> aidx, bit<8> nidx) {
        ig_tm_md.qid = qid;
        ig_md.qidx = qidx;
        ig_md.pidx = pidx;
        ig_md.aidx = aidx;
        ig_md.nidx = nidx;
    }
    action unmanaged() { }
    table map_queue {
        key = {
            ig_tm_md.ucast_egress_port : exact @name("egress_port");
            ig_md.queue                : exact @name("queue");
        }
        actions = { set_queue; unmanaged; }
        default_action = unmanaged();
        size = MAX_QUEUES;
    }

    /* ---- alpha_p per priority; alpha_unsched for first-RTT packets (ABM 3.3) ---- */
    action set_alpha(bit<16> l) { ig_md.l_alpha = l; }            /* log2(alpha) */
    table alpha_tbl {
        key = {
            ig_md.aidx    : exact @name("aidx");
            ig_md.unsched : exact @name("unsched");
        }
        actions = { set_alpha; }
        default_action = set_alpha(0);
        size = 512;
    }

    /* ---- log tables: ternary on the leading one plus mantissa bits ---- */
    action set_l_rem(bit<16> l) { ig_md.l_rem = l; }              /* log2(B - Q) */
    table log_rem {
        key = { ig_md.rem : ternary @name("rem"); }
        actions = { set_l_rem; }
        default_action = set_l_rem(0xC000);                       /* log2(0) := -64 */
        size = 4096;
    }
    action set_l_np(bit<16> l) { ig_md.l_np = l; }                /* log2(n_p) */
    table log_np {
        key = { ig_md.np : ternary @name("np"); }
        actions = { set_l_np; }
        default_action = set_l_np(0);                             /* DT: n_p = 1 */
        size = 1024;
    }
    action set_l_gamma(bit<16> l) { ig_md.l_g = l; }              /* log2(gamma) = -log2(active) */
    table log_gamma {
        key = { ig_md.act : ternary @name("act"); }
        actions = { set_l_gamma; }
        default_action = set_l_gamma(0);                          /* DT: gamma = 1 */
        size = 512;
    }

    /* ---- exp table: T = 2^s and the congestion level cong_frac * T ---- */
    action set_thr(bit<32> thr, bit<32> thr_cong) {
        ig_md.thr = thr;
        ig_md.thr_cong = thr_cong;
    }
    table exp_tbl {
        key = { ig_md.s : exact @name("s"); }
        actions = { set_thr; }
        default_action = set_thr(0xFFFFFFFF, 0xFFFFFFFF);         /* s >= 32: saturate */
        size = 8192;
    }

    /* ---- SYNC ---- */
    action set_sync_idx(bit<8> pidx, bit<8> nidx) {
        ig_md.pidx = pidx;
        ig_md.nidx = nidx;
    }
    action sync_skip() { ig_dprsr_md.drop_ctl = 1; }
    /* only SYNC packets back from the recirculation port count: a SYNC EtherType
     * arriving on any other port misses and is dropped */
    table sync_map {
        key = {
            hdr.sync.qidx           : exact @name("qidx");
            ig_intr_md.ingress_port : exact @name("ingress_port");
        }
        actions = { set_sync_idx; sync_skip; }
        default_action = sync_skip();
        size = MAX_QUEUES;
    }

    action set_sync_port(PortId_t port) { ig_tm_md.ucast_egress_port = port; }
    table sync_cfg {
        actions = { set_sync_port; }
        default_action = set_sync_port(0);
        size = 1;
    }

    action set_delta(bit<16> d_act, bit<16> d_cong) {
        ig_md.d_act = d_act;
        ig_md.d_cong = d_cong;
    }
    /* (old state, new state) -> change of the active and congested counts */
    table state_delta {
        key = {
            ig_md.old_state : exact @name("old_state");
            hdr.sync.state  : exact @name("new_state");
        }
        actions = { set_delta; }
        default_action = set_delta(0, 0);
        size = 16;
        const entries = {
            (0, 0) : set_delta(0, 0);
            (0, 1) : set_delta(0, 1);
            (0, 2) : set_delta(1, 0);
            (0, 3) : set_delta(1, 1);
            (1, 0) : set_delta(0, 0xFFFF);
            (1, 1) : set_delta(0, 0);
            (1, 2) : set_delta(1, 0xFFFF);
            (1, 3) : set_delta(1, 0);
            (2, 0) : set_delta(0xFFFF, 0);
            (2, 1) : set_delta(0xFFFF, 1);
            (2, 2) : set_delta(0, 0);
            (2, 3) : set_delta(0, 1);
            (3, 0) : set_delta(0xFFFF, 0xFFFF);
            (3, 1) : set_delta(0xFFFF, 0);
            (3, 2) : set_delta(0, 0xFFFF);
            (3, 3) : set_delta(0, 0);
        }
    }

    apply {
        /* every packet reaching egress carries the bridge header; kind says what it is */
        hdr.bridge.setValid();
        hdr.bridge.kind = KIND_NONE;
        hdr.bridge.qidx = 0;
        hdr.bridge.thr_cong = 0;
        if (hdr.pktgen.isValid()) {
            /* SYNC phase 0: fresh from the packet generator, one packet per queue index */
            hdr.sync.qidx = hdr.pktgen.packet_id;
            hdr.sync.phase = 0;
            hdr.pktgen.setInvalid();
            hdr.bridge.kind = KIND_SYNC;
            hdr.bridge.qidx = hdr.sync.qidx;
            sync_cfg.apply();                                     /* -> recirculation port */
        } else if (hdr.sync.isValid()) {
            /* SYNC phase 1: back from egress with depth and state of queue qidx */
            switch (sync_map.apply().action_run) {
                set_sync_idx: {
                    ig_md.old_depth = qlen_swap.execute(hdr.sync.qidx);
                    ig_md.old_state = qstate_swap.execute(hdr.sync.qidx);
                    ig_md.delta = hdr.sync.depth - ig_md.old_depth;
                    state_delta.apply();
                    occ_add.execute(0);                               /* Q += delta */
                    np_add.execute(ig_md.nidx);                       /* n_p += d_cong */
                    act_add.execute(ig_md.pidx);                      /* active += d_act */
                }
            }
            ig_dprsr_md.drop_ctl = 1;                             /* consumed */
        } else if (hdr.ipv4.isValid()) {
            if (fwd.apply().hit) {
                classify.apply();
                pkt_units.apply();
                switch (map_queue.apply().action_run) {
                    set_queue: {
                        alpha_tbl.apply();
#if __TARGET_TOFINO__ == 2
                        ig_md.qlen = qlen_gh_read.execute(ig_md.qidx);
#else
                        ig_md.qlen = qlen_read.execute(ig_md.qidx);
#endif
                        ig_md.need = ig_md.qlen + ig_md.pkt_units;
                        ig_md.rem = rem_read.execute(0);
                        ig_md.np = np_read.execute(ig_md.nidx);
                        ig_md.act = act_read.execute(ig_md.pidx);
                        ig_md.nofit = ig_md.pkt_units |-| ig_md.rem;
                        log_rem.apply();
                        log_np.apply();
                        log_gamma.apply();
                        ig_md.s_a = ig_md.l_alpha + ig_md.l_g;  /* log2(alpha_p * gamma) */
                        ig_md.s_b = ig_md.l_rem - ig_md.l_np;             /* log2((B - Q) / n_p) */
                        ig_md.s = ig_md.s_a + ig_md.s_b;                  /* log2(T), ABM Eq. 9 */
                        if (ig_md.s[15:15] == 1) {                        /* T < 1 unit */
                            ig_md.thr = 0;
                            ig_md.thr_cong = 1;
                        } else {
                            exp_tbl.apply();
                        }
                        ig_md.over = ig_md.need |-| ig_md.thr;
                        if (ig_md.over == 0 && ig_md.nofit == 0) {
                            hdr.bridge.kind = KIND_DATA;
                            hdr.bridge.qidx = ig_md.qidx;
                            hdr.bridge.thr_cong = ig_md.thr_cong;
                            admitted_ctr.count(ig_md.qidx);
                        } else {
                            ig_dprsr_md.drop_ctl = 1;
                            dropped_ctr.count(ig_md.qidx);
                        }
                    }
                }
            }
        }
    }
}

control IngressDeparser(packet_out pkt, inout headers_t hdr, in ig_metadata_t ig_md,
                        in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    apply {
        pkt.emit(hdr.bridge);
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.sync);
        pkt.emit(hdr.ipv4);
    }
}

/* ------------------------------------------------------------------------------------ */
parser EgressParser(packet_in pkt, out headers_t hdr, out eg_metadata_t eg_md,
                    out egress_intrinsic_metadata_t eg_intr_md) {
    state start {
        pkt.extract(eg_intr_md);
        pkt.extract(hdr.bridge);
        transition select(hdr.bridge.kind) {
            KIND_SYNC : parse_sync;
            default   : accept;
        }
    }
    state parse_sync {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.sync);
        transition accept;
    }
}

control Egress(inout headers_t hdr, inout eg_metadata_t eg_md,
               in egress_intrinsic_metadata_t eg_intr_md,
               in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
               inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
               inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    Register<bit<32>, bit<16>>(MAX_QUEUES, 0) qlen_eg;     /* depth per queue, in cells */
    Register<bit<8>, bit<16>>(MAX_QUEUES, 0) state_eg;     /* ST_ACTIVE | ST_CONGESTED */

    RegisterAction<bit<32>, bit<16>, bit<32>>(qlen_eg) qlen_eg_write = {
        void apply(inout bit<32> value) { value = eg_md.depth; }
    };
    RegisterAction<bit<32>, bit<16>, bit<32>>(qlen_eg) qlen_eg_read = {
        void apply(inout bit<32> value, out bit<32> rv) { rv = value; }
    };
    RegisterAction<bit<8>, bit<16>, bit<8>>(state_eg) state_eg_write = {
        void apply(inout bit<8> value) { value = eg_md.state; }
    };
    RegisterAction<bit<8>, bit<16>, bit<8>>(state_eg) state_eg_read = {
        void apply(inout bit<8> value, out bit<8> rv) { rv = value; }
    };

    apply {
        if (hdr.bridge.isValid()) {
            if (hdr.bridge.kind == KIND_DATA) {
                /* FB 5.1 step 7: the packet records the length of its queue */
                eg_md.depth = (bit<32>)eg_intr_md.deq_qdepth;
                eg_md.gap = hdr.bridge.thr_cong |-| eg_md.depth;
                if (eg_md.depth == 0) {
                    eg_md.state = 0;
                } else if (eg_md.gap == 0) {
                    eg_md.state = ST_ACTIVE | ST_CONGESTED;
                } else {
                    eg_md.state = ST_ACTIVE;
                }
                qlen_eg_write.execute(hdr.bridge.qidx);
                state_eg_write.execute(hdr.bridge.qidx);
            } else if (hdr.sync.isValid()) {
                hdr.sync.depth = qlen_eg_read.execute(hdr.sync.qidx);
                hdr.sync.state = state_eg_read.execute(hdr.sync.qidx);
                hdr.sync.phase = 1;                               /* recirculates to ingress */
            }
            hdr.bridge.setInvalid();
        }
    }
}

control EgressDeparser(packet_out pkt, inout headers_t hdr, in eg_metadata_t eg_md,
                       in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.sync);
        pkt.emit(hdr.ipv4);
    }
}

/* ------------------------------------------------------------------------------------ */
#if __TARGET_TOFINO__ == 2
control Ghost(in ghost_intrinsic_metadata_t gh_md) {
    bit<16> gidx;
    RegisterAction<bit<32>, bit<16>, bit<32>>(qlen_gh) qlen_gh_write = {
        void apply(inout bit<32> value) { value = (bit<32>)gh_md.qlength; }
    };
    action set_ghost_idx(bit<16> qidx) { gidx = qidx; }
    action ghost_skip() { gidx = 0; }
    table ghost_map {
        key = { gh_md.qid : exact @name("qid"); }
        actions = { set_ghost_idx; ghost_skip; }
        default_action = ghost_skip();
        size = 2048;
    }
    apply {
        if (ghost_map.apply().hit) {
            qlen_gh_write.execute(gidx);
        }
    }
}

Pipeline(IngressParser(), Ingress(), IngressDeparser(),
         EgressParser(), Egress(), EgressDeparser(), Ghost()) pipe;
#else
Pipeline(IngressParser(), Ingress(), IngressDeparser(),
         EgressParser(), Egress(), EgressDeparser()) pipe;
#endif

Switch(pipe) main;
