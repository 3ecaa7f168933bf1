/* The launcher: runs one program (any program of the pipeline) on one case, contained and
 * measured.
 *
 * A caller (`pipeline/run/contained.py`) execs this launcher for every program it runs; the
 * launcher forks the program, waits for it with wait4 and writes what it measured to a pipe
 * the program cannot reach. Forking from this small process (about 1 MB resident) rather than
 * from the caller is what makes the program's peak resident memory its own: Linux carries the
 * forking process's high-water mark across exec.
 *
 *   launcher (-D FD | -o RESULT) [-P PARENT] [-a AS] [-s STACK] [-f FSIZE [-X]] [-R] [-c CPU_MS]
 *            [-w WALL_MS] [-d DIR] [-n] [-g CGROUP] [-M FD -N FD [-W BYTES] [-b PATH]...
 *            [-B PATH]... [-K PATH]...] -- PROGRAM ARG...
 *   launcher -T [-H PATH]...
 *
 *   -D  the result pipe (the write end the caller passed): one line `status=.. user_us=..
 *       sys_us=.. rss_kb=.. wall_us=.. ended_ns=.. killed=none|cpu|wall|term written=ok|full
 *       unread=0|1 containment=pidns|subreaper` (user_us, sys_us: the CPU time of every
 *       process of the case, the program's and those this launcher reaped; ended_ns:
 *       CLOCK_MONOTONIC when the program was reaped, which the caller's clock shares; unread:
 *       see -R), preceded by `start_error=ERRNO STEP PATH` when the program could not be
 *       started; or a `setup_error=TEXT` line when the launcher could not
 *       set up what was asked. It is written once every process of the case is dead, then
 *       closed: the caller goes on at once while the launcher's exit tears its namespaces
 *       down. The descriptor is close-on-exec, so the program never holds it (a result in a
 *       file of a folder the program can write could be rewritten by it).
 *   -o  the same result written to a file instead (for a person trying the launcher by hand)
 *   -P  a pidfd of the caller (pidfd_open): the launcher exits at once if the caller is gone,
 *       and ends the program as on SIGTERM should the caller die later
 *   -a -s -f  RLIMIT_AS, RLIMIT_STACK, RLIMIT_FSIZE of the program in bytes (0: unlimited)
 *   -X  the program ignores SIGXFSZ: a write past -f fails (EFBIG) instead of killing it, so
 *       its output is cut at the limit and it runs on until it exits or its time is up (how
 *       DOMjudge and BAPCtools judge a program that floods its output: by its time)
 *   -c  CPU-time limit in ms: the program is killed once it has used more (0: none)
 *   -w  wall-clock cap in ms (0: none)
 *   -d  the program's working directory
 *   -R  once the program is started, the launcher closes its own stdin, stdout and stderr
 *       (else it keeps them until the program is reaped, and reports `unread=1` when the
 *       program's stdout, a pipe, had no reader left by then: the program at its other end
 *       had ended, or closed it, before this one ended; see supervise)
 *   -n  no PID namespace: contain the program with a child subreaper
 *   -g  a pids cgroup folder (its pids.max is the cap on the processes of the case): the
 *       launcher moves itself into it before it forks, so every process of the case counts
 *   -M -N  sandbox: file descriptors of a template's mount and network namespaces (below).
 *       The case gets a private copy of the template's mounts, its own /proc (showing only its
 *       processes), a new IPC namespace, and one tmpfs of -W bytes (default 64 MB) that holds
 *       both its working directory (-d; its files, if any, show through an overlay) and its
 *       /tmp: what it writes there in total is capped (`written=full` when it filled it). Each
 *       -b PATH under /tmp is shown read-only in the case's /tmp; each -B PATH is writable, and a
 *       working directory that is one of them is written through (no tmpfs of its own).
 *       Each -K PATH is a folder kept within that cap: the program writes a copy of it on the
 *       case's tmpfs (what PATH held is copied in first), and once every process of the case
 *       is dead PATH is made to hold what that copy holds (regular files, folders, and links
 *       and named pipes made again as what they are, never opened), so a folder whose content outlives the program (a
 *       generator's, a feedback folder) is capped like its working folder and /tmp.
 *       The program keeps the caller's uid with every capability dropped (see below).
 *   -T  build a sandbox template and hold it: new mount and network namespaces (the network
 *       has only a loopback, down) in which the whole file system is read-only, nosuid and
 *       nodev (but for a few devices), and each -H PATH is covered by an empty folder or file;
 *       says `ready` on stdout, then waits for stdin to close while the caller opens
 *       /proc/PID/ns/{mnt,net}. Building that once per worker and hidden set, not once per
 *       case, saves about 0.5 ms a case.
 *
 * Why the caller's uid with no capabilities, not user nobody. A judge's program must start
 * where it would start for its user: a `python3` shim of pyenv under a 0700 home, a
 * virtualenv's interpreter, `java` behind /etc/alternatives. User nobody cannot read a 0700
 * home, so the sandbox shows the whole file system read-only and runs the program as the
 * caller, but with every capability gone for good: the bounding and ambient sets emptied, the
 * securebits that would give a root uid its capabilities back at exec set and locked, capset
 * to zero, PR_SET_NO_NEW_PRIVS. A root uid without capabilities still owns root's files, so
 * nothing it may write is left: every mount is read-only (it cannot remount: no CAP_SYS_ADMIN,
 * and a user namespace it makes gets the mounts locked), device nodes cannot be opened (nodev)
 * but for null, zero, full, random and urandom, /proc is its own PID namespace's, read-only.
 * What must not be seen is covered in the template (the data folder, a package's answers,
 * the user's keys and histories; the caller chooses), and covers cannot be lifted without
 * CAP_SYS_ADMIN. The network namespace has no interface up; the PID namespace lets it signal
 * only its own processes.
 *
 * Containment. The program runs in a PID namespace whose init (pid 1) is the launcher: once
 * the program has ended, init kills every other process of the namespace, whatever they did
 * (setsid, double fork), and reaps them; were init itself killed, the kernel would kill them.
 * A worker starts the launcher as the init of a new namespace itself (unshare(CLONE_NEWPID)
 * before the spawn), which saves a process and a wake-up per case; started in its caller's
 * namespace, the launcher makes one and forks its init. Where no PID namespace can be created
 * (no privilege) the launcher is a child subreaper instead: orphans of the program become its
 * children, and after the program it kills and reaps every child until none is left. The
 * number of processes is capped by the pids cgroup (-g), where the caller found one.
 *
 * Sessions. The caller starts the launcher in a session of its own (no controlling terminal);
 * the program gets a process group of its own in that session, not a session: a new session
 * is a new scheduling group (autogroup), and a fresh one per case made a loaded machine's
 * wake-ups of the program markedly slower.
 *
 * Parent death. The launcher asks for SIGTERM when its caller dies (PR_SET_PDEATHSIG), and
 * watches the caller's pidfd (-P) as well; either way it then kills the program and everything
 * it started. Init and the program ask for SIGKILL when their parent dies. The launcher's session is its own, so a kill of the pipeline's process group
 * reaches it only through the caller's death.
 *
 * Limits. Address space, stack, file size and core size (0) are set in the program before
 * exec, with RLIMIT_CPU a second above the CPU limit as a backstop. The CPU limit itself is
 * watched on the program's CPU clock, and the wall-clock cap on the monotonic clock.
 *
 * The program is looked up on PATH as execvp does (`java`, `bash` by bare name).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/securebits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CPU_POLL_NS 50000000LL /* at most this long between two looks at the CPU clock */
