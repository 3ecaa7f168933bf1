/* The launcher of external programs: runs one program on one case, contained and measured.
 *
 * A pool worker execs this launcher for every case; the launcher forks the program, waits for
 * it with wait4 and writes what it measured to a result file. Forking from this small process
 * (about 1 MB resident) rather than from the worker is what makes the program's peak resident
 * memory its own: Linux carries the forking process's high-water mark across exec.
 *
 *   launcher -o RESULT [-P PARENT] [-a AS] [-s STACK] [-f FSIZE] [-c CPU_MS] [-w WALL_MS]
 *            [-d DIR] [-n] [-M FD -N FD -S SHARED [-b PATH]...] -- PROGRAM ARG...
 *   launcher -T ROOT -S SHARED [-b PATH]...
 *
 *   -o  result file: one line `status=.. user_us=.. sys_us=.. rss_kb=.. wall_us=..
 *       killed=none|cpu|wall|term containment=pidns|subreaper`, preceded by
 *       `start_error=ERRNO STEP PATH` when the program could not be started; or a
 *       `setup_error=TEXT` line when the launcher could not set up what was asked
 *   -P  a pidfd of the worker (pidfd_open): the launcher exits at once if the worker is gone
 *   -a -s -f  RLIMIT_AS, RLIMIT_STACK, RLIMIT_FSIZE of the program in bytes (0: unlimited)
 *   -c  CPU-time limit in ms: the program is killed once it has used more (0: none)
 *   -w  wall-clock cap in ms (0: none)
 *   -d  the program's working directory
 *   -n  no PID namespace: contain the program with a child subreaper
 *   -D  a file descriptor (the write end of the worker's pipe) closed once every process of
 *       the case is dead and the result is written: the worker goes on at once while the
 *       launcher's exit tears its namespaces down
 *   -M -N  sandbox: file descriptors of a template's mount and network namespaces (below),
 *       with the -S and -b the template was built with; the case gets a private copy of the
 *       template's mounts plus its own /proc (showing only its processes) and an empty /tmp,
 *       a new IPC namespace, and runs as user nobody (65534), which has no capabilities and
 *       no way to gain any (PR_SET_NO_NEW_PRIVS)
 *   -T  build a sandbox template and hold it: new mount and network namespaces (the network
 *       has only a loopback, down) whose root, a tmpfs mounted on the empty folder ROOT, shows
 *       the system folders and a few devices read-only, the folder SHARED (which holds the
 *       cases' working directories) writable, and each -b PATH read-only; says `ready` on
 *       stdout, then waits for stdin to close while the caller opens /proc/PID/ns/{mnt,net}.
 *       Building that once per worker, not once per case, saves about 0.5 ms a case. What
 *       lies under /tmp is kept under /.shown in the template and bound into each case's /tmp.
 *
 * Containment. The program runs in a PID namespace whose init (pid 1) is the launcher: once
 * the program has ended, init kills every other process of the namespace, whatever they did
 * (setsid, double fork), and reaps them; were init itself killed, the kernel would kill them.
 * A worker starts the launcher as the init of a new namespace itself (unshare(CLONE_NEWPID)
 * before the spawn), which saves a process and a wake-up per case; started in its caller's
 * namespace, the launcher makes one and forks its init. Where no PID namespace can be created
 * (no privilege) the launcher is a child subreaper instead: orphans of the program become its
 * children, and after the program it kills and reaps every child until none is left.
 *
 * Sessions. The worker starts the launcher in a session of its own (no controlling terminal);
 * the program gets a process group of its own in that session, not a session: a new session
 * is a new scheduling group (autogroup), and a fresh one per case made a loaded machine's
 * wake-ups of the program markedly slower.
 *
 * Parent death. The launcher asks for SIGTERM when its worker dies (PR_SET_PDEATHSIG) and then
 * kills the program and everything it started; init and the program ask for SIGKILL when their
 * parent dies. The launcher's session is its own, so a kill of the pipeline's process group
 * reaches it only through the worker's death.
 *
 * Limits. Address space, stack, file size and core size (0) are set in the program before
 * exec, with RLIMIT_CPU a second above the CPU limit as a backstop. The CPU limit itself is
 * watched on the program's CPU clock, and the wall-clock cap on the monotonic clock.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOBODY 65534
#define MAX_BINDS 64
#define CPU_POLL_NS 50000000LL /* at most this long between two looks at the CPU clock */

