// Cost of the two clocks the trace layer can use (src/trace/clock.rs):
// rdtsc and clock_gettime(CLOCK_MONOTONIC), ns per read, best of 7 rounds
// of 10M reads. Also prints the kernel's clocksource and the CPU's TSC
// flags. Build: cc -O2 benches/cpu/clock_cost.c -o /tmp/clock_cost
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(void) {
    char buf[256] = "";
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (f && fgets(buf, sizeof buf, f)) printf("clocksource: %s", buf);
    if (f) fclose(f);
    f = fopen("/proc/cpuinfo", "r");
    static char line[1 << 16];
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5)) continue;
        const char *want[] = {"constant_tsc", "nonstop_tsc", "tsc_known_freq", "tsc_reliable"};
        printf("tsc flags:");
        for (int i = 0; i < 4; i++) {
            char w[64];
            snprintf(w, sizeof w, " %s ", want[i]);
            if (strstr(line, w)) printf(" %s", want[i]);
        }
        printf("\n");
        break;
    }
    if (f) fclose(f);
    const long n = 10000000;
    double best_tsc = 1e9, best_mono = 1e9;
    volatile uint64_t sink = 0;
    for (int r = 0; r < 7; r++) {
        double t0 = now();
        for (long i = 0; i < n; i++) sink += __rdtsc();
        double t1 = now();
        for (long i = 0; i < n; i++) {
            struct timespec t;
            clock_gettime(CLOCK_MONOTONIC, &t);
            sink += t.tv_nsec;
        }
        double t2 = now();
        if ((t1 - t0) / n < best_tsc) best_tsc = (t1 - t0) / n;
        if ((t2 - t1) / n < best_mono) best_mono = (t2 - t1) / n;
    }
    printf("rdtsc: %.1f ns per read\nclock_gettime(CLOCK_MONOTONIC): %.1f ns per read\n", best_tsc, best_mono);
    return 0;
}
