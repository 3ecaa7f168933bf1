/* A hostile program for the sandbox's system-call filter (tests/run/test_hostile_programs.py).
 *
 *   filter_escapes SOCKET_PATH < "A B"
 *
 * 1. Ordinary work first: reads two integers, prints their sum, and checks that a socketpair
 *    and a forked child still work (`pair=ok`, `fork=ok`).
 * 2. The escape: makes an AF_UNIX socket with io_uring (IORING_OP_SOCKET, no socket() call),
 *    connects it to SOCKET_PATH and sends `escaped` (`escape=connected`, else the step that
 *    failed and its errno).
 * 3. Every way into what the sandbox refuses, each as `NAME=0` (it worked) or `NAME=ERRNO`:
 *    io_uring_setup, io_uring_enter and io_uring_register as native calls (the last two with
 *    bad arguments: an error other than ENOSYS where the call is allowed), keyctl (the user's
 *    keyring), and on x86_64 the x32 calls (ENOSYS (38) from a kernel without x32) and the
 *    32-bit calls through int 0x80 in a child (`crash` where the kernel has no 32-bit entry):
 *    io_uring_setup, socket(AF_UNIX), socketcall and keyctl.
 * Everything goes to stdout, one `key=value` a line after the sum.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define IO_URING_SETUP 425
#define IO_URING_ENTER 426
#define IO_URING_REGISTER 427

static int result(long ret) { return ret < 0 ? errno : 0; }

static void probe(const char *name, long ret) {
    printf("%s=%d\n", name, result(ret));
    if (ret >= 0 && !strcmp(name, "setup")) close((int)ret);
}

/* An AF_UNIX stream socket made by the kernel's io_uring worker; -1 (errno set) on failure,
 * with the step that failed in *step. */
static int socket_by_io_uring(const char **step) {
    struct io_uring_params params;
    memset(&params, 0, sizeof params);
    *step = "setup";
    int ring = (int)syscall(IO_URING_SETUP, 4, &params);
    if (ring < 0) return -1;
    size_t sq_size = params.sq_off.array + params.sq_entries * sizeof(unsigned);
    size_t cq_size = params.cq_off.cqes + params.cq_entries * sizeof(struct io_uring_cqe);
    if (cq_size > sq_size) sq_size = cq_size; /* one mapping for both (IORING_FEAT_SINGLE_MMAP) */
    *step = "mmap";
    char *sq = mmap(NULL, sq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
                    IORING_OFF_SQ_RING);
    struct io_uring_sqe *sqes = mmap(NULL, params.sq_entries * sizeof(struct io_uring_sqe),
                                     PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
                                     IORING_OFF_SQES);
    if (sq == MAP_FAILED || sqes == MAP_FAILED) return -1;
    char *cq = sq;
    unsigned *tail = (unsigned *)(sq + params.sq_off.tail);
    unsigned *mask = (unsigned *)(sq + params.sq_off.ring_mask);
    unsigned *array = (unsigned *)(sq + params.sq_off.array);
    unsigned index = *tail & *mask;
    memset(&sqes[index], 0, sizeof sqes[index]);
    sqes[index].opcode = IORING_OP_SOCKET;
    sqes[index].fd = AF_UNIX;
    sqes[index].off = SOCK_STREAM;
    array[index] = index;
    __atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
    *step = "enter";
    if (syscall(IO_URING_ENTER, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0) return -1;
    unsigned *cq_head = (unsigned *)(cq + params.cq_off.head);
    unsigned *cq_mask = (unsigned *)(cq + params.cq_off.ring_mask);
    struct io_uring_cqe *cqes = (struct io_uring_cqe *)(cq + params.cq_off.cqes);
    int fd = cqes[*cq_head & *cq_mask].res;
    *step = "socket";
    if (fd < 0) {
        errno = -fd;
        return -1;
    }
    return fd;
}

static void escape(const char *path) {
    const char *step;
    int fd = socket_by_io_uring(&step);
    if (fd < 0) {
        printf("escape=%s:%d\n", step, errno);
        return;
    }
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    strncpy(address.sun_path, path, sizeof address.sun_path - 1);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        printf("escape=connect:%d\n", errno);
        return;
    }
    if (write(fd, "escaped", 7) != 7) {
        printf("escape=write:%d\n", errno);
        return;
    }
    printf("escape=connected\n");
}

#if defined(__x86_64__)
/* A 32-bit call through int 0x80, in a child (a kernel without the 32-bit entry kills it). */
static void probe_int80(const char *name, long number, long b, long c, long d) {
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        long ret;
        __asm__ volatile("int $0x80" : "=a"(ret) : "a"(number), "b"(b), "c"(c), "d"(d)
                         : "memory");
        printf("%s=%ld\n", name, ret < 0 && ret > -4096 ? -ret : 0);
        fflush(stdout);
        _exit(0);
    }
    int status;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status)) printf("%s=crash\n", name);
}
#endif

int main(int argc, char **argv) {
    long long a, b;
    if (scanf("%lld %lld", &a, &b) != 2) return 2;
    printf("%lld\n", a + b);
    int pair[2];
    char byte = 0;
    int pair_ok = socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0 && write(pair[0], "x", 1) == 1
                  && read(pair[1], &byte, 1) == 1 && byte == 'x';
    printf("pair=%s\n", pair_ok ? "ok" : "failed");
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) _exit(7);
    int status = 0;
    printf("fork=%s\n", child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status)
                        && WEXITSTATUS(status) == 7 ? "ok" : "failed");
    if (argc > 1) escape(argv[1]);
    struct io_uring_params params;
    memset(&params, 0, sizeof params);
    probe("setup", syscall(IO_URING_SETUP, 4, &params));
    probe("enter", syscall(IO_URING_ENTER, -1, 0, 0, 0, NULL, 0));
    probe("register", syscall(IO_URING_REGISTER, -1, 0, NULL, 0));
    /* KEYCTL_GET_KEYRING_ID (0) of KEY_SPEC_USER_KEYRING (-4): the user's keyring */
    probe("keyctl", syscall(SYS_keyctl, 0, -4, 0));
#if defined(__x86_64__)
    memset(&params, 0, sizeof params);
    probe("x32_setup", syscall(IO_URING_SETUP | 0x40000000, 4, &params));
    probe("x32_socket", syscall(SYS_socket | 0x40000000, AF_UNIX, SOCK_STREAM, 0));
    probe_int80("i386_setup", 425, 0, 0, 0);    /* io_uring_setup(0, NULL) */
    probe_int80("i386_socket", 359, AF_UNIX, SOCK_STREAM, 0);
    probe_int80("i386_socketcall", 102, 1, 0, 0); /* SYS_SOCKET, its arguments at NULL */
    probe_int80("i386_keyctl", 288, 0, -4, 0);
#endif
    return 0;
}
