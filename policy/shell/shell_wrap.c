/* policy/shell/shell_wrap.c - programs that run another program.
 *
 * Known wrappers (the parser unwraps them: env, sudo, doas, nice, nohup,
 * timeout, xargs, command, exec, builtin, time, stdbuf, ionice, chrt,
 * setsid) are judged here for their own options, decided per wrapper:
 *   - sudo and doas must be in allow_binaries (a literal deny); the other
 *     wrappers that are programs (all but command, exec, builtin and a
 *     leading time, which bash runs itself) are looked through, as they
 *     always were, and one that allow_binaries does not name is a literal
 *     deny like any program: the sandbox would refuse to start it;
 *   - env -C DIR (another directory) and -S (a command in a string),
 *     sudo -u/-g/-D/-R/-i/-s and doas -u/-s (another user, directory, root
 *     or a shell) make the command unjudged; env NAME=value is an
 *     assignment (shell_builtins.c);
 *   - xargs runs its program on names it reads at run time: unjudged, its
 *     -a FILE is a read, and "{}" (or -I's string) stands for those names;
 *   - time -o FILE is a write;
 *   - nice, nohup, timeout, stdbuf, ionice, chrt, setsid, command, exec and
 *     builtin options change nothing the policy looks at.
 * Unknown wrappers (taskset, flock, strace, chroot, unshare, watch, ...)
 * are not unwrapped by the parser: the program they run is found here when
 * their options allow it, judged literally (allow_binaries, network) with
 * its own arguments, and the command is unjudged. */
#include <stdio.h>
#include <string.h>

#include "policy/hosts.h"
#include "policy/shell/shell_judge.h"

static const char *base_of(const char *s)
{
    const char *slash = strrchr(s, '/');
    return slash ? slash + 1 : s;
}

/* ---- known wrappers -------------------------------------------------------- */

enum after { A_CMD, A_ENV, A_DURATION, A_PRIO };

struct known {
    const char *name;
    const char *spec; /* sj_opt_kind spec: options taking an argument and what matters */
    enum after after;
};

/* Mirrors the option tables of shell_wrappers.c (which options take an
 * argument); the meaning of the ones that matter is this file's. */
static const struct known known[] = {
    {"env", "-u:D --unset:D -C:U --chdir:U -S:U --split-string:U", A_ENV},
    {"sudo",
     "-a:D -C:D -c:D -D:U -g:U -h:D -p:D -R:U -r:D -T:D -t:D -U:D -u:U -i:u -s:u --user:U "
     "--group:U --chdir:U --chroot:U --close-from:D --prompt:D --role:D --type:D --host:D "
     "--other-user:D --login-class:D --auth-type:D --command-timeout:D --login:u --shell:u",
     A_CMD},
    {"doas", "-u:U -C:D -s:u", A_CMD},
    {"nice", "-n:D --adjustment:D", A_CMD},
    {"nohup", "", A_CMD},
    {"timeout", "-s:D -k:D --signal:D --kill-after:D", A_DURATION},
    {"xargs",
     "-a:R -d:D -E:D -I:D -L:D -n:D -P:D -s:D --arg-file:R --delimiter:D --max-args:D "
     "--max-procs:D --max-chars:D --process-slot-var:D",
     A_CMD},
    {"command", "", A_CMD},
    {"exec", "-a:D", A_CMD},
    {"builtin", "", A_CMD},
    {"time", "-f:D -o:W --format:D --output:W", A_CMD},
    {"stdbuf", "-i:D -o:D -e:D --input:D --output:D --error:D", A_CMD},
    {"ionice", "-c:D -n:D -p:D -P:D -u:D --class:D --classdata:D --pid:D --pgid:D --uid:D", A_CMD},
    {"chrt", "-T:D -P:D -D:D --sched-runtime:D --sched-period:D --sched-deadline:D", A_PRIO},
    {"setsid", "", A_CMD},
};

static const struct known *find_known(const char *name)
{
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
        if (strcmp(known[k].name, name) == 0)
            return &known[k];
    return NULL;
}

static bool takes_arg(char kind)
{
    return kind && strchr("DRWUL", kind) != NULL;
}

