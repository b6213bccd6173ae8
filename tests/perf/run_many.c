/* run_many: times a short command many times, for lines too short for the shell's clocks
 * (a copy of an empty image lasts ~10 ms; bash's `times` counts whole milliseconds).
 *
 * Usage: cc -O2 -o run_many tests/perf/run_many.c
 *        run_many [-c] [-r FILE] [-v] N CMD ARGS...
 *   -c       cold: sync and drop the page cache before each run (root), then run
 *            `CMD --version` so the program itself is loaded, not what it works on
 *   -r FILE  remove FILE before each run (the output of the previous one)
 *   -v       also print each run: wall, user and sys CPU (us), minor and major faults, voluntary and
 *            involuntary context switches (to see where a slow run's time went)
 * Prints the median wall time and the mean CPU time (user + sys, from wait4) in
 * microseconds. The command's output goes to /dev/null; a failed run stops everything. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int compare(const void *a, const void *b)
{
    const long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static pid_t spawn(char **argv)
{
    const pid_t pid = fork();
    if (pid == 0) {
        const int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    return pid;
}

int main(int argc, char **argv)
{
    int cold = 0, verbose = 0, opt;
    const char *removeFile = NULL;
    while ((opt = getopt(argc, argv, "+cr:v")) != -1) {
        if (opt == 'c')
            cold = 1;
        else if (opt == 'v')
            verbose = 1;
        else if (opt == 'r')
            removeFile = optarg;
        else
            return 2;
    }
    if (argc - optind < 2) {
        fprintf(stderr, "usage: run_many [-c] [-r FILE] [-v] N CMD ARGS...\n");
        return 2;
    }
    const int n = atoi(argv[optind]);
    char **cmd = argv + optind + 1;
    if (n < 1 || n > 100000)
        return 2;
    long *wall = calloc((size_t)n, sizeof *wall);
    double cpu = 0;
    for (int i = 0; i < n; ++i) {
        if (removeFile)
            unlink(removeFile);
        if (cold) {
            sync();
            const int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
            if (fd < 0 || write(fd, "3", 1) != 1) {
                perror("run_many: drop_caches");
                return 1;
            }
            close(fd);
            char *version[] = {cmd[0], "--version", NULL};
            waitpid(spawn(version), NULL, 0);
        }
        struct timespec start, end;
        struct rusage usage;
        int status;
        clock_gettime(CLOCK_MONOTONIC, &start);
        wait4(spawn(cmd), &status, 0, &usage);
        clock_gettime(CLOCK_MONOTONIC, &end);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "run_many: %s failed (status %d)\n", cmd[0], status);
            return 1;
        }
        wall[i] = (end.tv_sec - start.tv_sec) * 1000000L + (end.tv_nsec - start.tv_nsec) / 1000;
        if (verbose)
            printf("run %d wall %ld us user %ld us sys %ld us minflt %ld majflt %ld nvcsw %ld nivcsw %ld\n", i + 1,
                   wall[i], usage.ru_utime.tv_sec * 1000000L + usage.ru_utime.tv_usec,
                   usage.ru_stime.tv_sec * 1000000L + usage.ru_stime.tv_usec, usage.ru_minflt, usage.ru_majflt,
                   usage.ru_nvcsw, usage.ru_nivcsw);
        cpu += (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6
            + (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
    }
    qsort(wall, (size_t)n, sizeof *wall, compare);
    printf("wall %ld us (median of %d)  cpu %.0f us (mean)\n", wall[n / 2], n, cpu / n);
    free(wall);
    return 0;
}
