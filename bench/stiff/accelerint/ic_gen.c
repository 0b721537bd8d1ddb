/* Initial-condition generator for the accelerInt/picard side-by-side GRI-Mech 3.0 benchmark.
 * Usage: ic_gen N [outdir]
 * Writes outdir/ign_data.bin (accelerInt format: per reactor NN+2 = 56 doubles:
 *   t=0, T, P, Y[53] in ORIGINAL GRI-Mech 3.0 species order) and outdir/ics.csv
 *   (idx,T0,P,u, Y_CH4,Y_O2,Y_N2) and outdir/picard_init.csv (one row per reactor:
 *   T0, Y[53] in GRI order; no header; for picard-run --init).
 * Mixture: CH4/air phi=1, moles CH4:1, O2:2, N2:7.52 (air = O2:1,N2:3.76).
 * T0_i = 1400*(1 + 0.1*u_i), u_i = 2*r_i - 1, r_i = (splitmix64_i >> 11) * 2^-53,
 *   splitmix64 state seeded with 12345 (state += 0x9E3779B97F4A7C15 each draw, Vigna's mix).
 * P = 101325 Pa. Molecular weights as in pyJac-generated mass_mole.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#define NSP 53
static uint64_t sm_state = 12345ULL;
static uint64_t splitmix64(void) {
    uint64_t z = (sm_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
int main(int argc, char** argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s N [outdir]\n", argv[0]); return 1; }
    long N = atol(argv[1]);
    const char* dir = argc > 2 ? argv[2] : ".";
    char path[4096];
    /* species indices in GRI-Mech 3.0 order */
    const int iCH4 = 13, iO2 = 3, iN2 = 47;
    const double W_CH4 = 1.6042760000000001e+01, W_O2 = 3.1998799999999999e+01,
                 W_N2 = 2.8013480000000001e+01;
    double X_CH4 = 1.0, X_O2 = 2.0, X_N2 = 7.52;
    double m = X_CH4 * W_CH4 + X_O2 * W_O2 + X_N2 * W_N2;
    double Y[NSP]; memset(Y, 0, sizeof(Y));
    Y[iCH4] = X_CH4 * W_CH4 / m; Y[iO2] = X_O2 * W_O2 / m; Y[iN2] = X_N2 * W_N2 / m;
    snprintf(path, sizeof path, "%s/ign_data.bin", dir);
    FILE* fb = fopen(path, "wb");
    snprintf(path, sizeof path, "%s/ics.csv", dir);
    FILE* fc = fopen(path, "w");
    snprintf(path, sizeof path, "%s/picard_init.csv", dir);
    FILE* fp = fopen(path, "w");
    if (!fb || !fc || !fp) { fprintf(stderr, "cannot open output in %s\n", dir); return 1; }
    fprintf(fc, "idx,T0,P,u,Y_CH4,Y_O2,Y_N2\n");
    const double P = 101325.0;
    for (long i = 0; i < N; ++i) {
        double r = (double)(splitmix64() >> 11) * 0x1.0p-53;
        double u = 2.0 * r - 1.0;
        double T0 = 1400.0 * (1.0 + 0.1 * u);
        double buf[NSP + 3];
        buf[0] = 0.0; buf[1] = T0; buf[2] = P;
        memcpy(&buf[3], Y, sizeof(Y));
        fwrite(buf, sizeof(double), NSP + 3, fb);
        for (int k = 0; k < NSP + 1; ++k) fprintf(fp, k ? ",%.17g" : "%.17g", buf[1 + (k ? k + 1 : 0)]);
        fprintf(fp, "\n");
        fprintf(fc, "%ld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", i, T0, P, u, Y[iCH4], Y[iO2], Y[iN2]);
    }
    fclose(fb); fclose(fc); fclose(fp);
    return 0;
}
