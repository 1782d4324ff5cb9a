// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of bpf/flashpass/wire.h, the wire format, sequence numbers and the replay window, T and a credit's
 * usable time, admission rates, and the checksums of the pacer's packets:
 * against the definitions of the FlashPass paper and of this project's,
 * with values worked out by hand.  Only that part is included: each part
 * of bpf/flashpass.h stands alone.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <string.h>

#include "csum.h"
#include "flashpass/wire.h"

Test(fp_calibration, usable_at_t_plus_t_wait)
{
	cr_assert_eq(fp_t_wait(0, 20000000ULL), 40000000ULL, "unset: 2 x min RTT");
	cr_assert_eq(fp_t_wait(50000000ULL, 20000000ULL), 50000000ULL, "the tunable when set");
	/* T = 1 s, T_wait 40 ms, arrived after 25 ms: usable at 1.040 s */
	cr_assert_eq(fp_usable_at(1000000000ULL, 40000000ULL, 1025000000ULL), 1040000000ULL);
	/* a credit slower than T_wait is usable when it arrives, not before */
	cr_assert_eq(fp_usable_at(1000000000ULL, 40000000ULL, 1060000000ULL), 1060000000ULL);
}

Test(fp_calibration, a_batch_keeps_its_packets_spacing)
{
	__u64 t = 1000000000ULL; /* the batch's last packet left at 1 s */

	cr_assert_eq(fp_emu_gap_ns(4000), 250000, "4000 packets/s: 250 us apart");
	cr_assert_eq(fp_emu_gap_ns(0), 0, "no rate: no spacing");
	cr_assert_eq(fp_batch_time(t, 250000, 0), t, "the last credit: its own time");
	cr_assert_eq(fp_batch_time(t, 250000, 3), t - 750000, "three back");
	cr_assert_eq(fp_batch_time(t, 0, 15), t, "no rate known: all at the last's time");
	cr_assert_eq(fp_batch_time(500, 250000, 15), 0, "no wrap below the clock's start");
}

Test(fp_calibration, wire_time_expands_across_its_wrap)
{
	__u64 now = 5000000000000ULL; /* 5000 s */
	__u32 t_now = (__u32)(now / 1000);

	cr_assert_eq(fp_time_expand(now, t_now - 20000), now - 20000000ULL, "20 ms ago");
	cr_assert_eq(fp_time_expand(now, t_now + 3000), now + 3000000ULL, "3 ms ahead");
	/* now just past a wrap of the 32-bit us stamp, T just before it */
	now = (1ULL << 32) * 1000 + 5000000ULL; /* 5 ms after the wrap */
	cr_assert_eq(fp_time_expand(now, 0xFFFFFFFFU - 999), (1ULL << 32) * 1000 - 1000000ULL);
	cr_assert_eq(fp_time_expand(1000000ULL, 0xFFFFFFF0U), 0, "before the clock began");
	cr_assert(fp_after_eq(5, 0xFFFFFFF0U), "5 follows a stamp just before the wrap");
	cr_assert_not(fp_after_eq(0xFFFFFFF0U, 5));
}

static enum fp_wire_err check(const void *p, __u32 len, enum fp_type t)
{
	return fp_wire_check(p, len, t);
}

Test(fp_wire, every_malformed_case_is_told_apart)
{
	struct fp_wire w = { .magic = FP_MAGIC,
			     .ver_type = FP_VERSION << 4 | FP_EMULATION,
			     .count = 1 };

	cr_assert_eq(check(&w, FP_WIRE_LEN, FP_EMULATION), FP_WIRE_OK);
	cr_assert_eq(check(&w, FP_WIRE_LEN - 1, FP_EMULATION), FP_WIRE_SHORT);
	cr_assert_eq(check(&w, 0, FP_EMULATION), FP_WIRE_SHORT);
	cr_assert_eq(check(&w, FP_WIRE_LEN + 1, FP_EMULATION), FP_WIRE_LONG);
	cr_assert_eq(check(&w, FP_WIRE_LEN, FP_CREDIT), FP_WIRE_TYPE);
	w.count = 0;
	cr_assert_eq(check(&w, FP_WIRE_LEN, FP_EMULATION), FP_WIRE_COUNT);
	w.count = 1;
	w.ver_type = (FP_VERSION + 1) << 4 | FP_EMULATION;
	cr_assert_eq(check(&w, FP_WIRE_LEN, FP_EMULATION), FP_WIRE_VERSION);
	w.magic = 0;
	cr_assert_eq(check(&w, FP_WIRE_LEN, FP_EMULATION), FP_WIRE_MAGIC);
	cr_assert_eq(sizeof(struct fp_wire), 18, "IPv4 + UDP + fp_wire is a minimum frame");
}

