// idle-gap.cu - what a CUDA-event-timed kernel (by default 13-14 us on an
// H100, back to back) reads after different host activity (issue 15:
// picard-run's solve read about 5 us more than the tuner's timing of the
// same kernel). Nine ways, 41 repeats each: back to back; after 1 ms (or
// the gap given) of host spinning, of sleeping, of walking 64 MB of host
// memory (the caches the driver's launch path lives in); after a
// synchronous memcpy; as a CUDA graph; on a stream of its own; after a
// 32 MB copy from pageable memory. Not part of the build:
//   nvcc -O2 -gencode arch=compute_90,code=[sm_90,compute_90] -o idle-gap bench/prof/idle-gap.cu
// (The graph variants record the same events on each launch: read them as
// a check that the graph runs, not as timings.)
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <algorithm>
#include <vector>
#include <unistd.h>
#include <cuda_runtime.h>

__global__ void work(float *x, int n, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n) return;
	float a = x[i];
	for (int k = 0; k < iters; k++) a = a * 0.999f + 0.001f;
	x[i] = a;
}

static double now() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static volatile double sink;
static void host_spin(double s) { double t0 = now(); double a = 0; while (now() - t0 < s) { for (int i = 0; i < 1000; i++) a += i * 1e-9; } sink = a; }
static void host_touch(double s) { // walk 64 MB: evicts caches
	static std::vector<char> buf(64 << 20); double t0 = now(); long acc = 0; size_t i = 0;
	while (now() - t0 < s) { for (int k = 0; k < 4096; k++, i = (i + 4096 * 7 + 64) % buf.size()) acc += buf[i]++; }
	sink = acc;
}

int main(int argc, char **argv)
{
	/* trajectories, loop length, gap: 8192, 3000, 1 ms by default (a 13 us
	 * kernel); 1048576, 700, 10 ms reads a 150 us one after a gap as long
	 * as picard-run's host work at 1M trajectories */
	const int n = argc > 1 ? atoi(argv[1]) : 8192, iters = argc > 2 ? atoi(argv[2]) : 3000;
	const double gap = argc > 3 ? atof(argv[3]) * 1e-3 : 1e-3;
	float *x; cudaMalloc(&x, n * sizeof(float)); cudaMemset(x, 0, n * sizeof(float));
	float *h; cudaMallocHost(&h, n * sizeof(float));
	/* what picard's upload does at 1M trajectories: 32 MB from pageable memory */
	static std::vector<char> pageable(32 << 20, 1);
	void *big; cudaMalloc(&big, pageable.size());
	cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
	cudaStream_t s; cudaStreamCreate(&s);
	// graph of event, kernel, event on s
	cudaGraph_t g; cudaGraphExec_t ge;
	cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
	cudaEventRecord(a, s); work<<<n / 128, 128, 0, s>>>(x, n, iters); cudaEventRecord(b, s);
	cudaStreamEndCapture(s, &g);
	if (cudaGraphInstantiate(&ge, g, 0) != cudaSuccess) { printf("instantiate failed\n"); return 1; }
	for (int w = 0; w < 50; w++) work<<<n / 128, 128>>>(x, n, iters);
	cudaDeviceSynchronize();
	const char *names[] = {"back-to-back", "host spin", "usleep", "host cache walk", "memcpy then kernel", "graph after cache walk", "graph back-to-back", "stream s after cache walk",
			       "pageable 32 MB memcpy then kernel"};
	for (int v = 0; v < 9; v++) {
		std::vector<double> t;
		for (int r = 0; r < 41; r++) {
			if (v == 1) host_spin(gap);
			if (v == 2) usleep((useconds_t)(gap * 1e6));
			if (v == 3 || v == 5 || v == 7) host_touch(gap);
			float ms = 0;
			if (v == 5 || v == 6) {
				cudaGraphLaunch(ge, s);
				cudaEventSynchronize(b);
			} else if (v == 7) {
				cudaMemcpy(x, h, n * sizeof(float), cudaMemcpyHostToDevice);
				cudaEventRecord(a, s); work<<<n / 128, 128, 0, s>>>(x, n, iters); cudaEventRecord(b, s);
				cudaEventSynchronize(b);
			} else {
				if (v == 4) cudaMemcpy(x, h, n * sizeof(float), cudaMemcpyHostToDevice);
				if (v == 8) cudaMemcpy(big, pageable.data(), pageable.size(), cudaMemcpyHostToDevice);
				cudaEventRecord(a, 0); work<<<n / 128, 128>>>(x, n, iters); cudaEventRecord(b, 0);
				cudaEventSynchronize(b);
			}
			cudaEventElapsedTime(&ms, a, b);
			t.push_back(ms * 1e3);
		}
		std::sort(t.begin(), t.end());
		printf("%-28s min %6.2f median %6.2f max %6.2f us\n", names[v], t[0], t[t.size() / 2], t.back());
	}
	return 0;
}
