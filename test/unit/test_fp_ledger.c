// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of bpf/flashpass/ledger.h, a flow's ledger: the credit ring, its stamps and what it says of a
 * packet, the key, overdue credits, the ACK a credit becomes:
 * against the definitions of the FlashPass paper and of this project's,
 * with values worked out by hand.  Only that part is included: each part
 * of bpf/flashpass.h stands alone.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>

#include "flashpass/ledger.h"

Test(fp_ring, credits_become_usable_in_time_order)
{
	static struct fp_ring r;

	memset(&r, 0, sizeof(r));
	cr_assert(fp_ring_put(&r, 100));
	cr_assert(fp_ring_put(&r, 200));
	cr_assert(fp_ring_put(&r, 300));
	cr_assert_eq(fp_ring_take(&r, 99, 64), 0, "none is due yet");
	cr_assert_eq(fp_ring_take(&r, 200, 64), 2);
	cr_assert_eq(fp_ring_fill(&r), 1);
	cr_assert_eq(fp_ring_take(&r, 1000, 64), 1);
	cr_assert_eq(fp_ring_take(&r, 1000, 64), 0, "empty");
}

Test(fp_ring, due_tells_without_taking)
{
	static struct fp_ring r;

	cr_assert_not(fp_ring_due(&r, 1000), "empty: nothing due");
	cr_assert(fp_ring_put(&r, 100));
	cr_assert_not(fp_ring_due(&r, 99), "not yet");
	cr_assert(fp_ring_due(&r, 100));
	cr_assert(fp_ring_due(&r, 100), "looking takes nothing");
	cr_assert_eq(fp_ring_take_one(&r, 100), 100);
	cr_assert_not(fp_ring_due(&r, 1000), "taken");
}

Test(fp_ring, lag_is_the_oldest_credits_age)
{
	static struct fp_ring r;

	cr_assert_eq(fp_ring_lag_us(&r, 1000), 0, "empty: no lag");
	cr_assert(fp_ring_put(&r, 100));
	cr_assert(fp_ring_put(&r, 300));
	cr_assert_eq(fp_ring_lag_us(&r, 99), 0, "not due yet");
	cr_assert_eq(fp_ring_lag_us(&r, 100), 0, "due just now");
	cr_assert_eq(fp_ring_lag_us(&r, 450), 350, "the oldest, not the newest");
	cr_assert_eq(fp_ring_take_one(&r, 450), 100);
	cr_assert_eq(fp_ring_lag_us(&r, 450), 150);
	r.tail = r.head = 0xfffffffeU; /* counters and stamps across their wrap */
	cr_assert(fp_ring_put(&r, 0xfffffff0U));
	cr_assert_eq(fp_ring_lag_us(&r, 0x10), 0x20);
}

Test(fp_ring, a_release_expires_the_credits_well_before_it)
{
	static struct fp_ring r;

	cr_assert(fp_ring_put(&r, 1000));
	cr_assert(fp_ring_put(&r, 1899));
	cr_assert(fp_ring_put(&r, 1900), "within the slack of the release's stamp");
	cr_assert(fp_ring_put(&r, 2000), "the release's own");
	cr_assert_eq(fp_ring_take(&r, fp_expire_before(2000), FP_RING), 2);
	cr_assert_eq(fp_ring_oldest(&r), 1900);
	cr_assert_eq(fp_ring_take(&r, fp_expire_before(50), FP_RING), 0,
		     "serial arithmetic: a stamp after the wrap expires nothing newer");
}