Test(fp_wire, a_credit_stands_for_at_most_a_batch)
{
	struct fp_wire w = { .magic = FP_MAGIC, .ver_type = FP_VERSION << 4 | FP_CREDIT };

	w.count = FP_BATCH_MAX;
	cr_assert_eq(check(&w, FP_WIRE_LEN, FP_CREDIT), FP_WIRE_OK);
	w.count = FP_BATCH_MAX + 1;
	cr_assert_eq(check(&w, FP_WIRE_LEN, FP_CREDIT), FP_WIRE_COUNT);
	w.count = 255;
	cr_assert_eq(check(&w, FP_WIRE_LEN, FP_CREDIT), FP_WIRE_COUNT);
	/* the pacer sends one emulation packet per credit it asks for */
	w.ver_type = FP_VERSION << 4 | FP_EMULATION;
	w.count = 2;
	cr_assert_eq(check(&w, FP_WIRE_LEN, FP_EMULATION), FP_WIRE_COUNT);
}

Test(fp_replay, each_credit_is_taken_once)
{
	struct fp_replay_win w = { 0 };

	/* the first credit sets the window, whatever its number */
	cr_assert_eq(fp_replay_check(&w, 0x90000000u), FP_REPLAY_NEW);
	cr_assert_eq(w.last, 0x90000000u);
	cr_assert_eq(fp_replay_check(&w, 0x90000000u), FP_REPLAY_DUP);
	cr_assert_eq(fp_replay_check(&w, 0x90000001u), FP_REPLAY_NEW);
	cr_assert_eq(fp_replay_check(&w, 0x90000001u), FP_REPLAY_DUP);
	cr_assert_eq(fp_replay_check(&w, 0x90000000u), FP_REPLAY_DUP);
	cr_assert_eq(w.seen, 0x3);
}

Test(fp_replay, reordered_within_the_window)
{
	struct fp_replay_win w = { 0 };

	cr_assert_eq(fp_replay_check(&w, 100), FP_REPLAY_NEW);
	cr_assert_eq(fp_replay_check(&w, 105), FP_REPLAY_NEW); /* 101..104 late */
	cr_assert_eq(w.seen, (1u << 5) | 1u);
	cr_assert_eq(fp_replay_check(&w, 103), FP_REPLAY_NEW);
	cr_assert_eq(fp_replay_check(&w, 103), FP_REPLAY_DUP);
	cr_assert_eq(fp_replay_check(&w, 101), FP_REPLAY_NEW);
	cr_assert_eq(w.last, 105);
	/* the oldest the window holds is last - 31; last - 32 is too old */
	cr_assert_eq(fp_replay_check(&w, 105 - 31), FP_REPLAY_NEW);
	cr_assert_eq(fp_replay_check(&w, 105 - 32), FP_REPLAY_OLD);
}

Test(fp_replay, a_jump_beyond_the_window_starts_it_again)
{
	struct fp_replay_win w = { 0 };

	cr_assert_eq(fp_replay_check(&w, 7), FP_REPLAY_NEW);
	cr_assert_eq(fp_replay_check(&w, 7 + FP_REPLAY_WIN), FP_REPLAY_NEW);
	cr_assert_eq(w.seen, 1u);
	cr_assert_eq(fp_replay_check(&w, 7), FP_REPLAY_OLD);
	/* and across the sequence numbers' wrap */
	w = (struct fp_replay_win){ 0 };
	cr_assert_eq(fp_replay_check(&w, 0xfffffffeu), FP_REPLAY_NEW);
	cr_assert_eq(fp_replay_check(&w, 1), FP_REPLAY_NEW);
	cr_assert_eq(w.seen, (1u << 3) | 1u);
	cr_assert_eq(fp_replay_check(&w, 0xfffffffeu), FP_REPLAY_DUP);
	cr_assert_eq(fp_replay_check(&w, 0xffffffffu), FP_REPLAY_NEW);
}

Test(fp_replay, a_credit_far_ahead_is_not_the_flows)
{
	struct fp_replay_win w = { 0 };

	cr_assert_eq(fp_replay_check(&w, 100), FP_REPLAY_NEW);
	cr_assert_eq(fp_replay_check(&w, 100 + FP_REPLAY_JUMP), FP_REPLAY_AHEAD);
	cr_assert_eq(w.last, 100, "the window did not move");
	cr_assert_eq(fp_replay_check(&w, 101), FP_REPLAY_NEW);
	cr_assert_eq(fp_replay_check(&w, 101 + FP_REPLAY_JUMP - 1), FP_REPLAY_NEW);
}

