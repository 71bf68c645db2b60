// SPDX-License-Identifier: GPL-2.0
/*
 * The NVMe over Fabrics names of this machine (lib/record/record_ids.h):
 * sysfs for the host's controllers, nvmet's configfs and debugfs for the
 * target's subsystems, ports, namespaces and controllers.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/record/record_ids.h"
#include "lib/record/record_proc.h"

/* a value of the kernel's one-line files: at most a page */
#define LINE_MAX_LEN 4096

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

/* the first line of dir/name, allocated; NULL when absent or empty */
static char *read_at(const char *dir, const char *name, int *err)
{
	char path[PATH_MAX], buf[LINE_MAX_LEN];
	char *s;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return NULL;
	ntp_record__read_line(path, buf, sizeof(buf));
	if (!buf[0])
		return NULL;
	s = strdup(buf);
	if (!s)
		*err = -ENOMEM;
	return s;
}

static long long read_int_at(const char *dir, const char *name)
{
	char path[PATH_MAX], buf[64], *end;
	long long v;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -1;
	ntp_record__read_line(path, buf, sizeof(buf));
	if (!buf[0])
		return -1;
	errno = 0;
	v = strtoll(buf, &end, 0);
	return errno || *end || v < 0 ? -1 : v;
}

static void free_id(struct ntp_nvmf_id *id)
{
	char **f[] = { &id->side, &id->object, &id->name, &id->subsysnqn, &id->port,
		       &id->transport, &id->traddr, &id->trsvcid, &id->host_traddr,
		       &id->hostnqn, &id->device };

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		free(*f[i]);
		*f[i] = NULL;
	}
}

/* a new row of ids, zeroed, numbers -1 (NULL); NULL without memory */
static struct ntp_nvmf_id *add_row(struct ntp_nvmf_ids *ids, const char *side,
				   const char *object, const char *name)
{
	struct ntp_nvmf_id *id;

	if (ids->n == ids->cap) {
		size_t cap = ids->cap ? ids->cap * 2 : 8;
		struct ntp_nvmf_id *v = realloc(ids->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		ids->v = v;
		ids->cap = cap;
	}
	id = &ids->v[ids->n];
	memset(id, 0, sizeof(*id));
	id->cntlid = id->nsid = -1;
	id->side = strdup(side);
	id->object = strdup(object);
	id->name = strdup(name);
	if (!id->side || !id->object || !id->name) {
		free_id(id);
		return NULL;
	}
	ids->n++;
	return id;
}

/* the entries of dir, sorted (scandir); -1 when dir is absent */
static int list_dir(const char *dir, struct dirent ***names)
{
	return scandir(dir, names, NULL, alphasort);
}

static void free_list(struct dirent **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/*
 * The value of key in an address line "traddr=10.0.0.2,trsvcid=4420,src_addr=..."
 * (nvme_sysfs_show_address), allocated; NULL when absent.
 */
static char *address_field(const char *addr, const char *key, int *err)
{
	size_t klen = strlen(key);
	const char *p = addr;

	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len > klen && !strncmp(p, key, klen) && p[klen] == '=') {
			char *s = strndup(p + klen + 1, len - klen - 1);

			if (!s)
				*err = -ENOMEM;
			return s;
		}
		p = end ? end + 1 : NULL;
	}
	return NULL;
}

int ntp_nvmf_ids__read_host(struct ntp_nvmf_ids *ids, const char *class_dir)
{
	struct dirent **names;
	int n, err = 0;

	n = list_dir(class_dir, &names);
	for (int i = 0; i < n && !err; i++) {
		const char *c = names[i]->d_name;
		char dir[PATH_MAX], *addr;
		struct ntp_nvmf_id *id;

		/* nvmeX, not nvme-fabrics or nvme-subsysX (other classes, but be sure) */
		if (strncmp(c, "nvme", 4) || !c[4] || strspn(c + 4, "0123456789") != strlen(c + 4))
			continue;
		if (snprintf(dir, sizeof(dir), "%s/%s", class_dir, c) >= (int)sizeof(dir))
			continue;
		id = add_row(ids, "host", "controller", c);
		if (!id) {
			err = -ENOMEM;
			break;
		}
		id->subsysnqn = read_at(dir, "subsysnqn", &err);
		id->transport = read_at(dir, "transport", &err);
		id->hostnqn = read_at(dir, "hostnqn", &err);
		id->cntlid = read_int_at(dir, "cntlid");
		addr = read_at(dir, "address", &err);
		if (addr && strchr(addr, '=')) {
			id->traddr = address_field(addr, "traddr", &err);
			id->trsvcid = address_field(addr, "trsvcid", &err);
			/* TCP's source address is src_addr; other transports say host_traddr */
			id->host_traddr = address_field(addr, "src_addr", &err);
			if (!id->host_traddr)
				id->host_traddr = address_field(addr, "host_traddr", &err);
			free(addr);
		} else {
			/* a PCIe controller's address is its PCI address */
			id->traddr = addr;
		}
	}
	if (n >= 0)
		free_list(names, n);
	return err;
}