Test(fp_ring, banked_credits_tell_a_lost_packet_from_one_in_flight)
{
	const __u32 off[] = { 500, 1900, 2600, 5000 };

	cr_assert_eq(fp_ring_says(off, 4, 1900), FP_RING_CREDITED);
	cr_assert_eq(fp_ring_says(off, 4, 1950), FP_RING_CREDITED, "T_wait moved by 50 us");
	cr_assert_eq(fp_ring_says(off, 4, 400), FP_RING_CREDITED, "just before the first");
	cr_assert_eq(fp_ring_says(off, 4, 3500), FP_RING_LOST, "1.5 ms before a banked one");
	cr_assert_eq(fp_ring_says(off, 4, 2300), FP_RING_LOST, "none within 100 us of it");
	cr_assert_eq(fp_ring_says(off, 4, 4500), FP_RING_UNKNOWN,
		     "the newest came only 500 us after: this one may still come");
	cr_assert_eq(fp_ring_says(off, 4, 6000), FP_RING_UNKNOWN, "after every banked one");
	cr_assert_eq(fp_ring_says(off, 0, 100), FP_RING_UNKNOWN, "nothing banked");
	cr_assert_eq(fp_ring_says(off, 4, 0xfffffff0U), FP_RING_UNKNOWN, "no overflow");
}

Test(fp_ring, a_credit_is_overdue_an_rtt_and_a_queue_later)
{
	/* 20 ms RTT, 100 Mbit/s (7706 packets/s): 20 + 5 + 1 + 2.076 ms */
	cr_assert_eq(fp_credit_overdue_us(20000000, 7706), 28076);
	cr_assert_eq(fp_credit_overdue_us(0, 7706), 1000 + 2076, "no RTT yet: the queue");
	cr_assert_eq(fp_credit_overdue_us(20000000, 0), 26000, "no rate: no queue term");
	cr_assert_eq(fp_credit_overdue_us(~0ULL, 1), 0x7fffffffU, "bounded");
}

Test(fp_marking, in_flight_is_at_most_an_overdue_time_of_packets)
{
	cr_assert_eq(fp_emu_in_flight(100, 60, 10, 7706, 28076), 30);
	cr_assert_eq(fp_emu_in_flight(100, 90, 20, 7706, 28076), 0,
		     "more credited and lost than sent");
	/* 2200 sent at the start, no credit: 7706/s for 28 ms is 216 */
	cr_assert_eq(fp_emu_in_flight(2200, 0, 0, 7706, 28076), 217);
	cr_assert(!fp_over_provisioned(fp_emu_in_flight(2200, 0, 0, 7706, 28076), 102, 1000),
		  "a bulk flow with no credit yet keeps asking at normal priority");
	cr_assert_eq(fp_emu_in_flight(5, 0, 0, 0, 28076), 1, "no rate: one");
}

Test(fp_ring, full_ring_refuses_and_take_is_bounded)
{
	static struct fp_ring r;
	__u32 i;

	memset(&r, 0, sizeof(r));
	for (i = 0; i < FP_RING - FP_RING_SLACK; i++)
		cr_assert(fp_ring_put(&r, 10 + i));
	cr_assert_not(fp_ring_put(&r, 5000), "full: the credit is refused, none overwritten");
	cr_assert_eq(r.head, FP_RING - FP_RING_SLACK, "a refusal reserves nothing");
	cr_assert_eq(fp_ring_take(&r, 100000, 64), 64, "at most max per call");
	cr_assert_eq(r.at[0], 0, "taken slots are cleared");
	cr_assert(fp_ring_put(&r, 6000), "room again");
}

Test(fp_ring, counters_wrap_around)
{
	static struct fp_ring r;
	__u32 n = 0;

	memset(&r, 0, sizeof(r));
	r.head = r.tail = 0xFFFFFFFEU; /* two slots before the counters wrap */
	for (int i = 0; i < 5; i++)
		cr_assert(fp_ring_put(&r, 0xFFFFFFF0U + i), "stamps wrap too"); /* and 0 -> 1 */
	cr_assert_eq(fp_ring_fill(&r), 5, "head wrapped past tail: fill still 5");
	n = fp_ring_take(&r, 0xFFFFFFF2U, 64);
	cr_assert_eq(n, 3);
	n = fp_ring_take(&r, 10, 64);
	cr_assert_eq(n, 2, "the rest after the stamp wrap");
	cr_assert_eq(r.tail, 3);
	cr_assert_eq(fp_ring_put(&r, 0), 1);
	cr_assert_eq(r.at[3 & (FP_RING - 1)], 1, "a 0 stamp is stored as 1: 0 is an empty slot");
}

