// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <unistd.h>
#include <sys/stat.h>
#include <zlib.h>
#include "buf.h"
#include "log.h"
#include "store.h"

/* What a stream is read by, and the longest file header it may announce. */
#define STREAM_STEP	(1u << 20)

const char *chunk_type_name(uint32_t type)
{
	static const char *const names[] = {
		[CHUNK_META] = "META", [CHUNK_STRTAB] = "STRTAB",
		[CHUNK_KSYMS] = "KSYMS", [CHUNK_STACKS] = "STACKS",
		[CHUNK_LOCKSTAT] = "LOCKSTAT", [CHUNK_LOST] = "LOST",
		[CHUNK_END] = "END", [CHUNK_SAMPLES] = "SAMPLES",
		[CHUNK_MAPPING] = "MAPPING", [CHUNK_USYMS] = "USYMS", [CHUNK_TABLE] = "TABLE",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "unknown";
}

static int write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		b += w;
		n -= w;
	}
	return 0;
}

static uint32_t crc(const void *p, size_t n, uint32_t seed)
{
	return crc32(seed, p, n);
}

int store_write_header(int fd, const struct store_header *h)
{
	uint8_t out[LKST_HEADER_LEN] = { 0 };
	struct buf b;
	int err;

	buf_init(&b);
	buf_put(&b, LKST_MAGIC, 8);
	buf_put(&b, (uint8_t[]){ h->major, h->major >> 8, h->minor, h->minor >> 8 }, 4);
	buf_put_le32(&b, LKST_HEADER_LEN);
	buf_put_le32(&b, h->flags);
	buf_put_le32(&b, 0);
	buf_put_le64(&b, h->created_ns);
	buf_put(&b, h->recording_id, 16);
	if (b.oom) {
		buf_free(&b);
		return -ENOMEM;
	}
	memcpy(out, b.data, b.len);
	buf_free(&b);
	{
		uint32_t c = crc(out, 60, 0);

		out[60] = c; out[61] = c >> 8; out[62] = c >> 16; out[63] = c >> 24;
	}
	err = write_all(fd, out, sizeof(out));
	return err;
}

int store_write_chunk(int fd, uint32_t type, uint32_t flags, const void *payload, size_t len)
{
	struct buf b;
	int err;

	if (len > LKST_MAX_PAYLOAD)
		return -EFBIG;
	buf_init(&b);
	buf_put_le32(&b, type);
	buf_put_le32(&b, flags);
	buf_put_le64(&b, len);
	buf_put(&b, payload, len);
	buf_put_le32(&b, crc(b.data, b.len, 0));
	err = b.oom ? -ENOMEM : write_all(fd, b.data, b.len);
	buf_free(&b);
	return err;
}

