/* matvec.h - products of a few rows with a matrix read in place: the next
 * token of a model that writes, the rows a student types at the end of a
 * sentence (issue 17). For one to a few rows, packing the right-hand matrix
 * (matrix.h) reads and writes it twice more than the product reads it; here
 * it is read once, straight from its mapping.
 *
 * The numbers are those of matrix.h, bit for bit: every element is one float
 * sum of fused multiply-adds over k in ascending order from 0, and an element
 * that leaves the float range is summed again in double and saturates. */
#ifndef ATTNVIZ_MATVEC_H
#define ATTNVIZ_MATVEC_H

/* The most rows mat_vec_rows is meant for (it takes any number, a group of
 * MATVEC_ROWS at a time, reading b once per group). */
#define MATVEC_ROWS 4

/* c (m, n; ldc) = a (m, k; lda) * b (k, n; ldb), b row-major in place. */
void mat_vec_rows(float *c, int ldc, const float *a, int lda, const float *b, int ldb, int m, int k, int n);

#endif
