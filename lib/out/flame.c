// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Flame graphs as self-contained SVG. The layout follows flamegraph.pl
 * (root at the bottom, children in name order, frames narrower than a
 * tenth of a pixel left out); the script is our own: hover details,
 * search by regular expression with the share matched, click to zoom.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "out/flame.h"
#include "out/output.h"

#define FRAME_H		16
#define FONT_SIZE	12
#define FONT_W		(FONT_SIZE * 0.59)	/* average glyph width of a monospace font */
#define XPAD		10
#define TOP_H		64
#define BOTTOM_H	34

struct node_key {
	uint32_t parent;
	uint32_t kind;
	uint64_t hash;		/* of the name, perturbed on a collision */
};

int flame__init(struct flame *f, bool diff)
{
	memset(f, 0, sizeof(*f));
	f->diff = diff;
	htab_init(&f->index, sizeof(struct node_key), sizeof(uint32_t));
	f->nodes = calloc(1, sizeof(*f->nodes));
	if (!f->nodes)
		return -ENOMEM;
	f->cap = f->n = 1;
	f->nodes[0].name = strdup("all");
	f->nodes[0].kind = FLAME_ROOT;
	return f->nodes[0].name ? 0 : -ENOMEM;
}

void flame__free(struct flame *f)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		free(f->nodes[i].name);
		free(f->nodes[i].kids);
	}
	free(f->nodes);
	htab_free(&f->index);
	memset(f, 0, sizeof(*f));
}

static int new_node(struct flame *f, uint32_t parent, const struct flame_frame *fr, uint32_t *id)
{
	struct flame_node *p, *n;

	if (grow_array((void **)&f->nodes, &f->cap, f->n + 1, sizeof(*f->nodes)))
		return -ENOMEM;
	p = &f->nodes[parent];
	if (p->nkids == p->kids_cap) {
		size_t cap = p->kids_cap;

		if (grow_array((void **)&p->kids, &cap, p->nkids + 1, sizeof(*p->kids)))
			return -ENOMEM;
		p->kids_cap = cap;
	}
	*id = f->n++;
	n = &f->nodes[*id];
	memset(n, 0, sizeof(*n));
	n->name = strdup(fr->name);
	n->kind = fr->kind;
	n->parent = parent;
	n->depth = p->depth + 1;
	p->kids[p->nkids++] = *id;
	return n->name ? 0 : -ENOMEM;
}

/* The child of parent named fr, made when new. */
static int child(struct flame *f, uint32_t parent, const struct flame_frame *fr, uint32_t *id)
{
	struct node_key k = { parent, fr->kind, hash_bytes(fr->name, strlen(fr->name)) };
	uint32_t *slot;

	for (;;) {
		slot = htab_get(&f->index, &k, NULL);
		if (!slot)
			return -ENOMEM;
		if (!*slot) {
			int err = new_node(f, parent, fr, id);

			*slot = *id + 1;
			return err;
		}
		if (!strcmp(f->nodes[*slot - 1].name, fr->name)) {
			*id = *slot - 1;
			return 0;
		}
		k.hash = k.hash * 0x9e3779b97f4a7c15ULL + 1;
	}
}

int flame__add(struct flame *f, const struct flame_frame *frames, size_t n, int side, double value)
{
	uint32_t at = 0;
	size_t i;
	int err;

	side = side ? 1 : 0;
	f->nodes[0].v[side] += value;
	for (i = 0; i < n; i++) {
		err = child(f, at, &frames[i], &at);
		if (err)
			return err;
		f->nodes[at].v[side] += value;
	}
	return 0;
}

static const char *renamed(flame_rename_fn rename, const char *name, enum flame_kind kind,
			   char *buf, size_t len)
{
	if (!name || !*name)
		name = "[unknown]";
	return rename ? rename(name, kind, buf, len) : name;
}

