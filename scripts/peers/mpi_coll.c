/* The project's Open MPI peer benchmark, kept in the repository so that scripts/side-by-side.sh runs from a clone alone. */
/*
 * mpi_coll.c - small peer-baseline benchmark for MPI collectives.
 *
 * Measures (float32, MPI_SUM where a reduction applies):
 *   allreduce  8 B, 1 KiB, 64 KiB, 1 MiB, 16 MiB, 64 MiB
 *   bcast      1 MiB, 64 MiB (root 0)
 *   allgather  16 MiB total output (16 MiB / nranks contributed per rank)
 *   barrier
 *   pingpong   8 B (latency) and 64 MiB (bandwidth) between ranks 0 and 1
 *              (other ranks, if any, sleep-wait and do not compete for CPU)
 *
 * Method: warm up (>= 3 ops and >= ~0.1 s), then take S samples; each sample
 * is a barrier followed by K back-to-back ops, sample time = (elapsed / K),
 * maximum over ranks. K is chosen so a sample lasts >= ~5 ms (so tiny ops
 * are not dominated by timer/barrier skew); S so one measurement lasts
 * ~target seconds (clamped to [9, 101] samples). Reported: median, min, max.
 *
 * Bandwidth conventions (same as nccl-tests), MB = 1e6 bytes:
 *   algbw = bytes / time
 *   allreduce busbw = algbw * 2 (n-1) / n
 *   allgather busbw = algbw * (n-1) / n     (bytes = total gathered size)
 *   bcast     busbw = algbw
 *   pingpong  time = one-way = round-trip / 2, bw = bytes / one-way time
 *
 * Output: one line per measurement, key=value, prefixed by "RESULT ".
 *
 * Usage: mpirun -np N ./mpi_coll [-t TAG] [-T target_seconds] [-o ops]
 *   ops: comma list of allreduce,bcast,allgather,barrier,pingpong (default all)
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define KiB (1024L)
#define MiB (1024L * 1024L)

static int world_rank, world_size;
static const char *tag = "default";
static double target_s = 1.0;     /* wall time per measurement (approx.) */
static const double batch_s = 0.005; /* minimum time of one sample */
static const double warm_s = 0.1;    /* minimum warm-up time */
static const int min_samples = 9, max_samples = 101;

typedef struct {
  MPI_Comm comm;
  int rank, size;
  float *sbuf, *rbuf;
  long count; /* elements (meaning depends on op) */
} ctx_t;

typedef void (*op_fn)(ctx_t *c);

