/* ball.cu - MPGOS's event handling on picard's bouncing ball benchmark
 * (bench/events/run.sh): the members picard-run solves, read from its
 * --save-at 0 --out CSV, integrated by MPGOS's adaptive RKCK45 with
 * MPGOS's event location (README.md says how it locates), timed with CUDA
 * events around its kernel, --repeat times; prints picard-run's "solve"
 * and "events" lines and writes the first members' bounces in the layout
 * of picard-run --events, for bench/events/check_bounces.awk.
 *
 * MPGOS is not part of this repository: build.sh, kept with the built
 * binary outside it, compiles this file against a fetched copy. */
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "ball_SystemDefinition.cuh"
#include "SingleSystem_PerThread_Interface.cuh"

#ifndef BALL_MEMBERS
#define BALL_MEMBERS 1048576 /* MPGOS's NT, fixed when compiled: the most members */
#endif

/* MPGOS's template arguments: members, dimension, control parameters,
 * shared parameters (g, e), integer shared parameters, events (the floor
 * and a constant, ball_SystemDefinition.cuh says why), accessories,
 * integer accessories (the bounce count), dense output points. */
typedef ProblemSolver<BALL_MEMBERS, 2, 0, 2, 0, 2, 0, 1, 0, RKCK45, double> ball_solver;

struct options {
	const char *init = nullptr, *log = nullptr;
	int repeat = 3, block = 32, log_members = 4096, log_capacity = 32;
	double t1 = 7.6, rtol = 1e-8, atol = 1e-8, event_tol = 3e-12, min_step = 1e-14;
	double g = 9.81, e = 0.9;
};

static void usage(void)
{
	fprintf(stderr,
		"usage: mpgos-ball --init FILE [--log FILE] [options]\n"
		"  --init FILE        initial states: picard-run's --save-at 0 --out CSV (t,traj,status,x1,x2)\n"
		"  --log FILE         write the first --log-members members' bounces as picard-run --events does\n"
		"  --log-members N    (default 4096)     --log-capacity N  bounces kept a member (default 32)\n"
		"  --repeat R         timed solves (default 3)\n"
		"  --t1 T (7.6)  --rtol R (1e-8)  --atol A (1e-8)  --g G (9.81)  --e E (0.9)\n"
		"  --event-tol D      MPGOS's event tolerance, in metres of height (default 3e-12)\n"
		"  --min-step H       MPGOS's minimum step (default 1e-14; MPGOS drops an event whose\n"
		"                     located step would be shorter)\n"
		"  --block N          threads a block (default 32, MPGOS's default: one warp)\n");
}

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "mpgos-ball: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	exit(2);
}

static double number(const char *flag, const char *text, double lo, double hi)
{
	char *end;
	errno = 0;
	const double v = strtod(text, &end);

	if (errno || end == text || *end || !(v >= lo && v <= hi)) {
		fprintf(stderr, "mpgos-ball: %s '%s': expected a number in [%g, %g]\n", flag, text,
			lo, hi);
		exit(2);
	}
	return v;
}

static options parse(int argc, char **argv)
{
	options o;

	for (int i = 1; i < argc; i++) {
		const char *f = argv[i];

		if (!strcmp(f, "--help")) {
			usage();
			exit(0);
		}
		if (i + 1 >= argc) {
			usage();
			fail(f, "needs a value (or is unknown)");
		}
		const char *v = argv[++i];
		if (!strcmp(f, "--init"))
			o.init = v;
		else if (!strcmp(f, "--log"))
			o.log = v;
		else if (!strcmp(f, "--log-members"))
			o.log_members = (int)number(f, v, 0, BALL_MEMBERS);
		else if (!strcmp(f, "--log-capacity"))
			o.log_capacity = (int)number(f, v, 0, 1000);
		else if (!strcmp(f, "--repeat"))
			o.repeat = (int)number(f, v, 1, 1000);
		else if (!strcmp(f, "--block"))
			o.block = (int)number(f, v, 1, 1024);
		else if (!strcmp(f, "--t1"))
			o.t1 = number(f, v, 1e-300, 1e300);
		else if (!strcmp(f, "--rtol"))
			o.rtol = number(f, v, 1e-16, 1);
		else if (!strcmp(f, "--atol"))
			o.atol = number(f, v, 1e-300, 1);
		else if (!strcmp(f, "--event-tol"))
			o.event_tol = number(f, v, 1e-300, 1);
		else if (!strcmp(f, "--min-step"))
			o.min_step = number(f, v, 1e-300, 1);
		else if (!strcmp(f, "--g"))
			o.g = number(f, v, 1e-300, 1e300);
		else if (!strcmp(f, "--e"))
			o.e = number(f, v, 0, 1);
		else {
			usage();
			fail(f, "unknown option");
		}
	}
	if (!o.init) {
		usage();
		fail("--init", "required");
	}
	return o;
}