/* one port row, linked to subsystem nqn (NULL: none) */
static int port_row(struct ntp_nvmf_ids *ids, const char *dir, const char *port_id,
		    const char *nqn)
{
	struct ntp_nvmf_id *id = add_row(ids, "target", "port", port_id);
	int err = 0;

	if (!id)
		return -ENOMEM;
	id->port = strdup(port_id);
	id->subsysnqn = dup_or_null(nqn);
	id->transport = read_at(dir, "addr_trtype", &err);
	id->traddr = read_at(dir, "addr_traddr", &err);
	id->trsvcid = read_at(dir, "addr_trsvcid", &err);
	return !id->port || (nqn && !id->subsysnqn) ? -ENOMEM : err;
}

/* port dir (ports/<id>): a row per subsystem linked to it (subsystems/<nqn>), or one without */
static int read_port(struct ntp_nvmf_ids *ids, const char *dir, const char *port_id)
{
	char sub[PATH_MAX];
	struct dirent **names;
	int n, rows = 0, err = 0;

	if (snprintf(sub, sizeof(sub), "%s/subsystems", dir) >= (int)sizeof(sub))
		return 0;
	n = list_dir(sub, &names);
	for (int i = 0; i < n && !err; i++) {
		if (names[i]->d_name[0] == '.')
			continue;
		err = port_row(ids, dir, port_id, names[i]->d_name);
		rows++;
	}
	if (n >= 0)
		free_list(names, n);
	return err || rows ? err : port_row(ids, dir, port_id, NULL);
}

static int read_namespaces(struct ntp_nvmf_ids *ids, const char *subsys_dir, const char *nqn)
{
	char nsdir[PATH_MAX];
	struct dirent **names;
	int n, err = 0;

	if (snprintf(nsdir, sizeof(nsdir), "%s/namespaces", subsys_dir) >= (int)sizeof(nsdir))
		return 0;
	n = list_dir(nsdir, &names);
	for (int i = 0; i < n && !err; i++) {
		const char *nsid = names[i]->d_name;
		char dir[PATH_MAX];
		struct ntp_nvmf_id *id;

		if (nsid[0] == '.' || strspn(nsid, "0123456789") != strlen(nsid))
			continue;
		if (snprintf(dir, sizeof(dir), "%s/%s", nsdir, nsid) >= (int)sizeof(dir))
			continue;
		id = add_row(ids, "target", "namespace", nsid);
		if (!id) {
			err = -ENOMEM;
			break;
		}
		id->subsysnqn = strdup(nqn);
		id->nsid = strtoll(nsid, NULL, 10);
		id->device = read_at(dir, "device_path", &err);
		if (!id->subsysnqn)
			err = -ENOMEM;
	}
	if (n >= 0)
		free_list(names, n);
	return err;
}

