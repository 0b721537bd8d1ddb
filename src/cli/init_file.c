/* init_file.c - reading picard-run --init FILE (formats: init_file.h).
 * Every problem is reported with the file name and, for text, the line and
 * column, so a malformed file never becomes a silent garbage ensemble. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diag.h"
#include "init_file.h"

/* Rows of a text file as they are read. */
struct row_table {
	double *values;  /* rows*cols numbers, row after row */
	long rows;       /* rows read */
	long capacity;   /* rows values has room for */
	int cols;        /* columns of every row; 0 before the first row */
	long first_line; /* line of the first row, quoted when a row differs */
	int span_col[2]; /* the header's t0 and t1 columns, -1: none */
	int header_cols; /* the header's columns, where it names either */
	long header_line;
	long *lines;     /* each row's line, where the header names a span */
};

/* Columns of a row that hold a span's end, not the state or parameters. */
static int span_columns(const struct row_table *table)
{
	return (table->span_col[0] >= 0) + (table->span_col[1] >= 0);
}

/* True when the file name says binary: it ends in ".bin". */
static bool is_binary_name(const char *path)
{
	size_t len = strlen(path);

	return len >= 4 && strcmp(path + len - 4, ".bin") == 0;
}

/* ---- text ------------------------------------------------------------- */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* Split line in place into fields separated by commas and/or blanks; the
 * first cap field starts go to fields. Returns the number of fields, or -1
 * with *empty_col set when a field is empty ("1,,2", a trailing comma). */
static int split_fields(char *line, char **fields, int cap, int *empty_col)
{
	bool need_field = false; /* after a comma, a field must follow */
	int count = 0;
	char *p = line;

	for (;;) {
		char *end;

		while (is_blank(*p))
			p++;
		if (*p == ',' || (*p == '\0' && need_field)) {
			*empty_col = count + 1;
			return -1;
		}
		if (*p == '\0')
			return count;
		if (count < cap)
			fields[count] = p;
		count++;
		while (*p && *p != ',' && !is_blank(*p))
			p++;
		end = p;
		while (is_blank(*p))
			p++;
		need_field = *p == ',';
		if (need_field)
			p++;
		*end = '\0';
	}
}

/* The whole field as a number into *value; false if it is not one. */
static bool field_number(const char *field, double *value)
{
	char *end;

	*value = strtod(field, &end);
	return end != field && *end == '\0';
}

/* A first row whose first field starts like a name is a header. */
static bool is_header(const char *first_field)
{
	double value;

	return (isalpha((unsigned char)first_field[0]) || first_field[0] == '_' ||
		first_field[0] == '"') && !field_number(first_field, &value);
}

/* Say which column counts the model accepts, after a bad count. */
static void hint_columns(const picard_model *model)
{
	char names[256] = "";
	size_t used = 0;

	for (int q = 0; q < model->nparams && used < sizeof(names); q++)
		used += snprintf(names + used, sizeof(names) - used, " %s",
				 model->param_names[q]);
	if (model->nparams)
		cli_hint("%s takes %d columns (the state) or %d (the state, then%s)",
			 model->name, model->dim, model->dim + model->nparams, names);
	else
		cli_hint("%s takes %d columns (the state)", model->name, model->dim);
}

/* Check a row's column count against the model (first row) or the first
 * row (later rows). */
static int check_columns(const char *path, long lineno, int count,
			 const struct row_table *table, const picard_model *model)
{
	if (span_columns(table) && count != table->header_cols)
		return cli_error(CLI_EUSAGE, "%s:%ld: %d column%s, but the header (line %ld) "
				 "names %d", path, lineno, count, count == 1 ? "" : "s",
				 table->header_line, table->header_cols);
	count -= span_columns(table);
	if (table->cols) {
		if (count == table->cols)
			return 0;
		return cli_error(CLI_EUSAGE, "%s:%ld: %d column%s, but line %ld has %d",
				 path, lineno, count, count == 1 ? "" : "s",
				 table->first_line, table->cols);
	}
	if (count == model->dim || count == model->dim + model->nparams)
		return 0;
	if (model->nparams)
		cli_error(CLI_EUSAGE, "%s:%ld: %d column%s, expected %d or %d for model %s",
			  path, lineno, count, count == 1 ? "" : "s", model->dim,
			  model->dim + model->nparams, model->name);
	else
		cli_error(CLI_EUSAGE, "%s:%ld: %d column%s, expected %d for model %s",
			  path, lineno, count, count == 1 ? "" : "s", model->dim, model->name);
	hint_columns(model);
	return CLI_EUSAGE;
}