int flame__add_export(struct flame *f, const struct export_stacks *s, enum export_value value,
		      int side, double scale, flame_rename_fn rename)
{
	struct flame_frame *frames = calloc(HITS_MAX_FRAMES + 1, sizeof(*frames));
	char (*names)[256] = calloc(HITS_MAX_FRAMES + 1, sizeof(*names));
	size_t i, j;
	int err = frames && names ? 0 : -ENOMEM;

	for (i = 0; !err && i < s->n; i++) {
		const struct export_stack *st = &s->stacks[i];
		uint32_t n = st->nframes < HITS_MAX_FRAMES ? st->nframes : HITS_MAX_FRAMES;

		frames[0].kind = s->locks ? FLAME_LOCK : FLAME_TASK;
		frames[0].name = renamed(rename, s->locks ? st->lock : st->comm, frames[0].kind, names[0], 256);
		for (j = 0; j < n; j++) {
			const struct frame_name *fn = &s->frames[st->first + j];

			frames[j + 1].kind = fn->kernel ? FLAME_KERNEL : FLAME_USER;
			frames[j + 1].name = renamed(rename, fn->function, frames[j + 1].kind, names[j + 1], 256);
		}
		err = flame__add(f, frames, n + 1, side, export_stack_value(st, value) * scale);
	}
	free(frames);
	free(names);
	return err;
}

/* --- SVG ------------------------------------------------------------------------ */

struct svg {
	const struct flame *f;
	const struct flame_opts *o;
	FILE *out;
	int width, height;
	double scale;		/* pixels per unit of value */
	double total;
	double min_width;
};

/* Length of the valid UTF-8 sequence at s, 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 :
		   (s[0] & 0xf8) == 0xf0 ? 4 : 0, i;

	if (n == 2 && s[0] < 0xc2)
		return 0;	/* overlong */
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* XML text: markup escaped, control characters and bad UTF-8 as '?'. At most max bytes of s. */
static void put_xml(FILE *out, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, n;

	while (s[i] && i < max) {
		n = utf8_len(s + i);
		if (n > 1 && i + n <= max) {
			fwrite(s + i, 1, n, out);
			i += n;
			continue;
		}
		switch (s[i]) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default: fputc(n == 1 && s[i] >= 0x20 && s[i] != 0x7f ? s[i] : '?', out);
		}
		i++;
	}
}

static size_t char_len(const char *s)
{
	size_t n = utf8_len((const unsigned char *)s);

	return n ? n : 1;
}

/* The bytes of name that fit in w pixels, on a character boundary; 0: none. */
static size_t fit_bytes(const char *name, double w, bool *cut)
{
	long chars = (long)floor((w - 6) / FONT_W), k;
	size_t n = 0;

	*cut = false;
	if (chars < 3)
		return 0;
	for (k = 0; name[n] && k < chars; k++)
		n += char_len(name + n);
	if (!name[n])
		return n;
	*cut = true;	/* room for chars - 2 of them and ".." */
	for (n = 0, k = 0; k < chars - 2; k++)
		n += char_len(name + n);
	return n;
}

static double unit01(uint64_t h, int shift)
{
	return ((h >> shift) & 0xff) / 255.0;
}

/* The same name gets the same colour in every graph, its family's hue. */
static void single_colour(const struct flame_node *n, int rgb[3])
{
	uint64_t h = hash_bytes(n->name, strlen(n->name));
	double a = unit01(h, 8), b = unit01(h, 16), c = unit01(h, 24);

	switch (n->kind) {
	case FLAME_KERNEL:	/* orange */
		rgb[0] = 225 + 30 * a; rgb[1] = 120 + 70 * b; rgb[2] = 20 + 40 * c;
		break;
	case FLAME_USER:	/* flamegraph.pl's "hot": red to yellow */
		rgb[0] = 205 + 50 * c; rgb[1] = 230 * a; rgb[2] = 55 * b;
		break;
	case FLAME_LOCK:	/* violet */
		rgb[0] = 165 + 40 * a; rgb[1] = 130 + 40 * b; rgb[2] = 220 + 35 * c;
		break;
	case FLAME_TASK:	/* aqua */
		rgb[0] = 110 + 40 * a; rgb[1] = 190 + 40 * a; rgb[2] = 200 + 40 * a;
		break;
	default:
		rgb[0] = rgb[1] = rgb[2] = 200;
	}
}

