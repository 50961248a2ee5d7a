/*
 * mpi_big.c - the Open MPI side of scripts/side-by-side.sh for the 64 MiB rows that
 * scripts/peers/mpi_coll.c does not measure: allgather with a 64 MiB output and
 * reduce-scatter (MPI_Reduce_scatter_block) with a 64 MiB input, float32, MPI_SUM.
 *
 * Method (as mpi_coll.c for large sizes): 3 warm-up calls, then S samples of one call after
 * a barrier, a sample's time is the maximum over ranks; reports the median, min and max.
 * Output: "RESULT op=OP bytes=B ranks=N mode=tcp median_us=... min_us=... max_us=..."
 *
 * Usage: mpirun -np N ./mpi_big [-S samples]   (default 10)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef void (*op_fn)(float *in, float *out, long count, int n);

static void allgather(float *in, float *out, long count, int n) {
  MPI_Allgather(in, (int)(count / n), MPI_FLOAT, out, (int)(count / n), MPI_FLOAT, MPI_COMM_WORLD);
}

static void reducescatter(float *in, float *out, long count, int n) {
  MPI_Reduce_scatter_block(in, out, (int)(count / n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

static void measure(const char *name, op_fn fn, float *in, float *out, long count, int n, int rank, int s) {
  for (int i = 0; i < 3; i++) fn(in, out, count, n);
  double *t = malloc(sizeof(double) * s);
  for (int j = 0; j < s; j++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double a = MPI_Wtime();
    fn(in, out, count, n);
    t[j] = MPI_Wtime() - a;
  }
  MPI_Allreduce(MPI_IN_PLACE, t, s, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  qsort(t, s, sizeof(double), cmp);
  double med = (s % 2) ? t[s / 2] : 0.5 * (t[s / 2 - 1] + t[s / 2]);
  if (rank == 0) {
    printf("RESULT op=%s bytes=%ld ranks=%d mode=tcp median_us=%.3f min_us=%.3f max_us=%.3f samples=%d\n", name,
           count * 4, n, med * 1e6, t[0] * 1e6, t[s - 1] * 1e6, s);
    fflush(stdout);
  }
  free(t);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n, s = 10;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "-S") && i + 1 < argc) s = atoi(argv[++i]);
  long count = (64L << 20) / 4 / n * n;
  float *in = malloc(count * 4), *out = malloc(count * 4);
  for (long i = 0; i < count; i++) in[i] = (float)((i + rank) % 7);
  memset(out, 0, count * 4);
  measure("allgather", allgather, in, out, count, n, rank, s);
  measure("reducescatter", reducescatter, in, out, count, n, rank, s);
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
