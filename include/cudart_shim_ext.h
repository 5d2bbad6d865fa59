/*
 * cudart-shim's own API: call subscribers, counters, flush and caching
 * allocator statistics. Generated from the Rust sources by scripts/gen-header;
 * do not edit. Include it after NVIDIA's <cuda_runtime_api.h> (or
 * <cuda_runtime.h>), or use <cudart_shim.h>, which includes it. Link with
 * -lcudart_shim, or run under cudart-shim: the functions exist only there.
 */

#ifndef CUDART_SHIM_EXT_H
#define CUDART_SHIM_EXT_H

#include <stddef.h>
#include <stdint.h>
#if !defined(CUDART_SHIM_H) && !defined(__CUDA_RUNTIME_API_H__)
#include <cuda_runtime_api.h>
#endif

#define CUDART_SHIM_PHASE_ENTER 0

#define CUDART_SHIM_PHASE_EXIT 1

#define CUDART_SHIM_LAYER_RUNTIME 0

#define CUDART_SHIM_LAYER_DRIVER 1

/**
 * Before the call (and before injected faults): may change the arguments
 * through `call->params`.
 */
#define CUDART_SHIM_HOOK_BEFORE 0

/**
 * In place of the call.
 */
#define CUDART_SHIM_HOOK_INSTEAD 1

/**
 * After the call: may change its result.
 */
#define CUDART_SHIM_HOOK_AFTER 2

/**
 * From an `instead` handler: do not stand for this call.
 */
#define CUDART_SHIM_HOOK_CONTINUE -1

/**
 * Counters of one function, over every thread, since the last reset.
 */
typedef struct cudartShimCounter {
  uint32_t function_id;
  const char *function_name;
  uint64_t calls;
  uint64_t failed_calls;
  uint64_t total_ns;
  uint64_t min_ns;
  uint64_t max_ns;
} cudartShimCounter;

/**
 * One decoded argument of a call: its name and its value as the call log
 * writes it (enums by name, pointers in hex, out-parameters `0x...->value`
 * on exit of a successful call). Valid during the callback only.
 */
typedef struct cudartShimArg {
  const char *name;
  const char *value;
} cudartShimArg;

/**
 * What a subscriber callback receives. Valid during the callback only.
 */
typedef struct cudartShimCallbackData {
  /**
   * Stable for the life of the process; see `cudartShimGetFunctionName`.
   */
  uint32_t function_id;
  const char *function_name;
  /**
   * `CUDART_SHIM_PHASE_ENTER` or `CUDART_SHIM_PHASE_EXIT`.
   */
  int phase;
  /**
   * 0 for a call from the program; 1 and more for calls made while
   * another call of the same thread is running (from a stream callback,
   * say). Calls made by a subscriber callback are never delivered.
   */
  uint32_t depth;
  /**
   * The calling thread's kernel thread id.
   */
  int thread_id;
  uint32_t num_args;
  const struct cudartShimArg *args;
  /**
   * On exit: what the call returned (cudaSuccess on entry).
   */
  cudaError_t result;
  /**
   * On exit: how long the call took.
   */
  uint64_t duration_ns;
} cudartShimCallbackData;

/**
 * A subscriber callback: `userdata` as given to `cudartShimSubscribe`.
 * It may call the runtime; those calls are answered, counted and traced,
 * but not delivered to subscribers (no callback re-enters itself).
 */
typedef void (*cudartShimCallback)(void *userdata, const struct cudartShimCallbackData *data);

/**
 * One call as every stage of the interception pipeline sees it (hooks,
 * faults, the ledger, observation): the same description for runtime and
 * driver calls. Valid during the call only.
 */
typedef struct cudartShimCall {
  /**
   * One id space over runtime and driver names (`CUDART_SHIM_ID_<name>`
   * in `cudart_shim_params.h`; driver ids start at
   * `CUDART_SHIM_DRIVER_BASE`). The same for every process of one build.
   */
  uint32_t function_id;
  /**
   * `CUDART_SHIM_LAYER_RUNTIME` or `CUDART_SHIM_LAYER_DRIVER`.
   */
  uint32_t layer;
  /**
   * 0 for a call from the program; 1 and more for a call made while
   * another intercepted call of the same thread is running (our runtime's
   * driver calls, a stream callback's calls).
   */
  uint32_t depth;
  /**
   * The calling thread's kernel thread id (filled for hooks; 0 for the
   * stages before them).
   */
  int thread_id;
  const char *function_name;
  /**
   * The call's typed parameter block (`<name>_params` in
   * `cudart_shim_params.h`; NULL for a function without parameters).
   * A `before` handler may change the arguments through it.
   */
  void *params;
  /**
   * The result so far: set before the `after` phase (a `cudaError_t` for
   * a runtime call, a `CUresult` for a driver call); 0 before the call.
   */
  int result;
} cudartShimCall;