/* Red as far as the frame grew, blue as far as it shrank, relative to its size. */
static void diff_colour(const struct flame_node *n, int rgb[3])
{
	double sum = n->v[0] + n->v[1], c = sum > 0 ? (n->v[1] - n->v[0]) / sum : 0;
	int fade = (int)lround(235 - 175 * fabs(c));	/* light enough for black text */

	rgb[0] = rgb[1] = rgb[2] = fade;
	if (c > 0)
		rgb[0] = 255;
	else if (c < 0)
		rgb[2] = 255;
}

static void put_value(FILE *out, const struct flame_opts *o, double v)
{
	char buf[32];

	if (o->unit == FLAME_UNIT_NS) {
		fmt_ns(buf, sizeof(buf), (unsigned long long)llround(v));
		fputs(buf, out);
	} else {
		fprintf(out, o->per_second ? "%.1f %s" : "%.0f %s", v,
			o->unit == FLAME_UNIT_WAITS ? "waits" : "samples");
	}
	if (o->per_second)
		fputs("/s", out);
}

static void put_title(const struct svg *g, const struct flame_node *n)
{
	double b = n->v[0], p = n->v[1];

	put_xml(g->out, n->name, SIZE_MAX);
	if (!g->f->diff) {
		fputs(" (", g->out);
		put_value(g->out, g->o, b);
		fprintf(g->out, ", %.2f%%)", g->total > 0 ? 100 * b / g->total : 0.0);
		return;
	}
	fputs(": base ", g->out);
	put_value(g->out, g->o, b);
	fputs(", patched ", g->out);
	put_value(g->out, g->o, p);
	if (!b)
		fputs(" (new)", g->out);
	else if (!p)
		fputs(" (gone)", g->out);
	else
		fprintf(g->out, " (%+.1f%%)", 100 * (p - b) / b);
}

static void put_frame(const struct svg *g, const struct flame_node *n, double x, double w)
{
	double y = g->height - BOTTOM_H - (double)(n->depth + 1) * FRAME_H;
	int rgb[3];
	bool cut;
	size_t fit = fit_bytes(n->name, w, &cut);

	if (g->f->diff)
		diff_colour(n, rgb);
	else
		single_colour(n, rgb);
	fputs("<g class=\"f\" data-n=\"", g->out);
	put_xml(g->out, n->name, SIZE_MAX);
	if (g->f->diff)
		fprintf(g->out, "\" data-b=\"%.17g\" data-p=\"%.17g\"><title>", n->v[0], n->v[1]);
	else
		fprintf(g->out, "\" data-v=\"%.17g\"><title>", n->v[0]);
	put_title(g, n);
	fprintf(g->out, "</title><rect x=\"%.3f\" y=\"%.0f\" width=\"%.3f\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/>",
		x, y, w, FRAME_H - 1, rgb[0], rgb[1], rgb[2]);
	fprintf(g->out, "<text x=\"%.3f\" y=\"%.1f\">", x + 3, y + FRAME_H - 4.5);
	put_xml(g->out, n->name, fit);
	fputs(cut ? "..</text></g>\n" : "</text></g>\n", g->out);
}

static int cmp_kids(const void *a, const void *b, void *arg)
{
	const struct flame *f = arg;
	const struct flame_node *x = &f->nodes[*(const uint32_t *)a], *y = &f->nodes[*(const uint32_t *)b];
	int c = strcmp(x->name, y->name);

	return c ? c : (int)x->kind - (int)y->kind;
}

static double node_width(const struct svg *g, const struct flame_node *n)
{
	return (n->v[0] + n->v[1]) * g->scale;
}

static bool drawn(const struct svg *g, uint32_t id)
{
	double w = node_width(g, &g->f->nodes[id]);

	return !(w < g->min_width || (id && w <= 0));
}