/* One option word of a wrapper, read per spec. */
struct wopt {
    char kind;                   /* of the letter or name that takes an argument, else 'f' */
    const char *arg;             /* its argument, or NULL */
    const struct pd_sh_word *aw; /* the word holding it */
    char flag;                   /* 'u' or 'N' when such a flag was in the cluster */
};

/* Read the option word w[*i] (literal, starting with '-'); *i ends on the
 * last word it uses. A cluster ends at its first letter that takes an
 * argument: the rest of the word, or the next word. */
static struct wopt read_option(const char *spec, const struct pd_sh_word *w, size_t n, size_t *i)
{
    struct wopt o = {'f', NULL, NULL, 0};
    const char *t = w[*i].text;
    if (t[1] == '-' || sj_opt_single_long(spec, t)) {
        /* --name[=value], or a single-dash name of several letters (-ex) */
        const char *eq = strchr(t, '=');
        o.kind = sj_opt_kind(spec, t);
        if (o.kind == 'u' || o.kind == 'N')
            o.flag = o.kind;
        if (!takes_arg(o.kind))
            return o;
        if (eq) {
            o.arg = eq + 1;
            o.aw = &w[*i];
        } else if (*i + 1 < n) {
            o.aw = &w[++*i];
            o.arg = o.aw->text;
        }
        return o;
    }
    for (const char *c = t + 1; *c; c++) {
        char one[3] = {'-', *c, '\0'};
        char k = sj_opt_kind(spec, one);
        if (k == 'u' || k == 'N')
            o.flag = k;
        if (!takes_arg(k))
            continue;
        o.kind = k;
        if (c[1]) {
            o.arg = c + 1;
            o.aw = &w[*i];
        } else if (*i + 1 < n) {
            o.aw = &w[++*i];
            o.arg = o.aw->text;
        }
        break;
    }
    return o;
}

/* Judge one wrapper's options from w[*i]; *i ends at its first operand. */
static void known_options(struct sh_judge *j, const struct known *kw, const struct pd_sh_word *w,
                          size_t n, size_t *i, const char **mark)
{
    bool xargs = strcmp(kw->name, "xargs") == 0;
    for (; *i < n && !j->denied; (*i)++) {
        const char *t = w[*i].text;
        if (!sj_is_literal(&w[*i]) || t[0] != '-' || !t[1]) {
            if (strcmp(kw->name, "env") == 0 && strcmp(t, "-") == 0)
                continue;
            return;
        }
        if (strcmp(t, "--") == 0) {
            (*i)++;
            return;
        }
        if (strcmp(kw->name, "nice") == 0 && t[1] >= '0' && t[1] <= '9')
            continue; /* nice -10 */
        if (xargs && (t[1] == 'i' || strncmp(t, "--replace", 9) == 0)) {
            const char *eq = t[1] == 'i' ? (t[2] ? t + 2 : NULL) : strchr(t, '=');
            *mark = eq ? (t[1] == 'i' ? eq : eq + 1) : "{}";
            continue;
        }
        struct wopt o = read_option(kw->spec, w, n, i);
        if (o.flag == 'u')
            sj_unjudged(j, "`%s %s` runs the program as another user, elsewhere or through a shell",
                        kw->name, t);
        if (!o.arg)
            continue;
        if (xargs && (t[1] == 'I' || strncmp(t, "--repl", 6) == 0))
            *mark = o.arg;
        switch (o.kind) {
        case 'R':
            sj_read(j, o.aw, o.arg);
            break;
        case 'W':
            sj_write(j, PD_OP_WRITE, o.aw, o.arg);
            break;
        case 'U':
            sj_unjudged(j, "`%s %s` runs the program %s", kw->name, t,
                        strcmp(kw->name, "env") == 0 ? "in another directory or from a string"
                                                     : "as another user or elsewhere");
            break;
        default:
            sj_data(j, o.aw, o.arg, false);
        }
    }
}