#define UNREAD_WAIT_MS 1000    /* how long an exiting reader may take to let go (unread=) */
#define STAGE "/proc"          /* where a case's tmpfs is built before /proc is mounted */

static struct {
    const char *result_path, *workdir, *cgroup;
    const char **hidden, **shown, **writable, **kept; /* each as long as argv: none overflows */
    int nhidden, nshown, nwritable, nkept;
    int *kept_real, *kept_copy; /* -K: descriptors of each folder and of its copy (sandbox) */
    int template, parent_fd; /* -1: none given */
    unsigned long long as_bytes, stack_bytes, fsize_bytes, written_bytes;
    long long cpu_ms, wall_ms;
    int no_pidns, mount_fd, net_fd; /* the fds are -1 unless sandboxed */
    int ignore_xfsz;                /* -X */
    int release_stdio;              /* -R */
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

/* Whether the worker (-P: a pidfd of it) has died. Its death also sends SIGTERM (the death
 * signal); this second look ends the case within a wait of the loop should that signal be
 * missed. */
static int parent_gone(void) {
    if (opt.parent_fd < 0) return 0;
    struct pollfd worker = {opt.parent_fd, POLLIN, 0};
    return poll(&worker, 1, 0) != 0;
}

/* -- the sandbox's file system ------------------------------------------------------------ */

struct attr { uint64_t set, clear, propagation, userns_fd; };
#define ATTR_RDONLY 0x1
#define ATTR_NOSUID 0x2
#define ATTR_NODEV 0x4

/* Sets (and clears) mount attributes of `target`, down the whole tree if `recursive`. */
static void set_attributes(const char *target, uint64_t set, uint64_t clear, int recursive) {
#ifdef SYS_mount_setattr /* Linux 5.12 */
    struct attr attr = {set, clear, 0, 0};
    if (syscall(SYS_mount_setattr, AT_FDCWD, target, recursive ? AT_RECURSIVE : 0, &attr,
                sizeof attr) == 0)
        return;
    if (errno != ENOSYS) setup_failed("mount_setattr", target);
#endif
    if (recursive) setup_failed("read-only (needs Linux 5.12)", target);
    unsigned long flags = MS_REMOUNT | MS_BIND;
    if (set & ATTR_RDONLY) flags |= MS_RDONLY;
    if (set & ATTR_NOSUID) flags |= MS_NOSUID;
    if (set & ATTR_NODEV) flags |= MS_NODEV;
    if (mount(NULL, target, NULL, flags, NULL) != 0) setup_failed("remount", target);
}

static void make_parents(char *path) { /* mkdir -p of every folder above `path` */
    for (char *slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST) setup_failed("mkdir", path);
        *slash = '/';
    }
}