/* The pacer's IPv6 emulation packets carry a UDP checksum (loader/lib/csum.h):
 * over the pseudo-header (addresses, length, next header), worked by hand. */
struct udp6_case {
	uint8_t src[16], dst[16];
	uint8_t udp[10]; /* ports 1 -> 2, length, check, 2 bytes of payload */
};

static struct udp6_case udp6(uint16_t len, uint8_t p0, uint8_t p1)
{
	struct udp6_case c = { .src[15] = 1, .dst[15] = 2 };
	uint8_t h[] = { 0, 1, 0, 2, 0, (uint8_t)len, 0, 0, p0, p1 };

	memcpy(c.udp, h, sizeof(h));
	return c;
}

Test(csum, rfc1071_example)
{
	/* RFC 1071 1.4: 0001 f203 f4f5 f6f7 sums to 2ddf0, folds to ddf2 */
	const uint8_t b[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };

	cr_assert_eq(csum_add(0, b, sizeof(b)), 0x2ddf0);
	cr_assert_eq(ntohs(csum_fold(csum_add(0, b, sizeof(b)))), (uint16_t)~0xddf2);
	/* an odd last byte is the high half of a word */
	cr_assert_eq(csum_add(0, b, 3), 0x0001 + 0xf200);
}

Test(csum, udp_over_ipv6_pseudo_header)
{
	struct udp6_case c = udp6(8, 0, 0);

	/* ::1 -> ::2, ports 1 -> 2, length 8 (twice: pseudo-header and UDP),
	 * next header 17: 1 + 2 + 8 + 17 + 1 + 2 + 8 = 0x27, ~0x27 = 0xffd8 */
	cr_assert_eq(ntohs(udp_check(c.src, c.dst, 16, c.udp, 8)), 0xffd8);
	memcpy(c.udp + 6, (uint8_t[]){ 0xff, 0xd8 }, 2);
	cr_assert_eq(udp_csum(c.src, c.dst, 16, c.udp, 8), 0, "a correct one sums to 0");
	c.dst[0] = 0xfd;
	cr_assert_neq(udp_csum(c.src, c.dst, 16, c.udp, 8), 0, "the addresses count");
}

Test(csum, a_zero_udp_checksum_is_sent_as_ffff)
{
	/* length 10: 1 + 2 + 10 + 17 + 1 + 2 + 10 = 0x2b; a payload word of
	 * 0xffd4 makes the sum 0xffff, whose complement is 0: "no checksum" */
	struct udp6_case c = udp6(10, 0xff, 0xd4);

	cr_assert_eq(udp_csum(c.src, c.dst, 16, c.udp, 10), 0);
	cr_assert_eq(udp_check(c.src, c.dst, 16, c.udp, 10), 0xffff);
	memcpy(c.udp + 6, (uint8_t[]){ 0xff, 0xff }, 2);
	cr_assert_eq(udp_csum(c.src, c.dst, 16, c.udp, 10), 0, "and 0xffff checks as correct");
}

/* fp_ack_plausible(): an ack of what the socket sent, across the wrap. */
Test(fp_ack, plausible_within_what_was_sent)
{
	const __u32 una = 0xfffffc00U, nxt = 0x400U;

	cr_assert(fp_ack_plausible(una, una, nxt), "acking nothing new");
	cr_assert(fp_ack_plausible(nxt, una, nxt), "acking all that was sent");
	cr_assert_not(fp_ack_plausible(nxt + 1, una, nxt), "acking unsent data");
	cr_assert_not(fp_ack_plausible(una - 1, una, nxt), "before snd_una");
	cr_assert_not(fp_ack_plausible(una + (1U << 30), una, nxt), "2^30 ahead");
	cr_assert_not(fp_ack_plausible(una + (1U << 31), una, nxt), "2^31 ahead");
}

/* fp_sent_end(): the egress's mark only where it is believable. */
Test(fp_ack, what_was_sent_by_the_cc_and_the_egress)
{
	cr_assert_eq(fp_sent_end(1000, 5000), 5000, "sent since the last ACK");
	cr_assert_eq(fp_sent_end(5000, 1000), 5000, "a retransmission's end is older");
	cr_assert_eq(fp_sent_end(0xfffff000U, 0x1000), 0x1000, "across the wrap");
	cr_assert_eq(fp_sent_end(0x90000000U, 0), 0x90000000U,
		     "no mark yet (0): not 2^31 of acks accepted");
	cr_assert_eq(fp_sent_end(1000, 1000 + (1U << 30)), 1000, "2^30 ahead: not believed");
}