static struct {
    const char *result_path, *workdir, *root, *shared;
    const char *binds[MAX_BINDS];
    int nbinds;
    int parent_fd; /* -1: none given */
    unsigned long long as_bytes, stack_bytes, fsize_bytes;
    long long cpu_ms, wall_ms;
    int no_pidns, mount_fd, net_fd; /* the fds are -1 unless sandboxed */
    int done_fd;                    /* -1: none given */
    char **argv;
} opt = {.parent_fd = -1, .mount_fd = -1, .net_fd = -1, .done_fd = -1};

static int result_fd = -1;
static sigset_t handled; /* SIGCHLD and the requests to stop, taken with sigtimedwait */

static void report(const char *format, ...) {
    char line[1024];
    va_list args;
    va_start(args, format);
    int n = vsnprintf(line, sizeof line, format, args);
    va_end(args);
    if (n > (int)sizeof line - 1) n = sizeof line - 1;
    if (result_fd >= 0 && n > 0 && write(result_fd, line, n) < 0) _exit(3);
}

static void setup_failed(const char *what, const char *path) {
    report("setup_error=%s %s: %s\n", what, path ? path : "", strerror(errno));
    _exit(4);
}

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int stop_requested(int sig) {
    return sig == SIGTERM || sig == SIGHUP || sig == SIGINT || sig == SIGQUIT;
}

/* -- the sandbox's root file system ------------------------------------------------------- */

struct attr { uint64_t set, clear, propagation, userns_fd; };

static void make_read_only(const char *target) {
#ifdef SYS_mount_setattr /* Linux 5.12: read-only down the whole tree in one call */
    struct attr attr = {0x1 | 0x2 | 0x4, 0, 0, 0}; /* MOUNT_ATTR_RDONLY | NOSUID | NODEV */
    if (syscall(SYS_mount_setattr, AT_FDCWD, target, AT_RECURSIVE, &attr, sizeof attr) == 0)
        return;
#endif
    if (mount(NULL, target, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV,
              NULL) != 0)
        setup_failed("read-only", target);
}

static void make_parents(char *path) { /* mkdir -p of every folder above `path` */
    for (char *slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST) setup_failed("mkdir", path);
        *slash = '/';
    }
}

/* Creates an empty file or folder (as `source` is) at `target` for a mount to cover. */
static void make_mount_point(const char *source, char *target) {
    struct stat st;
    if (stat(source, &st) != 0) setup_failed("stat", source);
    make_parents(target);
    if (S_ISDIR(st.st_mode)) {
        if (mkdir(target, 0755) != 0 && errno != EEXIST) setup_failed("mkdir", target);
    } else {
        int fd = open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) setup_failed("create", target);
        close(fd);
    }
}

enum { READ_ONLY, WRITABLE, DEVICE };

/* Shows `source` at `target_in_root` under the new root. */
static void show(const char *source, const char *target_in_root, int access) {
    char target[PATH_MAX];
    snprintf(target, sizeof target, "%s%s", opt.root, target_in_root);
    make_mount_point(source, target);
    if (mount(source, target, NULL, MS_BIND | MS_REC, NULL) != 0) setup_failed("bind", source);
    unsigned long flags = MS_REMOUNT | MS_BIND | MS_NOSUID | (access == DEVICE ? 0 : MS_NODEV);
    if (access == READ_ONLY)
        make_read_only(target);
    else if (mount(NULL, target, NULL, flags, NULL) != 0)
        setup_failed("remount", target);
}

/* Binds `source` (a mount of this namespace; the bind keeps its flags) to `target`. */
static void place(const char *source, const char *target) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", target);
    make_mount_point(source, path);
    if (mount(source, path, NULL, MS_BIND | MS_REC, NULL) != 0) setup_failed("bind", source);
}