/* Creates an empty file or folder (as `source` is) at `target` for a mount to cover, unless
 * something is there already. */
static void make_mount_point(const char *source, const char *target) {
    struct stat st;
    char path[PATH_MAX];
    if (lstat(target, &st) == 0) return; /* there already */
    if (stat(source, &st) != 0) setup_failed("stat", source);
    snprintf(path, sizeof path, "%s", target);
    make_parents(path);
    if (S_ISDIR(st.st_mode)) {
        if (mkdir(path, 0755) != 0 && errno != EEXIST) setup_failed("mkdir", path);
    } else {
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) setup_failed("create", path);
        close(fd);
    }
}

static void bind(const char *source, const char *target) {
    if (mount(source, target, NULL, MS_BIND | MS_REC, NULL) != 0) setup_failed("bind", source);
}

static const char *const DEVICES[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                      "/dev/urandom", NULL};

static int under_tmp(const char *path) { return strncmp(path, "/tmp/", 5) == 0; }

/* The template: the whole file system read-only, nosuid and nodev, a few devices usable, and
 * every -H path covered by an empty read-only folder or file (built on a small tmpfs laid on
 * /proc for the while; /proc is the host's again afterwards, and each case mounts its own). */
static void build_template(void) {
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) setup_failed("private", "/");
    if (mount("tmpfs", STAGE, "tmpfs", MS_NOSUID | MS_NODEV, "size=16k,nr_inodes=8,mode=0755")
        != 0)
        setup_failed("tmpfs", STAGE);
    if (mkdir(STAGE "/folder", 0) != 0) setup_failed("mkdir", STAGE "/folder");
    int fd = open(STAGE "/file", O_WRONLY | O_CREAT | O_CLOEXEC, 0);
    if (fd < 0) setup_failed("create", STAGE "/file");
    close(fd);
    set_attributes("/", ATTR_RDONLY | ATTR_NOSUID | ATTR_NODEV, 0, 1);
    for (int i = 0; i < opt.nhidden; i++) {
        struct stat st;
        if (stat(opt.hidden[i], &st) != 0) continue; /* nothing there to hide */
        bind(S_ISDIR(st.st_mode) ? STAGE "/folder" : STAGE "/file", opt.hidden[i]);
        set_attributes(opt.hidden[i], ATTR_RDONLY | ATTR_NOSUID | ATTR_NODEV, 0, 0);
    }
    for (const char *const *device = DEVICES; *device; device++) {
        if (mount(*device, *device, NULL, MS_BIND, NULL) != 0) setup_failed("bind", *device);
        set_attributes(*device, ATTR_RDONLY | ATTR_NOSUID, ATTR_NODEV, 0);
    }
    if (umount2(STAGE, MNT_DETACH) != 0) setup_failed("umount", STAGE);
}

static int is_empty_folder(const char *path) {
    DIR *dir = opendir(path);
    if (!dir) return 1;
    struct dirent *entry;
    int empty = 1;
    while (empty && (entry = readdir(dir)))
        if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0) empty = 0;
    closedir(dir);
    return empty;
}

/* In the case's init: enter the template's namespaces, take a private copy of its mounts and
 * a new IPC namespace, and mount what is the case's own: one capped tmpfs holding its working
 * folder and /tmp, the -b and -B paths, and /proc (of this PID namespace). The tmpfs is built
 * on STAGE (the /proc mount point), which the case's /proc then covers. */
/* -K: copying a folder's content, which is a program's: no link is followed. A link or a
 * named pipe the program left is made again as what it is (never opened), so the pipeline,
 * which opens nothing there through a link, names it to the user as what the program left. */
static int copy_file(int from_dir, int to_dir, const char *name, mode_t mode) {
    int in = openat(from_dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    int out = in < 0 ? -1 : openat(to_dir, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
                                   O_CLOEXEC, mode & 0777);
    int ok = in >= 0 && out >= 0;
    char buffer[1 << 16];
    ssize_t got;
    while (ok && (got = read(in, buffer, sizeof buffer)) != 0) {
        if (got < 0) { ok = errno == EINTR; continue; }
        for (ssize_t done = 0; ok && done < got;) {
            ssize_t put = write(out, buffer + done, (size_t)(got - done));
            if (put < 0) ok = errno == EINTR;
            else done += put;
        }
    }
    if (in >= 0) close(in);
    if (out >= 0) close(out);
    return ok ? 0 : -1;
}

static int copy_tree(int from_dir, int to_dir) { /* what `from_dir` holds, into `to_dir` */
    int fd = dup(from_dir), failed = 0;
    DIR *dir = fd < 0 ? NULL : fdopendir(fd);
    if (!dir) return -1;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        const char *name = entry->d_name;
        struct stat st;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) continue;
        if (fstatat(from_dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0) { failed = 1; continue; }
        if (S_ISREG(st.st_mode)) {
            failed |= copy_file(from_dir, to_dir, name, st.st_mode) != 0;
        } else if (S_ISDIR(st.st_mode)) {
            if (mkdirat(to_dir, name, st.st_mode & 0777) != 0 && errno != EEXIST) {
                failed = 1;
                continue;
            }
            int from = openat(from_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            int to = openat(to_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            failed |= from < 0 || to < 0 || copy_tree(from, to) != 0;
            if (from >= 0) close(from);
            if (to >= 0) close(to);
        } else if (S_ISLNK(st.st_mode)) {
            char target[PATH_MAX];
            ssize_t length = readlinkat(from_dir, name, target, sizeof target - 1);
            if (length < 0) { failed = 1; continue; }
            target[length] = '\0';
            failed |= symlinkat(target, to_dir, name) != 0;
        } else if (S_ISFIFO(st.st_mode)) {
            failed |= mkfifoat(to_dir, name, st.st_mode & 0777) != 0;
        }
    }
    closedir(dir);
    return failed ? -1 : 0;
}

static void empty_tree(int at) { /* removes everything under `at`, following no link */
    int fd = dup(at);
    DIR *dir = fd < 0 ? NULL : fdopendir(fd);
    if (!dir) return;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        const char *name = entry->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) continue;
        if (unlinkat(at, name, 0) == 0 || (errno != EISDIR && errno != EPERM)) continue;
        int sub = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0) {
            empty_tree(sub);
            close(sub);
        }
        unlinkat(at, name, AT_REMOVEDIR);
    }
    closedir(dir);
}