/* The depth of the deepest frame drawn: the graph is that tall. */
static uint32_t drawn_depth(const struct svg *g, uint32_t id)
{
	const struct flame_node *n = &g->f->nodes[id];
	uint32_t i, d, max = n->depth;

	for (i = 0; i < n->nkids; i++) {
		if (!drawn(g, n->kids[i]))
			continue;
		d = drawn_depth(g, n->kids[i]);
		max = d > max ? d : max;
	}
	return max;
}

/* A frame, then its children left to right in name order. */
static int put_tree(const struct svg *g, uint32_t id, double x)
{
	const struct flame_node *n = &g->f->nodes[id];
	uint32_t *kids;
	uint32_t i;
	int err = 0;

	if (!drawn(g, id))
		return 0;
	put_frame(g, n, x, node_width(g, n));
	if (!n->nkids)
		return 0;
	kids = malloc(n->nkids * sizeof(*kids));
	if (!kids)
		return -ENOMEM;
	memcpy(kids, n->kids, n->nkids * sizeof(*kids));
	qsort_r(kids, n->nkids, sizeof(*kids), cmp_kids, (void *)g->f);
	for (i = 0; !err && i < n->nkids; i++) {
		const struct flame_node *k = &g->f->nodes[kids[i]];

		err = put_tree(g, kids[i], x);
		x += node_width(g, k);
	}
	free(kids);
	return err;
}