static const char *const SYSTEM_FOLDERS[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
                                             "/libx32", "/etc", NULL};
static const char *const DEVICES[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                      "/dev/urandom", NULL};

static int under_tmp(const char *path) { return strncmp(path, "/tmp/", 5) == 0; }

/* Where the template shows `path`: at its own place, or under /.shown when a case's own /tmp
 * would hide it (`buffer` holds the latter). */
static const char *shown_at(const char *path, char *buffer) {
    if (!under_tmp(path)) return path;
    snprintf(buffer, PATH_MAX, "/.shown%s", path);
    return buffer;
}

/* The template: a root that shows the system folders, a few devices, the shared folder (-d,
 * writable) and each -b path (read-only), with empty /proc and /tmp to mount per case. */
static void build_template(void) {
    char path[PATH_MAX], link[PATH_MAX];
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) setup_failed("private", "/");
    if (mkdir(opt.root, 0755) != 0 && errno != EEXIST) setup_failed("mkdir", opt.root);
    if (mount("tmpfs", opt.root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=4096,mode=0755")
        != 0)
        setup_failed("tmpfs", opt.root);
    for (const char *const *folder = SYSTEM_FOLDERS; *folder; folder++) {
        struct stat st;
        if (lstat(*folder, &st) != 0) continue;
        snprintf(path, sizeof path, "%s%s", opt.root, *folder);
        if (S_ISLNK(st.st_mode)) { /* /bin -> usr/bin on merged-/usr systems */
            ssize_t n = readlink(*folder, link, sizeof link - 1);
            if (n < 0) setup_failed("readlink", *folder);
            link[n] = '\0';
            if (symlink(link, path) != 0) setup_failed("symlink", path);
        } else if (S_ISDIR(st.st_mode)) {
            show(*folder, *folder, READ_ONLY);
        }
    }
    const char *mount_points[][2] = {{"/proc", "0555"}, {"/tmp", "1777"}};
    for (size_t i = 0; i < sizeof mount_points / sizeof mount_points[0]; i++) {
        snprintf(path, sizeof path, "%s%s", opt.root, mount_points[i][0]);
        if (mkdir(path, (mode_t)strtol(mount_points[i][1], NULL, 8)) != 0)
            setup_failed("mkdir", path);
    }
    for (const char *const *device = DEVICES; *device; device++) show(*device, *device, DEVICE);
    const char *links[][2] = {{"/proc/self/fd", "/dev/fd"}, {"/proc/self/fd/0", "/dev/stdin"},
                              {"/proc/self/fd/1", "/dev/stdout"},
                              {"/proc/self/fd/2", "/dev/stderr"}};
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        snprintf(path, sizeof path, "%s%s", opt.root, links[i][1]);
        if (symlink(links[i][0], path) != 0) setup_failed("symlink", path);
    }
    show(opt.shared, shown_at(opt.shared, path), WRITABLE);
    for (int i = 0; i < opt.nbinds; i++) show(opt.binds[i], shown_at(opt.binds[i], path), READ_ONLY);
    if (chdir(opt.root) != 0) setup_failed("chdir", opt.root);
    if (syscall(SYS_pivot_root, ".", ".") != 0) setup_failed("pivot_root", opt.root);
    if (umount2(".", MNT_DETACH) != 0) setup_failed("umount", "old root");
    if (chdir("/") != 0) setup_failed("chdir", "/");
}

/* In the case's init: enter the template's namespaces, take a private copy of its mounts and
 * a new IPC namespace, and mount what is the case's own: /proc (of this PID namespace), /tmp. */
