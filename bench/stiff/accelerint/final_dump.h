/* Added for the picard side-by-side benchmark: dump final states.
 * final_T.csv      : idx,T_final for all reactors
 * final_states.csv : idx,T,Y_0..Y_{NSP-1} (species in ORIGINAL mechanism order,
 *                    last species recomputed as 1-sum) for the first
 *                    ACCEL_NSAVE (default 64) reactors.
 * ACCEL_DUMP_ALL=1 additionally writes final_states.bin (NUM x NN doubles, same layout). */
#ifndef FINAL_DUMP_H
#define FINAL_DUMP_H
#include <stdio.h>
#include <stdlib.h>
static void final_dump(int NUM, const double* y_host)
{
    int nsave = 64;
    const char* e = getenv("ACCEL_NSAVE");
    if (e) nsave = atoi(e);
    if (nsave > NUM) nsave = NUM;
    FILE* fT = fopen("final_T.csv", "w");
    FILE* fS = fopen("final_states.csv", "w");
    FILE* fB = NULL;
    e = getenv("ACCEL_DUMP_ALL");
    if (e && atoi(e)) fB = fopen("final_states.bin", "wb");
    if (!fT || !fS) { fprintf(stderr, "cannot open output files\n"); exit(-1); }
    fprintf(fT, "idx,T\n");
    fprintf(fS, "idx,T");
    for (int k = 0; k < NSP; ++k) fprintf(fS, ",Y%d", k);
    fprintf(fS, "\n");
    double buffer[NN];
    for (int j = 0; j < NUM; ++j)
    {
        double Y_N = 1.0;
        buffer[0] = y_host[j];
        for (int i = 1; i < NSP; ++i)
        {
            buffer[i] = y_host[NUM * i + j];
            Y_N -= buffer[i];
        }
        buffer[NSP] = Y_N;
        apply_reverse_mask(&buffer[1]);
        fprintf(fT, "%d,%.17g\n", j, buffer[0]);
        if (j < nsave)
        {
            fprintf(fS, "%d", j);
            for (int k = 0; k < NN; ++k) fprintf(fS, ",%.17g", buffer[k]);
            fprintf(fS, "\n");
        }
        if (fB) fwrite(buffer, sizeof(double), NN, fB);
    }
    fclose(fT); fclose(fS);
    if (fB) fclose(fB);
}
#endif
