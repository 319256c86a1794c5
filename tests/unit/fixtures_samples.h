/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_TEST_FIXTURES_SAMPLES_H
#define __LOCKSTAT_TEST_FIXTURES_SAMPLES_H

/*
 * A profile of samples (two processes, kernel and user stacks, mappings,
 * symbolized user PCs with an inline frame) written through pwriter, and
 * the lock fixture read back: shared by the export and pprof tests.
 * Include after cmocka.h, profile.h and fixtures.h.
 */
/* --- a profile of samples, written through pwriter ------------------------ */

#define APP_LO		0x400000ULL
#define APP_HI		0x402000ULL
#define LIBC_LO		0x7f0000000000ULL
#define LIBC_HI		0x7f0000100000ULL
#define FREQ		100
#define TOTAL_SAMPLES	57
#define DURATION_NS	3000000000ULL

static int fetch_kstack(void *ctx, int32_t id, uint64_t *frames, int max)
{
	(void)ctx;
	if (id != 1 || max < 2)
		return -ENOENT;
	frames[0] = FX_ALLOC_FD + 0x20;
	frames[1] = FX_DO_SYS_OPEN + 0x30;
	return 2;
}

static int fetch_ustack(void *ctx, int32_t id, uint64_t *frames, int max)
{
	static const uint64_t u1[] = { 0x401010, 0x401100, LIBC_LO + 0x1000 };
	static const uint64_t u2[] = { 0x401210, 0x401104, LIBC_LO + 0x1000 };

	(void)ctx;
	if ((id != 1 && id != 2) || max < 3)
		return -ENOENT;
	memcpy(frames, id == 1 ? u1 : u2, sizeof(u1));
	return 3;
}

static void uframe(struct usym_info *out, const char *fn, const char *file, uint32_t line)
{
	out->frames[out->nframes++] = (struct uframe){ fn, file, line };
}

/* square() is inlined into hot_three(): two frames, the innermost first. */
static int resolve_user(void *ctx, uint32_t tgid, uint64_t addr, uint64_t seen_ns, struct usym_info *out)
{
	(void)ctx;
	(void)tgid;
	(void)seen_ns;
	out->module = addr >= LIBC_LO ? "/lib/libc.so.6" : "/usr/bin/app";
	if (addr >= 0x401000 && addr < 0x401080) {
		uframe(out, "square", "app.c", 10);
		uframe(out, "hot_three", "app.c", 20);
	} else if (addr >= 0x401080 && addr < 0x401180) {
		uframe(out, "main", "app.c", 30);
	} else if (addr >= 0x401200 && addr < 0x401280) {
		uframe(out, "hot_one", "app.c", 40);
	} else if (addr >= LIBC_LO && addr < LIBC_HI) {
		uframe(out, "__libc_start_call_main", "", 0);
	} else {
		out->why = USYM_NO_MAPPING;
	}
	return 0;
}

static struct sample_row srow(uint32_t tgid, uint32_t tid, int32_t k, int32_t u, uint64_t n,
			      const char *comm)
{
	struct sample_row r;

	memset(&r, 0, sizeof(r));
	r.key = (struct sample_ids){ tgid, tid, k, u };
	r.count = n;
	snprintf(r.comm, sizeof(r.comm), "%s", comm);
	return r;
}

static int write_mappings(struct pwriter *w)
{
	static const char *const paths[] = { "/usr/bin/app", "/lib/libc.so.6" };
	struct mapping maps[2] = {
		{ .tgid = 100, .start = APP_LO, .end = APP_HI, .build_id_len = 4,
		  .build_id = { 0xde, 0xad, 0xbe, 0xef } },
		{ .tgid = 100, .start = LIBC_LO, .end = LIBC_HI, .pgoff = 0x1000 },
	};

	return pwriter__mappings(w, maps, 2, paths);
}

/* Two buckets; the second repeats a key of the first, which the reader sums. */
static int write_samples(struct pwriter *w)
{
	struct sample_row b1[] = {
		srow(100, 100, -1, 1, 30, "app"),
		srow(100, 101, -1, 2, 10, "app"),
	};
	struct sample_row b2[] = {
		srow(100, 101, 1, 1, 5, "app"),
		srow(200, 200, 1, -1, 7, "kworker"),
		srow(100, 102, -1, 1, 3, "app"),
		srow(100, 100, -1, 1, 2, "app"),
	};
	int err = pwriter__samples(w, 1000, 2000000000, b1, 2);

	return err ? err : pwriter__samples(w, 2000000000, DURATION_NS, b2, 4);
}

static int write_sample_profile(int fd, const struct ksyms *ks)
{
	static const struct kv meta[] = {
		{ (char *)"sample_freq", (char *)"100" },
		{ (char *)"command", (char *)"app -d 3" },
	};
	struct pwriter_opts o = {
		.fd = fd, .ksyms = ks, .fetch_sample_kstack = fetch_kstack,
		.fetch_sample_ustack = fetch_ustack, .resolve_user = resolve_user,
		.recording_id = fx_recording_id, .created_ns = FX_CREATED_NS,
	};
	struct pwriter *w;
	int err = pwriter__new(&w, &o);

	if (err)
		return err;
	err = pwriter__meta(w, meta, 2);
	if (!err)
		err = write_mappings(w);
	if (!err)
		err = write_samples(w);
	if (!err)
		err = pwriter__usyms(w);
	if (!err)
		err = pwriter__end(w, DURATION_NS, 0, END_F_CLEAN);
	pwriter__free(w);
	return err;
}

static struct profile *read_back(const char *path)
{
	struct profile *p = NULL;
	char msg[256] = "";

	if (profile__read(path, &p, msg, sizeof(msg)))
		fail_msg("reading %s: %s", path, msg);
	return p;
}

static struct profile *sample_profile(void)
{
	struct ksyms ks;
	struct profile *p;
	char path[64];
	int fd = fx_tmpfile(path), err;

	assert_true(fd >= 0);
	assert_int_equal(fx_ksyms(&ks), 0);
	err = write_sample_profile(fd, &ks);
	ksyms_free(&ks);
	close(fd);
	assert_int_equal(err, 0);
	p = read_back(path);
	unlink(path);
	return p;
}

static struct profile *lock_profile(void)
{
	size_t size;
	char path[64];
	uint8_t *data = fx_profile_bytes(path, &size);
	struct profile *p;

	assert_non_null(data);
	free(data);
	p = read_back(path);
	unlink(path);
	return p;
}

#endif