static void enter_sandbox(void) {
    if (setns(opt.net_fd, CLONE_NEWNET) != 0) setup_failed("setns", "network namespace");
    if (setns(opt.mount_fd, CLONE_NEWNS) != 0) setup_failed("setns", "mount namespace");
    close(opt.net_fd);
    close(opt.mount_fd);
    if (unshare(CLONE_NEWNS | CLONE_NEWIPC) != 0)
        setup_failed("unshare", "mount and IPC namespaces");
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, NULL) != 0)
        setup_failed("mount", "/proc");
    char size[64]; /* a private /tmp, as big as a file may be */
    snprintf(size, sizeof size, "size=%llu,nr_inodes=4096,mode=1777",
             opt.fsize_bytes ? opt.fsize_bytes : 64ULL << 20);
    if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, size) != 0)
        setup_failed("mount", "/tmp");
    char staged[PATH_MAX];
    for (int i = -1; i < opt.nbinds; i++) {
        const char *path = i < 0 ? opt.shared : opt.binds[i];
        if (under_tmp(path)) place(shown_at(path, staged), path);
    }
    if (opt.workdir && chown(opt.workdir, NOBODY, NOBODY) != 0)
        setup_failed("chown", opt.workdir);
}

/* -T: build the template in new mount and network namespaces, say `ready` on stdout and stay
 * until stdin closes, so the worker can open /proc/PID/ns/{mnt,net} to keep them. */
static int hold_template(void) {
    if (unshare(CLONE_NEWNS | CLONE_NEWNET) != 0)
        setup_failed("unshare", "mount and network namespaces");
    build_template();
    report("ready\n");
    char byte;
    while (read(0, &byte, 1) > 0) {
    }
    return 0;
}

static void kill_descendants(void);

/* -- the program -------------------------------------------------------------------------- */

static void start_failed(const char *what, const char *path) {
    report("start_error=%d %s %s\n", errno, what, path);
    _exit(127);
}

static void set_limit(int resource, unsigned long long bytes) {
    struct rlimit limit = {bytes ? bytes : RLIM_INFINITY, bytes ? bytes : RLIM_INFINITY};
    setrlimit(resource, &limit);
}

static void exec_program(void) { /* in the forked child: never returns */
    sigset_t none;
    sigemptyset(&none);
    for (int sig = 1; sig < NSIG; sig++) signal(sig, SIG_DFL); /* the worker ignores SIGINT */
    sigprocmask(SIG_SETMASK, &none, NULL);
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    set_limit(RLIMIT_AS, opt.as_bytes);
    set_limit(RLIMIT_STACK, opt.stack_bytes);
    set_limit(RLIMIT_FSIZE, opt.fsize_bytes);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    if (opt.cpu_ms > 0) {
        rlim_t seconds = (rlim_t)((opt.cpu_ms + 999) / 1000) + 1;
        struct rlimit cpu = {seconds, seconds + 1};
        setrlimit(RLIMIT_CPU, &cpu);
    }
    if (opt.mount_fd >= 0) {
        if (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 || setuid(NOBODY) != 0)
            start_failed("setuid", "nobody");
        prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    }
    if (opt.workdir && chdir(opt.workdir) != 0) start_failed("chdir", opt.workdir);
    execv(opt.argv[0], opt.argv);
    start_failed("exec", opt.argv[0]);
}

/* Forks and execs the program, enforces the CPU limit and the wall-clock cap, reaps it (and
 * any orphan that reaches this process meanwhile), has `end_rest` kill every process left,
 * then reports and closes the -D descriptor. */