/**
 * A hook handler: `userdata` as registered, and the call. Its return value
 * depends on the phase: ignored for `CUDART_SHIM_HOOK_BEFORE`; for
 * `CUDART_SHIM_HOOK_INSTEAD`, the result the caller sees (the call does not
 * run), or `CUDART_SHIM_HOOK_CONTINUE` to let the next handler or the call
 * answer; for `CUDART_SHIM_HOOK_AFTER`, the result the caller sees
 * (`call->result` holds the result so far). Its own CUDA calls are answered
 * but not delivered to hooks.
 */
typedef int (*cudartShimHookFn)(void *userdata, struct cudartShimCall *call);

/**
 * Statistics of the opt-in caching allocator (`CUDART_SHIM_POOL=1`) for one
 * device's device memory or pinned host memory. The allocator carves
 * blocks (requests rounded to 512 B) out of segments it takes from the
 * driver (whole 2 MiB pages); held bytes = active + cached bytes. All zero
 * when the allocator is off or unused.
 */
typedef struct cudartShimPoolStats {
  /**
   * Segments taken from the driver and not given back, and their bytes.
   */
  uint64_t held_blocks;
  uint64_t held_bytes;
  /**
   * Blocks in the program's hands.
   */
  uint64_t active_blocks;
  uint64_t active_bytes;
  /**
   * Free blocks in the cache (freed blocks waiting for a synchronize, and
   * free parts of segments).
   */
  uint64_t cached_blocks;
  uint64_t cached_bytes;
  uint64_t peak_held_bytes;
  /**
   * Allocations served from the cache / that took a new segment from the
   * driver.
   */
  uint64_t hits;
  uint64_t misses;
  /**
   * Device synchronizations made to reuse freed blocks.
   */
  uint64_t synchronizes;
  /**
   * Segments given back to the driver.
   */
  uint64_t released_blocks;
} cudartShimPoolStats;

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

/**
 * Count calls (for the counters API) even without `CUDART_SHIM_TRACE`.
 */
cudaError_t cudartShimEnableCounters(int enable);

/**
 * Counters of every function called so far: up to `capacity` records in
 * `counters` (may be NULL when `capacity` is 0); `*count` = how many exist.
 */
cudaError_t cudartShimGetCounters(struct cudartShimCounter *counters, size_t capacity, size_t *count);

/**
 * Counters of one function by name (zeros when it was never called).
 */
cudaError_t cudartShimGetCounter(const char *name, struct cudartShimCounter *counter);

/**
 * Start every counter (and the summary) from zero.
 */
cudaError_t cudartShimResetCounters(void);

/**
 * Write the summary, the memory report and every pending timeline event now.
 */
cudaError_t cudartShimFlush(void);

/**
 * Call `on_enter` before and `on_exit` after every runtime call (either
 * may be NULL, not both), from the calling thread. `*handle` receives the
 * subscription for `cudartShimUnsubscribe`. A callback may call the
 * runtime: those calls are answered, counted and traced, but not delivered
 * to subscribers, so a callback never re-enters itself (nor to hooks: a
 * subscriber is a hook that only observes, see `cudartShimHookRegister`).
 * Subscribers see calls whether or not tracing is on.
 */
cudaError_t cudartShimSubscribe(cudartShimCallback on_enter, cudartShimCallback on_exit, void *userdata, uint64_t *handle);

/**
 * End a subscription made by `cudartShimSubscribe`; safe from any thread
 * while calls are in flight. When it returns (called outside a callback)
 * the callbacks are not running on any thread and will not run again, so
 * their user data may be freed. cudaErrorInvalidValue: no such
 * subscription (a hook's handle included).
 */
cudaError_t cudartShimUnsubscribe(uint64_t handle);

/**
 * Call `handler` in `phase` (`CUDART_SHIM_HOOK_BEFORE`, `_INSTEAD` or
 * `_AFTER`) of every call of the functions `functions` names: a
 * comma-separated list of globs (`*`, `?`) over runtime (`cuda*`) and
 * driver (`cu*`) names, `-glob` to leave some out (the last glob that
 * matches decides). Handlers of one phase run in the order they were
 * registered. `*handle` receives the registration for
 * `cudartShimHookUnregister`. cudaErrorInvalidValue: a NULL argument, a
 * phase out of range, or a list that matches no function (with a log
 * line saying why). Driver calls reach hooks through the driver
 * interposer (`cudart-shim run`/`trace`, or its folder first on
 * LD_LIBRARY_PATH).
 */
cudaError_t cudartShimHookRegister(const char *functions, int phase, cudartShimHookFn handler, void *userdata, uint64_t *handle);

/**
 * Remove a handler registered by `cudartShimHookRegister`; safe from any
 * thread while calls are in flight. When it returns (called outside a
 * handler) the handler is not running on any thread and will not run
 * again, so its user data may be freed. cudaErrorInvalidValue: no such
 * registration.
 */
cudaError_t cudartShimHookUnregister(uint64_t handle);

/**
 * The name of function `function_id`, or NULL.
 */
const char *cudartShimGetFunctionName(uint32_t function_id);

/**
 * The caching allocator's statistics of `device`: device memory when
 * `host` is 0, pinned host memory when 1.
 */
cudaError_t cudartShimGetPoolStats(int device, int host, struct cudartShimPoolStats *stats);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  /* CUDART_SHIM_EXT_H */
