/* matrix_internal.h - what the blocked product (matrix.c) and its
 * micro-kernels (matrix_kernels.c) share, for them alone: a kernel's
 * signature and shape, and which kernel is in use. */
#ifndef ATTNVIZ_MATRIX_INTERNAL_H
#define ATTNVIZ_MATRIX_INTERNAL_H

#include <stddef.h>

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define HAVE_X86 1
#include <immintrin.h>
#endif

// ----------------------------------------------------------------------------
// micro-kernels: c[0..mr)[0..nr) (+)= sum over p < kc of a[i][p] * bp[p][j]
//
// a's tile is either MR rows read in place (arow[i][p], with ap NULL; the
// rows beyond mr repeat a real row) or a packed micro-panel (ap[p * MR + i]).
// With TILE_FIRST the sums start from 0, else from c. With TILE_CHECK the
// kernel returns 1 when a sum of the tile is not finite (inf or NaN: then
// fix_overflow; the rows beyond mr repeat real ones and b's padding columns
// are 0, so a tile of finite sums never returns 1 unless a holds inf or NaN).
// Every 4 steps of k the kernel also prefetches the next line of
// pf[0..pf_bytes) into L2: its piece of the next panel of b.

enum { TILE_FIRST = 1, TILE_CHECK = 2 };

typedef int (*MicroKernel)(int kc, const float *const *arow, const float *ap, const float *bp, const char *pf,
                           ptrdiff_t pf_bytes, float *c, int ldc, int mr, int nr, int flags);

/* A micro-kernel and its tile: mr rows (the most it computes at once) by nr
 * columns (the width of b's panels packed for it). */
typedef struct {
    const char *name;
    MicroKernel fn;
    int mr, nr;
} Kernel;

/* The kernel in use (mat_set_kernel, else the best the CPU has). */
const Kernel *mat_active_kernel(void);

#endif