static void supervise(const char *containment, void (*end_rest)(void)) {
    long long started = now_ns();
    pid_t program = fork();
    if (program < 0) setup_failed("fork", "program");
    if (program == 0) exec_program();
    clockid_t cpu_clock;
    int have_cpu_clock = clock_getcpuclockid(program, &cpu_clock) == 0;
    long long wall_deadline = opt.wall_ms > 0 ? started + opt.wall_ms * 1000000LL : 0;
    long long cpu_limit = opt.cpu_ms * 1000000LL;
    const char *killed = "none";
    int status = 0;
    struct rusage usage;
    for (;;) {
        struct rusage ru;
        int st;
        pid_t pid;
        int done = 0;
        while ((pid = wait4(-1, &st, WNOHANG, &ru)) > 0) {
            if (pid == program) {
                status = st;
                usage = ru;
                done = 1;
                break;
            }
        }
        if (done) break;
        long long wait_ns = 1000000000LL;
        if (strcmp(killed, "none") == 0) {
            long long now = now_ns();
            if (wall_deadline && now >= wall_deadline) {
                killed = "wall";
            } else if (cpu_limit > 0 && have_cpu_clock) {
                struct timespec used;
                if (clock_gettime(cpu_clock, &used) == 0) {
                    long long left = cpu_limit - (used.tv_sec * 1000000000LL + used.tv_nsec);
                    if (left <= 0) killed = "cpu";
                    else wait_ns = left < CPU_POLL_NS ? left : CPU_POLL_NS;
                }
            }
            if (strcmp(killed, "none") != 0) kill(program, SIGKILL);
            else if (wall_deadline && wall_deadline - now < wait_ns) wait_ns = wall_deadline - now;
        }
        if (wait_ns < 1000000) wait_ns = 1000000;
        struct timespec timeout = {wait_ns / 1000000000LL, wait_ns % 1000000000LL};
        int sig = sigtimedwait(&handled, NULL, &timeout);
        if (stop_requested(sig) && strcmp(killed, "none") == 0) {
            killed = "term";
            kill(program, SIGKILL);
        }
    }
    long long wall_us = (now_ns() - started) / 1000;
    end_rest();
    report("status=%d user_us=%lld sys_us=%lld rss_kb=%ld wall_us=%lld killed=%s "
           "containment=%s\n", status,
           (long long)usage.ru_utime.tv_sec * 1000000LL + usage.ru_utime.tv_usec,
           (long long)usage.ru_stime.tv_sec * 1000000LL + usage.ru_stime.tv_usec,
           usage.ru_maxrss, wall_us, killed, containment);
    if (opt.done_fd >= 0) close(opt.done_fd);
}

/* As the init of the case's PID namespace: kill every other process in it and reap them all
 * (the kernel would do it when init exits; doing it first lets the worker go on sooner). */
static void kill_namespace(void) {
    kill(-1, SIGKILL);
    while (waitpid(-1, NULL, 0) > 0 || errno == EINTR) {
    }
}

/* -- containment without a PID namespace -------------------------------------------------- */

static int kill_children_of(pid_t parent) { /* SIGKILL every live child; how many there were */
    DIR *proc = opendir("/proc");
    if (!proc) return 0;
    int found = 0;
    struct dirent *entry;
    while ((entry = readdir(proc))) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        char path[300], text[512];
        snprintf(path, sizeof path, "/proc/%s/stat", entry->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        ssize_t n = read(fd, text, sizeof text - 1);
        close(fd);
        if (n <= 0) continue;
        text[n] = '\0';
        char *end = strrchr(text, ')'); /* the command name may hold spaces and parentheses */
        char state;
        int ppid;
        if (end && sscanf(end + 1, " %c %d", &state, &ppid) == 2 && ppid == parent) {
            kill(atoi(entry->d_name), SIGKILL);
            found++;
        }
    }
    closedir(proc);
    return found;
}

/* Orphans of the program are this subreaper's children: kill and reap them until none is left
 * (a killed child's own children become ours in turn). */
static void kill_descendants(void) {
    pid_t self = getpid();
    for (;;) {
        pid_t pid = waitpid(-1, NULL, WNOHANG);
        if (pid > 0) continue;
        if (pid < 0) return; /* ECHILD: nobody left */
        if (kill_children_of(self) > 0) {
            waitpid(-1, NULL, 0);
        } else {
            struct timespec pause = {0, 1000000};
            nanosleep(&pause, NULL);
        }
    }
}

/* -- main --------------------------------------------------------------------------------- */

static void usage_error(const char *message) {
    fprintf(stderr, "launcher: %s\n", message);
    exit(2);
}

