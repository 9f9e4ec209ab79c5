/* finite.h - the first NaN or infinity in a model's weights, found before the
 * weights are used: a non-finite weight makes every later number of the
 * forward pass NaN (probabilities "nan", "-nan" on the screen, NUL bytes
 * from --generate), so the readers refuse it at open, naming the tensor and
 * the element (llama2.h, hfcheckpoint.h).
 *
 * The test is on the bits (an all-ones exponent), so it is exact for every
 * type and needs no conversion. The arrays are read in chunks of
 * FINITE_CHUNK bytes spread over the thread pool (parallel.h); a cancel
 * request (cancel.h) stops the scan between chunks. Cost: about 10 ms per
 * 100 MB already in memory on one core (make bench; the first read of a file
 * costs what reading it from the disk costs, which its first forward pass
 * would pay anyway). */
#ifndef ATTNVIZ_FINITE_H
#define ATTNVIZ_FINITE_H

#include <stddef.h>
#include <stdint.h>

typedef enum { FINITE_F32 = 0, FINITE_F16, FINITE_BF16 } FiniteType;

#define FINITE_CHUNK ((size_t)1 << 22) /* bytes per task */

typedef struct {
    const void *data; /* little-endian elements, any alignment */
    FiniteType type;
    uint64_t count; /* elements */
} FiniteArray;

/* The first element of a that is NaN or infinite, or a->count. */
uint64_t finite_first_bad(const FiniteArray *a);

/* The arrays a[0..n), scanned in parallel: the index of the first array (in
 * the order given) that holds a NaN or an infinity, *at set to its first such
 * element; -1 when every element is finite; -2 when a cancel request
 * stopped the scan. */
int finite_scan(const FiniteArray *a, int n, uint64_t *at);

/* "NaN", "infinite" or "-infinite": what element `at` of a is (for a
 * message: in the reader's language). */

const char *finite_kind(const FiniteArray *a, uint64_t at);

#endif
