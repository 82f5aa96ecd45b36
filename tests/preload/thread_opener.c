/* tests/preload/thread_opener.c - many threads opening files at once:
 * thread_opener THREADS ROUNDS ALLOWED DENIED. Each round a thread opens
 * ALLOWED (must succeed) and DENIED (must fail with EACCES) for reading.
 * Prints "allowed <n> denied <n> other <n>" and exits 0 when every open
 * behaved. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *allowed, *denied;
static long rounds;
static atomic_long n_allowed, n_denied, n_other;

static void *worker(void *arg)
{
    (void)arg;
    for (long r = 0; r < rounds; r++) {
        int fd = open(allowed, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            atomic_fetch_add(&n_allowed, 1);
            close(fd);
        } else {
            atomic_fetch_add(&n_other, 1);
        }
        fd = open(denied, O_RDONLY | O_CLOEXEC);
        if (fd < 0 && errno == EACCES) {
            atomic_fetch_add(&n_denied, 1);
        } else {
            atomic_fetch_add(&n_other, 1);
            if (fd >= 0)
                close(fd);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: thread_opener THREADS ROUNDS ALLOWED DENIED\n");
        return 2;
    }
    long nthreads = strtol(argv[1], NULL, 10);
    rounds = strtol(argv[2], NULL, 10);
    allowed = argv[3];
    denied = argv[4];
    if (nthreads < 1 || nthreads > 256)
        return 2;
    pthread_t t[256];
    for (long k = 0; k < nthreads; k++)
        if (pthread_create(&t[k], NULL, worker, NULL) != 0)
            return 3;
    for (long k = 0; k < nthreads; k++)
        pthread_join(t[k], NULL);
    printf("allowed %ld denied %ld other %ld\n", atomic_load(&n_allowed), atomic_load(&n_denied),
           atomic_load(&n_other));
    return atomic_load(&n_other) == 0 ? 0 : 1;
}