/* Search (a regular expression) and click-to-zoom; names come from data-n. */
static const char *const script[] = {
	"var svg, frames, details, matched, unzoombtn, searchbtn, searching = false, W, FW = " ,
	NULL,	/* FONT_W and XPAD are printed here */
	"function init(evt) {",
	"  svg = document.documentElement; W = +svg.getAttribute('width');",
	"  frames = document.getElementById('frames');",
	"  details = document.getElementById('details').firstChild;",
	"  matched = document.getElementById('matched');",
	"  unzoombtn = document.getElementById('unzoom');",
	"  searchbtn = document.getElementById('search');",
	"  each(function(g, r) { r.setAttribute('data-x0', r.getAttribute('x')); r.setAttribute('data-w0', r.getAttribute('width')); });",
	"}",
	"function each(fn) {",
	"  var gs = frames.getElementsByTagName('g');",
	"  for (var i = 0; i < gs.length; i++) fn(gs[i], gs[i].getElementsByTagName('rect')[0]);",
	"}",
	"function frame_of(el) {",
	"  for (; el && el.getAttribute; el = el.parentNode) if (el.getAttribute('class') && el.getAttribute('class').split(' ')[0] == 'f') return el;",
	"  return null;",
	"}",
	"function setclass(g, c) { g.setAttribute('class', c ? 'f ' + c : 'f'); }",
	"function fit(g, r) {",
	"  var t = g.getElementsByTagName('text')[0], name = g.getAttribute('data-n');",
	"  var n = Math.floor((+r.getAttribute('width') - 6) / FW);",
	"  t.setAttribute('x', +r.getAttribute('x') + 3);",
	"  t.textContent = n < 3 ? '' : name.length <= n ? name : name.substring(0, n - 2) + '..';",
	"}",
	"function zoom(z) {",
	"  var zr = z.getElementsByTagName('rect')[0], x0 = +zr.getAttribute('data-x0'), w0 = +zr.getAttribute('data-w0');",
	"  var y0 = +zr.getAttribute('y'), scale = (W - 2 * XPAD) / w0, eps = 0.01;",
	"  unzoombtn.setAttribute('class', '');",
	"  each(function(g, r) {",
	"    var x = +r.getAttribute('data-x0'), w = +r.getAttribute('data-w0'), y = +r.getAttribute('y');",
	"    var inside = x >= x0 - eps && x + w <= x0 + w0 + eps;",
	"    if (y > y0 && x <= x0 + eps && x + w >= x0 + w0 - eps) {",
	"      setclass(g, 'parent'); r.setAttribute('x', XPAD); r.setAttribute('width', W - 2 * XPAD);",
	"    } else if (y <= y0 && inside) {",
	"      setclass(g, ''); r.setAttribute('x', XPAD + (x - x0) * scale); r.setAttribute('width', w * scale);",
	"    } else {",
	"      setclass(g, 'hide');",
	"    }",
	"    fit(g, r);",
	"  });",
	"}",
	"function unzoom() {",
	"  unzoombtn.setAttribute('class', 'hide');",
	"  each(function(g, r) {",
	"    setclass(g, ''); r.setAttribute('x', r.getAttribute('data-x0')); r.setAttribute('width', r.getAttribute('data-w0')); fit(g, r);",
	"  });",
	"}",
	"function reset_search() {",
	"  each(function(g, r) { if (r.getAttribute('data-fill')) { r.setAttribute('fill', r.getAttribute('data-fill')); r.removeAttribute('data-fill'); } });",
	"  searchbtn.textContent = 'Search'; matched.textContent = ' '; searching = false;",
	"}",
	"function search(term) {",
	"  var re, spans = [], sum = 0, end = -1;",
	"  var total = +frames.getElementsByTagName('rect')[0].getAttribute('data-w0');",
	"  try { re = new RegExp(term); } catch (e) { alert('Not a regular expression: ' + term); return; }",
	"  each(function(g, r) {",
	"    var x = +r.getAttribute('data-x0'), w = +r.getAttribute('data-w0');",
	"    if (!re.test(g.getAttribute('data-n'))) return;",
	"    if (!r.getAttribute('data-fill')) r.setAttribute('data-fill', r.getAttribute('fill'));",
	"    r.setAttribute('fill', 'rgb(230,0,230)');",
	"    spans.push([x, x + w]);",
	"  });",
	"  spans.sort(function(a, b) { return a[0] - b[0]; });",
	"  for (var i = 0; i < spans.length; i++) {",
	"    if (spans[i][1] <= end) continue;",
	"    sum += spans[i][1] - Math.max(spans[i][0], end); end = spans[i][1];",
	"  }",
	"  searching = true; searchbtn.textContent = 'Reset Search';",
	"  matched.textContent = 'Matched: ' + (total ? 100 * sum / total : 0).toFixed(1) + '%';",
	"}",
	"function ask() {",
	"  if (searching) { reset_search(); return; }",
	"  var term = prompt('Search frames (a regular expression):', '');",
	"  if (term) search(term);",
	"}",
	"window.addEventListener('click', function(e) {",
	"  var g = frame_of(e.target);",
	"  if (g) zoom(g); else if (e.target.id == 'unzoom') unzoom(); else if (e.target.id == 'search') ask();",
	"}, false);",
	"window.addEventListener('mouseover', function(e) {",
	"  var g = frame_of(e.target);",
	"  if (g) details.nodeValue = g.getElementsByTagName('title')[0].textContent;",
	"}, false);",
	"window.addEventListener('mouseout', function(e) { if (frame_of(e.target)) details.nodeValue = ' '; }, false);",
	"window.addEventListener('keydown', function(e) {",
	"  if (e.keyCode === 114 || ((e.ctrlKey || e.metaKey) && e.keyCode === 70)) { e.preventDefault(); ask(); }",
	"  else if (e.key === 'Escape') { reset_search(); unzoom(); }",
	"}, false);",
};

static void put_head(const struct svg *g)
{
	size_t i;

	fprintf(g->out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" onload=\"init(evt)\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n", g->width, g->height, g->width, g->height);
	fputs("<style type=\"text/css\">\n"
	      "text { font-family: monospace; font-size: 12px; fill: rgb(0,0,0); }\n"
	      "#title { text-anchor: middle; font-size: 17px; }\n"
	      "#subtitle { text-anchor: middle; fill: rgb(90,90,90); }\n"
	      "#search, #matched { text-anchor: end; }\n"
	      "#search, #unzoom { cursor: pointer; }\n"
	      ".f:hover rect { stroke: black; stroke-width: 0.5; cursor: pointer; }\n"
	      ".hide { display: none; }\n"
	      ".parent { opacity: 0.5; }\n"
	      "</style>\n<script type=\"text/ecmascript\"><![CDATA[\n", g->out);
	for (i = 0; i < sizeof(script) / sizeof(script[0]); i++) {
		if (script[i])
			fprintf(g->out, "%s\n", script[i]);
		else
			fprintf(g->out, "%.4f, XPAD = %d;\n", FONT_W, XPAD);
	}
	fputs("]]></script>\n", g->out);
}

