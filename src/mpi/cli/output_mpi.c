/* output_mpi.c - picard-run --out under mpirun: every rank writes its rows
 * into the one file with MPI-IO, at the offsets where one process would
 * have written them, so the file is byte for byte the single-process one
 * (output.h's layouts). A record (the final states, or one saved time)
 * is the ranks' rows in rank order; a rank's text for it is as long as it
 * is (CSV) or n*8 bytes a row (.npy): each rank measures its pieces, an
 * exclusive scan of their lengths (MPI_Exscan) places them within the
 * record, their sums place the records after the header. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "diag.h"
#include "picard_mpi.h"
#include "shard.h"
#include "mpi_cli.h"
#include "temp_files.h"

#define WRITE_CHUNK (1 << 30) /* bytes per MPI_File_write_at (its count is an int) */
#define COPY_CHUNK ((size_t)64 << 20) /* bytes read back from a kept file at once */

/* What one file holds of this rank: its header (rank 0's) and its piece of
 * each record, batch after batch (one batch unless picard-run solved in
 * batches), pieces one after another: in one buffer, or in a temporary
 * file beside the output (kept across batches). */
struct pieces {
	char *text;        /* header, then batch 0's piece 0, piece 1, ...,
			      then batch 1's ...; NULL where fd holds them */
	int fd;            /* the temporary file, or -1 */
	char *path;        /* its name */
	size_t size;       /* bytes of text (or of the file) */
	long header;       /* bytes of the header (0 off rank 0) */
	long count;        /* records */
	long batches;      /* batches */
	int64_t *lengths;  /* batches * count bytes, one per piece */
	int err;           /* appending failed: PICARD_EIO */
};

/* A run in batches: each file's pieces kept across them (results, a
 * .npy's statuses). */
static struct pieces kept[2] = {{.fd = -1}, {.fd = -1}};

/* What a file is made of: the results themselves, or a .npy's statuses. */
enum file_kind { FILE_RESULTS, FILE_STATUSES };

static void pieces_free(struct pieces *p)
{
	free(p->text);
	free(p->lengths);
	if (p->fd >= 0) {
		close(p->fd);
		unlink(p->path);
		temp_files_forget(p->path);
	}
	free(p->path);
	memset(p, 0, sizeof(*p));
	p->fd = -1;
}

/* This rank's pieces of kind from res, the header (rank 0's) with them
 * where header is true. Returns 0 or PICARD_EIO. */
static int pieces_make(const struct shard *shard, enum file_kind kind,
		       enum output_format format, const struct run_results *res, bool header,
		       struct pieces *p)
{
	FILE *f;
	long at = 0;

	memset(p, 0, sizeof(*p));
	p->fd = -1;
	p->batches = 1;
	p->count = kind == FILE_RESULTS ? output_records(res) : 1;
	p->lengths = malloc((size_t)p->count * sizeof(int64_t));
	f = open_memstream(&p->text, &p->size);
	if (!f || !p->lengths) {
		if (f)
			fclose(f);
		return PICARD_EIO;
	}
	if (shard->rank == 0 && header && kind == FILE_RESULTS)
		output_header(f, format, res);
	else if (shard->rank == 0 && header)
		output_status_header(f, res);
	fflush(f);
	p->header = at = (long)p->size;
	for (long r = 0; r < p->count && !ferror(f); r++) {
		if (kind == FILE_RESULTS && output_record(f, format, res, r)) {
			fclose(f);
			return PICARD_EIO; /* no room to format it */
		}
		if (kind != FILE_RESULTS && output_status_rows(f, res)) {
			fclose(f);
			return PICARD_EIO; /* no room to format it */
		}
		fflush(f);
		p->lengths[r] = (int64_t)p->size - at;
		at = (long)p->size;
	}
	if (ferror(f) | (fclose(f) != 0))
		return PICARD_EIO;
	return 0;
}

/* len bytes of buf at offset of file, in chunks. */
static int write_at(MPI_File file, MPI_Offset offset, const char *buf, size_t len)
{
	while (len > 0) {
		int chunk = len > WRITE_CHUNK ? WRITE_CHUNK : (int)len;

		if (MPI_File_write_at(file, offset, buf, chunk, MPI_CHAR, MPI_STATUS_IGNORE) !=
		    MPI_SUCCESS)
			return PICARD_EIO;
		offset += chunk;
		buf += chunk;
		len -= (size_t)chunk;
	}
	return 0;
}