/* -K, once every process of the case is dead: each kept folder made to hold its copy's
 * content (in the case's mount namespace, where the descriptors were opened). */
static int copy_back_kept(void) {
    int failed = 0;
    for (int i = 0; i < opt.nkept; i++) {
        if (opt.kept_real[i] < 0) continue;
        empty_tree(opt.kept_real[i]);
        failed |= copy_tree(opt.kept_copy[i], opt.kept_real[i]) != 0;
    }
    return failed;
}

static int is_writable(const char *path) { /* one of the -B paths (both given resolved) */
    for (int i = 0; i < opt.nwritable; i++)
        if (strcmp(opt.writable[i], path) == 0) return 1;
    return 0;
}

static void enter_sandbox(void) {
    char path[PATH_MAX], options[128];
    if (setns(opt.net_fd, CLONE_NEWNET) != 0) setup_failed("setns", "network namespace");
    if (setns(opt.mount_fd, CLONE_NEWNS) != 0) setup_failed("setns", "mount namespace");
    close(opt.net_fd);
    close(opt.mount_fd);
    if (unshare(CLONE_NEWNS | CLONE_NEWIPC) != 0)
        setup_failed("unshare", "mount and IPC namespaces");
    snprintf(options, sizeof options, "size=%llu,nr_inodes=16384,mode=0755",
             opt.written_bytes ? opt.written_bytes : 64ULL << 20);
    if (mount("tmpfs", STAGE, "tmpfs", MS_NOSUID | MS_NODEV, options) != 0)
        setup_failed("tmpfs", STAGE);
    if (mkdir(STAGE "/tmp", 01777) != 0 || chmod(STAGE "/tmp", 01777) != 0 ||
        mkdir(STAGE "/work", 0755) != 0)
        setup_failed("mkdir", STAGE "/tmp");
    /* what lies under /tmp is staged before the case's own /tmp covers it */
    for (int i = 0; i < opt.nshown + opt.nwritable; i++) {
        const char *source = i < opt.nshown ? opt.shown[i] : opt.writable[i - opt.nshown];
        if (!under_tmp(source) || access(source, F_OK) != 0) continue;
        snprintf(path, sizeof path, STAGE "/s%d", i);
        make_mount_point(source, path);
        bind(source, path);
    }
    const char *work = STAGE "/work";
    if (opt.workdir && !is_empty_folder(opt.workdir)) { /* its files show through an overlay */
        if (mkdir(STAGE "/lower", 0755) != 0 || mkdir(STAGE "/upper", 0755) != 0 ||
            mkdir(STAGE "/overlay", 0755) != 0)
            setup_failed("mkdir", STAGE "/upper");
        bind(opt.workdir, STAGE "/lower");
        if (mount("overlay", STAGE "/work", "overlay", MS_NOSUID | MS_NODEV,
                  "lowerdir=" STAGE "/lower,upperdir=" STAGE "/upper,workdir=" STAGE "/overlay")
            != 0)
            setup_failed("overlay", opt.workdir);
    }
    if (mount(STAGE "/tmp", "/tmp", NULL, MS_BIND, NULL) != 0) setup_failed("bind", "/tmp");
    for (int i = 0; i < opt.nshown + opt.nwritable; i++) {
        int writable = i >= opt.nshown;
        const char *target = writable ? opt.writable[i - opt.nshown] : opt.shown[i];
        if (under_tmp(target)) {
            snprintf(path, sizeof path, STAGE "/s%d", i);
            if (access(path, F_OK) != 0) continue;
            make_mount_point(path, target);
            bind(path, target);
        } else if (writable) {
            bind(target, target);
        } else {
            continue; /* shown anyway */
        }
        if (writable) set_attributes(target, ATTR_NOSUID | ATTR_NODEV, ATTR_RDONLY, 0);
    }
    if (opt.workdir && !is_writable(opt.workdir)) { /* a -B working folder is written through */
        if (under_tmp(opt.workdir)) make_mount_point(work, opt.workdir);
        bind(work, opt.workdir);
    }
    for (int i = 0; i < opt.nkept; i++) { /* each -K folder covered by its copy on the tmpfs */
        snprintf(path, sizeof path, STAGE "/k%d", i);
        if (mkdir(path, 0755) != 0) setup_failed("mkdir", path);
        opt.kept_real[i] = open(opt.kept[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        opt.kept_copy[i] = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (opt.kept_real[i] < 0 || opt.kept_copy[i] < 0) setup_failed("open", opt.kept[i]);
        if (copy_tree(opt.kept_real[i], opt.kept_copy[i]) != 0)
            setup_failed("copy (more than the case may write?)", opt.kept[i]);
        bind(path, opt.kept[i]);
        set_attributes(opt.kept[i], ATTR_NOSUID | ATTR_NODEV, ATTR_RDONLY, 0);
    }
    /* The case's /proc covers the staging tmpfs (reachable no more by any path) rather than
     * detaching it first: a detach waits for an RCU grace period before the program may start,
     * while a covered tmpfs goes with the namespace at the launcher's exit, after the result. */
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, NULL) != 0)
        setup_failed("mount", "/proc");
}