/* Room for one more row in table. */
static int grow_table(const char *path, struct row_table *table)
{
	long capacity = table->capacity ? 2 * table->capacity : 1024;
	double *values;

	if (table->rows < table->capacity)
		return 0;
	values = realloc(table->values, (size_t)capacity * (table->cols + span_columns(table)) *
			 sizeof(double));
	if (!values)
		return cli_error(CLI_EUSAGE, "%s: out of memory after %ld rows", path, table->rows);
	table->values = values;
	if (span_columns(table)) {
		long *lines = realloc(table->lines, (size_t)capacity * sizeof(long));

		if (!lines)
			return cli_error(CLI_EUSAGE, "%s: out of memory after %ld rows", path,
					 table->rows);
		table->lines = lines;
	}
	table->capacity = capacity;
	return 0;
}

/* Convert the fields of one data row and append them to table. */
static int append_row(const char *path, long lineno, char **fields, int count,
		      struct row_table *table)
{
	double *row;
	int err;

	err = grow_table(path, table);
	if (err)
		return err;
	row = table->values + (size_t)table->rows * count;
	if (table->lines)
		table->lines[table->rows] = lineno;
	for (int c = 0; c < count; c++) {
		if (!field_number(fields[c], &row[c]))
			return cli_error(CLI_EUSAGE, "%s:%ld: column %d: '%s' is not a number",
					 path, lineno, c + 1, fields[c]);
		if (!isfinite(row[c]))
			return cli_error(CLI_EUSAGE, "%s:%ld: column %d: '%s' is not finite",
					 path, lineno, c + 1, fields[c]);
	}
	table->rows++;
	return 0;
}

/* A header row: the columns named t0 and t1 (a name may be quoted). */
static int read_header(const char *path, long lineno, char **fields, int count,
		       struct row_table *table)
{
	static const char *const names[2] = {"t0", "t1"};

	for (int c = 0; c < count; c++) {
		const char *name = fields[c];
		size_t len = strlen(name);

		if (len >= 2 && name[0] == '"' && name[len - 1] == '"') {
			name++;
			len -= 2;
		}
		for (int e = 0; e < 2; e++) {
			if (len != 2 || strncmp(name, names[e], 2) != 0)
				continue;
			if (table->span_col[e] >= 0)
				return cli_error(CLI_EUSAGE, "%s:%ld: the header names %s twice "
						 "(columns %d and %d)", path, lineno, names[e],
						 table->span_col[e] + 1, c + 1);
			table->span_col[e] = c;
		}
	}
	table->header_cols = count;
	table->header_line = lineno;
	return 0;
}

/* One line of a text file (len bytes): skip comments, blanks and a
 * first-row header, else check and append it. fields has room for dim +
 * nparams + 1. A NUL byte is refused: the C string would end there and the
 * rest of the line be dropped unseen (a raw file not named .bin). */
static int read_line(const char *path, long lineno, char *line, size_t len,
		     const picard_model *model, char **fields,
		     bool *header_allowed, struct row_table *table)
{
	const int cap = model->dim + model->nparams + 3;
	char *comment;
	int count, empty_col = 0, err;

	if (memchr(line, '\0', len)) {
		cli_error(CLI_EUSAGE, "%s:%ld: a NUL byte: not a text file", path, lineno);
		cli_hint("raw float64 files are read as such when their name ends in .bin");
		return CLI_EUSAGE;
	}
	comment = strchr(line, '#');
	if (comment)
		*comment = '\0';
	count = split_fields(line, fields, cap, &empty_col);
	if (count < 0)
		return cli_error(CLI_EUSAGE, "%s:%ld: column %d is empty", path, lineno, empty_col);
	if (count == 0)
		return 0;
	if (*header_allowed && is_header(fields[0])) {
		*header_allowed = false;
		return read_header(path, lineno, fields, count < cap ? count : cap, table);
	}
	*header_allowed = false;
	err = check_columns(path, lineno, count, table, model);
	if (err)
		return err;
	if (!table->cols) {
		table->cols = count - span_columns(table);
		table->first_line = lineno;
	}
	return append_row(path, lineno, fields, count, table);
}