static void put_chrome(const struct svg *g)
{
	fprintf(g->out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"rgb(248,248,248)\"/>\n",
		g->width, g->height);
	fprintf(g->out, "<text id=\"title\" x=\"%d\" y=\"24\">", g->width / 2);
	put_xml(g->out, g->o->title ? g->o->title : "Flame Graph", SIZE_MAX);
	fputs("</text>\n", g->out);
	if (g->o->subtitle) {
		fprintf(g->out, "<text id=\"subtitle\" x=\"%d\" y=\"44\">", g->width / 2);
		put_xml(g->out, g->o->subtitle, SIZE_MAX);
		fputs("</text>\n", g->out);
	}
	fprintf(g->out, "<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"24\">Reset Zoom</text>\n", XPAD);
	fprintf(g->out, "<text id=\"search\" x=\"%d\" y=\"24\">Search</text>\n", g->width - XPAD);
	fprintf(g->out, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", XPAD, g->height - 12);
	fprintf(g->out, "<text id=\"matched\" x=\"%d\" y=\"%d\"> </text>\n", g->width - XPAD,
		g->height - 12);
}

int flame__write_svg(const struct flame *f, FILE *out, const struct flame_opts *o)
{
	struct svg g = { .f = f, .o = o, .out = out };
	int err;

	g.width = o->width > 0 ? o->width : 1200;
	g.total = f->nodes[0].v[0] + f->nodes[0].v[1];
	g.scale = g.total > 0 ? (g.width - 2.0 * XPAD) / g.total : 0;
	g.min_width = o->min_width < 0 ? 0 : o->min_width ? o->min_width : 0.1;
	g.height = TOP_H + (drawn_depth(&g, 0) + 1) * FRAME_H + BOTTOM_H;
	put_head(&g);
	put_chrome(&g);
	fputs("<g id=\"frames\">\n", out);
	err = put_tree(&g, 0, XPAD);
	fputs("</g>\n</svg>\n", out);
	if (!err && ferror(out))
		err = -EIO;
	return err;
}

/* "6.18.44 x86_64, 2 CPUs, 2.00 s: fdstorm -t 2 (fdstorm.data)" */
static void describe(char *buf, size_t len, const struct profile *p, const char *path)
{
	const char *kernel = profile__meta(p, "kernel"), *cpus = profile__meta(p, "cpus");
	const char *cmd = profile__meta(p, "command");
	char dur[32];

	fmt_ns(dur, sizeof(dur), profile__duration_ns(p));
	snprintf(buf, len, "kernel %s, %s CPUs, %s%s%s (%s)", kernel ? kernel : "?", cpus ? cpus : "?",
		 dur, cmd && *cmd ? ": " : "", cmd ? cmd : "", path);
}

int flame__export_svg(FILE *out, const struct profile *p, const struct export_opts *o,
		      const char *path)
{
	struct flame_opts fo = { .unit = FLAME_UNIT_SAMPLES };
	struct export_stacks s;
	struct flame f;
	char sub[512];
	int err = export_stacks__build(&s, p, o);

	if (err)
		return err;
	export_stacks__merge(&s, o->value);
	err = flame__init(&f, false);
	if (!err)
		err = flame__add_export(&f, &s, o->value, 0, 1, NULL);
	if (o->what == EXPORT_LOCKS)
		fo.unit = o->value == EXPORT_VALUE_WAIT ? FLAME_UNIT_NS : FLAME_UNIT_WAITS;
	fo.title = o->what == EXPORT_LOCKS ? (o->value == EXPORT_VALUE_WAIT ?
		   "Lock wait time" : "Contended lock waits") : "CPU samples";
	describe(sub, sizeof(sub), p, path);
	fo.subtitle = sub;
	if (!err)
		err = flame__write_svg(&f, out, &fo);
	flame__free(&f);
	export_stacks__free(&s);
	return err;
}
