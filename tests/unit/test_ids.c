// SPDX-License-Identifier: GPL-2.0
/*
 * lib/record/record_ids.c on trees made here as the kernel lays them out:
 * /sys/class/nvme (a TCP controller with src_addr, an RDMA one with
 * host_traddr, a PCIe one, and entries that are no controller), nvmet's
 * configfs (two subsystems, namespaces, a port linked to both, a port
 * linked to none) and nvmet's debugfs (a controller with its host NQN).
 * Every field read is the file's line; absent files are NULL.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/record/record_ids.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[512], *p;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	if (text) {
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fprintf(f, "%s\n", text);
		fclose(f);
	} else {
		mkdir(path, 0755);
	}
}

/* root/rel, in one of four buffers: a call may take two */
static char *at(const char *rel)
{
	static char path[4][512];
	static int k;

	k = (k + 1) % 4;
	snprintf(path[k], sizeof(path[k]), "%s/%s", root, rel);
	return path[k];
}

static int setup(void **state)
{
	snprintf(root, sizeof(root), "/tmp/ntprof-ids-XXXXXX");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

static const struct ntp_nvmf_id *row(const struct ntp_nvmf_ids *ids, const char *object,
				     const char *name, const char *subsysnqn)
{
	for (size_t i = 0; i < ids->n; i++)
		if (!strcmp(ids->v[i].object, object) && !strcmp(ids->v[i].name, name) &&
		    (!subsysnqn || (ids->v[i].subsysnqn && !strcmp(ids->v[i].subsysnqn, subsysnqn))))
			return &ids->v[i];
	return NULL;
}

static void host__controllers__every_field_read(void **state)
{
	struct ntp_nvmf_ids ids = { 0 };
	const struct ntp_nvmf_id *c;

	put("nvme/nvme0/subsysnqn", "nqn.2024-01.io.ntprof:tcp");
	put("nvme/nvme0/transport", "tcp");
	put("nvme/nvme0/address", "traddr=10.0.0.2,trsvcid=4420,src_addr=10.0.0.1");
	put("nvme/nvme0/hostnqn", "nqn.2014-08.org.nvmexpress:uuid:host-a");
	put("nvme/nvme0/cntlid", "7");
	put("nvme/nvme1/subsysnqn", "nqn.2024-01.io.ntprof:rdma");
	put("nvme/nvme1/transport", "rdma");
	put("nvme/nvme1/address", "traddr=192.168.1.5,trsvcid=4421,host_traddr=192.168.1.4");
	put("nvme/nvme1/hostnqn", "nqn.2014-08.org.nvmexpress:uuid:host-a");
	put("nvme/nvme1/cntlid", "65519");
	put("nvme/nvme2/transport", "pcie");
	put("nvme/nvme2/address", "0000:00:04.0");
	put("nvme/nvme-fabrics/dev", "10:122");
	put("nvme/nvme3x/transport", "tcp");
	assert_int_equal(ntp_nvmf_ids__read_host(&ids, at("nvme")), 0);
	assert_int_equal(ids.n, 3);

	c = row(&ids, "controller", "nvme0", NULL);
	assert_non_null(c);
	assert_string_equal(c->side, "host");
	assert_string_equal(c->subsysnqn, "nqn.2024-01.io.ntprof:tcp");
	assert_string_equal(c->transport, "tcp");
	assert_string_equal(c->traddr, "10.0.0.2");
	assert_string_equal(c->trsvcid, "4420");
	assert_string_equal(c->host_traddr, "10.0.0.1");
	assert_string_equal(c->hostnqn, "nqn.2014-08.org.nvmexpress:uuid:host-a");
	assert_int_equal(c->cntlid, 7);
	assert_int_equal(c->nsid, -1);
	assert_null(c->device);

	c = row(&ids, "controller", "nvme1", NULL);
	assert_non_null(c);
	assert_string_equal(c->traddr, "192.168.1.5");
	assert_string_equal(c->trsvcid, "4421");
	assert_string_equal(c->host_traddr, "192.168.1.4");
	assert_int_equal(c->cntlid, 65519);

	/* PCIe: its address is a PCI address, no NQN file: NULL */
	c = row(&ids, "controller", "nvme2", NULL);
	assert_non_null(c);
	assert_string_equal(c->traddr, "0000:00:04.0");
	assert_null(c->trsvcid);
	assert_null(c->subsysnqn);
	assert_int_equal(c->cntlid, -1);
	assert_true(ntp_nvmf_ids__has(&ids, c));
	ntp_nvmf_ids__free(&ids);
}

static void host__no_class_dir__nothing(void **state)
{
	struct ntp_nvmf_ids ids = { 0 };

	assert_int_equal(ntp_nvmf_ids__read_host(&ids, at("absent")), 0);
	assert_int_equal(ids.n, 0);
	ntp_nvmf_ids__free(&ids);
}

static void target__configfs_and_debugfs__every_object(void **state)
{
	struct ntp_nvmf_ids ids = { 0 }, again = { 0 };
	const struct ntp_nvmf_id *r;
	char link[512];

	put("cfs/subsystems/nqn.a/namespaces/1/device_path", "/dev/nullb0");
	put("cfs/subsystems/nqn.a/namespaces/2/device_path", "/var/tmp/img");
	put("cfs/subsystems/nqn.a/attr_allow_any_host", "1");
	put("cfs/subsystems/nqn.b/namespaces", NULL);
	put("cfs/ports/1/addr_trtype", "tcp");
	put("cfs/ports/1/addr_traddr", "127.0.0.1");
	put("cfs/ports/1/addr_trsvcid", "4420");
	put("cfs/ports/1/subsystems", NULL);
	put("cfs/ports/2/addr_trtype", "rdma");
	put("cfs/ports/2/addr_traddr", "10.1.1.1");
	put("cfs/ports/2/addr_trsvcid", "4421");
	put("cfs/ports/2/subsystems", NULL);
	snprintf(link, sizeof(link), "%s/cfs/ports/1/subsystems/nqn.a", root);
	assert_int_equal(symlink(at("cfs/subsystems/nqn.a"), link), 0);
	snprintf(link, sizeof(link), "%s/cfs/ports/1/subsystems/nqn.b", root);
	assert_int_equal(symlink(at("cfs/subsystems/nqn.b"), link), 0);
	put("dbg/nqn.a/ctrl3/hostnqn", "nqn.2014-08.org.nvmexpress:uuid:host-b");
	put("dbg/nqn.a/ctrl3/host_traddr", "127.0.0.1");
	put("dbg/nqn.a/ctrl3/port", "1");
	put("dbg/nqn.a/queues", NULL);

	assert_int_equal(ntp_nvmf_ids__read_target(&ids, at("cfs"), at("dbg")), 0);
	/* 2 subsystems, 2 namespaces, port 1 twice (two links), port 2 once, 1 controller */
	assert_int_equal(ids.n, 8);
	for (size_t i = 0; i < ids.n; i++)
		assert_string_equal(ids.v[i].side, "target");
	assert_non_null(row(&ids, "subsystem", "nqn.a", "nqn.a"));
	assert_non_null(row(&ids, "subsystem", "nqn.b", "nqn.b"));
	r = row(&ids, "namespace", "1", "nqn.a");
	assert_non_null(r);
	assert_int_equal(r->nsid, 1);
	assert_string_equal(r->device, "/dev/nullb0");
	r = row(&ids, "namespace", "2", "nqn.a");
	assert_non_null(r);
	assert_string_equal(r->device, "/var/tmp/img");
	r = row(&ids, "port", "1", "nqn.b");
	assert_non_null(r);
	assert_string_equal(r->port, "1");
	assert_string_equal(r->transport, "tcp");
	assert_string_equal(r->traddr, "127.0.0.1");
	assert_string_equal(r->trsvcid, "4420");
	assert_non_null(row(&ids, "port", "1", "nqn.a"));
	r = row(&ids, "port", "2", NULL);
	assert_non_null(r);
	assert_null(r->subsysnqn);
	assert_string_equal(r->transport, "rdma");
	r = row(&ids, "controller", "ctrl3", "nqn.a");
	assert_non_null(r);
	assert_int_equal(r->cntlid, 3);
	assert_string_equal(r->hostnqn, "nqn.2014-08.org.nvmexpress:uuid:host-b");
	assert_string_equal(r->host_traddr, "127.0.0.1");
	assert_string_equal(r->port, "1");

	/* read again: every row is one of the first reading's */
	assert_int_equal(ntp_nvmf_ids__read_target(&again, at("cfs"), at("absent")), 0);
	assert_int_equal(again.n, 7);
	for (size_t i = 0; i < again.n; i++)
		assert_true(ntp_nvmf_ids__has(&ids, &again.v[i]));
	assert_false(ntp_nvmf_ids__has(&again, row(&ids, "controller", "ctrl3", NULL)));
	ntp_nvmf_ids__free(&again);
	ntp_nvmf_ids__free(&ids);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(host__controllers__every_field_read, setup, teardown),
		cmocka_unit_test_setup_teardown(host__no_class_dir__nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(target__configfs_and_debugfs__every_object, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
