// SPDX-License-Identifier: GPL-2.0
/*
 * lib/collect/kernel_probe.c's kallsyms address reader on hand-made files:
 * the addresses the host collector compares function pointers with
 * (bpf/host_app.bpf.h), so a wrong one would mislabel every completion.
 * And its prototype words on hand-made BTF (the two nvmet_req_init of 6.12
 * and 7.3, a tracepoint, a struct member path), and the rule by which a
 * program's prototype fits the kernel's: what keeps a program written for
 * one prototype from being loaded on another.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <errno.h>
#include <bpf/btf.h>

#include "lib/collect/kernel_probe.h"

static char path[64];

static const char *write_syms(const char *text)
{
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/ntp-test-kallsyms-%d", (int)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static const char *const names[] = {
	"blkdev_bio_end_io_async", "aio_complete_rw", "io_complete_rw", "absent_fn", "dup_fn",
};
#define N (int)(sizeof(names) / sizeof(names[0]))

static void ksym_addrs__functions__found_exactly(void **state)
{
	__u64 a[N];

	(void)state;
	write_syms("ffffffff81000000 T _stext\n"
		   "ffffffff8145a0c0 t blkdev_bio_end_io_async\n"
		   "ffffffff81400010 d io_complete_rw\n"          /* data: not a function */
		   "ffffffff81400020 t io_complete_rw\n"
		   "ffffffff813f2230 T aio_complete_rw\n"
		   "ffffffffc0a01230 t aio_complete_rw_x\t[mod]\n"  /* a longer name */
		   "garbage line\n");
	assert_int_equal(ntp_probe__ksym_addrs(path, names, a, N), 0);
	assert_true(a[0] == 0xffffffff8145a0c0ULL);
	assert_true(a[1] == 0xffffffff813f2230ULL);
	assert_true(a[2] == 0xffffffff81400020ULL);
	assert_true(a[3] == 0);
	assert_true(a[4] == 0);
	unlink(path);
}

/* a static name in two files: which one a pointer holds cannot be told */
static void ksym_addrs__ambiguous__zero(void **state)
{
	__u64 a[N];

	(void)state;
	write_syms("ffffffff81000100 t dup_fn\n"
		   "ffffffff81000100 t dup_fn\n"                  /* the same twice: fine */
		   "ffffffff81000200 t aio_complete_rw\n"
		   "ffffffff81000300 t aio_complete_rw\n");
	assert_int_equal(ntp_probe__ksym_addrs(path, names, a, N), 0);
	assert_true(a[4] == 0xffffffff81000100ULL);
	assert_true(a[1] == 0);
	unlink(path);
}

/* kptr_restrict: every address reads as 0, and 0 is "not told" */
static void ksym_addrs__restricted__zero(void **state)
{
	__u64 a[N];

	(void)state;
	write_syms("0000000000000000 t blkdev_bio_end_io_async\n"
		   "0000000000000000 T aio_complete_rw\n");
	assert_int_equal(ntp_probe__ksym_addrs(path, names, a, N), 0);
	assert_true(a[0] == 0 && a[1] == 0);
	unlink(path);
}

static void ksym_addrs__no_file__errno(void **state)
{
	__u64 a[N];

	(void)state;
	a[0] = 1;
	assert_int_equal(ntp_probe__ksym_addrs("/nonexistent/kallsyms", names, a, N), -2);
	assert_true(a[0] == 0);
}

/*
 * BTF with: struct nvmet_req, nvmet_cq, nvmet_sq, nvmet_fabrics_ops; a u16
 * typedef; bool; int; void; and
 *   bool nvmet_req_init(struct nvmet_req *, struct nvmet_cq *, struct nvmet_sq *,
 *                       const struct nvmet_fabrics_ops *)      (or without the cq, v7)
 *   void nvmet_req_complete(struct nvmet_req *, u16)
 *   typedef void (*btf_trace_nvmet_req_complete)(void *, struct nvmet_req *)
 *   struct bpf_link_info { union { struct { struct { u64 missed; } kprobe; } perf_event; }; }
 */
static struct btf *make_btf(bool v7)
{
	struct btf *b = btf__new_empty();
	int req, cq, sq, ops, cops, preq, pcq, psq, pops, u16, boolean, i32, u64, vp, p, fp, tdef;
	int kp, pe, un;

