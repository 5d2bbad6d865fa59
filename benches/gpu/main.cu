// Runs every registered benchmark: warm-up, then timed repetitions; prints
// "name<TAB>median ns/op" per benchmark. argv[1] (optional): substring filter.
#include "bench.h"
#include <algorithm>
#include <cstring>

int main(int argc, char **argv) {
    // argv[1]: "--list" prints the names; "=NAME" runs NAME only; anything
    // else is a substring filter.
    const char *filter = argc > 1 ? argv[1] : "";
    if (!strcmp(filter, "--list")) {
        for (auto &b : bench_registry()) printf("%s\n", b.name);
        return 0;
    }
    bool exact = filter[0] == '=';
    CK(cudaSetDevice(0));
    CK(cudaDeviceSynchronize());
    for (auto &b : bench_registry()) {
        if (exact ? strcmp(b.name, filter + 1) != 0 : (*filter && !strstr(b.name, filter))) continue;
        // Calibrate to about 20 ms per repetition.
        long iters = 1;
        for (;;) {
            double t = b.run(iters);
            if (t > 2e7 || iters > (1L << 24)) break;
            iters *= t < 2e5 ? 16 : 2;
        }
        std::vector<double> per;
        for (int rep = 0; rep < 7; rep++) per.push_back(b.run(iters) / iters);
        std::sort(per.begin(), per.end());
        printf("%s\t%.1f\n", b.name, per[per.size() / 2]);
        fflush(stdout);
    }
    return 0;
}