Test(fp_ring, unfilled_slot_stops_the_consumer)
{
	static struct fp_ring r;

	memset(&r, 0, sizeof(r));
	fp_ring_put(&r, 100);
	r.head++; /* a producer reserved slot 1 but has not written it */
	cr_assert_eq(fp_ring_take(&r, 1000, 64), 1);
	cr_assert_eq(r.tail, 1, "waits at the reserved slot");
}

/* fe80::/10: fe80:: to febf:ffff:...; the key takes the interface only then */
Test(fp_key, link_local_flows_are_scoped_by_their_interface)
{
	const char *ll[] = { "fe80::1", "febf:ffff::1" },
		   *other[] = { "fec0::1", "fe7f::1", "fd00::1", "::ffff:10.0.0.1" };
	struct fp_key k;

	for (size_t i = 0; i < 2; i++) {
		memset(&k, 0, sizeof(k));
		cr_assert_eq(inet_pton(AF_INET6, ll[i], k.daddr), 1);
		fp_key_scope(&k, 7);
		cr_assert_eq(k.scope, 7, "%s: link-local", ll[i]);
	}
	for (size_t i = 0; i < 4; i++) {
		memset(&k, 0, sizeof(k));
		cr_assert_eq(inet_pton(AF_INET6, other[i], k.daddr), 1);
		fp_key_scope(&k, 7);
		cr_assert_eq(k.scope, 0, "%s: not link-local", other[i]);
	}
}

/* A credit left in the ring of a flow idle past the stamps' wrap. */
Test(fp_ring, credits_before_a_long_gap_are_stale_and_dropped)
{
	static struct fp_ring r;
	__u32 then = 1000, now_us = then + 0x80000010U; /* 2^31 us and more later */

	memset(&r, 0, sizeof(r));
	fp_ring_mark(&r, 0);
	cr_assert(fp_ring_put(&r, then) && fp_ring_put(&r, then + 10));
	cr_assert_not(fp_ring_due(&r, now_us), "before: the old stamp reads as in the future");
	cr_assert_eq(fp_ring_take(&r, now_us, 8), 0, "and blocks the ring");
	fp_ring_mark(&r, FP_RING_STALE_NS + 1); /* the next credit, after the gap */
	cr_assert(fp_ring_put(&r, now_us + 5));
	cr_assert(fp_ring_is_stale(&r));
	cr_assert(fp_ring_due(&r, now_us), "a release wakes the CC to drop them");
	cr_assert(fp_ring_drop_one(&r) && fp_ring_drop_one(&r), "the two old ones go");
	cr_assert_not(fp_ring_drop_one(&r), "not the new one");
	cr_assert_not(fp_ring_is_stale(&r));
	cr_assert_eq(fp_ring_take(&r, now_us + 5, 8), 1, "which is taken at its time");
}

Test(fp_ring, the_mark_follows_the_tail_without_gaps)
{
	static struct fp_ring r;
	__u32 i;

	memset(&r, 0, sizeof(r));
	r.head = r.tail = r.stale = 0xfffffff0U; /* the counters wrap too */
	for (i = 0; i < 64; i++) {
		fp_ring_mark(&r, 1000);
		cr_assert(fp_ring_put(&r, 100 + i));
		cr_assert_not(fp_ring_is_stale(&r), "credit %u", i);
		cr_assert_eq(fp_ring_take(&r, 100 + i, 1), 1);
	}
}

/* The ACK a credit becomes, from a template of the peer's last pure ACK
 * (seq 1000, ack 5000, window 100, tsval 70) and the socket's state. */