/* Whether the case filled its capped tmpfs (its blocks or its files): what it wrote was cut. */
static const char *written(void) {
    struct statfs fs;
    if (opt.mount_fd < 0) return "ok"; /* no capped tmpfs outside the sandbox */
    if (statfs("/tmp", &fs) != 0) return "ok";
    return fs.f_bavail == 0 || fs.f_ffree == 0 ? "full" : "ok";
}

/* -T: build the template in new mount and network namespaces, say `ready` on stdout and stay
 * until stdin closes, so the caller can open /proc/PID/ns/{mnt,net} to keep them. */
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

/* A seccomp filter: socket(AF_UNIX, ...) fails with EACCES; io_uring and the kernel's key
 * store are refused (ENOSYS, as a kernel without them would answer). The network namespace
 * keeps a program off the network and off abstract UNIX sockets, but a socket bound to a path
 * (a server's, the Docker daemon's, D-Bus's) is reached through the file system, and connecting
 * to one needs no write access to its mount: a read-only file system does not stop it.
 * socketpair(AF_UNIX) (pipes between a program's own processes) stays allowed. io_uring does
 * what system calls do without making them (IORING_OP_SOCKET made an AF_UNIX socket past the
 * check on socket), so none of its three calls is allowed. The key store (add_key,
 * request_key, keyctl) is one per uid for the whole machine, no namespace of the sandbox
 * covers it: the program would share its user's keyrings with the host. Container runtimes'
 * default profiles refuse both.
 *
 * Every way into the kernel is held to the same: the native calls, x32 calls (the native
 * architecture with bit 30 set in the number, masked off before the numbers are compared) and
 * the 32-bit compatibility calls (socketcall, which could hide the call, is refused there). A
 * call of any other architecture kills the program: there is none on these kernels, and a
 * filter that allowed one would be a filter that checks nothing. */
#define IO_URING_SETUP 425 /* the same numbers on every architecture */
#define IO_URING_ENTER 426
#define IO_URING_REGISTER 427
#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#define SYSCALL_NR_MASK (~0x40000000u) /* the x32 bit */
#define COMPAT_ARCH AUDIT_ARCH_I386
#define COMPAT_SOCKETCALL 102
#define COMPAT_SOCKET 359
#define COMPAT_ADD_KEY 286
#define COMPAT_REQUEST_KEY 287
#define COMPAT_KEYCTL 288
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#define SYSCALL_NR_MASK (~0u)
#define COMPAT_ARCH AUDIT_ARCH_ARM
#define COMPAT_SOCKETCALL 102 /* OABI only: not a call of arm64's compat (EABI) */
#define COMPAT_SOCKET 281
#define COMPAT_ADD_KEY 309
#define COMPAT_REQUEST_KEY 310
#define COMPAT_KEYCTL 311
#endif
#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS 0x80000000u
#endif

#define UNIX_FAMILY 1 /* AF_UNIX (sys/socket.h would clash with this file's `bind`) */