static void op_allreduce(ctx_t *c) {
  MPI_Allreduce(c->sbuf, c->rbuf, (int)c->count, MPI_FLOAT, MPI_SUM, c->comm);
}
static void op_bcast(ctx_t *c) {
  MPI_Bcast(c->rbuf, (int)c->count, MPI_FLOAT, 0, c->comm);
}
static void op_allgather(ctx_t *c) {
  /* count = elements contributed per rank */
  MPI_Allgather(c->sbuf, (int)c->count, MPI_FLOAT, c->rbuf, (int)c->count,
                MPI_FLOAT, c->comm);
}
static void op_barrier(ctx_t *c) { MPI_Barrier(c->comm); }
static void op_pingpong(ctx_t *c) {
  if (c->rank == 0) {
    MPI_Send(c->sbuf, (int)c->count, MPI_FLOAT, 1, 7, c->comm);
    MPI_Recv(c->rbuf, (int)c->count, MPI_FLOAT, 1, 7, c->comm,
             MPI_STATUS_IGNORE);
  } else if (c->rank == 1) {
    MPI_Recv(c->rbuf, (int)c->count, MPI_FLOAT, 0, 7, c->comm,
             MPI_STATUS_IGNORE);
    MPI_Send(c->sbuf, (int)c->count, MPI_FLOAT, 0, 7, c->comm);
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef struct {
  double median, min, max;
  int k, samples;
} stats_t;

/* All ranks of c->comm must call this. Loop counts are derived from
 * values reduced over the communicator, so every rank runs the same number
 * of collective calls. */
static stats_t measure(ctx_t *c, op_fn fn) {
  stats_t st;
  double t0, est;
  /* phase 1: 3 ops to estimate cost */
  MPI_Barrier(c->comm);
  t0 = MPI_Wtime();
  for (int i = 0; i < 3; i++) fn(c);
  est = (MPI_Wtime() - t0) / 3.0;
  MPI_Allreduce(MPI_IN_PLACE, &est, 1, MPI_DOUBLE, MPI_MAX, c->comm);
  if (est <= 0) est = 1e-7;
  /* phase 2: rest of warm-up */
  long extra = (long)ceil(warm_s / est) - 3;
  if (extra > 100000) extra = 100000;
  for (long i = 0; i < extra; i++) fn(c);
  /* re-estimate after warm-up (first ops include connection setup) */
  MPI_Barrier(c->comm);
  t0 = MPI_Wtime();
  for (int i = 0; i < 3; i++) fn(c);
  est = (MPI_Wtime() - t0) / 3.0;
  MPI_Allreduce(MPI_IN_PLACE, &est, 1, MPI_DOUBLE, MPI_MAX, c->comm);
  if (est <= 0) est = 1e-7;

  long k = (long)ceil(batch_s / est);
  if (k < 1) k = 1;
  if (k > 100000) k = 100000;
  long s = (long)floor(target_s / (k * est));
  if (s < min_samples) s = min_samples;
  if (s > max_samples) s = max_samples;

  double *t = malloc(sizeof(double) * s);
  for (long j = 0; j < s; j++) {
    MPI_Barrier(c->comm);
    double a = MPI_Wtime();
    for (long i = 0; i < k; i++) fn(c);
    t[j] = (MPI_Wtime() - a) / (double)k;
  }
  MPI_Allreduce(MPI_IN_PLACE, t, (int)s, MPI_DOUBLE, MPI_MAX, c->comm);
  qsort(t, s, sizeof(double), cmp_double);
  st.median = (s % 2) ? t[s / 2] : 0.5 * (t[s / 2 - 1] + t[s / 2]);
  st.min = t[0];
  st.max = t[s - 1];
  st.k = (int)k;
  st.samples = (int)s;
  free(t);
  return st;
}

static void report(const char *op, long bytes, int ranks, stats_t st,
                   double busfactor, int pingpong) {
  if (world_rank != 0) return;
  double tmed = st.median, tmin = st.min, tmax = st.max;
  if (pingpong) { /* one-way time */
    tmed /= 2; tmin /= 2; tmax /= 2;
  }
  double algbw = bytes / tmed / 1e6;
  printf("RESULT op=%s bytes=%ld ranks=%d mode=%s median_us=%.3f min_us=%.3f "
         "max_us=%.3f algbw_MBps=%.1f busbw_MBps=%.1f iters_per_sample=%d "
         "samples=%d\n",
         op, bytes, ranks, tag, tmed * 1e6, tmin * 1e6, tmax * 1e6, algbw,
         algbw * busfactor, st.k, st.samples);
  fflush(stdout);
}

/* Ranks outside a sub-communicator park here without spinning, so that they
 * do not steal CPU from the measured ranks on an oversubscribed machine. */
static void sleepy_world_barrier(void) {
  MPI_Request req;
  int done = 0;
  MPI_Ibarrier(MPI_COMM_WORLD, &req);
  struct timespec ts = {0, 1000000}; /* 1 ms */
  while (!done) {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (!done) nanosleep(&ts, NULL);
  }
}

static float *alloc_floats(long n, float v) {
  float *p = NULL;
  if (posix_memalign((void **)&p, 4096, (size_t)(n > 0 ? n : 1) * sizeof(float))) {
    fprintf(stderr, "alloc failed\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  for (long i = 0; i < n; i++) p[i] = v;
  return p;
}

static int want(const char *ops, const char *op) {
  if (!ops) return 1;
  const char *p = strstr(ops, op);
  if (!p) return 0;
  size_t l = strlen(op);
  return (p == ops || p[-1] == ',') && (p[l] == 0 || p[l] == ',');
}

int main(int argc, char **argv) {
  const char *ops = NULL;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-t") && i + 1 < argc) tag = argv[++i];
    else if (!strcmp(argv[i], "-T") && i + 1 < argc) target_s = atof(argv[++i]);
    else if (!strcmp(argv[i], "-o") && i + 1 < argc) ops = argv[++i];
  }
  int n = world_size;
  if (world_rank == 0) {
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(ver, &len);
    char *nl = strchr(ver, '\n');
    if (nl) *nl = 0;
    printf("# mpi_coll ranks=%d mode=%s lib=\"%s\"\n", n, tag, ver);
    fflush(stdout);
  }

  const long max_bytes = 64 * MiB;
  const long max_elems = max_bytes / 4;
  ctx_t c = {MPI_COMM_WORLD, world_rank, world_size, NULL, NULL, 0};
  c.sbuf = alloc_floats(max_elems, (float)(world_rank + 1));
  c.rbuf = alloc_floats(max_elems, 0.0f);

  /* ---------- allreduce ---------- */
  if (want(ops, "allreduce")) {
    const long sizes[] = {8, 1 * KiB, 64 * KiB, 1 * MiB, 16 * MiB, 64 * MiB};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
      c.count = sizes[i] / 4;
      stats_t st = measure(&c, op_allreduce);
      /* correctness check: sum of (rank+1) = n(n+1)/2, exact in float */
      float expect = (float)(n * (n + 1) / 2);
      int bad = (c.rbuf[0] != expect) || (c.rbuf[c.count - 1] != expect);
      MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      if (bad && world_rank == 0)
        printf("# WARNING allreduce result check failed at %ld bytes\n", sizes[i]);
      report("allreduce", sizes[i], n, st, 2.0 * (n - 1) / n, 0);
    }
  }

  /* ---------- bcast ---------- */
  if (want(ops, "bcast")) {
    const long sizes[] = {1 * MiB, 64 * MiB};
    for (size_t i = 0; i < 2; i++) {
      c.count = sizes[i] / 4;
      stats_t st = measure(&c, op_bcast);
      report("bcast", sizes[i], n, st, 1.0, 0);
    }
  }

  /* ---------- allgather (16 MiB total) ---------- */
  if (want(ops, "allgather")) {
    long total = 16 * MiB;
    c.count = total / 4 / n;
    stats_t st = measure(&c, op_allgather);
    report("allgather", c.count * 4 * n, n, st, (double)(n - 1) / n, 0);
  }

  /* ---------- barrier ---------- */
  if (want(ops, "barrier")) {
    c.count = 0;
    stats_t st = measure(&c, op_barrier);
    report("barrier", 0, n, st, 0.0, 0);
  }

  /* ---------- ping-pong between ranks 0 and 1 ---------- */
  if (want(ops, "pingpong") && n >= 2) {
    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank < 2 ? 0 : MPI_UNDEFINED,
                   world_rank, &pair);
    if (pair != MPI_COMM_NULL) {
      ctx_t p = {pair, 0, 2, c.sbuf, c.rbuf, 0};
      MPI_Comm_rank(pair, &p.rank);
      const long sizes[] = {8, 64 * MiB};
      for (size_t i = 0; i < 2; i++) {
        p.count = sizes[i] / 4;
        stats_t st = measure(&p, op_pingpong);
        report("pingpong", sizes[i], n, st, 1.0, 1);
      }
      MPI_Comm_free(&pair);
    }
    /* every rank (measured or parked) meets here; Ibarrier on all ranks,
     * since blocking and non-blocking collectives do not match each other */
    sleepy_world_barrier();
  }

  free(c.sbuf);
  free(c.rbuf);
  MPI_Finalize();
  return 0;
}