	assert_non_null(b);
	req = btf__add_struct(b, "nvmet_req", 8);
	cq = btf__add_struct(b, "nvmet_cq", 8);
	sq = btf__add_struct(b, "nvmet_sq", 8);
	ops = btf__add_fwd(b, "nvmet_fabrics_ops", BTF_FWD_STRUCT);
	cops = btf__add_const(b, ops);
	preq = btf__add_ptr(b, req);
	pcq = btf__add_ptr(b, cq);
	psq = btf__add_ptr(b, sq);
	pops = btf__add_ptr(b, cops);
	boolean = btf__add_int(b, "_Bool", 1, BTF_INT_BOOL);
	u16 = btf__add_int(b, "unsigned short", 2, 0);
	u16 = btf__add_typedef(b, "u16", u16);
	i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	u64 = btf__add_int(b, "unsigned long long", 8, 0);
	vp = btf__add_ptr(b, 0);

	fp = btf__add_func_proto(b, boolean);
	btf__add_func_param(b, "req", preq);
	if (!v7)
		btf__add_func_param(b, "cq", pcq);
	btf__add_func_param(b, "sq", psq);
	btf__add_func_param(b, "ops", pops);
	btf__add_func(b, "nvmet_req_init", BTF_FUNC_GLOBAL, fp);

	fp = btf__add_func_proto(b, 0);
	btf__add_func_param(b, "req", preq);
	btf__add_func_param(b, "status", u16);
	btf__add_func(b, "nvmet_req_complete", BTF_FUNC_GLOBAL, fp);

	fp = btf__add_func_proto(b, i32);
	btf__add_func_param(b, "cmd", preq);
	btf__add_func_param(b, "last", boolean);
	btf__add_func(b, "try_send", BTF_FUNC_STATIC, fp);

	fp = btf__add_func_proto(b, 0);
	btf__add_func_param(b, "__data", vp);
	btf__add_func_param(b, "req", preq);
	p = btf__add_ptr(b, fp);
	tdef = btf__add_typedef(b, "btf_trace_nvmet_req_complete", p);

	kp = btf__add_struct(b, NULL, 8);
	btf__add_field(b, "missed", u64, 0, 0);
	pe = btf__add_struct(b, NULL, 8);
	btf__add_field(b, "kprobe", kp, 0, 0);
	un = btf__add_union(b, NULL, 8);
	btf__add_field(b, "perf_event", pe, 0, 0);
	btf__add_struct(b, "bpf_link_info", 16);
	btf__add_field(b, "type", i32, 0, 0);
	btf__add_field(b, NULL, un, 64, 0);
	assert_true(tdef > 0 && cq > 0);
	return b;
}