static void install_syscall_filter(void) {
#ifdef NATIVE_ARCH
#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define IF(value, yes, no) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (value), (yes), (no))
#define RETURN(action) BPF_STMT(BPF_RET | BPF_K, (action))
    /* Jumps are relative: to the instruction numbered N from the one numbered I is N - I - 1. */
    struct sock_filter filter[] = {
        /*  0 */ LOAD(arch),
        /*  1 */ IF(NATIVE_ARCH, 2, 0),                 /* to 4 */
        /*  2 */ IF(COMPAT_ARCH, 12, 0),                /* to 15 */
        /*  3 */ RETURN(SECCOMP_RET_KILL_PROCESS),
        /* native and x32 */
        /*  4 */ LOAD(nr),
        /*  5 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, SYSCALL_NR_MASK),
        /*  6 */ IF(IO_URING_SETUP, 21, 0),             /* to 28 */
        /*  7 */ IF(IO_URING_ENTER, 20, 0),             /* to 28 */
        /*  8 */ IF(IO_URING_REGISTER, 19, 0),          /* to 28 */
        /*  9 */ IF(__NR_add_key, 18, 0),               /* to 28 */
        /* 10 */ IF(__NR_request_key, 17, 0),           /* to 28 */
        /* 11 */ IF(__NR_keyctl, 16, 0),                /* to 28 */
        /* 12 */ IF(__NR_socket, 0, 13),                /* to 13, else 26 */
        /* 13 */ LOAD(args[0]),
        /* 14 */ IF(UNIX_FAMILY, 12, 11),               /* to 27, else 26 */
        /* 32-bit */
        /* 15 */ LOAD(nr),
        /* 16 */ IF(COMPAT_SOCKETCALL, 10, 0),          /* to 27 */
        /* 17 */ IF(IO_URING_SETUP, 10, 0),             /* to 28 */
        /* 18 */ IF(IO_URING_ENTER, 9, 0),              /* to 28 */
        /* 19 */ IF(IO_URING_REGISTER, 8, 0),           /* to 28 */
        /* 20 */ IF(COMPAT_ADD_KEY, 7, 0),              /* to 28 */
        /* 21 */ IF(COMPAT_REQUEST_KEY, 6, 0),          /* to 28 */
        /* 22 */ IF(COMPAT_KEYCTL, 5, 0),               /* to 28 */
        /* 23 */ IF(COMPAT_SOCKET, 0, 2),               /* to 24, else 26 */
        /* 24 */ LOAD(args[0]),
        /* 25 */ IF(UNIX_FAMILY, 1, 0),                 /* to 27, else 26 */
        /* 26 */ RETURN(SECCOMP_RET_ALLOW),
        /* 27 */ RETURN(SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA)),
        /* 28 */ RETURN(SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
    };
#undef LOAD
#undef IF
#undef RETURN
    struct sock_fprog program = {(unsigned short)(sizeof filter / sizeof filter[0]), filter};
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0) != 0)
        start_failed("seccomp", "");
#endif
}

/* Every capability gone for good (see the top of this file): the uid stays. */
static void drop_capabilities(void) {
    if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
              SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED, 0, 0, 0) != 0)
        start_failed("securebits", "");
    for (int cap = 0; cap <= 63; cap++)
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL)
            start_failed("capbset", "");
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    if (syscall(SYS_capset, &header, data) != 0) start_failed("capset", "");
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) start_failed("no_new_privs", "");
    install_syscall_filter();
}

static void exec_program(void) { /* in the forked child: never returns */
    sigset_t none;
    sigemptyset(&none);
    for (int sig = 1; sig < NSIG; sig++) signal(sig, SIG_DFL); /* the worker ignores SIGINT */
    if (opt.ignore_xfsz) signal(SIGXFSZ, SIG_IGN); /* kept across exec */
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
    if (opt.workdir && chdir(opt.workdir) != 0) start_failed("chdir", opt.workdir);
    if (opt.mount_fd >= 0) drop_capabilities();
    execvp(opt.argv[0], opt.argv);
    start_failed("exec", opt.argv[0]);
}

/* With -R: drops this process's copies of stdin, stdout and stderr (the program has its own),
 * so that a program closing its stdout is seen to: an interactor that closes the pipe to the
 * submission once it has said all, and the submission reads end-of-file. Without -R they are
 * kept until the program is reaped: the submission's output pipe ends with the submission,
 * not when it closes its stdout (as DOMjudge and BAPCtools run the pair). */
static void release_stdio(void) {
    if (!opt.release_stdio) return;
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int fd = 0; fd <= 2; fd++) {
        if (null < 0 || dup2(null, fd) < 0) close(fd);
    }
    if (null > 2) close(null);
}

/* Forks and execs the program, enforces the CPU limit and the wall-clock cap, reaps it (and
 * any orphan that reaches this process meanwhile), has `end_rest` kill every process left,
 * then reports and closes the -D descriptor. */
/* The CPU time of the case's other processes (orphans of the program that this process
 * reaped, and those `end_rest` killed): a program that leaves its work to a process it never
 * waits for, or forks until its cap, is measured by all it ran. */
static long long others_user_us, others_sys_us;

static void count_reaped(const struct rusage *ru) {
    others_user_us += (long long)ru->ru_utime.tv_sec * 1000000LL + ru->ru_utime.tv_usec;
    others_sys_us += (long long)ru->ru_stime.tv_sec * 1000000LL + ru->ru_stime.tv_usec;
}

/* Reap one child of this process (-1 with WNOHANG: none ready), counting its CPU time. */
static pid_t reap(int options) {
    struct rusage ru;
    pid_t pid = wait4(-1, NULL, options, &ru);
    if (pid > 0) count_reaped(&ru);
    return pid;
}

