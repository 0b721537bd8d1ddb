/* ball_SystemDefinition.cuh - models/bouncing_ball.cu written as MPGOS's
 * user functions (its Single System Per-Thread module), for ball.cu:
 *
 *	y' = v,  v' = -g;  when y falls to 0: y <- 0, v <- -e v
 *
 * the same jump as picard's model. g and e are MPGOS shared parameters
 * (sPAR[0], sPAR[1]); the bounces are counted in the integer accessory
 * ACCi[0] and the first ball_log.capacity of them logged to global memory
 * (time, state before and after), as picard's device event log does. */
#ifndef BALL_SYSTEMDEFINITION_CUH
#define BALL_SYSTEMDEFINITION_CUH

/* The event log, member-minor like MPGOS's own arrays (entry k of member
 * tid at k * members + tid); set by ball.cu with cudaMemcpyToSymbol. */
struct ball_log {
	double *time, *before, *after; /* after/before: y at [at], v at [at + entries] */
	int capacity;                  /* entries kept per member */
	int members;                   /* MPGOS's NT */
};
__constant__ ball_log d_ball_log;

template <class Precision>
__forceinline__ __device__ void PerThread_OdeFunction(int tid, int NT, Precision *F, Precision *X,
						      Precision T, Precision *cPAR,
						      Precision *sPAR, int *sPARi, Precision *ACC,
						      int *ACCi)
{
	F[0] = X[1];
	F[1] = -sPAR[0];
}

/* Event 0: the floor. Event 1 never fires (a constant): MPGOS copies its
 * event tolerances and directions into shared memory with a loop bounded
 * by the system's dimension, not the number of events, so with fewer
 * events than dimensions it writes past those arrays. */
template <class Precision>
__forceinline__ __device__ void PerThread_EventFunction(int tid, int NT, Precision *EF, Precision T,
							Precision dT, Precision *TD, Precision *X,
							Precision *cPAR, Precision *sPAR, int *sPARi,
							Precision *ACC, int *ACCi)
{
	EF[0] = X[0];
	EF[1] = 1;
}

/* Called at the end of the step whose event value is within the event
 * tolerance of 0, having come from above it (direction -1): the bounce. */
template <class Precision>
__forceinline__ __device__ void PerThread_ActionAfterEventDetection(int tid, int NT, int IDX, int &UDT,
								    Precision &T, Precision &dT,
								    Precision *TD, Precision *X,
								    Precision *cPAR, Precision *sPAR,
								    int *sPARi, Precision *ACC, int *ACCi)
{
	if (IDX != 0)
		return;
	const int k = ACCi[0]++;
	const bool logged = k < d_ball_log.capacity;
	const size_t at = (size_t)k * d_ball_log.members + tid;
	const size_t entries = (size_t)d_ball_log.capacity * d_ball_log.members;

	if (logged) {
		d_ball_log.time[at] = T;
		d_ball_log.before[at] = X[0];
		d_ball_log.before[at + entries] = X[1];
	}
	X[0] = 0;
	X[1] = -sPAR[1] * X[1];
	if (logged) {
		d_ball_log.after[at] = X[0];
		d_ball_log.after[at + entries] = X[1];
	}
}

template <class Precision>
__forceinline__ __device__ void PerThread_ActionAfterSuccessfulTimeStep(int tid, int NT, int &UDT,
									Precision &T, Precision &dT,
									Precision *TD, Precision *X,
									Precision *cPAR, Precision *sPAR,
									int *sPARi, Precision *ACC,
									int *ACCi)
{
}

/* Each solve starts at the time domain's start with no bounces, so a
 * repeated solve of the same initial states is the same solve. */
template <class Precision>
__forceinline__ __device__ void PerThread_Initialization(int tid, int NT, int &DOIDX, Precision &T,
							 Precision &dT, Precision *TD, Precision *X,
							 Precision *cPAR, Precision *sPAR, int *sPARi,
							 Precision *ACC, int *ACCi)
{
	T = TD[0];
	ACCi[0] = 0;
}

template <class Precision>
__forceinline__ __device__ void PerThread_Finalization(int tid, int NT, int &DOIDX, Precision &T,
						       Precision &dT, Precision *TD, Precision *X,
						       Precision *cPAR, Precision *sPAR, int *sPARi,
						       Precision *ACC, int *ACCi)
{
}

#endif