struct ack_fields {
	__u32 seq, ack, tsval;
	__u16 win;
	int ret;
};

static struct ack_fields ack_now(const struct fp_sock_now *s)
{
	struct ack_fields a = { .seq = 1000, .ack = 5000, .tsval = 70, .win = 100 };

	a.ret = fp_ack_now(&a.seq, &a.ack, &a.win, &a.tsval, s);
	return a;
}

Test(fp_ack, is_what_the_socket_holds_now_not_the_peers_last_pure_ack)
{
	/* the peer sent 400 bytes since its last pure ACK (ours acknowledged
	 * them), acknowledged 3000 more of ours, opened its window, and its
	 * clock moved on */
	struct fp_sock_now s = { .rcv_nxt = 1400,
				 .rcv_out = 1400,
				 .out_ok = FP_OUT_ACK,
				 .snd_una = 8000,
				 .wnd_raw = 120,
				 .ts_recent = 95,
				 .ts_ok = 1 };
	struct ack_fields a = ack_now(&s);

	cr_assert_eq(a.ret, 0);
	cr_assert_eq(a.seq, 1400, "the peer's data since: rcv_wup, not the template's 1000");
	cr_assert_eq(a.ack, 8000, "a duplicate of snd_una, not an old ACK");
	cr_assert_eq(a.win, 120, "the window TCP holds: no update");
	cr_assert_eq(a.tsval, 95, "ts_recent: PAWS passes");
}

Test(fp_ack, seq_is_the_later_of_the_last_ack_sent_and_rcv_nxt_seen)
{
	/* the CC saw rcv_nxt before the segment's data was queued; the
	 * egress then saw the socket's ACK of it: TCP's rcv_wup */
	struct fp_sock_now s = {
		.rcv_nxt = 1400, .rcv_out = 2848, .out_ok = FP_OUT_ACK, .wnd_raw = 1
	};

	cr_assert_eq(ack_now(&s).seq, 2848);
	s.out_ok = 0;
	cr_assert_eq(ack_now(&s).seq, 1400, "no ACK of the socket's seen yet: the CC's");
	s = (struct fp_sock_now){
		.rcv_nxt = 0xfffffff0u, .rcv_out = 16, .out_ok = FP_OUT_ACK, .wnd_raw = 1
	};
	cr_assert_eq(ack_now(&s).seq, 16, "across the wrap: 0xfffffff0 is before 16");
	s = (struct fp_sock_now){
		.rcv_nxt = 16, .rcv_out = 0xfffffff0u, .out_ok = FP_OUT_ACK, .wnd_raw = 1
	};
	cr_assert_eq(ack_now(&s).seq, 16, "an older ACK sent does not pull it back");
}

Test(fp_ack, the_timestamp_is_the_later_of_ts_recent_seen_and_echoed)
{
	struct fp_sock_now s = { .wnd_raw = 1 };

	cr_assert_eq(ack_now(&s).tsval, 70, "TCP holds none: the template's");
	s.ts_recent = 60;
	s.ts_ok = 1;
	cr_assert_eq(ack_now(&s).tsval, 60, "TCP's, even behind a template from the wire");
	/* the peer's data that acknowledged nothing new ran no CC, and moved
	 * ts_recent: the socket's echo of it since */
	s.tsecr_out = 64;
	s.out_ok = FP_OUT_TS;
	cr_assert_eq(ack_now(&s).tsval, 64);
	s.tsecr_out = 59;
	cr_assert_eq(ack_now(&s).tsval, 60, "an older echo does not pull it back");
}

Test(fp_ack, none_while_the_window_is_zero_or_not_known)
{
	struct fp_sock_now s = { .rcv_nxt = 1400, .snd_una = 8000, .wnd_raw = 0 };

	cr_assert_eq(ack_now(&s).ret, -1,
		     "an ACK of window 0 would close the window the peer opened since");
	s.wnd_raw = 1;
	cr_assert_eq(ack_now(&s).ret, 0);
}
