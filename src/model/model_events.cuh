/* model_events.cuh - what a model's events (docs/models.md, "Events")
 * look like to the engine: whether it declares them, their count, limit
 * and spacing, and its jump. Read by every compiler of a model file
 * (picard_model.cuh's contract, events_step.cuh's integration). */
#ifndef PICARD_MODEL_EVENTS_CUH
#define PICARD_MODEL_EVENTS_CUH

#include "picard.h"
#include "portable.h"
#include "traits.cuh"

namespace picard {

/* ---- what a model declares ------------------------------------------------ */

/* Model declares nevents (the rest of the events' contract is
 * picard_model.cuh's to check). */
template <class M, class = void>
struct has_nevents : false_type {};
template <class M>
struct has_nevents<M, void_t<decltype(&M::nevents)>> : true_type {};

/* Model::events<real>(t, x, p, g) and Model::jump<real>(k, t, x, p) can be
 * called in float and double; a jump's p is the member's own parameters,
 * which it may change (declared real *p) or only read (const real *p). */
PICARD_CALLABLE_TRAIT(events)
template <class M, class = void>
struct has_jump : false_type {};
template <class M>
struct has_jump<M, void_t<
	decltype(M::template jump<float>(0, 0.0f, (float *)0, (float *)0)),
	decltype(M::template jump<double>(0, 0.0, (double *)0, (double *)0))>>
	: true_type {};

/* The model's event count (0: none), limit and minimum spacing. */
template <class M, class = void>
struct nevents_of { static constexpr int value = 0; };
template <class M>
struct nevents_of<M, enable_if_t<has_nevents<M>::value>> {
	static constexpr int value = M::nevents;
};
#define PICARD_EVENT_LIMIT_DEFAULT 1000
template <class M, class = void>
struct event_limit_of { static constexpr int value = PICARD_EVENT_LIMIT_DEFAULT; };
template <class M>
struct event_limit_of<M, void_t<decltype(&M::event_limit)>> {
	static constexpr int value = M::event_limit;
};
template <class M, class = void>
struct event_min_spacing_of { static constexpr double value = 0; };
template <class M>
struct event_min_spacing_of<M, void_t<decltype(&M::event_min_spacing)>> {
	static constexpr double value = M::event_min_spacing;
};

/* The directions and actions as bit masks (bit k: event k), computed at
 * compile time: device code reads constants, not the model's host arrays.
 * nevents is at most 64 (the contract says so). */
template <class M, bool = (nevents_of<M>::value > 0)>
struct event_masks {
	static constexpr unsigned long long rising = 0, falling = 0, jump = 0, terminate = 0;
};
template <class M>
struct event_masks<M, true> {
	static constexpr unsigned long long mask(int what)
	{
		unsigned long long bits = 0;

		for (int k = 0; k < M::nevents && k < 64; k++) {
			const bool in = what == 0 ? M::event_directions[k] != PICARD_EVENT_FALLING :
					what == 1 ? M::event_directions[k] != PICARD_EVENT_RISING :
					what == 2 ? M::event_actions[k] == PICARD_EVENT_JUMP :
						    M::event_actions[k] == PICARD_EVENT_TERMINATE;
			bits |= (unsigned long long)in << k;
		}
		return bits;
	}
	static constexpr unsigned long long rising = mask(0), falling = mask(1), jump = mask(2),
					    terminate = mask(3);
};

/* Whether the integration runs the model's events: it declares them and
 * they can be called (a broken declaration is the contract's error). */
template <class M>
struct runs_events {
	static constexpr bool value = nevents_of<M>::value > 0 && has_events<M>::value;
};

/* The jump of event k, where the model has one (the contract requires
 * it when an action is a jump): x and the member's parameters p in place. */
template <class M, typename real, bool = has_jump<M>::value>
struct event_jump {
	__host__ __device__ static void apply(int k, real t, real *x, real *p)
	{
		M::template jump<real>(k, t, x, p);
	}
};
template <class M, typename real>
struct event_jump<M, real, false> {
	__host__ __device__ static void apply(int, real, real *, real *) {}
};

} /* namespace picard */

#endif
