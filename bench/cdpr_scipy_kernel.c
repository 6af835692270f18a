/* Timing loop for scipy's compiled Lawson-Hanson kernel (the Fortran NNLS of Lawson & Hanson
 * that scipy.optimize.nnls wraps, scipy <= 1.11: module scipy.optimize.__nnls). Loaded by
 * bench/cdpr_compare.py through ctypes; the kernel's address comes from the f2py capsule
 * `__nnls.nnls._cpointer`, so the loop below calls the very machine code scipy runs, with no
 * Python between calls. Built by that script with `cc -O2 -shared -fPIC`.
 * Per call, as the f2py wrapper does (intent(copy)): A and b are copied into scratch (the kernel
 * overwrites them), then the kernel runs with maxiter = -1 (scipy's default, 3 n). */
#include <string.h>
#include <time.h>

typedef void (*nnls_kernel)(double* a, int* mda, int* m, int* n, double* b, double* x, double* rnorm, double* w, double* zz, int* index,
                            int* mode, int* maxiter);

/* Runs `passes` passes over the `count` problems (A: count blocks of m x n column-major, b:
 * count blocks of m); x receives the last pass's solutions (count x n), modes the kernel's
 * return codes. `scratch` holds m n + m + n + m doubles, `iscratch` n ints. Returns the elapsed
 * time [ns]: wall (CLOCK_MONOTONIC) for cpu_time == 0, else the calling thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID; the C++ side then reports Google Benchmark's CPU time). */
double cdpr_time_scipy_nnls(void* kernel, int m, int n, int count, const double* A, const double* b, long passes, double* x, int* modes,
                            double* scratch, int* iscratch, int cpu_time) {
  const clockid_t clock = cpu_time ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
  nnls_kernel fn = (nnls_kernel)kernel;
  double* a = scratch;
  double* bb = a + (long)m * n;
  double* w = bb + m;
  double* zz = w + n;
  struct timespec t0, t1;
  clock_gettime(clock, &t0);
  for (long p = 0; p < passes; ++p) {
    for (int k = 0; k < count; ++k) {
      int mda = m, mm = m, nn = n, mode = 0, maxiter = -1;
      double rnorm = 0.0;
      memcpy(a, A + (long)k * m * n, sizeof(double) * (size_t)(m * n));
      memcpy(bb, b + (long)k * m, sizeof(double) * (size_t)m);
      fn(a, &mda, &mm, &nn, bb, x + (long)k * n, &rnorm, w, zz, iscratch, &mode, &maxiter);
      modes[k] = mode;
    }
  }
  clock_gettime(clock, &t1);
  return (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
}