/* len bytes of p from at (its text's, or its file's) to offset of file. */
static int write_piece(MPI_File file, MPI_Offset offset, const struct pieces *p, int64_t at,
		       int64_t len)
{
	char *buf;
	int err = 0;

	if (p->text)
		return write_at(file, offset, p->text + at, (size_t)len);
	buf = malloc(len < (int64_t)COPY_CHUNK ? (size_t)len + 1 : COPY_CHUNK);
	if (!buf)
		return PICARD_EIO;
	while (len > 0 && !err) {
		const size_t n = len < (int64_t)COPY_CHUNK ? (size_t)len : COPY_CHUNK;

		err = pread(p->fd, buf, n, (off_t)at) == (ssize_t)n ? write_at(file, offset, buf, n) :
								  PICARD_EIO;
		at += (int64_t)n;
		offset += (MPI_Offset)n;
		len -= (int64_t)n;
	}
	free(buf);
	return err;
}

/* Collective. This rank's pieces into the file name: the header at 0,
 * record r's pieces (batch after batch) after the records before it and
 * the lower ranks' pieces of r. Returns 0 or PICARD_EIO (on every
 * rank). */
static int place_pieces(const struct shard *shard, const char *name, const struct pieces *p,
			int made)
{
	int64_t *before = calloc((size_t)p->count, sizeof(int64_t));
	int64_t *totals = calloc((size_t)p->count, sizeof(int64_t));
	int64_t *mine = calloc((size_t)p->count, sizeof(int64_t));
	/* where piece (b, r) starts in p: they lie batch after batch */
	int64_t *start = malloc((size_t)(p->batches * p->count + 1) * sizeof(int64_t));
	int64_t header = p->header;
	MPI_File file;
	MPI_Offset offset;
	int err = made || !before || !totals || !mine || !start ? PICARD_EIO : 0, opened;

	err = picard_mpi_agree(MPI_COMM_WORLD, err, NULL, NULL);
	if (err) {
		free(before);
		free(totals);
		free(mine);
		free(start);
		return err;
	}
	start[0] = p->header;
	for (long k = 0; k < p->batches * p->count; k++) {
		mine[k % p->count] += p->lengths[k];
		start[k + 1] = start[k] + p->lengths[k];
	}
	MPI_Bcast(&header, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
	MPI_Exscan(mine, before, (int)p->count, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
	if (shard->rank == 0)
		memset(before, 0, (size_t)p->count * sizeof(int64_t)); /* Exscan leaves it */
	MPI_Allreduce(mine, totals, (int)p->count, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
	opened = MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_WRONLY, MPI_INFO_NULL, &file);
	if (opened != MPI_SUCCESS) {
		free(before);
		free(totals);
		free(mine);
		free(start);
		return PICARD_EIO; /* collective: every rank failed to open it */
	}
	if (p->header)
		err = write_piece(file, 0, p, 0, p->header);
	/* record r's offset, then this rank's place in it: its pieces of r
	 * one batch after another */
	offset = header;
	for (long r = 0; r < p->count; r++) {
		MPI_Offset at = offset + before[r];

		for (long k = r; k < p->batches * p->count && !err; k += p->count) {
			err = write_piece(file, at, p, start[k], p->lengths[k]);
			at += p->lengths[k];
		}
		offset += totals[r];
	}
	if (MPI_File_close(&file) != MPI_SUCCESS)
		err = PICARD_EIO;
	free(before);
	free(totals);
	free(mine);
	free(start);
	return picard_mpi_agree(MPI_COMM_WORLD, err, NULL, NULL);
}

/* Collective. The file name (made empty by rank 0) written with this
 * rank's part of res. */
static int write_file(const struct shard *shard, const char *name, enum file_kind kind,
		      enum output_format format, const struct run_results *res)
{
	const double start = MPI_Wtime();
	struct pieces made, *p = kept[kind].fd >= 0 || kept[kind].err ? &kept[kind] : &made;
	int err = p == &made ? pieces_make(shard, kind, format, res, true, &made) : p->err;
	double bytes = (double)p->size;

	err = place_pieces(shard, name, p, err);
	pieces_free(p);
	MPI_Allreduce(MPI_IN_PLACE, &bytes, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	traffic_note_write(MPI_Wtime() - start, bytes);
	return err;
}

/* Rank 0's string on every rank (malloc'd; NULL where rank 0 has none or
 * memory ran out). */
static char *share_string(const struct shard *shard, const char *mine)
{
	int len = shard->rank == 0 && mine ? (int)strlen(mine) + 1 : 0;
	char *text;

	MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (!len)
		return NULL;
	text = malloc((size_t)len);
	if (!text) {
		cli_error(PICARD_ENOMEM, "a file name of %d bytes", len);
		MPI_Abort(MPI_COMM_WORLD, CLI_EXIT_FAILED);
	}
	if (shard->rank == 0)
		memcpy(text, mine, (size_t)len);
	MPI_Bcast(text, len, MPI_CHAR, 0, MPI_COMM_WORLD);
	return text;
}

int mpi_output_open(const struct shard *shard, struct output *out, const char *path)
{
	int err = 0, format;

	if (shard->size == 1)
		return output_open(out, path);
	if (shard->rank == 0) {
		err = output_open(out, path);
		if (!err) {
			fclose(out->file); /* the ranks write it through MPI-IO */
			out->file = NULL;
		}
	} else {
		memset(out, 0, sizeof(*out));
		out->path = path;
	}
	format = out->format;
	MPI_Bcast(&err, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Bcast(&format, 1, MPI_INT, 0, MPI_COMM_WORLD);
	out->format = (enum output_format)format;
	return err;
}

/* Rank 0: an empty temporary file beside a .npy for its statuses, made
 * as output.c makes its own; NULL after a message. */
static char *status_temp(const struct output *out)
{
	char *name = malloc(strlen(out->path) + 32);
	int fd = -1;

	if (name) {
		sprintf(name, "%s.status.XXXXXX", out->path);
		fd = mkstemp(name);
	}
	if (fd < 0) {
		cli_error(PICARD_EIO, "--out %s: cannot create its status file: %s", out->path,
			  name ? strerror(errno) : "out of memory");
		free(name);
		return NULL;
	}
	output_set_default_mode(fd);
	close(fd);
	return name;
}

/* Rank 0: rename temp to name; 0 or PICARD_EIO after a message. */
static int place(const struct output *out, const char *temp, const char *name)
{
	if (name && rename(temp, name) == 0)
		return 0;
	unlink(temp);
	return cli_error(PICARD_EIO, "--out %s: cannot rename %s into place: %s", out->path,
			 temp, name ? strerror(errno) : "out of memory");
}

/* Batch res's pieces of kind added to those kept (a temporary file
 * beside the output, made on the first batch, the header with it).
 * Returns 0 or PICARD_EIO after a message; a failure is kept, and the
 * write at the end fails on every rank. */
static int keep_pieces(const struct shard *shard, const struct output *out, enum file_kind kind,
		       enum output_format format, const struct run_results *res)
{
	struct pieces *k = &kept[kind], p;
	int64_t *grown;
	int err;

	if (k->err)
		return k->err;
	if (k->fd < 0) {
		k->path = malloc(strlen(out->path) + 48);
		if (k->path) {
			sprintf(k->path, "%s.rank%d.%s.XXXXXX", out->path, shard->rank,
				kind == FILE_RESULTS ? "rows" : "status");
			k->fd = mkstemp(k->path);
		}
		if (k->fd < 0) {
			k->err = cli_error(PICARD_EIO, "--out %s: rank %d cannot keep its batches "
					   "beside it: %s", out->path, shard->rank,
					   k->path ? strerror(errno) : "out of memory");
			return k->err;
		}
		temp_files_track(k->path);
	}
	err = pieces_make(shard, kind, format, res, k->batches == 0, &p);
	grown = err ? NULL : realloc(k->lengths, (size_t)(k->batches + 1) * p.count * sizeof(int64_t));
	if (grown) {
		k->lengths = grown;
		memcpy(k->lengths + k->batches * p.count, p.lengths, (size_t)p.count * sizeof(int64_t));
		for (size_t done = 0; done < p.size && !err;) {
			const ssize_t n = write(k->fd, p.text + done, p.size - done);

			err = n > 0 ? 0 : PICARD_EIO;
			done += n > 0 ? (size_t)n : 0;
		}
		if (!k->batches)
			k->header = p.header;
		k->count = p.count;
		k->size += p.size;
		k->batches++;
	}
	pieces_free(&p);
	if (err || !grown)
		k->err = cli_error(PICARD_EIO, "--out %s: rank %d cannot keep its batch in %s: %s",
				   out->path, shard->rank, k->path, err ? strerror(errno) :
				   "out of memory");
	return k->err;
}

void mpi_output_forget(void)
{
	pieces_free(&kept[FILE_RESULTS]);
	pieces_free(&kept[FILE_STATUSES]);
}

int mpi_output_append(const struct shard *shard, struct output *out,
		      const struct run_results *res)
{
	int err = keep_pieces(shard, out, FILE_RESULTS, out->format, res);

	if (!err && out->format == OUTPUT_NPY)
		err = keep_pieces(shard, out, FILE_STATUSES, OUTPUT_CSV, res);
	return err;
}

int mpi_output_write(const struct shard *shard, struct output *out,
		       const struct run_results *res)
{
	char *temp, *statuses = NULL, *status_name = NULL;
	int err;

	if (shard->size == 1)
		return output_write(out, res);
	temp = share_string(shard, out->temp_path);
	err = write_file(shard, temp, FILE_RESULTS, out->format, res);
	if (!err && out->format == OUTPUT_NPY) {
		char *made = shard->rank == 0 ? status_temp(out) : NULL;

		statuses = share_string(shard, made);
		free(made);
		err = statuses ? write_file(shard, statuses, FILE_STATUSES, OUTPUT_CSV, res) :
				 PICARD_EIO;
	}
	if (shard->rank == 0) {
		if (err) {
			cli_error(PICARD_EIO, "--out %s: writing it with MPI-IO failed", out->path);
			unlink(temp);
			if (statuses)
				unlink(statuses);
		} else {
			/* the statuses first, so a failure leaves neither file */
			status_name = statuses ? output_status_path(out->path) : NULL;
			if (statuses)
				err = place(out, statuses, status_name);
			if (!err)
				err = place(out, temp, out->path);
			else
				unlink(temp);
			if (!err && statuses)
				printf("%-12s %s (status of each trajectory)\n", "statuses",
				       status_name);
		}
		temp_files_forget(out->temp_path);
		free(out->temp_path);
		out->temp_path = NULL;
	}
	MPI_Bcast(&err, 1, MPI_INT, 0, MPI_COMM_WORLD);
	free(temp);
	free(statuses);
	free(status_name);
	return err;
}

int mpi_concat(const struct shard *shard, const char *flag, const char *path, const char *part)
{
	const double start = MPI_Wtime();
	struct pieces p = {.fd = open(part, O_RDONLY), .path = strdup(part), .count = 1,
			   .batches = 1, .lengths = malloc(sizeof(int64_t))};
	const off_t size = p.fd >= 0 ? lseek(p.fd, 0, SEEK_END) : -1;
	char *made = NULL, *temp;
	int err = size < 0 || !p.path || !p.lengths ? PICARD_EIO : 0;
	double bytes = size > 0 ? (double)size : 0;

	if (!err) {
		p.size = (size_t)size;
		p.lengths[0] = (int64_t)size;
	}
	if (shard->rank == 0) { /* the file, empty, under a temporary name */
		FILE *f = output_temp_create(path, &made);

		if (f)
			fclose(f);
		else
			err = cli_error(PICARD_EIO, "%s %s: cannot create: %s", flag, path,
					strerror(errno));
	}
	temp = share_string(shard, made);
	err = place_pieces(shard, temp ? temp : "", &p, err || !temp ? PICARD_EIO : 0);
	if (p.fd < 0) /* pieces_free removes it where it was opened */
		unlink(part);
	pieces_free(&p);
	if (shard->rank == 0 && made) {
		if (!err && rename(made, path) != 0)
			err = cli_error(PICARD_EIO, "%s %s: cannot rename %s into place: %s", flag,
					path, made, strerror(errno));
		else if (err)
			cli_error(PICARD_EIO, "%s %s: writing it with MPI-IO failed", flag, path);
		if (err)
			unlink(made);
		temp_files_forget(made);
	}
	MPI_Bcast(&err, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Allreduce(MPI_IN_PLACE, &bytes, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	traffic_note_write(MPI_Wtime() - start, bytes);
	free(made);
	free(temp);
	return err;
}