/* Split the rows of table into data's states and parameters. */
static int table_to_data(const char *path, const struct row_table *table,
			 const picard_model *model, struct init_data *data)
{
	const int n = model->dim, np = model->nparams, width = table->cols + span_columns(table);
	const bool with_params = np > 0 && table->cols == n + np;
	double **ends[2] = {&data->t0, &data->t1};
	const size_t rows = (size_t)table->rows;

	data->ntraj = table->rows;
	data->x0 = malloc(rows * n * sizeof(double));
	data->params = with_params ? malloc(rows * np * sizeof(double)) : NULL;
	bool short_of_memory = false;

	for (int e = 0; e < 2; e++)
		if (table->span_col[e] >= 0)
			short_of_memory |= !(*ends[e] = malloc(rows * sizeof(double)));
	data->lines = table->lines ? malloc(rows * sizeof(long)) : NULL;
	if (short_of_memory || !data->x0 || (with_params && !data->params) ||
	    (table->lines && !data->lines))
		return cli_error(CLI_EUSAGE, "%s: out of memory for %ld trajectories", path, table->rows);
	if (table->lines)
		memcpy(data->lines, table->lines, rows * sizeof(long));
	for (size_t i = 0; i < rows; i++) {
		const double *row = table->values + i * width;
		int v = 0; /* values of the state and parameters so far */

		for (int c = 0; c < width; c++) {
			if (c == table->span_col[0] || c == table->span_col[1]) {
				(*ends[c == table->span_col[1]])[i] = row[c];
				continue;
			}
			if (v < n)
				data->x0[i * n + v] = row[c];
			else
				data->params[i * np + v - n] = row[c];
			v++;
		}
	}
	return 0;
}

static int read_text(const char *path, FILE *file, const picard_model *model,
		     struct init_data *data)
{
	struct row_table table = {0};
	bool header_allowed = true;
	char **fields, *line = NULL;
	size_t size = 0;
	long lineno = 0;
	ssize_t len;
	int err = 0;

	table.span_col[0] = table.span_col[1] = -1;
	fields = malloc((model->dim + model->nparams + 3) * sizeof(*fields));
	if (!fields)
		return cli_error(CLI_EUSAGE, "%s: out of memory", path);
	while (!err && (len = getline(&line, &size, file)) >= 0)
		err = read_line(path, ++lineno, line, (size_t)len, model, fields,
				&header_allowed, &table);
	if (err)
		goto out;
	if (ferror(file)) {
		err = cli_error(CLI_EUSAGE, "%s: read error: %s", path, strerror(errno));
		goto out;
	}
	if (table.rows == 0) {
		err = cli_error(CLI_EUSAGE, "%s: no trajectories (no data rows)", path);
		goto out;
	}
	err = table_to_data(path, &table, model, data);
out:
	free(fields);
	free(line);
	free(table.values);
	free(table.lines);
	return err;
}

/* ---- binary ------------------------------------------------------------- */

/* The little-endian float64 at bytes, whatever the host's byte order. */
static double le_double(const unsigned char *bytes)
{
	uint64_t bits = 0;
	double value;

	for (int b = 7; b >= 0; b--)
		bits = bits << 8 | bytes[b];
	memcpy(&value, &bits, sizeof(value));
	return value;
}

/* Room for the whole of file: its size when it is a regular file (one read),
 * else a first guess that read_all() doubles. */
static size_t size_hint(FILE *file)
{
	struct stat st;
	int fd = fileno(file);

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		return (size_t)st.st_size + 1;
	return 1 << 16;
}

/* The whole of file into *bytes (malloc'ed) and *size, whatever kind of
 * stream it is (a file, or memory for the fuzz target). */
static int read_all(const char *path, FILE *file, unsigned char **bytes, size_t *size)
{
	size_t capacity = size_hint(file), used = 0;
	unsigned char *buf = NULL;

	for (;;) {
		unsigned char *grown;

		if (used == capacity) {
			if (capacity > SIZE_MAX / 2)
				break;
			capacity *= 2;
		}
		grown = realloc(buf, capacity);
		if (!grown)
			break;
		buf = grown;
		used += fread(buf + used, 1, capacity - used, file);
		if (used < capacity) {
			if (ferror(file)) {
				free(buf);
				return cli_error(CLI_EUSAGE, "%s: read error: %s", path,
						 strerror(errno));
			}
			if (feof(file)) {
				*bytes = buf;
				*size = used;
				return 0;
			}
		}
	}
	free(buf);
	return cli_error(CLI_EUSAGE, "%s: out of memory after %zu bytes", path, used);
}

/* A binary file of size bytes holds whole trajectories of n values. */
static int check_binary_size(const char *path, size_t size, int n)
{
	if (size == 0)
		return cli_error(CLI_EUSAGE, "%s: empty file: no trajectories", path);
	if (size % (8 * (size_t)n))
		return cli_error(CLI_EUSAGE, "%s: %zu bytes is not a multiple of %d "
				 "(%d float64 per trajectory)", path, size, 8 * n, n);
	return 0;
}

/* count values of bytes into data->x0 (allocated), each finite; value 0
 * is value first of the file, as the messages count. */