/* fp_replay_check_n(): a batch takes all its numbers, or none. */
Test(fp_replay, a_batch_takes_its_numbers)
{
	struct fp_replay_win w = { 0 };

	cr_assert_eq(fp_replay_check_n(&w, 4, 4), FP_REPLAY_NEW, "1..4");
	cr_assert_eq(fp_replay_check_n(&w, 8, 4), FP_REPLAY_NEW, "5..8");
	cr_assert_eq(fp_replay_check_n(&w, 10, 4), FP_REPLAY_DUP, "7..10 claims 7 and 8 again");
	cr_assert_eq(w.last, 8, "a refused batch takes nothing");
	cr_assert_eq(fp_replay_check_n(&w, 9, 1), FP_REPLAY_NEW, "9 is still free");
	cr_assert_eq(fp_replay_check_n(&w, 8, 1), FP_REPLAY_DUP, "8 was the second batch's");
	cr_assert_eq(fp_replay_check_n(&w, 30, 16), FP_REPLAY_NEW, "15..30, a gap before it");
	cr_assert_eq(fp_replay_check_n(&w, 12, 2), FP_REPLAY_NEW, "11..12, late, in the window");
}

Test(fp_replay, a_batch_across_the_wrap)
{
	struct fp_replay_win w = { 0 };

	cr_assert_eq(fp_replay_check_n(&w, 0xfffffffeU, 2), FP_REPLAY_NEW);
	cr_assert_eq(fp_replay_check_n(&w, 2, 4), FP_REPLAY_NEW, "0xffffffff..2");
	cr_assert_eq(fp_replay_check_n(&w, 0xffffffffU, 1), FP_REPLAY_DUP);
}

Test(fp_credit, a_t_ahead_of_this_clock_is_refused)
{
	const __u64 now = 5000000000ULL;

	cr_assert_not(fp_t_in_future(now - 1000, now), "in the past");
	cr_assert_not(fp_t_in_future(now + FP_T_AHEAD_MAX_NS, now), "the pacer's lead");
	cr_assert(fp_t_in_future(now + FP_T_AHEAD_MAX_NS + 1, now));
	cr_assert(fp_t_in_future(fp_time_expand(now, (__u32)(now / 1000) + 2000000000U), now),
		  "33 minutes ahead on the wire");
}

/* fp_rx_admit(): a burst at once, then one an interval; idle time does
 * not save up more than a burst. */
Test(fp_rx, a_burst_then_the_rate)
{
	const __u64 I = 1000, now = 1000000;
	__u64 tat = 0, next, t;
	__u32 i, n = 0;

	for (i = 0; i < 4; i++) {
		next = fp_rx_admit(tat, now, I, 4);
		cr_assert_neq(next, 0, "packet %u of the burst", i);
		tat = next;
	}
	cr_assert_eq(fp_rx_admit(tat, now, I, 4), 0, "the fifth at once is refused");
	/* offered ten an interval for 100 intervals: the burst and 100 */
	for (t = now; t < now + 100 * I; t += I / 10) {
		next = fp_rx_admit(tat, t, I, 4);
		if (next) {
			tat = next;
			n++;
		}
	}
	cr_assert_eq(n, 100, "admitted %u after the burst", n);
	/* a long silence: the next burst is again 4, not more */
	t = now + 1000 * I;
	for (i = 0; i < 4; i++)
		cr_assert_neq(tat = fp_rx_admit(tat, t, I, 4), 0);
	cr_assert_eq(fp_rx_admit(tat, t, I, 4), 0);
}

/* fp_gcra_take(): as fp_rx_admit() a packet at a time; of two, the one
 * the burst still has room for. */
Test(fp_loop, gcra_takes_what_the_burst_allows)
{
	const __u64 I = 1000, now = 1000000;
	__u64 tat = 0;

	cr_assert_eq(fp_gcra_take(&tat, now, I, 5, 2), 2);
	cr_assert_eq(fp_gcra_take(&tat, now, I, 5, 2), 2, "two pairs at once");
	cr_assert_eq(fp_gcra_take(&tat, now, I, 5, 2), 1, "the fifth alone");
	cr_assert_eq(fp_gcra_take(&tat, now, I, 5, 2), 0, "then none");
	cr_assert_eq(tat, now + 5 * I);
	cr_assert_eq(fp_gcra_take(&tat, now + I, I, 5, 2), 1, "an interval on: one");
	cr_assert_eq(fp_gcra_take(&tat, now, I, 5, 0), 0, "none asked");
}