static void parse(int argc, char **argv) {
    int c;
    while ((c = getopt(argc, argv, "+o:P:a:s:f:c:w:d:nM:N:D:T:S:b:")) != -1) {
        switch (c) {
        case 'o': opt.result_path = optarg; break;
        case 'P': opt.parent_fd = atoi(optarg); break;
        case 'a': opt.as_bytes = strtoull(optarg, NULL, 10); break;
        case 's': opt.stack_bytes = strtoull(optarg, NULL, 10); break;
        case 'f': opt.fsize_bytes = strtoull(optarg, NULL, 10); break;
        case 'c': opt.cpu_ms = atoll(optarg); break;
        case 'w': opt.wall_ms = atoll(optarg); break;
        case 'd': opt.workdir = optarg; break;
        case 'n': opt.no_pidns = 1; break;
        case 'M': opt.mount_fd = atoi(optarg); break;
        case 'N': opt.net_fd = atoi(optarg); break;
        case 'D': opt.done_fd = atoi(optarg); break;
        case 'T': opt.root = optarg; break;
        case 'S': opt.shared = optarg; break;
        case 'b':
            if (opt.nbinds == MAX_BINDS) usage_error("too many -b paths");
            opt.binds[opt.nbinds++] = optarg;
            break;
        default: usage_error("unknown option");
        }
    }
    if ((opt.mount_fd >= 0) != (opt.net_fd >= 0)) usage_error("-M and -N go together");
    if ((opt.root || opt.mount_fd >= 0) && (!opt.shared || opt.shared[0] != '/'))
        usage_error("the sandbox needs an absolute -S folder");
    for (int i = 0; i < opt.nbinds; i++)
        if (opt.binds[i][0] != '/') usage_error("-b paths must be absolute");
    if (opt.root) return;
    if (optind >= argc) usage_error("no program given");
    if (!opt.result_path) usage_error("-o RESULT is required");
    opt.argv = argv + optind;
}

int main(int argc, char **argv) {
    parse(argc, argv);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (opt.parent_fd >= 0) { /* did the worker die before the death signal was asked for? */
        struct pollfd worker = {opt.parent_fd, POLLIN, 0};
        if (poll(&worker, 1, 0) != 0) return 1;
        close(opt.parent_fd);
    }
    if (opt.root) {
        result_fd = 1;
        return hold_template();
    }
    sigemptyset(&handled);
    sigaddset(&handled, SIGCHLD);
    sigaddset(&handled, SIGTERM);
    sigaddset(&handled, SIGHUP);
    sigaddset(&handled, SIGINT);
    sigaddset(&handled, SIGQUIT);
    sigprocmask(SIG_BLOCK, &handled, NULL);
    for (int sig = SIGHUP; sig <= SIGQUIT; sig++) signal(sig, SIG_DFL); /* ignored ones drop */
    signal(SIGTERM, SIG_DFL);
    result_fd = open(opt.result_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (result_fd < 0) usage_error("cannot open the result file");
    if (opt.done_fd >= 0) fcntl(opt.done_fd, F_SETFD, FD_CLOEXEC); /* not the program's */

    if (getpid() == 1) { /* the worker made this launcher the init of a new PID namespace */
        if (opt.mount_fd >= 0) enter_sandbox();
        supervise("pidns", kill_namespace);
        return 0;
    }
    if (opt.no_pidns || unshare(CLONE_NEWPID) != 0) {
        if (opt.mount_fd >= 0) setup_failed("unshare", "pid namespace (needed by the sandbox)");
        prctl(PR_SET_CHILD_SUBREAPER, 1);
        supervise("subreaper", kill_descendants);
        return 0;
    }
    pid_t init = fork();
    if (init < 0) setup_failed("fork", "init");
    if (init == 0) { /* pid 1 of the new namespace */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (opt.mount_fd >= 0) enter_sandbox();
        supervise("pidns", kill_namespace);
        _exit(0);
    }
    if (opt.mount_fd >= 0) {
        close(opt.mount_fd);
        close(opt.net_fd);
    }
    if (opt.done_fd >= 0) close(opt.done_fd); /* init's copy is the one that tells */
    for (;;) {
        int status;
        pid_t pid = waitpid(init, &status, WNOHANG);
        if (pid == init) {
            if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 4))
                report("setup_error=the namespace's init died (wait status %d)\n", status);
            return 0;
        }
        int sig = sigwaitinfo(&handled, NULL);
        if (stop_requested(sig)) kill(init, SIGKILL);
    }
}