static void supervise(const char *containment, void (*end_rest)(void)) {
    long long started = now_ns();
    pid_t program = fork();
    if (program < 0) setup_failed("fork", "program");
    if (program == 0) exec_program();
    release_stdio();
    clockid_t cpu_clock;
    int have_cpu_clock = clock_getcpuclockid(program, &cpu_clock) == 0;
    long long wall_deadline = opt.wall_ms > 0 ? started + opt.wall_ms * 1000000LL : 0;
    const long long cpu_limit = opt.cpu_ms * 1000000LL;
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
            count_reaped(&ru);
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
        siginfo_t info;
        int sig = sigtimedwait(&handled, &info, &timeout);
        if ((stop_requested(sig) || parent_gone()) && strcmp(killed, "none") == 0) {
            killed = "term";
            kill(program, SIGKILL);
        }
    }
    long long ended = now_ns();
    long long wall_us = (ended - started) / 1000;
    /* Whether the reader of the program's output was gone before the program ended: this
     * process still holds a copy of that output, so a reader waiting for its end has not seen
     * it yet; one that is gone left on its own, before. How long this process took to be
     * scheduled and reap the program does not change the answer (it did when the two ends'
     * reaping times were compared: a loaded machine turned an interactor's WA, which made the
     * submission crash on end-of-file, into the submission's RE). An exiting process lets go
     * of its output before its input, and a program that crashed on the end of its input can
     * be reaped in between: so when the program failed after its input's writer was gone (the
     * pipe hung up) while the reader of its output is still there, the reader has a moment to
     * let go too; one that closed its output on purpose and reads on does not. */
    int unread = 0;
    if (!opt.release_stdio) {
        struct pollfd out = {.fd = STDOUT_FILENO, .events = 0, .revents = 0};
        struct pollfd in = {.fd = STDIN_FILENO, .events = 0, .revents = 0};
        unread = poll(&out, 1, 0) == 1 && (out.revents & POLLERR);
        if (!unread && status != 0 && strcmp(killed, "none") == 0 &&
            poll(&in, 1, 0) == 1 && (in.revents & POLLHUP))
            unread = poll(&out, 1, UNREAD_WAIT_MS) == 1 && (out.revents & POLLERR);
    }
    end_rest();
    if (opt.mount_fd >= 0) copy_back_kept(); /* a file it could not copy is missing there */
    report("status=%d user_us=%lld sys_us=%lld rss_kb=%ld wall_us=%lld ended_ns=%lld killed=%s "
           "written=%s unread=%d containment=%s\n", status,
           (long long)usage.ru_utime.tv_sec * 1000000LL + usage.ru_utime.tv_usec
               + others_user_us,
           (long long)usage.ru_stime.tv_sec * 1000000LL + usage.ru_stime.tv_usec
               + others_sys_us,
           usage.ru_maxrss, wall_us, ended, killed, written(), unread, containment);
    if (opt.done_fd >= 0) close(opt.done_fd);
    result_fd = -1;
}

/* As the init of the case's PID namespace: kill every other process in it and reap them all
 * (the kernel would do it when init exits; doing it first lets the worker go on sooner),
 * until none is left. */