static int decode_binary(const char *path, const unsigned char *bytes, size_t count,
			 size_t first, int n, struct init_data *data)
{
	data->x0 = malloc((count ? count : 1) * sizeof(double));
	if (!data->x0)
		return cli_error(CLI_EUSAGE, "%s: out of memory for %zu values", path, count);
	for (size_t i = 0; i < count; i++) {
		const size_t at = first + i;

		data->x0[i] = le_double(bytes + 8 * i);
		if (!isfinite(data->x0[i]))
			return cli_error(CLI_EUSAGE, "%s: trajectory %zu, component %zu (byte %zu): not finite",
					 path, at / n, at % n + 1, 8 * at);
	}
	data->ntraj = (long)(count / n);
	return 0;
}

static int read_binary(const char *path, FILE *file, const picard_model *model,
		       struct init_data *data)
{
	const int n = model->dim;
	unsigned char *bytes = NULL;
	size_t size = 0;
	int err;

	err = read_all(path, file, &bytes, &size);
	if (!err)
		err = check_binary_size(path, size, n);
	if (!err)
		err = decode_binary(path, bytes, size / 8, 0, n, data);
	free(bytes);
	return err;
}

/* ---- both ----------------------------------------------------------------- */

int init_stream_read(const char *path, FILE *file, bool binary,
		     const picard_model *model, struct init_data *data)
{
	int err;

	memset(data, 0, sizeof(*data));
	err = binary ? read_binary(path, file, model, data) :
		       read_text(path, file, model, data);
	if (err)
		init_data_free(data);
	return err;
}

int init_file_read(const char *path, const picard_model *model,
		   struct init_data *data)
{
	const bool binary = is_binary_name(path);
	struct stat st;
	FILE *file;
	int err;

	memset(data, 0, sizeof(*data));
	file = fopen(path, binary ? "rb" : "r");
	if (!file)
		return cli_error(CLI_EUSAGE, "--init %s: cannot open: %s", path, strerror(errno));
	/* Raw data is read whole, from a regular file (a known size). */
	if (binary && (fstat(fileno(file), &st) != 0 || !S_ISREG(st.st_mode)))
		err = cli_error(CLI_EUSAGE, "%s: not a regular file", path);
	else
		err = init_stream_read(path, file, binary, model, data);
	fclose(file);
	return err;
}

int init_file_binary_count(const char *path, const picard_model *model, long *count)
{
	struct stat st;
	int err;

	*count = -1;
	if (!is_binary_name(path))
		return 0;
	if (stat(path, &st) != 0)
		return cli_error(CLI_EUSAGE, "--init %s: cannot open: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return cli_error(CLI_EUSAGE, "%s: not a regular file", path);
	err = check_binary_size(path, (size_t)st.st_size, model->dim);
	if (!err)
		*count = (long)((size_t)st.st_size / (8 * (size_t)model->dim));
	return err;
}

int init_file_read_range(const char *path, const picard_model *model, long first, long count,
			 struct init_data *data)
{
	const size_t values = (size_t)count * model->dim, skip = (size_t)first * model->dim;
	unsigned char *bytes = malloc(values ? 8 * values : 1);
	FILE *file = fopen(path, "rb");
	int err = 0;

	memset(data, 0, sizeof(*data));
	if (!file)
		err = cli_error(CLI_EUSAGE, "--init %s: cannot open: %s", path, strerror(errno));
	else if (!bytes)
		err = cli_error(CLI_EUSAGE, "%s: out of memory for %zu values", path, values);
	else if (fseeko(file, (off_t)(8 * skip), SEEK_SET) != 0 ||
		 fread(bytes, 8, values, file) != values)
		err = cli_error(CLI_EUSAGE, "%s: cannot read trajectories %ld to %ld: %s", path,
				first, first + count - 1, ferror(file) ? strerror(errno) : "file too short");
	if (!err)
		err = decode_binary(path, bytes, values, skip, model->dim, data);
	if (file)
		fclose(file);
	free(bytes);
	if (err)
		init_data_free(data);
	return err;
}

int init_data_check_spans(const char *path, const struct init_data *data, double t0, double t1)
{
	if (!data->t0 && !data->t1)
		return 0;
	for (long i = 0; i < data->ntraj; i++) {
		const double a = data->t0 ? data->t0[i] : t0, b = data->t1 ? data->t1[i] : t1;

		if (!(b > a))
			return cli_error(CLI_EUSAGE, "%s:%ld: t1 = %g is not after t0 = %g%s", path,
					 data->lines[i], b, a,
					 data->t0 ? (data->t1 ? "" : " (t1 from --t1 or the model)") :
					 " (t0 from --t0 or the model)");
	}
	return 0;
}

void init_data_free(struct init_data *data)
{
	free(data->x0);
	free(data->params);
	free(data->t0);
	free(data->t1);
	free(data->lines);
	memset(data, 0, sizeof(*data));
}