void sj_wrappers(struct sh_judge *j, const struct pd_sh_cmd *cmd)
{
    const struct pd_sh_word *w = cmd->words;
    size_t prog = cmd->prog < cmd->nwords ? cmd->prog : cmd->nwords;
    const char *mark = NULL;
    bool xargs = false;
    for (size_t i = 0; i < prog && !j->denied;) {
        const char *name = base_of(w[i].text);
        const struct known *kw = find_known(name);
        if (!kw) {
            sj_unjudged(j, "cannot tell where the program of `%s` starts", w[i].text);
            return;
        }
        /* a wrapper is a program like any other: one that allow_binaries
         * does not name is a literal deny (the sandbox would refuse to
         * start it; better said now than after the call ran) */
        if (!(i == 0 && strcmp(w[i].text, "time") == 0) && !sj_is_builtin(w[i].text))
            sj_program_name(j, w[i].text);
        xargs |= strcmp(name, "xargs") == 0;
        i++;
        known_options(j, kw, w, prog, &i, &mark);
        if (kw->after == A_ENV)
            for (; i < prog && strchr(w[i].text, '='); i++)
                sj_assignment(j, &w[i], "env");
        else if (kw->after == A_DURATION && i < prog)
            sj_data(j, &w[i++], NULL, false);
        else if (kw->after == A_PRIO && i < prog && w[i].text[0] >= '0' && w[i].text[0] <= '9')
            i++;
    }
    if (xargs) {
        sj_unjudged(j, "xargs runs %s on names it reads at run time",
                    prog < cmd->nwords ? cmd->words[prog].text : "a program");
        j->runtime_mark = mark ? mark : "{}";
    }
}

/* xargs as the program itself: it runs echo on what it reads. */
void sj_xargs(struct sh_judge *j, const struct pd_sh_word *w, size_t n)
{
    size_t i = 1;
    const char *mark = NULL;
    known_options(j, find_known("xargs"), w, n, &i, &mark);
}

/* ---- unknown wrappers ----------------------------------------------------- */

#define UW_NOPROG 0x01u /* its program is not found (too many option forms) */
#define UW_USER   0x02u /* a user operand comes first unless -u/--user was given */
#define UW_STRING 0x04u /* the program may come as one string (watch, parallel) */
#define UW_SUB    0x08u /* a subcommand comes first (perf record) */
#define UW_ARGS   0x10u /* gdb: --args PROG */
#define UW_CREATE 0x20u /* its first operand is a file it creates (flock) */
#define UW_SG     0x40u /* sg GROUP [-c] COMMAND-STRING */

struct unknown {
    const char *name;
    const char *spec; /* D data, R read, W write, U unjudged, L a command string, N no program */
    unsigned npos;    /* operands before the program */
    unsigned flags;
};