static void btf_func_proto__words__both_nvmet_req_init(void **state)
{
	struct btf *b6 = make_btf(false), *b7 = make_btf(true);
	char buf[256];

	(void)state;
	assert_int_equal(ntp_probe__btf_func_proto(b6, "nvmet_req_init", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "nvmet_req*,nvmet_cq*,nvmet_sq*,nvmet_fabrics_ops*->i1");
	assert_int_equal(ntp_probe__btf_func_proto(b7, "nvmet_req_init", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "nvmet_req*,nvmet_sq*,nvmet_fabrics_ops*->i1");
	assert_int_equal(ntp_probe__btf_func_proto(b7, "nvmet_req_complete", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "nvmet_req*,i2->void");
	assert_int_equal(ntp_probe__btf_func_proto(b7, "try_send", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "nvmet_req*,i1->i4");
	assert_int_equal(ntp_probe__btf_func_proto(b7, "inlined_fn", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(ntp_probe__btf_func_proto(b7, "nvmet_req_init", buf, 10), -E2BIG);
	btf__free(b6);
	btf__free(b7);
}

static void btf_tp_proto__words__without_the_context(void **state)
{
	struct btf *b = make_btf(true);
	char buf[128];

	(void)state;
	assert_int_equal(ntp_probe__btf_tp_proto(b, "nvmet_req_complete", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "nvmet_req*->void");
	assert_int_equal(ntp_probe__btf_tp_proto(b, "nvmet_req_init", buf, sizeof(buf)), -ENOENT);
	btf__free(b);
}

/* a program for 6.12's nvmet_req_init does not fit 7.3's, and 7.3's does not fit 6.12's */
static void proto_fits__changed_prototype__refused(void **state)
{
	static const char v6[] = "nvmet_req*,nvmet_cq*,nvmet_sq*,nvmet_fabrics_ops*->i1";
	static const char v7[] = "nvmet_req*,nvmet_sq*,nvmet_fabrics_ops*->i1";

	(void)state;
	assert_true(ntp_probe__proto_fits("nvmet_req*,nvmet_cq*,nvmet_sq*,nvmet_fabrics_ops*,...", v6));
	assert_false(ntp_probe__proto_fits("nvmet_req*,nvmet_cq*,nvmet_sq*,nvmet_fabrics_ops*,...", v7));
	assert_true(ntp_probe__proto_fits("nvmet_req*,nvmet_sq*,nvmet_fabrics_ops*,...", v7));
	assert_false(ntp_probe__proto_fits("nvmet_req*,nvmet_sq*,nvmet_fabrics_ops*,...", v6));
	/* without "...": the count must be the same (an fexit program reads the return after them) */
	assert_false(ntp_probe__proto_fits("nvmet_req*,nvmet_sq*", v7));
	assert_true(ntp_probe__proto_fits("nvmet_req*,nvmet_sq*,nvmet_fabrics_ops*", v7));
	/* a parameter added after the ones read: fine with "...", not for a return read */
	assert_true(ntp_probe__proto_fits("nvmet_req*,...", "nvmet_req*,i2,i4->void"));
	assert_false(ntp_probe__proto_fits("nvmet_req*,i1->i4", "nvmet_req*,i1,i4->i4"));
	/* the return, when asked */
	assert_true(ntp_probe__proto_fits("nvmet_req*,i1->i4", "nvmet_req*,i1->i4"));
	assert_false(ntp_probe__proto_fits("nvmet_req*,i1->i4", "nvmet_req*,i1->void"));
	/* a word is whole: nvmet_req* is not nvmet_req_x* */
	assert_false(ntp_probe__proto_fits("nvmet_req*,...", "nvmet_req_x*->void"));
	assert_false(ntp_probe__proto_fits("nvmet_req,...", "nvmet_req*->void"));
	/* "*": any pointer, not an integer */
	assert_true(ntp_probe__proto_fits("*,*,...", "io_ring_ctx*,*,io_uring_cqe*->void"));
	assert_false(ntp_probe__proto_fits("*,*,...", "*,i8,i4->void"));
	/* no parameters */
	assert_true(ntp_probe__proto_fits("...", "->void"));
	assert_true(ntp_probe__proto_fits("", "->void"));
	assert_false(ntp_probe__proto_fits("*,...", "->void"));
}

static void btf_member__path__through_anonymous_members(void **state)
{
	struct btf *b = make_btf(true);

	(void)state;
	assert_true(ntp_probe__btf_member(b, "bpf_link_info", "perf_event.kprobe.missed"));
	assert_true(ntp_probe__btf_member(b, "bpf_link_info", "type"));
	assert_false(ntp_probe__btf_member(b, "bpf_link_info", "perf_event.kprobe.cookie"));
	assert_false(ntp_probe__btf_member(b, "bpf_link_info", "perf_event.uprobe"));
	assert_false(ntp_probe__btf_member(b, "no_such_struct", "type"));
	btf__free(b);
}

/* /sys/kernel/debug/sched/preempt: the model in parentheses, whatever the others */
static void preempt_model__the_one_in_parentheses(void **state)
{
	char m[16];

	(void)state;
	assert_int_equal(ntp_probe__preempt_model(write_syms("none voluntary (full) lazy\n"), m,
						  sizeof(m)), 0);
	assert_string_equal(m, "full");
	assert_int_equal(ntp_probe__preempt_model(write_syms("full (lazy)\n"), m, sizeof(m)), 0);
	assert_string_equal(m, "lazy");
	assert_int_equal(ntp_probe__preempt_model(write_syms("none (voluntary) full\n"), m, sizeof(m)),
			 0);
	assert_string_equal(m, "voluntary");
	assert_int_equal(ntp_probe__preempt_model(write_syms("voluntary full\n"), m, sizeof(m)),
			 -EINVAL);
	assert_int_equal(ntp_probe__preempt_model(write_syms("(a-long-model-name)\n"), m, 8), -EINVAL);
	unlink(path);
	assert_int_equal(ntp_probe__preempt_model("/nonexistent/preempt", m, sizeof(m)), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(preempt_model__the_one_in_parentheses),
		cmocka_unit_test(btf_func_proto__words__both_nvmet_req_init),
		cmocka_unit_test(btf_tp_proto__words__without_the_context),
		cmocka_unit_test(proto_fits__changed_prototype__refused),
		cmocka_unit_test(btf_member__path__through_anonymous_members),
		cmocka_unit_test(ksym_addrs__functions__found_exactly),
		cmocka_unit_test(ksym_addrs__ambiguous__zero),
		cmocka_unit_test(ksym_addrs__restricted__zero),
		cmocka_unit_test(ksym_addrs__no_file__errno),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