static void kill_namespace(void) {
    for (;;) { /* again and again: a process forking while kill(-1) runs may miss it */
        kill(-1, SIGKILL);
        pid_t pid;
        while ((pid = reap(WNOHANG)) > 0) {
        }
        if (pid < 0 && errno == ECHILD) return;
        if (reap(0) < 0 && errno == ECHILD) return;
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
        pid_t pid = reap(WNOHANG);
        if (pid > 0) continue;
        if (pid < 0) return; /* ECHILD: nobody left */
        if (kill_children_of(self) > 0) {
            reap(0);
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

static void add_path(const char **paths, int *count, const char *path) {
    if (path[0] != '/') usage_error("-H, -b, -B and -K paths must be absolute");
    paths[(*count)++] = path;
}

static void parse(int argc, char **argv) {
    int c;
    /* A path list holds at most one path per argument: sized by argc, none can overflow. */
    opt.hidden = calloc((size_t)argc + 1, sizeof *opt.hidden);
    opt.shown = calloc((size_t)argc + 1, sizeof *opt.shown);
    opt.writable = calloc((size_t)argc + 1, sizeof *opt.writable);
    opt.kept = calloc((size_t)argc + 1, sizeof *opt.kept);
    opt.kept_real = calloc((size_t)argc + 1, sizeof *opt.kept_real);
    opt.kept_copy = calloc((size_t)argc + 1, sizeof *opt.kept_copy);
    if (!opt.hidden || !opt.shown || !opt.writable || !opt.kept || !opt.kept_real ||
        !opt.kept_copy)
        usage_error("out of memory for the paths");
    while ((c = getopt(argc, argv, "+o:P:a:s:f:Xc:w:d:ng:M:N:D:W:RTH:b:B:K:")) != -1) {
        switch (c) {
        case 'o': opt.result_path = optarg; break;
        case 'P': opt.parent_fd = atoi(optarg); break;
        case 'a': opt.as_bytes = strtoull(optarg, NULL, 10); break;
        case 's': opt.stack_bytes = strtoull(optarg, NULL, 10); break;
        case 'f': opt.fsize_bytes = strtoull(optarg, NULL, 10); break;
        case 'X': opt.ignore_xfsz = 1; break;
        case 'R': opt.release_stdio = 1; break;
        case 'c': opt.cpu_ms = atoll(optarg); break;
        case 'w': opt.wall_ms = atoll(optarg); break;
        case 'd': opt.workdir = optarg; break;
        case 'n': opt.no_pidns = 1; break;
        case 'g': opt.cgroup = optarg; break;
        case 'M': opt.mount_fd = atoi(optarg); break;
        case 'N': opt.net_fd = atoi(optarg); break;
        case 'D': opt.done_fd = atoi(optarg); break;
        case 'W': opt.written_bytes = strtoull(optarg, NULL, 10); break;
        case 'T': opt.template = 1; break;
        case 'H': add_path(opt.hidden, &opt.nhidden, optarg); break;
        case 'b': add_path(opt.shown, &opt.nshown, optarg); break;
        case 'B': add_path(opt.writable, &opt.nwritable, optarg); break;
        case 'K': /* a writable folder too: bound in place, then covered by its copy */
            add_path(opt.writable, &opt.nwritable, optarg);
            opt.kept_real[opt.nkept] = -1;
            add_path(opt.kept, &opt.nkept, optarg);
            break;
        default: usage_error("unknown option");
        }
    }
    if ((opt.mount_fd >= 0) != (opt.net_fd >= 0)) usage_error("-M and -N go together");
    if (opt.template) return;
    if (optind >= argc) usage_error("no program given");
    if (!opt.result_path && opt.done_fd < 0) usage_error("-D FD or -o RESULT is required");
    opt.argv = argv + optind;
}

/* -g: this process (and so every process of the case) into the pids cgroup. */
static void join_cgroup(void) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/cgroup.procs", opt.cgroup);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "0\n", 2) != 2) setup_failed("join the pids cgroup", opt.cgroup);
    close(fd);
}

/* Closes every descriptor but stdin, stdout, stderr and those the options name (-P, -D, -M,
 * -N): a caller that spawns this launcher without closing its own descriptors first (a
 * worker does, with posix_spawn) leaks none of them to the program or keeps none open here. */
static void close_others(void) {
    int keep[4] = {opt.parent_fd, opt.done_fd, opt.mount_fd, opt.net_fd};
    for (int i = 1; i < 4; i++) /* sorted, -1 (none) first */
        for (int j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
            int swap = keep[j];
            keep[j] = keep[j - 1];
            keep[j - 1] = swap;
        }
    unsigned int from = 3;
    for (int i = 0; i <= 4; i++) {
        unsigned int to = i < 4 ? (unsigned int)keep[i] : ~0U; /* close [from, to) */
        if (i < 4 && (keep[i] < 3 || to < from)) continue;
        if (to > from) {
#ifdef SYS_close_range /* Linux 5.9 */
            if (syscall(SYS_close_range, from, to - 1, 0) == 0) {
                from = to + 1;
                continue;
            }
#endif
            DIR *dir = opendir("/proc/self/fd"); /* else one by one */
            struct dirent *entry;
            while (dir && (entry = readdir(dir))) {
                long fd = strtol(entry->d_name, NULL, 10);
                if (entry->d_name[0] >= '0' && entry->d_name[0] <= '9' && fd >= from &&
                    (i == 4 || fd < (long)to) && fd != dirfd(dir))
                    close((int)fd);
            }
            if (dir) closedir(dir);
        }
        from = to + 1;
        if (i == 4) break;
    }
}

int main(int argc, char **argv) {
    parse(argc, argv);
    close_others();
    sigemptyset(&handled);
    sigaddset(&handled, SIGCHLD);
    sigaddset(&handled, SIGTERM);
    sigaddset(&handled, SIGHUP);
    sigaddset(&handled, SIGINT);
    sigaddset(&handled, SIGQUIT);
    /* blocked before the death signal is asked for: the init of a PID namespace (this process,
     * when the worker made it one) drops a signal it neither blocks nor handles */
    if (!opt.template) sigprocmask(SIG_BLOCK, &handled, NULL);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (opt.parent_fd >= 0) { /* did the worker die before the death signal was asked for? */
        if (parent_gone()) return 1;
        fcntl(opt.parent_fd, F_SETFD, FD_CLOEXEC); /* kept, and watched as well; not the program's */
    }
    if (opt.template) {
        if (opt.parent_fd >= 0) close(opt.parent_fd);
        result_fd = 1;
        return hold_template();
    }
    for (int sig = SIGHUP; sig <= SIGQUIT; sig++) signal(sig, SIG_DFL); /* ignored ones drop */
    signal(SIGTERM, SIG_DFL);
    if (opt.done_fd >= 0) {
        fcntl(opt.done_fd, F_SETFD, FD_CLOEXEC); /* never the program's */
        result_fd = opt.done_fd;
    } else {
        result_fd = open(opt.result_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (result_fd < 0) usage_error("cannot open the result file");
    }
    if (opt.cgroup) join_cgroup();

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
    release_stdio();
    if (opt.mount_fd >= 0) {
        close(opt.mount_fd);
        close(opt.net_fd);
    }
    /* init writes the result; this copy of the pipe stays open until init is gone, in case it
     * dies before it could say anything */
    for (;;) {
        int status;
        pid_t pid = waitpid(init, &status, WNOHANG);
        if (pid == init) {
            if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 4))
                report("setup_error=the namespace's init died (wait status %d)\n", status);
            return 0;
        }
        siginfo_t info;
        int sig = sigwaitinfo(&handled, &info);
        if (stop_requested(sig)) kill(init, SIGKILL);
    }
}