static const struct unknown unknown[] = {
    {"taskset", "-p:N --pid:N", 1, 0},
    {"flock", "-w:D --wait:D --timeout:D -E:D --conflict-exit-code:D -c:L --command:L", 1,
     UW_CREATE},
    {"strace",
     "-o:W --output:W -e:D -E:D -I:D -O:D -p:N -P:R -s:D -S:D -u:D -X:D -a:D -b:D -U:D "
     "--trace:D --signal:D --status:D --env:D --user:D --trace-path:R",
     0, 0},
    {"ltrace", "-o:W --output:W -e:D -a:D -A:D -D:D -E:D -l:D -n:D -p:N -s:D -u:D -x:D -F:R -w:D",
     0, 0},
    {"chroot", "--userspec:D --groups:D", 1, 0},
    {"unshare",
     "-S:D --setuid:D -G:D --setgid:D -R:D --root:D -w:D --wd:D --propagation:D --map-user:D "
     "--map-group:D --map-users:D --map-groups:D --monotonic:D --boottime:D",
     0, 0},
    {"nsenter", "-t:D --target:D -S:D --setuid:D -G:D --setgid:D", 0, 0},
    {"setpriv",
     "--reuid:D --regid:D --ruid:D --rgid:D --euid:D --egid:D --groups:D --inh-caps:D "
     "--ambient-caps:D --bounding-set:D --securebits:D --selinux-label:D --apparmor-profile:D "
     "--landlock-access:D --landlock-rule:D --pdeathsig:D",
     0, 0},
    {"runuser",
     "-u:D --user:D -g:D --group:D -G:D --supp-group:D -c:L --command:L -s:D --shell:D -w:D "
     "--whitelist-environment:D",
     1, UW_USER},
    {"su",
     "-c:L --command:L -g:D --group:D -G:D --supp-group:D -s:D --shell:D -w:D "
     "--whitelist-environment:D",
     0, UW_NOPROG},
    {"script",
     "-c:L --command:L -E:D --echo:D -I:W --log-in:W -O:W --log-out:W -B:W --log-io:W -T:W "
     "--log-timing:W -m:D --logging-format:D",
     0, UW_NOPROG},
    {"watch", "-n:D --interval:D -q:D --equexit:D", 0, UW_STRING},
    {"parallel",
     "-a:R --arg-file:R -j:D --jobs:D -S:D --sshlogin:D -d:D --delimiter:D -E:D -I:D -n:D -N:D "
     "-P:D --max-procs:D --joblog:W --results:W --tmpdir:D --colsep:D --halt:D --timeout:D",
     0, UW_STRING},
    {"numactl",
     "-C:D --physcpubind:D -N:D --cpunodebind:D -m:D --membind:D -i:D --interleave:D -p:D "
     "--preferred:D -w:D -b:D -H:N --hardware:N -s:N --show:N",
     0, 0},
    {"prlimit", "-p:N --pid:N -o:D --output:D", 0, 0},
    {"cgexec", "-g:D", 0, 0},
    {"sg", "", 1, UW_SG},
    {"faketime", "--date-prog:U", 1, 0},
    {"fakeroot", "-l:U --lib:U --faked:U -s:W -i:R -b:D", 0, 0},
    {"proot",
     "-r:D --rootfs:D -b:D --bind:D -m:D --mount:D -w:D --pwd:D -q:U --qemu:U -k:D "
     "--kernel-release:D -i:D",
     0, 0},
    {"torsocks", "-u:D -p:D -a:D -P:D", 0, 0},
    {"tsocks", "", 0, 0},
    {"proxychains", "-f:R", 0, 0},
    {"proxychains4", "-f:R", 0, 0},
    {"xvfb-run",
     "-n:D --server-num:D -s:D --server-args:D -f:W --auth-file:W -e:W --error-file:W -p:D "
     "--xauth-protocol:D -w:D --wait:D",
     0, 0},
    {"dbus-run-session", "--config-file:R --dbus-daemon:U", 0, 0},
    {"valgrind", "--log-file:W --xml-file:W --log-socket:D", 0, 0},
    {"perf",
     "-o:W --output:W -e:D --event:D -p:N --pid:N -t:N --tid:N -u:D --uid:D -c:D --count:D -F:D "
     "--freq:D -m:D --mmap-pages:D -C:D --cpu:D -G:D --cgroup:D -j:D --branch-filter:D -k:D "
     "--clockid:D -D:D --delay:D -r:D --repeat:D -x:D --field-separator:D -I:D "
     "--interval-print:D -M:D --metrics:D -i:R --input:R",
     0, UW_SUB},
    {"gdb",
     "-ex:U -iex:U -x:U -ix:U -eval-command:U --eval-command:U --command:U -p:N --pid:N -cd:D "
     "--cd:D -d:D --directory:D -s:D --symbols:D -e:D --exec:D -se:D -c:D --core:D -b:D",
     0, UW_ARGS},
    {"ssh-agent", "-a:D -E:D -P:D -t:D", 0, 0},
    {"unbuffer", "", 0, 0},
    {"eatmydata", "", 0, 0},
    {"nocache", "", 0, 0},
    {"catchsegv", "", 0, 0},
    {"pkexec", "--user:D", 0, 0},
    {"entr", "", 0, UW_STRING},
    {"firejail", "", 0, UW_NOPROG},
    {"bwrap", "", 0, UW_NOPROG},
    {"systemd-run", "", 0, UW_NOPROG},
    {"busybox", "", 0, 0},
};