/* picard-run's CSV of the states at t = 0: rows t,traj,status,x1,x2 for
 * members 0, 1, ... in order (the status, the member's at its end, is not
 * needed). */
static void read_init(const char *path, std::vector<double> &y, std::vector<double> &v)
{
	FILE *f = fopen(path, "r");
	char line[512];
	long row = 0;

	if (!f)
		fail(path, strerror(errno));
	if (!fgets(line, sizeof(line), f) || strncmp(line, "t,traj,status,x1,x2", 19))
		fail(path, "not picard-run's --out CSV of bouncing_ball (header t,traj,status,x1,x2)");
	while (fgets(line, sizeof(line), f)) {
		double t, x1, x2;
		long traj;
		char status[32];

		if (sscanf(line, "%lf,%ld,%31[^,],%lf,%lf", &t, &traj, status, &x1, &x2) != 5 ||
		    t != 0 || traj != row) {
			fprintf(stderr, "mpgos-ball: %s: line %ld: expected '0,%ld,STATUS,x1,x2'\n", path,
				row + 2, row);
			exit(2);
		}
		if (row == BALL_MEMBERS) {
			fprintf(stderr, "mpgos-ball: %s: more than %d members (BALL_MEMBERS)\n", path,
				BALL_MEMBERS);
			exit(2);
		}
		y.push_back(x1);
		v.push_back(x2);
		row++;
	}
	fclose(f);
	if (!row)
		fail(path, "no members");
}