/* nvmet's debugfs: <debugfs>/<subsysnqn>/ctrl<cntlid>/{hostnqn,host_traddr,port} */
static int read_controllers(struct ntp_nvmf_ids *ids, const char *debugfs_dir)
{
	struct dirent **subs;
	int ns, err = 0;

	ns = list_dir(debugfs_dir, &subs);
	for (int i = 0; i < ns && !err; i++) {
		const char *nqn = subs[i]->d_name;
		char sdir[PATH_MAX];
		struct dirent **ctrls;
		int nc;

		if (nqn[0] == '.')
			continue;
		if (snprintf(sdir, sizeof(sdir), "%s/%s", debugfs_dir, nqn) >= (int)sizeof(sdir))
			continue;
		nc = list_dir(sdir, &ctrls);
		for (int k = 0; k < nc && !err; k++) {
			const char *c = ctrls[k]->d_name;
			char dir[PATH_MAX];
			struct ntp_nvmf_id *id;

			if (strncmp(c, "ctrl", 4) || !c[4] ||
			    strspn(c + 4, "0123456789") != strlen(c + 4))
				continue;
			if (snprintf(dir, sizeof(dir), "%s/%s", sdir, c) >= (int)sizeof(dir))
				continue;
			id = add_row(ids, "target", "controller", c);
			if (!id) {
				err = -ENOMEM;
				break;
			}
			id->subsysnqn = strdup(nqn);
			id->cntlid = strtoll(c + 4, NULL, 10);
			id->hostnqn = read_at(dir, "hostnqn", &err);
			id->host_traddr = read_at(dir, "host_traddr", &err);
			id->port = read_at(dir, "port", &err);
			if (!id->subsysnqn)
				err = -ENOMEM;
		}
		if (nc >= 0)
			free_list(ctrls, nc);
	}
	if (ns >= 0)
		free_list(subs, ns);
	return err;
}

int ntp_nvmf_ids__read_target(struct ntp_nvmf_ids *ids, const char *configfs_dir,
			      const char *debugfs_dir)
{
	char dir[PATH_MAX];
	struct dirent **names;
	int n, err = 0;

	if (snprintf(dir, sizeof(dir), "%s/subsystems", configfs_dir) >= (int)sizeof(dir))
		return 0;
	n = list_dir(dir, &names);
	for (int i = 0; i < n && !err; i++) {
		const char *nqn = names[i]->d_name;
		char sdir[PATH_MAX];
		struct ntp_nvmf_id *id;

		if (nqn[0] == '.')
			continue;
		if (snprintf(sdir, sizeof(sdir), "%s/%s", dir, nqn) >= (int)sizeof(sdir))
			continue;
		id = add_row(ids, "target", "subsystem", nqn);
		if (!id) {
			err = -ENOMEM;
			break;
		}
		id->subsysnqn = strdup(nqn);
		if (!id->subsysnqn)
			err = -ENOMEM;
		if (!err)
			err = read_namespaces(ids, sdir, nqn);
	}
	if (n >= 0)
		free_list(names, n);
	if (err || snprintf(dir, sizeof(dir), "%s/ports", configfs_dir) >= (int)sizeof(dir))
		return err;
	n = list_dir(dir, &names);
	for (int i = 0; i < n && !err; i++) {
		const char *port = names[i]->d_name;
		char pdir[PATH_MAX];

		if (port[0] == '.')
			continue;
		if (snprintf(pdir, sizeof(pdir), "%s/%s", dir, port) >= (int)sizeof(pdir))
			continue;
		err = read_port(ids, pdir, port);
	}
	if (n >= 0)
		free_list(names, n);
	return err ?: read_controllers(ids, debugfs_dir);
}

static int same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

int ntp_nvmf_ids__has(const struct ntp_nvmf_ids *ids, const struct ntp_nvmf_id *id)
{
	for (size_t i = 0; i < ids->n; i++) {
		const struct ntp_nvmf_id *x = &ids->v[i];

		if (same_text(x->side, id->side) && same_text(x->object, id->object) &&
		    same_text(x->name, id->name) && same_text(x->subsysnqn, id->subsysnqn) &&
		    x->cntlid == id->cntlid && x->nsid == id->nsid && same_text(x->port, id->port) &&
		    same_text(x->transport, id->transport) && same_text(x->traddr, id->traddr) &&
		    same_text(x->trsvcid, id->trsvcid) &&
		    same_text(x->host_traddr, id->host_traddr) &&
		    same_text(x->hostnqn, id->hostnqn) && same_text(x->device, id->device))
			return 1;
	}
	return 0;
}

void ntp_nvmf_ids__free(struct ntp_nvmf_ids *ids)
{
	for (size_t i = 0; i < ids->n; i++)
		free_id(&ids->v[i]);
	free(ids->v);
	memset(ids, 0, sizeof(*ids));
}