/* The first word of a command string ("make test" -> make), when plain. */
static void string_program(struct sh_judge *j, const struct pd_sh_word *w, const char *text)
{
    char name[256];
    size_t len = strcspn(text, " \t\n;&|<>()");
    if (!sj_is_literal(w) || len == 0 || len >= sizeof name ||
        strspn(text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/+-") < len)
        return;
    memcpy(name, text, len);
    name[len] = '\0';
    if (!strchr(name, '='))
        sj_program_name(j, name);
}

/* perf subcommands that run a program. */
static bool perf_runs(const char *sub)
{
    static const char *const subs[] = {"record", "stat", "trace", "mem", "c2c",
                                       "sched",  "lock", "kmem",  "kvm", NULL};
    for (size_t k = 0; subs[k]; k++)
        if (strcmp(subs[k], sub) == 0)
            return true;
    return false;
}

bool sj_unknown_wrapper(struct sh_judge *j, const struct pd_sh_word *w, size_t n)
{
    const char *name = base_of(w[0].text);
    const struct unknown *u = NULL;
    for (size_t k = 0; k < sizeof unknown / sizeof unknown[0]; k++)
        if (strcmp(unknown[k].name, name) == 0)
            u = &unknown[k];
    if (!u)
        return false;
    size_t i = 1;
    if (u->flags & UW_SUB) {
        if (n < 2 || !perf_runs(w[1].text))
            return false; /* perf report, perf list: the table's generic rule */
        i = 2;
    }
    if (strcmp(name, "busybox") == 0) {
        sj_unjudged(j, "busybox runs its applets, which are not followed statically");
        if (n > 1 && sj_is_literal(&w[1]) && w[1].text[0] != '-') {
            if (!j->c->policy->allow_network && !pd_hosts_enabled(j->c->policy) &&
                sj_network_program(w[1].text))
                sj_deny_msg(j, PD_REASON_NETWORK, "allow_network",
                            "busybox %s needs the network (allow_network = false)", w[1].text);
            else
                sj_dispatch(j, w + 1, n - 1);
        }
        return true;
    }
    bool norun = false, user_given = false;
    size_t pos = 0;
    for (; i < n && !j->denied; i++) {
        const char *t = w[i].text;
        if (!sj_is_literal(&w[i])) {
            if (t[0] == '-' || pos < u->npos)
                continue;
            break;
        }
        if (t[0] != '-' || !t[1]) {
            if (u->flags & UW_SG) {
                if (pos == 0) {
                    pos++;
                    continue;
                }
                if (strcmp(t, "-c") == 0)
                    continue;
            }
            if (pos == 0 && (u->flags & UW_CREATE))
                sj_write(j, PD_OP_CREATE, &w[i], NULL);
            size_t need = u->npos;
            if ((u->flags & UW_USER) && user_given)
                need = 0;
            if (pos < need) {
                pos++;
                continue;
            }
            break;
        }
        if (strcmp(t, "--") == 0) {
            i++;
            break;
        }
        if ((u->flags & UW_ARGS) && strcmp(t, "--args") == 0) {
            i++;
            break;
        }
        if (strcmp(t, "-u") == 0 || strncmp(t, "--user", 6) == 0)
            user_given = true;
        struct wopt o = read_option(u->spec, w, n, &i);
        if (o.flag == 'N')
            norun = true;
        if (!o.arg)
            continue;
        if (o.kind == 'R')
            sj_read(j, o.aw, o.arg);
        else if (o.kind == 'W')
            sj_write(j, PD_OP_WRITE, o.aw, o.arg);
        else if (o.kind == 'L')
            string_program(j, o.aw, o.arg);
    }
    if (i < n && !norun && !(u->flags & UW_NOPROG)) {
        sj_unjudged(j, "%s runs %s, which is not followed statically", name, w[i].text);
        if ((u->flags & (UW_STRING | UW_SG)) && strpbrk(w[i].text, " \t\n"))
            string_program(j, &w[i], w[i].text);
        else if (u->flags & UW_SG)
            string_program(j, &w[i], w[i].text);
        else {
            sj_program(j, &w[i]);
            sj_dispatch(j, w + i, n - i);
        }
    } else {
        sj_unjudged(j, "%s runs programs or acts on processes in ways not followed statically",
                    name);
    }
    return true;
}