#define CUDA_OK(call)                                                                        \
	do {                                                                                 \
		const cudaError_t err_ = (call);                                             \
		if (err_ != cudaSuccess) {                                                   \
			fprintf(stderr, "mpgos-ball: %s: %s\n", #call, cudaGetErrorString(err_)); \
			exit(1);                                                             \
		}                                                                            \
	} while (0)

int main(int argc, char **argv)
{
	const options o = parse(argc, argv);
	std::vector<double> y0, v0;
	int devices = 0;

	read_init(o.init, y0, v0);
	const int n = (int)y0.size();
	const cudaError_t found = cudaGetDeviceCount(&devices);
	if (found != cudaSuccess || devices < 1) {
		fprintf(stderr, "mpgos-ball: no CUDA device (%s)\n",
			found != cudaSuccess ? cudaGetErrorString(found) : "none found");
		return 1;
	}

	ball_solver solver(0);
	solver.SolverOption(ThreadsPerBlock, o.block);
	solver.SolverOption(ActiveNumberOfThreads, n);
	solver.SolverOption(MinimumTimeStep, o.min_step);
	for (int i = 0; i < 2; i++) {
		solver.SolverOption(RelativeTolerance, i, o.rtol);
		solver.SolverOption(AbsoluteTolerance, i, o.atol);
	}
	solver.SolverOption(EventDirection, 0, -1); /* falling */
	solver.SolverOption(EventTolerance, 0, o.event_tol);
	solver.SolverOption(EventDirection, 1, 0);
	solver.SolverOption(EventTolerance, 1, o.event_tol);
	solver.SetHost(SharedParameters, 0, o.g);
	solver.SetHost(SharedParameters, 1, o.e);
	for (int m = 0; m < BALL_MEMBERS; m++) {
		const int src = m < n ? m : 0; /* members past n are not run */
		solver.SetHost(m, TimeDomain, 0, 0.0);
		solver.SetHost(m, TimeDomain, 1, o.t1);
		solver.SetHost(m, ActualTime, 0.0);
		solver.SetHost(m, ActualState, 0, y0[src]);
		solver.SetHost(m, ActualState, 1, v0[src]);
		solver.SetHost(m, IntegerAccessories, 0, 0);
	}
	solver.SynchroniseFromHostToDevice(All);

	ball_log log;
	const size_t entries = (size_t)o.log_capacity * BALL_MEMBERS;
	log.capacity = o.log_capacity;
	log.members = BALL_MEMBERS;
	CUDA_OK(cudaMalloc(&log.time, (entries ? entries : 1) * sizeof(double)));
	CUDA_OK(cudaMalloc(&log.before, (entries ? 2 * entries : 1) * sizeof(double)));
	CUDA_OK(cudaMalloc(&log.after, (entries ? 2 * entries : 1) * sizeof(double)));
	CUDA_OK(cudaMemcpyToSymbol(d_ball_log, &log, sizeof(log)));

	/* Timed: MPGOS's kernel alone, between events on the legacy default
	 * stream, which waits for MPGOS's (blocking) stream; the states go
	 * back up untimed before each solve. */
	cudaEvent_t start, stop;
	std::vector<double> ms(o.repeat);
	CUDA_OK(cudaEventCreate(&start));
	CUDA_OK(cudaEventCreate(&stop));
	for (int r = 0; r < o.repeat; r++) {
		float elapsed;
		solver.SynchroniseFromHostToDevice(ActualState);
		solver.InsertSynchronisationPoint();
		solver.SynchroniseSolver();
		CUDA_OK(cudaEventRecord(start, 0));
		solver.Solve();
		CUDA_OK(cudaGetLastError());
		CUDA_OK(cudaEventRecord(stop, 0));
		CUDA_OK(cudaEventSynchronize(stop));
		CUDA_OK(cudaEventElapsedTime(&elapsed, start, stop));
		ms[r] = elapsed;
	}
	solver.SynchroniseFromDeviceToHost(All);
	solver.InsertSynchronisationPoint();
	solver.SynchroniseSolver();
	CUDA_OK(cudaDeviceSynchronize());

	const double first = ms[0];
	std::sort(ms.begin(), ms.end());
	cudaDeviceProp prop;
	CUDA_OK(cudaGetDeviceProperties(&prop, 0));
	printf("\nmpgos        RKCK45 double, rtol=%g atol=%g, event tolerance %g, min step %g, %d members "
	       "(NT %d), %d a block, t in [0, %g], on %s\n",
	       o.rtol, o.atol, o.event_tol, o.min_step, n, BALL_MEMBERS, o.block, o.t1, prop.name);
	printf("solve        %.4g ms, the first of %d; median %.4g ms, min %.4g ms\n", first, o.repeat,
	       ms[o.repeat / 2], ms[0]);

	/* Each member ends at t1 above the floor, else an event was missed
	 * (MPGOS drops one whose step would be under the minimum) */
	long bounces = 0, missed = 0;
	int fewest = 1 << 30, most = 0;
	for (int m = 0; m < n; m++) {
		const int c = solver.GetHost<int>(m, IntegerAccessories, 0);
		const double t = solver.GetHost<double>(m, ActualTime);
		const double y = solver.GetHost<double>(m, ActualState, 0);

		bounces += c;
		fewest = std::min(fewest, c);
		most = std::max(most, c);
		if (!(fabs(t - o.t1) <= 1e-12 * o.t1) || !(y >= -o.event_tol)) {
			if (missed++ < 8)
				fprintf(stderr, "mpgos-ball: member %d ends at t = %.17g, y = %.17g\n", m,
					t, y);
		}
	}
	printf("events       %ld (bounces: %d to %d a member, %d kept per member)\n", bounces, fewest,
	       most, o.log_capacity);
	printf("status       %ld ok, %ld not at t1 above the floor\n", n - missed, missed);

	if (o.log) {
		const int members = std::min(o.log_members, n);
		const size_t kept_entries = (size_t)o.log_capacity * members;
		std::vector<double> time(kept_entries), before(2 * kept_entries), after(2 * kept_entries);
		FILE *f = fopen(o.log, "w");

		if (!f)
			fail(o.log, strerror(errno));
		/* entry k of member m at k * BALL_MEMBERS + m there, k * members + m here */
		const size_t row = members * sizeof(double), pitch = BALL_MEMBERS * sizeof(double);
		if (members && o.log_capacity) {
			CUDA_OK(cudaMemcpy2D(time.data(), row, log.time, pitch, row, o.log_capacity,
					     cudaMemcpyDeviceToHost));
			CUDA_OK(cudaMemcpy2D(before.data(), row, log.before, pitch, row,
					     2 * o.log_capacity, cudaMemcpyDeviceToHost));
			CUDA_OK(cudaMemcpy2D(after.data(), row, log.after, pitch, row,
					     2 * o.log_capacity, cudaMemcpyDeviceToHost));
		}
		fprintf(f, "member,event,name,time,before_x1,before_x2,after_x1,after_x2\n");
		for (int m = 0; m < members; m++) {
			const int kept = std::min(solver.GetHost<int>(m, IntegerAccessories, 0),
						  o.log_capacity);
			for (int k = 0; k < kept; k++) {
				const size_t at = (size_t)k * members + m;
				fprintf(f, "%d,0,bounce,%.17g,%.17g,%.17g,%.17g,%.17g\n", m, time[at],
					before[at], before[at + kept_entries], after[at],
					after[at + kept_entries]);
			}
		}
		if (fclose(f))
			fail(o.log, strerror(errno));
		printf("log          %s (%d members)\n", o.log, members);
	}
	return missed ? 1 : 0;
}