/* A regular file: its size is known, one allocation. */
static int read_regular(int fd, off_t size, struct store_file *f)
{
	size_t got = 0;

	f->data = malloc(size ? size : 1);
	if (!f->data)
		return -ENOMEM;
	while (got < (size_t)size) {
		ssize_t r = pread(fd, f->data + got, size - got, got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		got += r;
	}
	f->size = got;
	return 0;
}

/* Wait until fd can be read (a FIFO opened O_NONBLOCK, a non-blocking stdin). */
static int wait_readable(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n;

	do
		n = poll(&pfd, 1, timeout_ms);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

/*
 * Append up to n bytes of the stream to f->data, growing it as they come
 * (a chunk header can claim far more than the stream holds). *more is
 * false once the stream has ended.
 */
static int stream_take(int fd, struct store_file *f, size_t *cap, size_t n, bool *more)
{
	while (n && *more) {
		size_t want = n < STREAM_STEP ? n : STREAM_STEP;
		ssize_t r;

		if (grow_array((void **)&f->data, cap, f->size + want, 1))
			return -ENOMEM;
		r = read(fd, f->data + f->size, want);
		if (r < 0 && errno == EAGAIN && wait_readable(fd, -1) >= 0)
			continue;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		*more = r > 0;
		f->size += r;
		n -= r;
	}
	return 0;
}

/*
 * A pipe, a FIFO or a device: read chunk by chunk, and stop at the first
 * thing that ends the walk anyway (a foreign header, a damaged chunk), so
 * that /dev/zero or a stray stream is refused at once, not read forever.
 */
static int read_stream(int fd, struct store_file *f)
{
	struct store_chunk ch;
	const char *why;
	size_t cap = 0, hlen;
	bool more = true;
	uint64_t pos, len;
	int err;

	err = stream_take(fd, f, &cap, LKST_HEADER_LEN, &more);
	if (err || !more || memcmp(f->data, LKST_MAGIC, 8))
		return err;	/* store_parse() says what is wrong */
	hlen = get_le32(f->data + 12);
	if (hlen > LKST_HEADER_LEN && hlen <= STREAM_STEP)
		err = stream_take(fd, f, &cap, hlen - LKST_HEADER_LEN, &more);
	if (err || store_parse(f, &why))
		return err;
	pos = f->hdr.header_len;
	while (more) {
		err = stream_take(fd, f, &cap, LKST_CHUNK_HDR_LEN, &more);
		if (err || !more)
			break;
		len = get_le64(f->data + f->size - LKST_CHUNK_HDR_LEN + 8);
		if (len > LKST_MAX_PAYLOAD)
			break;
		err = stream_take(fd, f, &cap, len + LKST_CHUNK_TRAILER_LEN, &more);
		if (err || store_next_chunk(f, &pos, &ch) != WALK_CHUNK)
			break;
	}
	return err;
}

/* A FIFO: wait for its writer, as cat(1) does, but say so rather than hang silently. */
static int wait_writer(int fd, const char *path)
{
	int n = wait_readable(fd, 1000);

	if (!n) {
		pr_notice("%s is a FIFO with no writer yet: waiting for one (Ctrl-C stops)\n", path);
		n = wait_readable(fd, -1);
	}
	return n < 0 ? n : 0;
}

static int read_fd(int fd, const char *path, struct store_file *f, const char **why)
{
	struct stat st;
	int err;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (S_ISREG(st.st_mode))
		return read_regular(fd, st.st_size, f);
	if (isatty(fd)) {
		*why = fd == STDIN_FILENO && !strcmp(path, "-") ?
		       "standard input is a terminal: give a profile with -i FILE, or pipe one in" :
		       "a terminal, not a profile";
		return -EINVAL;
	}
	if (S_ISFIFO(st.st_mode) && strcmp(path, "-") && (err = wait_writer(fd, path)))
		return err;
	return read_stream(fd, f);
}

/* "-" is standard input; anything else is opened, FIFOs without blocking in open(2). */
static int read_input(const char *path, struct store_file *f, const char **why)
{
	int fd, err;

	if (!strcmp(path, "-"))
		return read_fd(STDIN_FILENO, path, f, why);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	err = read_fd(fd, path, f, why);
	close(fd);
	return err;
}

int store_parse(struct store_file *f, const char **why)
{
	const uint8_t *d = f->data;

	if (!f->size) {
		*why = "empty, not a lockstat profile";
		return -EINVAL;
	}
	if (f->size < 8 || memcmp(d, LKST_MAGIC, 8)) {
		*why = "not a lockstat profile (bad magic)";
		return -EINVAL;
	}
	if (f->size < LKST_HEADER_LEN) {
		*why = "truncated inside the file header";
		return -EINVAL;
	}
	if (crc(d, 60, 0) != get_le32(d + 60)) {
		*why = "file header checksum mismatch (damaged file)";
		return -EINVAL;
	}
	f->hdr.major = get_le16(d + 8);
	f->hdr.minor = get_le16(d + 10);
	if (f->hdr.major != LKST_MAJOR) {
		*why = "unsupported format major version (needs another lockstat)";
		return -EPROTONOSUPPORT;
	}
	f->hdr.header_len = get_le32(d + 12);
	if (f->hdr.header_len < LKST_HEADER_LEN || f->hdr.header_len > f->size) {
		*why = "bad header length (damaged file)";
		return -EINVAL;
	}
	f->hdr.flags = get_le32(d + 16);
	f->hdr.created_ns = get_le64(d + 24);
	memcpy(f->hdr.recording_id, d + 32, 16);
	return 0;
}

int store_open(const char *path, struct store_file *f, const char **why)
{
	int err;

	memset(f, 0, sizeof(*f));
	*why = NULL;
	err = read_input(path, f, why);
	if (err) {
		store_close(f);
		return err;
	}
	err = store_parse(f, why);
	if (err)
		store_close(f);
	return err;
}

void store_close(struct store_file *f)
{
	free(f->data);
	f->data = NULL;
	f->size = 0;
}

enum walk_status store_next_chunk(const struct store_file *f, uint64_t *pos, struct store_chunk *c)
{
	const uint8_t *p = f->data + *pos;
	uint64_t left = f->size - *pos, len;

	if (*pos >= f->size)
		return WALK_EOF;
	if (left < LKST_CHUNK_HDR_LEN)
		return WALK_TRUNCATED;
	len = get_le64(p + 8);
	if (len > left - LKST_CHUNK_HDR_LEN ||
	    left - LKST_CHUNK_HDR_LEN - len < LKST_CHUNK_TRAILER_LEN)
		return len > LKST_MAX_PAYLOAD ? WALK_BAD_CRC : WALK_TRUNCATED;
	if (crc(p, LKST_CHUNK_HDR_LEN + len, 0) != get_le32(p + LKST_CHUNK_HDR_LEN + len))
		return WALK_BAD_CRC;
	c->type = get_le32(p);
	c->flags = get_le32(p + 4);
	c->offset = *pos;
	c->payload = p + LKST_CHUNK_HDR_LEN;
	c->len = len;
	*pos += LKST_CHUNK_HDR_LEN + len + LKST_CHUNK_TRAILER_LEN;
	return WALK_CHUNK;
}
